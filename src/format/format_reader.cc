#include "format/format_reader.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/cast.h>

#include <algorithm>
#include <optional>

#include "bridge/arrow_schema.h"
#include "common/arrow_status.h"
#include "format/format_internal.h"
#include "format/format_writer.h"
#include "io/file_io.h"

namespace freshet::format {

namespace {

// The field id of a file column: its own, else (a file without ids) the id of the field of that
// name in the schema the file was written with, when known.
std::optional<int32_t> ColumnId(const arrow::Field& column,
                                const std::vector<meta::DataField>& file_schema) {
  if (auto id = bridge::FieldIdOf(column)) return id;
  int index = meta::FindFieldByName(file_schema, column.name());
  if (index < 0) return std::nullopt;
  return file_schema[static_cast<size_t>(index)].id;
}

// Index of the child of `fields` that `target` reads from: by id when the file has ids (or its
// writer schema gives them), else by name. -1 when the file has no such column.
int FindSource(const arrow::FieldVector& fields, const meta::DataField& target,
               const std::vector<meta::DataField>& file_schema) {
  bool has_ids = !file_schema.empty() ||
                 std::any_of(fields.begin(), fields.end(),
                             [](const auto& f) { return bridge::FieldIdOf(*f).has_value(); });
  for (size_t i = 0; i < fields.size(); ++i) {
    if (has_ids ? ColumnId(*fields[i], file_schema) == target.id
                : fields[i]->name() == target.name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

Result<std::shared_ptr<arrow::Array>> ConformArray(const std::shared_ptr<arrow::Array>& array,
                                                   const std::shared_ptr<arrow::DataType>& target,
                                                   const meta::DataType& type);

// The same array with offset 0, so that its buffers can be reused under a new type.
Result<std::shared_ptr<arrow::Array>> Compact(const std::shared_ptr<arrow::Array>& array) {
  if (array->offset() == 0) return array;
  return FromArrowResult(arrow::Concatenate({array}));
}

Status TypeMismatch(const arrow::Array& array, const meta::DataType& type) {
  return Status::Invalid("cannot read a column of file type ", array.type()->ToString(), " as ",
                         type.ToString());
}

Result<std::shared_ptr<arrow::Array>> ConformStruct(const std::shared_ptr<arrow::Array>& array,
                                                    const std::shared_ptr<arrow::DataType>& target,
                                                    const meta::DataType& type) {
  if (array->type_id() != arrow::Type::STRUCT) return TypeMismatch(*array, type);
  FRESHET_ASSIGN_OR_RETURN(auto compact, Compact(array));
  const auto& file_struct = static_cast<const arrow::StructArray&>(*compact);
  std::vector<std::shared_ptr<arrow::ArrayData>> children;
  for (int i = 0; i < target->num_fields(); ++i) {
    const auto& field = type.fields()[i];
    const auto& child_type = target->field(i)->type();
    int source = FindSource(file_struct.struct_type()->fields(), field, {});
    std::shared_ptr<arrow::Array> child;
    if (source < 0) {
      FRESHET_ASSIGN_OR_RETURN_ARROW(child, arrow::MakeArrayOfNull(child_type, compact->length()));
    } else {
      FRESHET_ASSIGN_OR_RETURN(child,
                               ConformArray(file_struct.field(source), child_type, *field.type));
    }
    children.push_back(child->data());
  }
  return arrow::MakeArray(arrow::ArrayData::Make(
      target, compact->length(), {compact->data()->buffers[0]}, children, compact->null_count()));
}

Result<std::shared_ptr<arrow::Array>> ConformList(const std::shared_ptr<arrow::Array>& array,
                                                  const std::shared_ptr<arrow::DataType>& target,
                                                  const meta::DataType& type) {
  if (array->type_id() != arrow::Type::LIST) return TypeMismatch(*array, type);
  FRESHET_ASSIGN_OR_RETURN(auto compact, Compact(array));
  const auto& list = static_cast<const arrow::ListArray&>(*compact);
  const auto& value_type = static_cast<const arrow::ListType&>(*target).value_type();
  FRESHET_ASSIGN_OR_RETURN(auto values,
                           ConformArray(list.values(), value_type, *type.element_type()));
  const auto& buffers = compact->data()->buffers;
  return arrow::MakeArray(arrow::ArrayData::Make(target, compact->length(),
                                                 {buffers[0], buffers[1]}, {values->data()},
                                                 compact->null_count()));
}

Result<std::shared_ptr<arrow::Array>> ConformMap(const std::shared_ptr<arrow::Array>& array,
                                                 const std::shared_ptr<arrow::DataType>& target,
                                                 const meta::DataType& type) {
  if (array->type_id() != arrow::Type::MAP) return TypeMismatch(*array, type);
  FRESHET_ASSIGN_OR_RETURN(auto compact, Compact(array));
  const auto& map = static_cast<const arrow::MapArray&>(*compact);
  const auto& map_type = static_cast<const arrow::MapType&>(*target);
  auto key_type = type.key_type()->WithNullable(false);
  meta::DataTypePtr value_type =
      type.root() == meta::TypeRoot::kMultiset ? meta::DataType::Int(false) : type.value_type();
  FRESHET_ASSIGN_OR_RETURN(auto keys, ConformArray(map.keys(), map_type.key_type(), *key_type));
  FRESHET_ASSIGN_OR_RETURN(auto items,
                           ConformArray(map.items(), map_type.item_type(), *value_type));
  auto entries = arrow::ArrayData::Make(map_type.value_type(), keys->length(), {nullptr},
                                        {keys->data(), items->data()}, 0);
  const auto& buffers = compact->data()->buffers;
  return arrow::MakeArray(arrow::ArrayData::Make(
      target, compact->length(), {buffers[0], buffers[1]}, {entries}, compact->null_count()));
}

Result<std::shared_ptr<arrow::Array>> CastLeaf(const std::shared_ptr<arrow::Array>& array,
                                               const std::shared_ptr<arrow::DataType>& target,
                                               const meta::DataType& type) {
  if (array->type()->Equals(*target)) return array;
  // Widening casts are exact. Timestamps decoded at a finer unit than the column's precision
  // (ORC, INT96) only drop zero digits. Narrowing changes Java allows by ALTER TABLE (DOUBLE ->
  // INT, BIGINT -> INT) convert like Java's casts: fractions truncated, integers wrapped.
  arrow::compute::CastOptions options = arrow::compute::CastOptions::Safe(target);
  options.allow_time_truncate = true;
  options.allow_float_truncate = true;
  options.allow_int_overflow = true;
  auto cast = arrow::compute::Cast(*array, target, options);
  if (!cast.ok()) {
    return TypeMismatch(*array, type).WithContext(cast.status().message());
  }
  return *cast;
}

Result<std::shared_ptr<arrow::Array>> ConformArray(const std::shared_ptr<arrow::Array>& array,
                                                   const std::shared_ptr<arrow::DataType>& target,
                                                   const meta::DataType& type) {
  switch (type.root()) {
    case meta::TypeRoot::kRow:
      return ConformStruct(array, target, type);
    case meta::TypeRoot::kArray:
      return ConformList(array, target, type);
    case meta::TypeRoot::kMap:
    case meta::TypeRoot::kMultiset:
      return ConformMap(array, target, type);
    default:
      return CastLeaf(array, target, type);
  }
}

// Whether a file column of Arrow type `file` stores values of the type that `want` (the read
// field's Arrow type) stands for, as opposed to another type that schema evolution would cast:
// the same Arrow type up to the representation choices of the formats (integer width: Avro has
// no 8- or 16-bit integers; TIME as an integer: ORC has no time type; timestamp unit;
// string/binary offsets width; fixed-size binary).
bool SameTypeFamily(const arrow::DataType& file, const arrow::DataType& want) {
  auto family = [](arrow::Type::type id) {
    switch (id) {
      case arrow::Type::INT8:
      case arrow::Type::INT16:
      case arrow::Type::INT32:
      case arrow::Type::TIME32:
      case arrow::Type::TIME64:
        return arrow::Type::INT64;
      case arrow::Type::LARGE_STRING:
        return arrow::Type::STRING;
      case arrow::Type::LARGE_BINARY:
      case arrow::Type::FIXED_SIZE_BINARY:
        return arrow::Type::BINARY;
      default:
        return id;
    }
  };
  return family(file.id()) == family(want.id());
}

// A decimal column's precision and scale are the field's: its unscaled integers mean other values
// under another scale, so a footer whose scale was damaged must not pass for a cast.
bool SameDecimal(const arrow::DataType& file, const arrow::DataType& want) {
  if (!arrow::is_decimal(file.id()) || !arrow::is_decimal(want.id())) return true;
  const auto& stored = static_cast<const arrow::DecimalType&>(file);
  const auto& wanted = static_cast<const arrow::DecimalType&>(want);
  return stored.precision() == wanted.precision() && stored.scale() == wanted.scale();
}

// Exact mode: `field` must be present (`column` not null) with a type of its family, and so must
// its nested fields.
Status CheckExactType(const arrow::Field* column, const meta::DataField& field,
                      const std::string& where) {
  if (column == nullptr) {
    return Status::Corruption("has no column for field '", where, "' (id ", field.id,
                              ") of the schema it claims");
  }
  FRESHET_ASSIGN_OR_RETURN(auto want, bridge::ToArrowType(*field.type));
  if (!SameTypeFamily(*column->type(), *want) || !SameDecimal(*column->type(), *want)) {
    return Status::Corruption(
        "stores field '", where, "' (id ", field.id, ", ", field.type->ToString(), ") as ",
        column->type()->ToString(),
        ", not as the schema it claims says (a type change would need a new schema id)");
  }
  if (field.type->root() != meta::TypeRoot::kRow) return Status::OK();
  const auto& children = column->type()->fields();
  for (const meta::DataField& child : field.type->fields()) {
    int source = FindSource(children, child, {});
    FRESHET_RETURN_NOT_OK(CheckExactType(source < 0 ? nullptr : children[source].get(), child,
                                         where + "." + child.name));
  }
  return Status::OK();
}

Result<std::unique_ptr<internal::PhysicalReader>> OpenPhysical(
    FileFormat format, std::shared_ptr<io::RandomAccessFile> file, int64_t size) {
  switch (format) {
    case FileFormat::kParquet:
      return internal::OpenParquetReader(std::move(file), size);
    case FileFormat::kOrc:
      return internal::OpenOrcReader(std::move(file), size);
    case FileFormat::kAvro:
      return internal::OpenAvroReader(std::move(file), size);
  }
  return Status::Internal("unknown file format");
}

}  // namespace

Result<std::unique_ptr<FormatReader>> FormatReader::Open(std::shared_ptr<io::RandomAccessFile> file,
                                                         int64_t file_size,
                                                         std::vector<meta::DataField> read_schema,
                                                         FormatReaderOptions options) {
  if (file == nullptr) return Status::Invalid("FormatReader needs a file");
  std::string path = file->path();
  auto context = [&](const Status& status) { return status.WithContext("data file " + path); };
  if (options.batch_size <= 0) return context(Status::Invalid("batch size must be positive"));
  auto format = FileFormatFromPath(path);
  if (!format.ok()) return format.status();
  std::unique_ptr<FormatReader> reader(new FormatReader());
  reader->path_ = path;
  reader->read_schema_ = std::move(read_schema);
  reader->options_ = options;
  auto output_schema = bridge::ToArrowSchema(reader->read_schema_);
  if (!output_schema.ok()) return context(output_schema.status());
  reader->output_schema_ = *output_schema;
  auto physical = OpenPhysical(*format, std::move(file), file_size);
  if (!physical.ok()) return context(physical.status());
  reader->physical_ = std::move(physical).MoveValueUnsafe();
  FRESHET_RETURN_NOT_OK(context(reader->Plan()));
  return reader;
}

Result<std::unique_ptr<FormatReader>> FormatReader::Open(io::FileIO& file_io,
                                                         const std::string& path, int64_t file_size,
                                                         std::vector<meta::DataField> read_schema,
                                                         FormatReaderOptions options) {
  FRESHET_ASSIGN_OR_RETURN(auto file, file_io.OpenForRead(path));
  return Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)), file_size,
              std::move(read_schema), options);
}

FormatReader::~FormatReader() = default;

const std::shared_ptr<arrow::Schema>& FormatReader::file_schema() const {
  return physical_->schema();
}

int64_t FormatReader::num_rows() const { return physical_->num_rows(); }

Status FormatReader::Plan() {
  const auto& file_fields = physical_->schema()->fields();
  std::vector<int> selected;
  for (const auto& field : read_schema_) {
    int source = FindSource(file_fields, field, options_.file_schema);
    if (options_.exact_schema) {
      FRESHET_RETURN_NOT_OK(
          CheckExactType(source < 0 ? nullptr : file_fields[source].get(), field, field.name));
    }
    sources_.push_back(source < 0 ? "" : file_fields[source]->name());
    if (source >= 0 && std::find(selected.begin(), selected.end(), source) == selected.end()) {
      selected.push_back(source);
    }
  }
  std::sort(selected.begin(), selected.end());
  return physical_->Select(selected, options_.batch_size, options_.parallel_decode);
}

Result<std::shared_ptr<arrow::RecordBatch>> FormatReader::Conform(
    const arrow::RecordBatch& batch) const {
  arrow::ArrayVector columns;
  for (size_t i = 0; i < read_schema_.size(); ++i) {
    const auto& target = output_schema_->field(static_cast<int>(i))->type();
    std::shared_ptr<arrow::Array> source =
        sources_[i].empty() ? nullptr : batch.GetColumnByName(sources_[i]);
    if (source == nullptr) {
      FRESHET_ASSIGN_OR_RETURN_ARROW(auto nulls, arrow::MakeArrayOfNull(target, batch.num_rows()));
      columns.push_back(std::move(nulls));
      continue;
    }
    auto column = ConformArray(source, target, *read_schema_[i].type);
    if (!column.ok()) return column.status().WithContext("column " + read_schema_[i].name);
    columns.push_back(*column);
  }
  return arrow::RecordBatch::Make(output_schema_, batch.num_rows(), std::move(columns));
}

Result<std::shared_ptr<arrow::RecordBatch>> FormatReader::Next() {
  auto context = [&](const Status& status) { return status.WithContext("data file " + path_); };
  auto batch = physical_->Next();
  if (!batch.ok()) return context(batch.status());
  if (*batch == nullptr) return std::shared_ptr<arrow::RecordBatch>();
  auto conformed = Conform(**batch);
  if (!conformed.ok()) return context(conformed.status());
  return conformed;
}

Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ReadAllBatches(FormatReader* reader) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (batch == nullptr) return batches;
    batches.push_back(std::move(batch));
  }
}

}  // namespace freshet::format
