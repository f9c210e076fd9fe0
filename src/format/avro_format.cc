// Avro data files, through the project's Avro container module, in Java Paimon's conventions:
// record `org.apache.paimon.avro.generated.record`, a nested row named after its parent and its
// field (`record_<field>`, `record_<field>_<field>`, ...: unique at any depth), nullable types
// as ["null", T] with default null, TINYINT/SMALLINT/INT/DATE/TIME as int, DECIMAL as bytes with
// the decimal logical type, TIMESTAMP as timestamp-millis/-micros, TIMESTAMP_LTZ as
// local-timestamp-millis/-micros, MAP with string keys as an Avro map and other maps as an array
// of {key, value} records. Avro files carry no field ids, so columns are matched by name.
#include <arrow/api.h>

#include <nlohmann/json.hpp>

#include "bridge/arrow_value.h"
#include "common/arrow_status.h"
#include "container/avro/avro_file.h"
#include "format/format_internal.h"
#include "io/file_io.h"

namespace freshet::format::internal {
namespace {

using container::avro::AvroNode;
using container::avro::AvroSchema;
using container::avro::AvroType;
using container::avro::AvroValue;
using meta::DataType;
using meta::TypeRoot;
using Json = nlohmann::ordered_json;

Result<Json> AvroTypeJson(const DataType& type, const std::string& row_name);

Result<Json> NullableJson(const DataType& type, const std::string& row_name) {
  FRESHET_ASSIGN_OR_RETURN(Json inner, AvroTypeJson(type, row_name));
  if (!type.nullable()) return inner;
  return Json::array({"null", inner});
}

Result<Json> RecordJson(const std::vector<meta::DataField>& fields, const std::string& name) {
  Json out_fields = Json::array();
  for (const auto& field : fields) {
    Json json = {{"name", field.name}};
    FRESHET_ASSIGN_OR_RETURN(json["type"], NullableJson(*field.type, name + "_" + field.name));
    if (field.type->nullable()) json["default"] = nullptr;
    out_fields.push_back(std::move(json));
  }
  return Json{{"type", "record"}, {"name", name}, {"fields", out_fields}};
}

Json Logical(const char* base, const char* logical) {
  return Json{{"type", base}, {"logicalType", logical}};
}

Result<Json> AvroTypeJson(const DataType& type, const std::string& row_name) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Json("boolean");
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
      return Json("int");
    case TypeRoot::kBigInt:
      return Json("long");
    case TypeRoot::kFloat:
      return Json("float");
    case TypeRoot::kDouble:
      return Json("double");
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Json("string");
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return Json("bytes");
    case TypeRoot::kDate:
      return Logical("int", "date");
    case TypeRoot::kTime:
      return Logical("int", "time-millis");
    case TypeRoot::kDecimal: {
      Json json = Logical("bytes", "decimal");
      json["precision"] = type.precision();
      json["scale"] = type.scale();
      return json;
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (type.precision() > 6) {
        return Status::NotImplemented("Avro data files cannot hold ", type.ToString(),
                                      " (Java rejects precision > 6 too)");
      }
      bool ltz = type.root() == TypeRoot::kTimestampLtz;
      const char* unit = type.precision() <= 3 ? "millis" : "micros";
      std::string logical = std::string(ltz ? "local-timestamp-" : "timestamp-") + unit;
      return Json{{"type", "long"}, {"logicalType", logical}};
    }
    case TypeRoot::kArray: {
      FRESHET_ASSIGN_OR_RETURN(Json items, NullableJson(*type.element_type(), row_name));
      return Json{{"type", "array"}, {"items", items}};
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      auto value_type =
          type.root() == TypeRoot::kMultiset ? DataType::Int(false) : type.value_type();
      if (type.key_type()->IsStringLike()) {
        FRESHET_ASSIGN_OR_RETURN(Json values, NullableJson(*value_type, row_name));
        return Json{{"type", "map"}, {"values", values}};
      }
      std::vector<meta::DataField> entry = {
          {0, "key", type.key_type()->WithNullable(false), std::nullopt, std::nullopt},
          {1, "value", value_type, std::nullopt, std::nullopt}};
      // The entry record takes the map's name; its key and value `<name>_key`, `<name>_value`.
      FRESHET_ASSIGN_OR_RETURN(Json record, RecordJson(entry, row_name));
      return Json{{"type", "array"}, {"items", record}};
    }
    case TypeRoot::kRow:
      return RecordJson(type.fields(), row_name);
    default:
      break;
  }
  return Status::NotImplemented("type ", type.ToString(), " in Avro data files");
}

