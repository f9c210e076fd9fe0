#include "write/row_keys.h"

#include <algorithm>

#include "bridge/arrow_value.h"

#include <arrow/api.h>

#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "bridge/arrow_schema.h"
#include "meta/bucket/bucket_function.h"

namespace freshet::write {

using meta::BinaryRowWriter;
using meta::DataType;
using meta::TypeRoot;

namespace {

using FieldWriter = RowKeyExtractor::FieldWriter;

template <typename ArrayType, typename Write>
FieldWriter NullableWriter(const arrow::Array& array, Write write) {
  const auto* typed = static_cast<const ArrayType*>(&array);
  return [typed, write](BinaryRowWriter* writer, int32_t pos, int64_t row) {
    if (typed->IsNull(row)) {
      writer->SetNullAt(pos);
    } else {
      write(writer, pos, typed->GetView(row));
    }
  };
}

// DECIMAL and TIMESTAMP nulls go through WriteDecimal / WriteTimestamp: a non-compact null still
// reserves its variable-part space, as Java's writer does.
FieldWriter DecimalWriter(const arrow::Array& array, const DataType& type) {
  const auto* typed = static_cast<const arrow::Decimal128Array*>(&array);
  int32_t precision = type.precision();
  int32_t scale = type.scale();
  return [typed, precision, scale](BinaryRowWriter* writer, int32_t pos, int64_t row) {
    std::optional<meta::Decimal> value;
    if (!typed->IsNull(row)) {
      uint64_t low;
      int64_t high;
      std::memcpy(&low, typed->GetValue(row), 8);
      std::memcpy(&high, typed->GetValue(row) + 8, 8);
      auto bits = (static_cast<unsigned __int128>(static_cast<uint64_t>(high)) << 64) | low;
      value = meta::Decimal{static_cast<__int128>(bits), precision, scale};
    }
    writer->WriteDecimal(pos, value, precision);
  };
}

FieldWriter TimestampWriter(const arrow::Array& array, const DataType& type) {
  const auto* typed = static_cast<const arrow::TimestampArray*>(&array);
  int32_t precision = type.precision();
  return [typed, precision](BinaryRowWriter* writer, int32_t pos, int64_t row) {
    std::optional<meta::Timestamp> value;
    if (!typed->IsNull(row))
      value = bridge::TimestampFromUnits(
          typed->Value(row), static_cast<const arrow::TimestampType&>(*typed->type()).unit());
    writer->WriteTimestamp(pos, value, precision);
  };
}

Result<FieldWriter> MakeFieldWriter(const arrow::Array& array, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return NullableWriter<arrow::BooleanArray>(
          array, [](BinaryRowWriter* w, int32_t pos, bool v) { w->WriteBoolean(pos, v); });
    case TypeRoot::kTinyInt:
      return NullableWriter<arrow::Int8Array>(
          array, [](BinaryRowWriter* w, int32_t pos, int8_t v) { w->WriteByte(pos, v); });
    case TypeRoot::kSmallInt:
      return NullableWriter<arrow::Int16Array>(
          array, [](BinaryRowWriter* w, int32_t pos, int16_t v) { w->WriteShort(pos, v); });
    case TypeRoot::kInt:
      return NullableWriter<arrow::Int32Array>(
          array, [](BinaryRowWriter* w, int32_t pos, int32_t v) { w->WriteInt(pos, v); });
    case TypeRoot::kDate:
      return NullableWriter<arrow::Date32Array>(
          array, [](BinaryRowWriter* w, int32_t pos, int32_t v) { w->WriteInt(pos, v); });
    case TypeRoot::kTime:  // time32[ms]: the stored int is already Paimon's millis of the day
      return NullableWriter<arrow::Time32Array>(
          array, [](BinaryRowWriter* w, int32_t pos, int32_t v) { w->WriteInt(pos, v); });
    case TypeRoot::kBigInt:
      return NullableWriter<arrow::Int64Array>(
          array, [](BinaryRowWriter* w, int32_t pos, int64_t v) { w->WriteLong(pos, v); });
    case TypeRoot::kFloat:
      return NullableWriter<arrow::FloatArray>(
          array, [](BinaryRowWriter* w, int32_t pos, float v) { w->WriteFloat(pos, v); });
    case TypeRoot::kDouble:
      return NullableWriter<arrow::DoubleArray>(
          array, [](BinaryRowWriter* w, int32_t pos, double v) { w->WriteDouble(pos, v); });
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return NullableWriter<arrow::StringArray>(
          array,
          [](BinaryRowWriter* w, int32_t pos, std::string_view v) { w->WriteBinary(pos, v); });
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return NullableWriter<arrow::BinaryArray>(
          array,
          [](BinaryRowWriter* w, int32_t pos, std::string_view v) { w->WriteBinary(pos, v); });
    case TypeRoot::kDecimal:
      return DecimalWriter(array, type);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return TimestampWriter(array, type);
    default:
      break;
  }
  return Status::NotImplemented("a key column of type ", type.ToString());
}

Result<std::vector<int>> FieldIndices(const meta::TableSchema& schema,
                                      const std::vector<std::string>& names, const char* what) {
  std::vector<int> indices;
  for (const std::string& name : names) {
    int index = schema.FieldIndex(name);
    if (index < 0) return Status::Invalid(what, " column '", name, "' is not a field of the table");
    indices.push_back(index);
  }
  return indices;
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> RowGroup::Runs() const {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t row : rows) {
    if (!runs.empty() && runs.back().second == row) {
      ++runs.back().second;
    } else {
      runs.emplace_back(row, row + 1);
    }
  }
  return runs;
}

bool RowKeys::SingleGroup() const {
  return partitions.size() == 1 &&
         std::all_of(bucket_of_row.begin(), bucket_of_row.end(),
                     [&](int32_t b) { return b == bucket_of_row.front(); });
}

std::vector<RowGroup> RowKeys::Groups() const {
  std::vector<RowGroup> groups;
  // Key: partition index in the high 32 bits, bucket in the low 32 bits.
  std::unordered_map<uint64_t, size_t> group_of_key;
  for (size_t row = 0; row < partition_of_row.size(); ++row) {
    uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(partition_of_row[row])) << 32) |
                   static_cast<uint32_t>(bucket_of_row[row]);
    auto [it, inserted] = group_of_key.try_emplace(key, groups.size());
    if (inserted) {
      groups.push_back(RowGroup{partitions[partition_of_row[row]], bucket_of_row[row], {}});
    }
    groups[it->second].rows.push_back(static_cast<int64_t>(row));
  }
  return groups;
}

