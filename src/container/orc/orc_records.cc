#include "container/orc/orc_records.h"

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/memory.h>

#include "common/arrow_status.h"
#include "container/avro/avro_schema.h"
#include "container/orc/orc_read_pool.h"

namespace freshet::container {

using avro::AvroNode;
using avro::AvroSchema;
using avro::AvroValue;

bool LooksLikeOrc(std::string_view content) { return content.substr(0, 3) == "ORC"; }

namespace {

// An Avro schema mirroring the Arrow schema, so converted rows can be looked up by field name.
Result<std::string> AvroTypeJson(const arrow::DataType& type, const std::string& record_name) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return std::string(R"("boolean")");
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return std::string(R"("int")");
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return std::string(R"("long")");
    case arrow::Type::FLOAT:
      return std::string(R"("float")");
    case arrow::Type::DOUBLE:
      return std::string(R"("double")");
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return std::string(R"("string")");
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return std::string(R"("bytes")");
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListType&>(type);
      FRESHET_ASSIGN_OR_RETURN(std::string items,
                               AvroTypeJson(*list.value_type(), record_name + "_item"));
      return R"({"type":"array","items":["null",)" + items + "]}";
    }
    case arrow::Type::STRUCT: {
      std::string out = R"({"type":"record","name":")" + record_name + R"(","fields":[)";
      for (int i = 0; i < type.num_fields(); ++i) {
        const auto& field = type.field(i);
        FRESHET_ASSIGN_OR_RETURN(std::string child,
                                 AvroTypeJson(*field->type(), record_name + "_" + field->name()));
        out += (i ? "," : "") + std::string(R"({"name":")") + field->name() +
               R"(","type":["null",)" + child + "]}";
      }
      return out + "]}";
    }
    default:
      return Status::NotImplemented("ORC column type ", type.ToString(), " is not supported");
  }
}

const AvroNode& NonNullBranch(const AvroNode& node) {
  return node.type == avro::AvroType::kUnion ? *node.branches[1] : node;
}

int64_t TimestampToMillis(const arrow::TimestampArray& array, int64_t i) {
  const auto& type = static_cast<const arrow::TimestampType&>(*array.type());
  int64_t v = array.Value(i);
  switch (type.unit()) {
    case arrow::TimeUnit::SECOND:
      return v * 1000;
    case arrow::TimeUnit::MILLI:
      return v;
    case arrow::TimeUnit::MICRO:
      return v >= 0 ? v / 1000 : -((-v + 999) / 1000);
    case arrow::TimeUnit::NANO:
      return v >= 0 ? v / 1000000 : -((-v + 999999) / 1000000);
  }
  return v;
}