// The schema node of a value: the non-null branch of a nullable union.
const AvroNode& ValueNode(const AvroNode& node) {
  if (node.type != AvroType::kUnion) return node;
  for (const AvroNode* branch : node.branches) {
    if (branch->type != AvroType::kNull) return *branch;
  }
  return node;
}

class AvroEncoder {
 public:
  explicit AvroEncoder(const AvroSchema& schema) : schema_(schema) {}

  Result<AvroValue> Encode(const arrow::Array& array, int64_t row, const DataType& type,
                           const AvroNode& node) const {
    if (array.IsNull(row)) return node.type == AvroType::kUnion ? Union(node, true, {}) : Null();
    FRESHET_ASSIGN_OR_RETURN(AvroValue value, EncodeValue(array, row, type, ValueNode(node)));
    return node.type == AvroType::kUnion ? Union(node, false, std::move(value)) : value;
  }

 private:
  static Result<AvroValue> Null() { return AvroValue::Null(); }
  static AvroValue Union(const AvroNode& node, bool null, AvroValue value) {
    int null_branch = node.NullBranch();
    return AvroValue::Union(null ? null_branch : 1 - null_branch, std::move(value));
  }

  Result<AvroValue> EncodeValue(const arrow::Array& array, int64_t row, const DataType& type,
                                const AvroNode& node) const {
    switch (type.root()) {
      case TypeRoot::kArray: {
        const auto& list = static_cast<const arrow::ListArray&>(array);
        std::vector<AvroValue> items;
        for (int64_t i = list.value_offset(row); i < list.value_offset(row + 1); ++i) {
          FRESHET_ASSIGN_OR_RETURN(auto item,
                                   Encode(*list.values(), i, *type.element_type(), *node.items));
          items.push_back(std::move(item));
        }
        return AvroValue::Array(std::move(items));
      }
      case TypeRoot::kMap:
      case TypeRoot::kMultiset:
        return EncodeMap(static_cast<const arrow::MapArray&>(array), row, type, node);
      case TypeRoot::kRow: {
        const auto& row_array = static_cast<const arrow::StructArray&>(array);
        std::vector<AvroValue> fields;
        for (size_t i = 0; i < type.fields().size(); ++i) {
          FRESHET_ASSIGN_OR_RETURN(
              auto field, Encode(*row_array.field(static_cast<int>(i)), row, *type.fields()[i].type,
                                 *node.fields[i].type));
          fields.push_back(std::move(field));
        }
        return AvroValue::Record(schema_.Share(node), std::move(fields));
      }
      default:
        return EncodePrimitive(array, row, type);
    }
  }

  Result<AvroValue> EncodeMap(const arrow::MapArray& map, int64_t row, const DataType& type,
                              const AvroNode& node) const {
    auto value_type = type.root() == TypeRoot::kMultiset ? DataType::Int(false) : type.value_type();
    auto key_type = type.key_type()->WithNullable(false);
    std::vector<std::string> keys;
    std::vector<AvroValue> values;
    for (int64_t i = map.value_offset(row); i < map.value_offset(row + 1); ++i) {
      if (node.type == AvroType::kMap) {
        FRESHET_ASSIGN_OR_RETURN(auto key, bridge::ArrowValueAt(*map.keys(), i, *key_type));
        keys.push_back(*key.get_if<std::string>());
        FRESHET_ASSIGN_OR_RETURN(auto value, Encode(*map.items(), i, *value_type, *node.items));
        values.push_back(std::move(value));
        continue;
      }
      const AvroNode& entry = ValueNode(*node.items);
      FRESHET_ASSIGN_OR_RETURN(auto key, Encode(*map.keys(), i, *key_type, *entry.fields[0].type));
      FRESHET_ASSIGN_OR_RETURN(auto value,
                               Encode(*map.items(), i, *value_type, *entry.fields[1].type));
      values.push_back(AvroValue::Record(schema_.Share(entry), {std::move(key), std::move(value)}));
    }
    if (node.type == AvroType::kMap) return AvroValue::Map(std::move(keys), std::move(values));
    return AvroValue::Array(std::move(values));
  }

