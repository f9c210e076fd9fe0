#include "format/file_index_writer.h"

#include <arrow/api.h>

#include "common/arrow_status.h"

namespace freshet::format {

namespace {

// Floor division, for timestamps before 1970.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The number Java hashes for timestamp `value` of `unit`: epoch millis up to precision 3, epoch
// micros above.
int64_t TimestampKey(int64_t value, arrow::TimeUnit::type unit, int32_t precision) {
  static constexpr int64_t kPerSecond[] = {1, 1000, 1000000, 1000000000};  // by arrow unit
  const int64_t per_second = kPerSecond[static_cast<int>(unit)];
  const int64_t want = precision <= 3 ? 1000 : 1000000;
  if (per_second == want) return value;
  if (per_second > want) return FloorDiv(value, per_second / want);
  return value * (want / per_second);
}

template <typename ArrayType, typename Hash>
void AddEach(const arrow::Array& array, meta::BloomFilter64* filter, Hash hash) {
  const auto& typed = static_cast<const ArrayType&>(array);
  for (int64_t i = 0; i < typed.length(); ++i) {
    if (typed.IsNull(i)) continue;
    filter->AddHash(hash(typed.Value(i)));
  }
}

template <typename ArrayType>
void AddBytes(const arrow::Array& array, meta::BloomFilter64* filter) {
  const auto& typed = static_cast<const ArrayType&>(array);
  for (int64_t i = 0; i < typed.length(); ++i) {
    if (typed.IsNull(i)) continue;
    filter->AddHash(meta::BloomHashOfBytes(typed.GetView(i)));
  }
}

Status AddArray(const arrow::Array& array, const meta::DataType& type,
                meta::BloomFilter64* filter) {
  auto as_long = [](auto v) { return meta::BloomHashOfLong(static_cast<int64_t>(v)); };
  switch (array.type_id()) {
    case arrow::Type::INT8:
      AddEach<arrow::Int8Array>(array, filter, as_long);
      return Status::OK();
    case arrow::Type::INT16:
      AddEach<arrow::Int16Array>(array, filter, as_long);
      return Status::OK();
    case arrow::Type::INT32:
      AddEach<arrow::Int32Array>(array, filter, as_long);
      return Status::OK();
    case arrow::Type::INT64:
      AddEach<arrow::Int64Array>(array, filter, as_long);
      return Status::OK();
    case arrow::Type::DATE32:
      AddEach<arrow::Date32Array>(array, filter, as_long);
      return Status::OK();
    case arrow::Type::TIME32:
      // Paimon's TIME is the millisecond of the day, whatever the Arrow unit.
      if (static_cast<const arrow::Time32Type&>(*array.type()).unit() == arrow::TimeUnit::SECOND) {
        AddEach<arrow::Time32Array>(array, filter, [](int32_t s) {
          return meta::BloomHashOfLong(static_cast<int64_t>(s) * 1000);
        });
      } else {
        AddEach<arrow::Time32Array>(array, filter, as_long);
      }
      return Status::OK();
    case arrow::Type::TIME64: {
      const int64_t per_milli =
          static_cast<const arrow::Time64Type&>(*array.type()).unit() == arrow::TimeUnit::MICRO
              ? 1000
              : 1000000;
      AddEach<arrow::Time64Array>(array, filter, [per_milli](int64_t v) {
        return meta::BloomHashOfLong(FloorDiv(v, per_milli));
      });
      return Status::OK();
    }
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::TIMESTAMP:
      break;
    case arrow::Type::STRING:
      AddBytes<arrow::StringArray>(array, filter);
      return Status::OK();
    case arrow::Type::LARGE_STRING:
      AddBytes<arrow::LargeStringArray>(array, filter);
      return Status::OK();
    case arrow::Type::BINARY:
      AddBytes<arrow::BinaryArray>(array, filter);
      return Status::OK();
    case arrow::Type::LARGE_BINARY:
      AddBytes<arrow::LargeBinaryArray>(array, filter);
      return Status::OK();
    case arrow::Type::FIXED_SIZE_BINARY:
      AddBytes<arrow::FixedSizeBinaryArray>(array, filter);
      return Status::OK();
    default:
      return Status::NotImplemented("file index: Arrow type ", array.type()->ToString(), " of a ",
                                    type.ToString(), " column");
  }
  if (array.type_id() == arrow::Type::TIMESTAMP) {
    const auto unit = static_cast<const arrow::TimestampType&>(*array.type()).unit();
    const int32_t precision = type.precision();
    AddEach<arrow::TimestampArray>(array, filter, [unit, precision](int64_t v) {
      return meta::BloomHashOfLong(TimestampKey(v, unit, precision));
    });
    return Status::OK();
  }
  // Floating point: through the Java bit patterns (NaN canonical), as for literals.
  auto hash_float = [&](auto v) -> int64_t {
    using T = decltype(v);
    auto value = std::is_same_v<T, float> ? meta::Value::Float(static_cast<float>(v))
                                          : meta::Value::Double(static_cast<double>(v));
    return *meta::BloomHashOf(value, type);
  };
  if (array.type_id() == arrow::Type::FLOAT) {
    AddEach<arrow::FloatArray>(array, filter, hash_float);
  } else {
    AddEach<arrow::DoubleArray>(array, filter, hash_float);
  }
  return Status::OK();
}

}  // namespace

struct FileIndexWriter::Column {
  std::string name;
  meta::DataTypePtr type;
  int position = 0;  // in the file's batches
  meta::BloomFilter64 filter;
};

FileIndexWriter::FileIndexWriter() = default;
FileIndexWriter::~FileIndexWriter() = default;

Result<std::unique_ptr<FileIndexWriter>> FileIndexWriter::Make(
    const meta::FileIndexSpec& spec, const std::vector<meta::DataField>& fields) {
  std::unique_ptr<FileIndexWriter> writer(new FileIndexWriter());
  for (const meta::FileIndexColumn& column : spec.bloom_filter_columns) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name != column.name) continue;
      writer->columns_.push_back(Column{column.name, fields[i].type, static_cast<int>(i),
                                        meta::BloomFilter64::ForItems(column.items, column.fpp)});
    }
  }
  if (writer->columns_.empty()) return std::unique_ptr<FileIndexWriter>();
  return writer;
}

Status FileIndexWriter::Add(const arrow::RecordBatch& batch) {
  for (Column& column : columns_) {
    if (column.position >= batch.num_columns()) {
      return Status::Internal("file index: batch has no column ", column.position);
    }
    FRESHET_RETURN_NOT_OK(AddArray(*batch.column(column.position), *column.type, &column.filter));
  }
  return Status::OK();
}

std::string FileIndexWriter::Finish() const {
  std::vector<meta::FileIndexEntry> entries;
  for (const Column& column : columns_) {
    entries.push_back(
        meta::FileIndexEntry{column.name, meta::kBloomFilterIndexType, column.filter.Serialize()});
  }
  return meta::SerializeFileIndex(entries);
}

}  // namespace freshet::format
