#include "bridge/schema_import.h"

#include <arrow/array.h>
#include <arrow/c/bridge.h>
#include <arrow/record_batch.h>
#include <arrow/type.h>

#include <cstring>
#include <vector>

#include "common/arrow_status.h"

namespace freshet::bridge {

namespace {

void AppendBytes(const void* data, size_t size, std::string* out) {
  out->append(static_cast<const char*>(data), size);
}

void AppendText(const char* text, std::string* out) {
  if (text != nullptr) out->append(text);
  out->push_back('\0');
}

// The metadata blob: int32 count, then per pair an int32 length and bytes for key and value.
void AppendMetadata(const char* metadata, std::string* out) {
  if (metadata == nullptr) {
    out->push_back('\0');
    return;
  }
  out->push_back('\1');
  const char* at = metadata;
  auto read_int32 = [&at] {
    int32_t v = 0;
    std::memcpy(&v, at, sizeof v);
    at += sizeof v;
    return v;
  };
  const int32_t pairs = read_int32();
  for (int32_t i = 0; i < 2 * pairs; ++i) {
    const int32_t length = read_int32();
    at += length > 0 ? length : 0;
  }
  AppendBytes(metadata, static_cast<size_t>(at - metadata), out);
}

void ReleaseArray(ArrowArray* array) {
  if (array != nullptr && array->release != nullptr) array->release(array);
}

}  // namespace

void SchemaImportCache::Fingerprint(const ArrowSchema& schema, std::string* out) {
  AppendText(schema.format, out);
  AppendText(schema.name, out);
  AppendBytes(&schema.flags, sizeof schema.flags, out);
  AppendMetadata(schema.metadata, out);
  AppendBytes(&schema.n_children, sizeof schema.n_children, out);
  for (int64_t i = 0; i < schema.n_children; ++i) Fingerprint(*schema.children[i], out);
  out->push_back(schema.dictionary != nullptr ? '\1' : '\0');
  if (schema.dictionary != nullptr) Fingerprint(*schema.dictionary, out);
}

Result<std::shared_ptr<arrow::RecordBatch>> SchemaImportCache::ImportRecordBatch(
    ArrowArray* array, ArrowSchema* schema) {
  if (array == nullptr || schema == nullptr || array->release == nullptr ||
      schema->release == nullptr) {
    ReleaseArray(array);
    if (schema != nullptr && schema->release != nullptr) schema->release(schema);
    return Status::Invalid("the array or schema is null or released");
  }
  thread_local std::string fingerprint;
  fingerprint.clear();
  Fingerprint(*schema, &fingerprint);
  std::shared_ptr<arrow::Schema> imported;
  std::shared_ptr<arrow::DataType> row_type;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (schema_ != nullptr && fingerprint == fingerprint_) {
      imported = schema_;
      row_type = row_type_;
    }
  }
  if (imported != nullptr) {
    schema->release(schema);
  } else {
    auto fresh = arrow::ImportSchema(schema);
    if (!fresh.ok()) {
      ReleaseArray(array);
      return FromArrowStatus(fresh.status());
    }
    imported = *fresh;
    row_type = arrow::struct_(imported->fields());
    std::lock_guard<std::mutex> lock(mutex_);
    fingerprint_ = fingerprint;
    schema_ = imported;
    row_type_ = row_type;
  }
  // The batch as a struct array of the kept row type (arrow::ImportRecordBatch would build the
  // struct type again), then its columns.
  auto rows = arrow::ImportArray(array, row_type);
  if (!rows.ok()) return FromArrowStatus(rows.status());
  const std::shared_ptr<arrow::ArrayData>& data = (*rows)->data();
  if (data->offset != 0 || data->GetNullCount() != 0) {
    auto batch = arrow::RecordBatch::FromStructArray(*rows);
    if (!batch.ok()) return FromArrowStatus(batch.status());
    auto with_schema = (*batch)->ReplaceSchema(imported);
    if (!with_schema.ok()) return FromArrowStatus(with_schema.status());
    return *with_schema;
  }
  std::vector<std::shared_ptr<arrow::ArrayData>> columns = data->child_data;
  for (auto& column : columns) {
    if (column->length < data->length) {
      return Status::Invalid("a column of the batch has ", column->length, " rows, the batch ",
                             data->length);
    }
    if (column->length != data->length) column = column->Slice(0, data->length);
  }
  return arrow::RecordBatch::Make(imported, data->length, std::move(columns));
}

}  // namespace freshet::bridge