Result<RowKeyExtractor> RowKeyExtractor::Make(const meta::TableSchema& schema, bool key_hashes) {
  RowKeyExtractor extractor;
  extractor.fields_ = schema.fields();
  FRESHET_ASSIGN_OR_RETURN(extractor.arrow_schema_, bridge::ToArrowSchema(schema.fields()));
  FRESHET_ASSIGN_OR_RETURN(extractor.partition_.indices,
                           FieldIndices(schema, schema.partition_keys(), "partition key"));
  extractor.partition_.fields = schema.PartitionFields();
  FRESHET_ASSIGN_OR_RETURN(extractor.primary_key_indices_,
                           FieldIndices(schema, schema.primary_keys(), "primary key"));
  int32_t bucket = schema.bucket();
  if (bucket == -1) {
    if (!schema.primary_keys().empty()) {
      if (!key_hashes) {
        return Status::NotImplemented(
            "dynamic bucket mode (a primary-key table with bucket = -1): a row's bucket comes "
            "from the table's hash index, which only a table writer keeps");
      }
      // Java hashes the trimmed primary key (the primary key minus the partition keys).
      std::vector<std::string> trimmed = schema.TrimmedPrimaryKeys();
      FRESHET_ASSIGN_OR_RETURN(extractor.bucket_key_.indices,
                               FieldIndices(schema, trimmed, "primary key"));
      extractor.bucket_key_.fields = schema.FieldsByNames(trimmed);
      extractor.dynamic_ = true;
    }
    return extractor;  // unaware-bucket append table: everything goes to bucket 0
  }
  if (bucket < 1) return Status::NotImplemented("bucket mode ", bucket, " (option 'bucket')");
  std::vector<std::string> bucket_keys = schema.BucketKeys();
  if (bucket_keys.empty()) {
    return Status::Invalid("a table with bucket = ", bucket,
                           " needs a 'bucket-key' option or a primary key");
  }
  FRESHET_ASSIGN_OR_RETURN(extractor.bucket_key_.indices,
                           FieldIndices(schema, bucket_keys, "bucket-key"));
  extractor.bucket_key_.fields = schema.FieldsByNames(bucket_keys);
  extractor.num_buckets_ = bucket;
  return extractor;
}

Status RowKeyExtractor::CheckBatch(const arrow::RecordBatch& batch) const {
  const arrow::Schema& actual = *batch.schema();
  // The common case in one comparison: the same fields (Arrow compares cached fingerprints).
  if (actual.Equals(*arrow_schema_, /*check_metadata=*/false)) return Status::OK();
  if (actual.num_fields() != arrow_schema_->num_fields()) {
    return Status::Invalid("the batch has ", actual.num_fields(), " columns, the table has ",
                           arrow_schema_->num_fields());
  }
  for (int i = 0; i < actual.num_fields(); ++i) {
    const arrow::Field& got = *actual.field(i);
    const arrow::Field& want = *arrow_schema_->field(i);
    if (got.name() != want.name() || !got.type()->Equals(*want.type(), false)) {
      return Status::Invalid("batch column ", i, " is '", got.name(), "' ", got.type()->ToString(),
                             ", the table expects '", want.name(), "' ", want.type()->ToString(),
                             " (", fields_[i].type->ToString(), ")");
    }
  }
  return Status::OK();
}