  static Result<AvroValue> EncodePrimitive(const arrow::Array& array, int64_t row,
                                           const DataType& type) {
    FRESHET_ASSIGN_OR_RETURN(meta::Value value, bridge::ArrowValueAt(array, row, type));
    return std::visit(
        [&](const auto& v) -> Result<AvroValue> {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>) {
            return AvroValue::Boolean(v);
          } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> ||
                               std::is_same_v<T, int32_t>) {
            return AvroValue::Int(v);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            return AvroValue::Long(v);
          } else if constexpr (std::is_same_v<T, float>) {
            return AvroValue::Float(v);
          } else if constexpr (std::is_same_v<T, double>) {
            return AvroValue::Double(v);
          } else if constexpr (std::is_same_v<T, meta::Decimal>) {
            return AvroValue::Bytes(v.ToBigEndianBytes());
          } else if constexpr (std::is_same_v<T, std::string>) {
            return type.IsStringLike() ? AvroValue::String(v) : AvroValue::Bytes(v);
          } else if constexpr (std::is_same_v<T, meta::Timestamp>) {
            if (type.precision() <= 3) return AvroValue::Long(v.millis);
            return AvroValue::Long(v.millis * 1000 + v.nano_of_milli / 1000);
          } else {
            return Status::Internal("unexpected null value");
          }
        },
        value.storage());
  }

  const AvroSchema& schema_;
};

class AvroFormatWriter : public FormatWriter {
 public:
  static Result<std::unique_ptr<FormatWriter>> Make(WriterParts parts,
                                                    const FormatWriterOptions& options) {
    FRESHET_ASSIGN_OR_RETURN(Json json, RecordJson(parts.schema, "record"));
    json["namespace"] = "org.apache.paimon.avro.generated";
    FRESHET_ASSIGN_OR_RETURN(auto schema, AvroSchema::Parse(json.dump()));
    container::avro::AvroWriterOptions writer_options;
    FRESHET_ASSIGN_OR_RETURN(writer_options.codec, CodecOf(options.compression));
    if (writer_options.codec == container::avro::AvroCodec::kZstandard) {
      writer_options.compression_level = options.zstd_level;
    }
    auto writer = std::unique_ptr<AvroFormatWriter>(new AvroFormatWriter(std::move(parts)));
    FRESHET_ASSIGN_OR_RETURN(writer->writer_, container::avro::AvroFileWriter::Make(
                                                  schema, writer_options, writer->out()));
    return std::unique_ptr<FormatWriter>(std::move(writer));
  }

