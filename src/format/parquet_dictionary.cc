#include "format/parquet_dictionary.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>

namespace freshet::format::internal {

namespace {

// Bytes of the sampled values encoded each way.
struct EncodedSizes {
  int64_t values = 0;      // non-null values sampled
  int64_t distinct = 0;    // of them
  int64_t plain = 0;       // PLAIN bytes of all of them
  int64_t dictionary = 0;  // PLAIN bytes of the distinct ones (the dictionary page)

  bool DictionaryShrinks() const {
    int bit_width = 1;
    while (bit_width < 32 && (int64_t{1} << bit_width) < distinct) ++bit_width;
    int64_t ids = (values * bit_width + 7) / 8;
    return ids + dictionary < plain;
  }
};

// The sampled non-null values of `array`, told apart by `key_of(row)`, each costing
// `bytes_of(key)` PLAIN bytes.
template <typename Key, typename KeyOf, typename BytesOf>
EncodedSizes Sample(const arrow::Array& array, int64_t rows, KeyOf key_of, BytesOf bytes_of) {
  std::unordered_set<Key> seen;
  seen.reserve(static_cast<size_t>(rows));
  EncodedSizes sizes;
  for (int64_t i = 0; i < rows; ++i) {
    if (array.IsNull(i)) continue;
    Key key = key_of(i);
    int64_t bytes = bytes_of(key);
    ++sizes.values;
    sizes.plain += bytes;
    if (seen.insert(key).second) {
      ++sizes.distinct;
      sizes.dictionary += bytes;
    }
  }
  return sizes;
}

// Fixed-width values as Parquet stores them: `width` PLAIN bytes each (INT32 for the narrow
// integer types), told apart by their 64-bit pattern.
template <typename ArrayType>
EncodedSizes SizesOfFixed(const arrow::Array& array, int64_t rows, int width) {
  const auto& typed = static_cast<const ArrayType&>(array);
  auto bits_of = [&](int64_t i) {
    uint64_t bits = 0;
    auto value = typed.Value(i);
    std::memcpy(&bits, &value, std::min(sizeof(value), sizeof(bits)));
    return bits;
  };
  return Sample<uint64_t>(array, rows, bits_of, [width](uint64_t) { return int64_t{width}; });
}

// Strings and binaries: PLAIN stores a 4-byte length before each value.
template <typename ArrayType>
EncodedSizes SizesOfBinary(const arrow::Array& array, int64_t rows) {
  const auto& typed = static_cast<const ArrayType&>(array);
  return Sample<std::string_view>(
      array, rows, [&](int64_t i) { return typed.GetView(i); },
      [](std::string_view value) { return 4 + static_cast<int64_t>(value.size()); });
}

// Decimals up to 18 digits are stored as INT32 / INT64 (Java's layout); their unscaled value
// fits the low 64 bits.
EncodedSizes SizesOfDecimal(const arrow::Decimal128Array& array, int64_t rows, int width) {
  return Sample<uint64_t>(
      array, rows, [&](int64_t i) { return arrow::Decimal128(array.GetValue(i)).low_bits(); },
      [width](uint64_t) { return int64_t{width}; });
}

// Nothing to judge: a type this does not sample.
constexpr EncodedSizes kNotJudged{0, 0, 0, 0};

EncodedSizes SizesOf(const arrow::Array& array, int64_t rows) {
  switch (array.type_id()) {
    case arrow::Type::INT8:
      return SizesOfFixed<arrow::Int8Array>(array, rows, 4);
    case arrow::Type::INT16:
      return SizesOfFixed<arrow::Int16Array>(array, rows, 4);
    case arrow::Type::INT32:
      return SizesOfFixed<arrow::Int32Array>(array, rows, 4);
    case arrow::Type::DATE32:
      return SizesOfFixed<arrow::Date32Array>(array, rows, 4);
    case arrow::Type::TIME32:
      return SizesOfFixed<arrow::Time32Array>(array, rows, 4);
    case arrow::Type::FLOAT:
      return SizesOfFixed<arrow::FloatArray>(array, rows, 4);
    case arrow::Type::INT64:
      return SizesOfFixed<arrow::Int64Array>(array, rows, 8);
    case arrow::Type::DOUBLE:
      return SizesOfFixed<arrow::DoubleArray>(array, rows, 8);
    case arrow::Type::TIMESTAMP:  // INT64, or INT96 (12 bytes) for nanoseconds
      return SizesOfFixed<arrow::TimestampArray>(
          array, rows,
          static_cast<const arrow::TimestampType&>(*array.type()).unit() == arrow::TimeUnit::NANO
              ? 12
              : 8);
    case arrow::Type::DECIMAL128: {
      int precision = static_cast<const arrow::Decimal128Type&>(*array.type()).precision();
      if (precision > 18) return kNotJudged;
      return SizesOfDecimal(static_cast<const arrow::Decimal128Array&>(array), rows,
                            precision <= 9 ? 4 : 8);
    }
    case arrow::Type::STRING:
      return SizesOfBinary<arrow::StringArray>(array, rows);
    case arrow::Type::BINARY:
      return SizesOfBinary<arrow::BinaryArray>(array, rows);
    case arrow::Type::LARGE_STRING:
      return SizesOfBinary<arrow::LargeStringArray>(array, rows);
    case arrow::Type::LARGE_BINARY:
      return SizesOfBinary<arrow::LargeBinaryArray>(array, rows);
    default:
      return kNotJudged;
  }
}

}  // namespace

std::vector<std::string> ColumnsADictionaryWouldNotShrink(const arrow::RecordBatch& batch) {
  std::vector<std::string> plain;
  if (batch.num_rows() < kDictionarySampleMinRows) return plain;
  const int64_t rows = std::min(batch.num_rows(), kDictionarySampleMaxRows);
  for (int i = 0; i < batch.num_columns(); ++i) {
    EncodedSizes sizes = SizesOf(*batch.column(i), rows);
    if (sizes.values >= kDictionarySampleMinRows && !sizes.DictionaryShrinks()) {
      plain.push_back(batch.schema()->field(i)->name());
    }
  }
  return plain;
}

}  // namespace freshet::format::internal