Status RowKeyExtractor::CheckPrimaryKeysNotNull(const arrow::RecordBatch& batch) const {
  for (int index : primary_key_indices_) {
    const arrow::Array& column = *batch.column(index);
    if (column.null_count() == 0) continue;
    for (int64_t row = 0; row < column.length(); ++row) {
      if (column.IsNull(row)) {
        return Status::Invalid("primary key column '", fields_[index].name, "' is null in row ",
                               row);
      }
    }
  }
  return Status::OK();
}

Result<std::vector<FieldWriter>> RowKeyExtractor::MakeWriters(
    const KeyColumns& keys, const arrow::RecordBatch& batch) const {
  std::vector<FieldWriter> writers;
  for (size_t i = 0; i < keys.indices.size(); ++i) {
    auto writer = MakeFieldWriter(*batch.column(keys.indices[i]), *keys.fields[i].type);
    if (!writer.ok()) return writer.status().WithContext("column '" + keys.fields[i].name + "'");
    writers.push_back(std::move(writer).MoveValueUnsafe());
  }
  return writers;
}

Status RowKeyExtractor::ComputePartitions(const arrow::RecordBatch& batch, RowKeys* keys) const {
  keys->partition_of_row.assign(batch.num_rows(), 0);
  if (partition_.indices.empty()) {
    keys->partitions.push_back(meta::BinaryRow());
    return Status::OK();
  }
  FRESHET_ASSIGN_OR_RETURN(auto writers, MakeWriters(partition_, batch));
  BinaryRowWriter writer(static_cast<int32_t>(writers.size()));
  std::unordered_map<std::string, int32_t> index_of_bytes;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    for (size_t pos = 0; pos < writers.size(); ++pos) {
      writers[pos](&writer, static_cast<int32_t>(pos), row);
    }
    meta::BinaryRow partition = writer.Finish();
    auto [it, inserted] = index_of_bytes.try_emplace(partition.bytes(),
                                                     static_cast<int32_t>(keys->partitions.size()));
    if (inserted) keys->partitions.push_back(std::move(partition));
    keys->partition_of_row[row] = it->second;
  }
  return Status::OK();
}

Result<std::vector<int32_t>> RowKeyExtractor::HashRows(const KeyColumns& columns,
                                                       const arrow::RecordBatch& batch) const {
  FRESHET_ASSIGN_OR_RETURN(auto writers, MakeWriters(columns, batch));
  BinaryRowWriter writer(static_cast<int32_t>(writers.size()));
  std::vector<int32_t> hashes(static_cast<size_t>(batch.num_rows()));
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    for (size_t pos = 0; pos < writers.size(); ++pos) {
      writers[pos](&writer, static_cast<int32_t>(pos), row);
    }
    hashes[static_cast<size_t>(row)] = meta::HashBinaryRow(writer.Finish());
  }
  return hashes;
}

Status RowKeyExtractor::ComputeBuckets(const arrow::RecordBatch& batch, RowKeys* keys) const {
  if (dynamic_) {
    keys->bucket_of_row.assign(batch.num_rows(), -1);
    FRESHET_ASSIGN_OR_RETURN(keys->key_hash_of_row, HashRows(bucket_key_, batch));
    return Status::OK();
  }
  keys->bucket_of_row.assign(batch.num_rows(), 0);
  // One bucket (or none): every row is in bucket 0 whatever its hash.
  if (num_buckets_ <= 1) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(auto hashes, HashRows(bucket_key_, batch));
  for (size_t row = 0; row < hashes.size(); ++row) {
    keys->bucket_of_row[row] = meta::BucketFromHash(hashes[row], num_buckets_);
  }
  return Status::OK();
}

Status RowKeyExtractor::Check(const arrow::RecordBatch& batch) const {
  FRESHET_RETURN_NOT_OK(CheckBatch(batch));
  return CheckPrimaryKeysNotNull(batch);
}

Result<RowKeys> RowKeyExtractor::Extract(const arrow::RecordBatch& batch) const {
  FRESHET_RETURN_NOT_OK(Check(batch));
  RowKeys keys;
  FRESHET_RETURN_NOT_OK(ComputePartitions(batch, &keys));
  FRESHET_RETURN_NOT_OK(ComputeBuckets(batch, &keys));
  return keys;
}

Result<std::vector<RowGroup>> RowKeyExtractor::Group(const arrow::RecordBatch& batch) const {
  FRESHET_ASSIGN_OR_RETURN(RowKeys keys, Extract(batch));
  return keys.Groups();
}

}  // namespace freshet::write