 protected:
  Status WriteBatch(const arrow::RecordBatch& batch) override {
    const AvroSchema& schema = writer_->schema();
    AvroEncoder encoder(schema);
    const auto& fields = schema.root().fields;
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::vector<AvroValue> values;
      for (int i = 0; i < batch.num_columns(); ++i) {
        FRESHET_ASSIGN_OR_RETURN(
            auto value,
            encoder.Encode(*batch.column(i), row, *this->schema()[i].type, *fields[i].type));
        values.push_back(std::move(value));
      }
      FRESHET_RETURN_NOT_OK(
          writer_->Append(AvroValue::Record(schema.root_ptr(), std::move(values))));
    }
    return Status::OK();
  }
  int64_t BufferedBytes() const override {
    return writer_->bytes_written() - out()->Position() + kBlockEstimate;
  }
  Status CloseFormat() override { return writer_->Finish().status(); }

 private:
  // The open block is at most one sync interval (64 KB uncompressed).
  static constexpr int64_t kBlockEstimate = 64000;

  static Result<container::avro::AvroCodec> CodecOf(const std::string& compression) {
    if (compression == "zstd") return container::avro::AvroCodec::kZstandard;
    if (compression == "snappy") return container::avro::AvroCodec::kSnappy;
    if (compression == "gzip" || compression == "deflate" || compression == "zlib") {
      return container::avro::AvroCodec::kDeflate;
    }
    if (compression == "none" || compression == "uncompressed")
      return container::avro::AvroCodec::kNull;
    return Status::NotImplemented("Avro data files with compression '", compression, "'");
  }

  explicit AvroFormatWriter(WriterParts parts)
      : FormatWriter(std::move(parts.out), std::move(parts.schema), std::move(parts.arrow_schema),
                     std::move(parts.stats)) {}

  std::unique_ptr<container::avro::AvroFileWriter> writer_;
};

// --- Reading: Avro schema -> Arrow types, Avro values -> Arrow builders. ---

Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const AvroNode& node);

Result<std::shared_ptr<arrow::Field>> ArrowFieldOf(const std::string& name, const AvroNode& node) {
  FRESHET_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(ValueNode(node)));
  return arrow::field(name, type, node.type == AvroType::kUnion);
}

bool IsKeyValueRecord(const AvroNode& node) {
  return node.type == AvroType::kRecord && node.fields.size() == 2 &&
         node.fields[0].name == "key" && node.fields[1].name == "value";
}

Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const AvroNode& node) {
  const std::string& logical = node.logical_type;
  switch (node.type) {
    case AvroType::kBoolean:
      return arrow::boolean();
    case AvroType::kInt:
      if (logical == "date") return arrow::date32();
      if (logical == "time-millis") return arrow::time32(arrow::TimeUnit::MILLI);
      return arrow::int32();
    case AvroType::kLong:
      if (logical == "timestamp-millis") return arrow::timestamp(arrow::TimeUnit::MILLI);
      if (logical == "timestamp-micros") return arrow::timestamp(arrow::TimeUnit::MICRO);
      if (logical == "local-timestamp-millis") {
        return arrow::timestamp(arrow::TimeUnit::MILLI, "UTC");
      }
      if (logical == "local-timestamp-micros") {
        return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
      }
      return arrow::int64();
    case AvroType::kFloat:
      return arrow::float32();
    case AvroType::kDouble:
      return arrow::float64();
    case AvroType::kString:
      return arrow::utf8();
    case AvroType::kBytes:
    case AvroType::kFixed:
      if (logical == "decimal" && node.precision) {
        return arrow::decimal128(*node.precision, node.scale.value_or(0));
      }
      return arrow::binary();
    case AvroType::kArray: {
      const AvroNode& items = ValueNode(*node.items);
      if (IsKeyValueRecord(items)) {
        FRESHET_ASSIGN_OR_RETURN(auto key, ArrowFieldOf("key", *items.fields[0].type));
        FRESHET_ASSIGN_OR_RETURN(auto value, ArrowFieldOf("value", *items.fields[1].type));
        return std::shared_ptr<arrow::DataType>(
            std::make_shared<arrow::MapType>(key->WithNullable(false), value));
      }
      FRESHET_ASSIGN_OR_RETURN(auto element, ArrowFieldOf("element", *node.items));
      return arrow::list(element);
    }
    case AvroType::kMap: {
      FRESHET_ASSIGN_OR_RETURN(auto value, ArrowFieldOf("value", *node.items));
      return std::shared_ptr<arrow::DataType>(
          std::make_shared<arrow::MapType>(arrow::field("key", arrow::utf8(), false), value));
    }
    case AvroType::kRecord: {
      arrow::FieldVector fields;
      for (const auto& field : node.fields) {
        FRESHET_ASSIGN_OR_RETURN(auto arrow_field, ArrowFieldOf(field.name, *field.type));
        fields.push_back(std::move(arrow_field));
      }
      return arrow::struct_(fields);
    }
    default:
      break;
  }
  return Status::NotImplemented("Avro type ", container::avro::AvroTypeName(node.type),
                                " in a data file");
}