// Converts element `i` of `array` to a value of the (nullable union) schema `node`.
AvroValue Convert(const AvroSchema& schema, const AvroNode& node, const arrow::Array& array,
                  int64_t i) {
  if (array.IsNull(i)) return AvroValue::Union(0, AvroValue::Null());
  const AvroNode& target = NonNullBranch(node);
  AvroValue value;
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      value = AvroValue::Boolean(static_cast<const arrow::BooleanArray&>(array).Value(i));
      break;
    case arrow::Type::INT8:
      value = AvroValue::Int(static_cast<const arrow::Int8Array&>(array).Value(i));
      break;
    case arrow::Type::INT16:
      value = AvroValue::Int(static_cast<const arrow::Int16Array&>(array).Value(i));
      break;
    case arrow::Type::INT32:
      value = AvroValue::Int(static_cast<const arrow::Int32Array&>(array).Value(i));
      break;
    case arrow::Type::DATE32:
      value = AvroValue::Int(static_cast<const arrow::Date32Array&>(array).Value(i));
      break;
    case arrow::Type::INT64:
      value = AvroValue::Long(static_cast<const arrow::Int64Array&>(array).Value(i));
      break;
    case arrow::Type::TIMESTAMP:
      value =
          AvroValue::Long(TimestampToMillis(static_cast<const arrow::TimestampArray&>(array), i));
      break;
    case arrow::Type::FLOAT:
      value = AvroValue::Float(static_cast<const arrow::FloatArray&>(array).Value(i));
      break;
    case arrow::Type::DOUBLE:
      value = AvroValue::Double(static_cast<const arrow::DoubleArray&>(array).Value(i));
      break;
    case arrow::Type::STRING:
      value = AvroValue::String(static_cast<const arrow::StringArray&>(array).GetString(i));
      break;
    case arrow::Type::LARGE_STRING:
      value = AvroValue::String(static_cast<const arrow::LargeStringArray&>(array).GetString(i));
      break;
    case arrow::Type::BINARY:
      value = AvroValue::Bytes(static_cast<const arrow::BinaryArray&>(array).GetString(i));
      break;
    case arrow::Type::LARGE_BINARY:
      value = AvroValue::Bytes(static_cast<const arrow::LargeBinaryArray&>(array).GetString(i));
      break;
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      std::vector<AvroValue> items;
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        items.push_back(Convert(schema, *target.items, *list.values(), j));
      }
      value = AvroValue::Array(std::move(items));
      break;
    }
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(array);
      std::vector<AvroValue> fields;
      for (int f = 0; f < s.num_fields(); ++f) {
        fields.push_back(Convert(schema, *target.fields[f].type, *s.field(f), i));
      }
      value = AvroValue::Record(schema.Share(target), std::move(fields));
      break;
    }
    default:
      break;  // unreachable: AvroTypeJson rejected the type
  }
  return AvroValue::Union(1, std::move(value));
}

}  // namespace

Result<std::vector<AvroValue>> ReadOrcRecords(std::string content, std::string_view source) {
  auto buffer = std::make_shared<arrow::Buffer>(reinterpret_cast<const uint8_t*>(content.data()),
                                                static_cast<int64_t>(content.size()));
  auto input = std::make_shared<arrow::io::BufferReader>(buffer);
  auto context = [&](const arrow::Status& st) {
    return FromArrowStatus(st).WithContext("cannot read ORC file '" + std::string(source) + "'");
  };
  arrow::Result<std::shared_ptr<arrow::Table>> table_result;
  try {  // see container/orc/orc_read_pool.h
    auto reader_result = arrow::adapters::orc::ORCFileReader::Open(input, OrcReadPool());
    if (!reader_result.ok()) return context(reader_result.status());
    table_result = (*reader_result)->Read();
  } catch (const std::exception& e) {
    return context(arrow::Status::IOError(e.what()));
  }
  if (!table_result.ok()) return context(table_result.status());
  auto batch_result = (*table_result)->CombineChunksToBatch();
  if (!batch_result.ok()) return context(batch_result.status());
  std::shared_ptr<arrow::RecordBatch> batch = *batch_result;

  auto struct_type = arrow::struct_(batch->schema()->fields());
  FRESHET_ASSIGN_OR_RETURN(std::string json, AvroTypeJson(*struct_type, "record"));
  FRESHET_ASSIGN_OR_RETURN(AvroSchema schema, AvroSchema::Parse(json));
  auto rows_result = batch->ToStructArray();
  if (!rows_result.ok()) return context(rows_result.status());
  const arrow::Array& rows = **rows_result;
  // Wrap the root in a nullable union so Convert can treat every level alike.
  std::vector<AvroValue> records;
  records.reserve(static_cast<size_t>(rows.length()));
  for (int64_t i = 0; i < rows.length(); ++i) {
    std::vector<AvroValue> fields;
    const auto& s = static_cast<const arrow::StructArray&>(rows);
    for (int f = 0; f < s.num_fields(); ++f) {
      fields.push_back(Convert(schema, *schema.root().fields[f].type, *s.field(f), i));
    }
    records.push_back(AvroValue::Record(schema.root_ptr(), std::move(fields)));
  }
  return records;
}

}  // namespace freshet::container