Status Append(arrow::ArrayBuilder* builder, const AvroValue& value);

Status AppendPrimitive(arrow::ArrayBuilder* builder, const AvroValue& v) {
  arrow::Status st;
  switch (builder->type()->id()) {
    case arrow::Type::BOOL:
      st = static_cast<arrow::BooleanBuilder*>(builder)->Append(v.bool_value());
      break;
    case arrow::Type::INT32:
      st = static_cast<arrow::Int32Builder*>(builder)->Append(v.int_value());
      break;
    case arrow::Type::DATE32:
      st = static_cast<arrow::Date32Builder*>(builder)->Append(v.int_value());
      break;
    case arrow::Type::TIME32:
      st = static_cast<arrow::Time32Builder*>(builder)->Append(v.int_value());
      break;
    case arrow::Type::INT64:
      st = static_cast<arrow::Int64Builder*>(builder)->Append(v.long_value());
      break;
    case arrow::Type::TIMESTAMP:
      st = static_cast<arrow::TimestampBuilder*>(builder)->Append(v.long_value());
      break;
    case arrow::Type::FLOAT:
      st = static_cast<arrow::FloatBuilder*>(builder)->Append(v.float_value());
      break;
    case arrow::Type::DOUBLE:
      st = static_cast<arrow::DoubleBuilder*>(builder)->Append(v.double_value());
      break;
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      st = static_cast<arrow::BinaryBuilder*>(builder)->Append(v.string_value());
      break;
    case arrow::Type::DECIMAL128: {
      FRESHET_ASSIGN_OR_RETURN(__int128 unscaled,
                               meta::Decimal::UnscaledFromBigEndianBytes(v.string_value()));
      arrow::Decimal128 decimal(
          static_cast<int64_t>(static_cast<unsigned __int128>(unscaled) >> 64),
          static_cast<uint64_t>(unscaled));
      st = static_cast<arrow::Decimal128Builder*>(builder)->Append(decimal);
      break;
    }
    default:
      return Status::Internal("Avro reader: unexpected Arrow type ", builder->type()->ToString());
  }
  return FromArrowStatus(st);
}

Status AppendMap(arrow::MapBuilder* builder, const AvroValue& v) {
  FRESHET_RETURN_NOT_OK_ARROW(builder->Append());
  if (v.type() == AvroType::kMap) {
    for (size_t i = 0; i < v.items().size(); ++i) {
      FRESHET_RETURN_NOT_OK(Append(builder->key_builder(), AvroValue::String(v.map_keys()[i])));
      FRESHET_RETURN_NOT_OK(Append(builder->item_builder(), v.items()[i]));
    }
    return Status::OK();
  }
  for (const auto& entry : v.items()) {
    const AvroValue& record = entry.Unwrapped();
    FRESHET_RETURN_NOT_OK(Append(builder->key_builder(), record.fields()[0]));
    FRESHET_RETURN_NOT_OK(Append(builder->item_builder(), record.fields()[1]));
  }
  return Status::OK();
}

Status Append(arrow::ArrayBuilder* builder, const AvroValue& value) {
  const AvroValue& v = value.Unwrapped();
  if (v.type() == AvroType::kNull) return FromArrowStatus(builder->AppendNull());
  switch (builder->type()->id()) {
    case arrow::Type::LIST: {
      auto* list = static_cast<arrow::ListBuilder*>(builder);
      FRESHET_RETURN_NOT_OK_ARROW(list->Append());
      for (const auto& item : v.items()) FRESHET_RETURN_NOT_OK(Append(list->value_builder(), item));
      return Status::OK();
    }
    case arrow::Type::MAP:
      return AppendMap(static_cast<arrow::MapBuilder*>(builder), v);
    case arrow::Type::STRUCT: {
      auto* row = static_cast<arrow::StructBuilder*>(builder);
      FRESHET_RETURN_NOT_OK_ARROW(row->Append());
      for (int i = 0; i < row->num_fields(); ++i) {
        FRESHET_RETURN_NOT_OK(Append(row->field_builder(i), v.fields()[i]));
      }
      return Status::OK();
    }
    default:
      return AppendPrimitive(builder, v);
  }
}

class AvroPhysicalReader : public PhysicalReader {
 public:
  static Result<std::unique_ptr<PhysicalReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size) {
    auto reader = std::make_unique<AvroPhysicalReader>();
    FRESHET_ASSIGN_OR_RETURN(reader->content_, file->ReadAt(0, size));
    if (static_cast<int64_t>(reader->content_.size()) != size) {
      return Status::Corruption("file is shorter than its size ", size, " (truncated?)");
    }
    FRESHET_ASSIGN_OR_RETURN(reader->reader_,
                             container::avro::AvroFileReader::Open(reader->content_, file->path()));
    // Java Paimon up to 1.0 wrote rows as the union ["null", record]; later versions a record.
    const AvroNode* row = &reader->reader_->schema().root();
    if (row->type == AvroType::kUnion && row->branches.size() == 2 && row->NullBranch() >= 0) {
      row = row->branches[1 - row->NullBranch()];
    }
    if (row->type != AvroType::kRecord) {
      return Status::Corruption(
          "the Avro schema of a data file must be a record (or a union of null and a record)");
    }
    FRESHET_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*row));
    reader->schema_ = arrow::schema(type->fields());
    // The row count is in the block headers only: count once by decoding (files are small).
    FRESHET_ASSIGN_OR_RETURN(reader->records_, reader->reader_->ReadAll());
    for (const AvroValue& record : reader->records_) {
      if (record.is_null()) return Status::Corruption("a row of the data file is null");
    }
    return std::unique_ptr<PhysicalReader>(std::move(reader));
  }

  const std::shared_ptr<arrow::Schema>& schema() const override { return schema_; }
  int64_t num_rows() const override { return static_cast<int64_t>(records_.size()); }

  Status Select(const std::vector<int>& fields, int64_t batch_size,
                bool /*parallel_decode*/) override {
    selected_ = fields;
    batch_size_ = batch_size;
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    int64_t rows = std::min<int64_t>(batch_size_, num_rows() - next_);
    if (rows <= 0) return std::shared_ptr<arrow::RecordBatch>();
    arrow::FieldVector fields;
    arrow::ArrayVector columns;
    for (int field : selected_) {
      fields.push_back(schema_->field(field));
      FRESHET_ASSIGN_OR_RETURN_ARROW(auto builder,
                                     arrow::MakeBuilder(schema_->field(field)->type()));
      for (int64_t r = next_; r < next_ + rows; ++r) {
        FRESHET_RETURN_NOT_OK(Append(builder.get(), records_[r].fields()[field]));
      }
      std::shared_ptr<arrow::Array> column;
      FRESHET_RETURN_NOT_OK_ARROW(builder->Finish(&column));
      columns.push_back(std::move(column));
    }
    next_ += rows;
    return arrow::RecordBatch::Make(arrow::schema(fields), rows, columns);
  }

 private:
  std::string content_;
  std::unique_ptr<container::avro::AvroFileReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<AvroValue> records_;
  std::vector<int> selected_;
  int64_t batch_size_ = 1024;
  int64_t next_ = 0;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> MakeAvroWriter(WriterParts parts,
                                                     const FormatWriterOptions& options) {
  return AvroFormatWriter::Make(std::move(parts), options);
}

Result<std::unique_ptr<PhysicalReader>> OpenAvroReader(std::shared_ptr<io::RandomAccessFile> file,
                                                       int64_t size) {
  return AvroPhysicalReader::Open(std::move(file), size);
}

}  // namespace freshet::format::internal
