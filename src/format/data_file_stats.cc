#include "format/data_file_stats.h"

#include <arrow/api.h>
#include <arrow/util/bit_run_reader.h>
#include <arrow/util/bitmap_ops.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "bridge/arrow_value.h"
#include "meta/options/option_registry.h"
#include "meta/row/binary_row.h"

namespace freshet::format {

using meta::DataType;
using meta::TypeRoot;
using meta::Value;

namespace {

// Byte offsets of the first `count` code points; returns the byte length of that prefix.
size_t PrefixBytes(std::string_view utf8, int32_t count) {
  size_t pos = 0;
  for (int32_t i = 0; i < count && pos < utf8.size(); ++i) {
    ++pos;
    while (pos < utf8.size() && (static_cast<unsigned char>(utf8[pos]) & 0xC0) == 0x80) ++pos;
  }
  return pos;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes the code point starting at `start` (lenient: a malformed sequence yields its lead byte).
uint32_t DecodeUtf8(std::string_view s, size_t start) {
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  uint32_t lead = byte(start);
  size_t extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  if (start + extra >= s.size()) return lead;  // truncated sequence
  uint32_t cp = extra == 3   ? lead & 0x07
                : extra == 2 ? lead & 0x0F
                : extra == 1 ? lead & 0x1F
                             : lead;
  for (size_t i = 1; i <= extra; ++i) cp = (cp << 6) | (byte(start + i) & 0x3F);
  return cp;
}

// Calls `visit(i)` for the index of every non-null element of `array`, in order: a plain loop
// when there are no nulls, runs of set validity bits otherwise (no per-element bitmap test).
template <typename Visit>
void ForEachValid(const arrow::Array& array, Visit&& visit) {
  if (array.null_count() == 0) {
    for (int64_t i = 0; i < array.length(); ++i) visit(i);
    return;
  }
  arrow::internal::VisitSetBitRunsVoid(array.null_bitmap_data(), array.offset(), array.length(),
                                       [&](int64_t position, int64_t length) {
                                         for (int64_t i = position; i < position + length; ++i) {
                                           visit(i);
                                         }
                                       });
}

// [argmin, argmax] of the non-null elements of `array` under `less`, the first of equal ones;
// -1 when there are none. `get(i)` is element i; the current bounds are kept as values.
template <typename Get, typename Less>
std::pair<int64_t, int64_t> ArgMinMax(const arrow::Array& array, Get get, Less less) {
  using T = std::decay_t<decltype(get(0))>;
  int64_t min_index = -1;
  int64_t max_index = -1;
  T min{};
  T max{};
  ForEachValid(array, [&](int64_t i) {
    T value = get(i);
    if (min_index < 0) {
      min_index = max_index = i;
      min = max = value;
      return;
    }
    if (less(value, min)) {
      min = value;
      min_index = i;
    }
    if (less(max, value)) {
      max = value;
      max_index = i;
    }
  });
  return {min_index, max_index};
}

template <typename ArrayT>
std::pair<int64_t, int64_t> NumericArgMinMax(const arrow::Array& array) {
  const auto* values = static_cast<const ArrayT&>(array).raw_values();
  return ArgMinMax(
      array, [values](int64_t i) { return values[i]; }, std::less<>());
}

std::pair<int64_t, int64_t> BooleanArgMinMax(const arrow::Array& array) {
  const auto& typed = static_cast<const arrow::BooleanArray&>(array);
  return ArgMinMax(
      array, [&](int64_t i) { return typed.Value(i); }, std::less<>());
}

// A byte string with the big-endian number of its first eight bytes (zero-padded), so that most
// comparisons in unsigned byte order are one integer comparison: a smaller prefix number means a
// smaller string, and only equal numbers need the bytes compared.
struct PrefixedBytes {
  uint64_t prefix = 0;
  std::string_view bytes;

  static PrefixedBytes Of(std::string_view bytes) {
    uint64_t word = 0;
    if (bytes.size() >= sizeof(word)) {
      std::memcpy(&word, bytes.data(), sizeof(word));
    } else if (!bytes.empty()) {
      std::memcpy(&word, bytes.data(), bytes.size());
    }
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    return {word, bytes};
  }
  friend bool operator<(const PrefixedBytes& a, const PrefixedBytes& b) {
    return a.prefix < b.prefix || (a.prefix == b.prefix && a.bytes < b.bytes);
  }
};

std::pair<int64_t, int64_t> BinaryArgMinMax(const arrow::Array& array) {
  const auto& typed = static_cast<const arrow::BinaryArray&>(array);
  return ArgMinMax(
      array, [&](int64_t i) { return PrefixedBytes::Of(typed.GetView(i)); }, std::less<>());
}

template <typename ArrayT>
bool HasNaN(const arrow::Array& array) {
  const auto* values = static_cast<const ArrayT&>(array).raw_values();
  bool nan = false;
  ForEachValid(array, [&](int64_t i) { nan |= std::isnan(values[i]); });
  return nan;
}

}  // namespace

Result<std::pair<int64_t, int64_t>> ColumnArgMinMax(const arrow::Array& array, bool* has_nan) {
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return BooleanArgMinMax(array);
    case arrow::Type::INT8:
      return NumericArgMinMax<arrow::Int8Array>(array);
    case arrow::Type::INT16:
      return NumericArgMinMax<arrow::Int16Array>(array);
    case arrow::Type::INT32:
      return NumericArgMinMax<arrow::Int32Array>(array);
    case arrow::Type::INT64:
      return NumericArgMinMax<arrow::Int64Array>(array);
    case arrow::Type::DATE32:
      return NumericArgMinMax<arrow::Date32Array>(array);
    case arrow::Type::TIME32:
      return NumericArgMinMax<arrow::Time32Array>(array);
    case arrow::Type::TIMESTAMP:
      return NumericArgMinMax<arrow::TimestampArray>(array);
    case arrow::Type::FLOAT:
      *has_nan = HasNaN<arrow::FloatArray>(array);
      return NumericArgMinMax<arrow::FloatArray>(array);
    case arrow::Type::DOUBLE:
      *has_nan = HasNaN<arrow::DoubleArray>(array);
      return NumericArgMinMax<arrow::DoubleArray>(array);
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return BinaryArgMinMax(array);
    case arrow::Type::DECIMAL128: {
      const auto& typed = static_cast<const arrow::Decimal128Array&>(array);
      return ArgMinMax(
          array, [&](int64_t i) { return arrow::Decimal128(typed.GetValue(i)); }, std::less<>());
    }
    default:
      break;
  }
  return Status::NotImplemented("statistics of Arrow type ", array.type()->ToString());
}

Result<StatsMode> StatsMode::Parse(std::string_view text) {
  // The option registry's rule (meta::ParseStatsMode), so that options and this agree.
  FRESHET_ASSIGN_OR_RETURN(meta::StatsModeValue mode, meta::ParseStatsMode(text));
  return FromOption(mode);
}

StatsMode StatsMode::FromOption(const meta::StatsModeValue& mode) {
  switch (mode.kind) {
    case meta::StatsModeValue::Kind::kNone:
      return StatsMode{Kind::kNone, 0};
    case meta::StatsModeValue::Kind::kCounts:
      return StatsMode{Kind::kCounts, 0};
    case meta::StatsModeValue::Kind::kFull:
      return StatsMode{Kind::kFull, 0};
    case meta::StatsModeValue::Kind::kTruncate:
      break;
  }
  return StatsMode{Kind::kTruncate, mode.length};
}

std::string StatsMode::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kCounts:
      return "counts";
    case Kind::kFull:
      return "full";
    case Kind::kTruncate:
      return "truncate(" + std::to_string(length) + ")";
  }
  return "?";
}

Result<std::vector<StatsMode>> StatsModesFromOptions(const std::vector<meta::DataField>& fields,
                                                     const meta::Options& options) {
  // `fields.<name>.stats-mode` falls back to `metadata.stats-mode` in the option registry.
  FRESHET_RETURN_NOT_OK(meta::GetStatsModeOption(options, "metadata.stats-mode").status());
  std::vector<StatsMode> modes;
  for (const auto& field : fields) {
    FRESHET_ASSIGN_OR_RETURN(
        meta::StatsModeValue mode,
        meta::GetStatsModeOption(options, "fields." + field.name + ".stats-mode"));
    modes.push_back(StatsMode::FromOption(mode));
  }
  return modes;
}

std::string TruncateStringMin(std::string_view utf8, int32_t length) {
  return std::string(utf8.substr(0, PrefixBytes(utf8, length)));
}

std::optional<std::string> TruncateStringMax(std::string_view utf8, int32_t length) {
  size_t prefix = PrefixBytes(utf8, length);
  if (prefix == utf8.size()) return std::string(utf8);
  size_t last = PrefixBytes(utf8, length - 1);
  uint32_t cp = DecodeUtf8(utf8, last);
  if (cp >= 0x10FFFF) return std::nullopt;
  // Surrogates are not characters: the successor of U+D7FF is U+E000.
  uint32_t next = cp == 0xD7FF ? 0xE000 : cp + 1;
  std::string out(utf8.substr(0, last));
  AppendUtf8(next, &out);
  return out;
}

int CompareStatsValues(const Value& a, const Value& b) {
  return std::visit(
      [&](const auto& x) -> int {
        using T = std::decay_t<decltype(x)>;
        const T* y = b.get_if<T>();
        if constexpr (std::is_same_v<T, std::monostate>) {
          return b.is_null() ? 0 : -1;
        } else {
          if (y == nullptr) return 1;
          if constexpr (std::is_same_v<T, meta::Decimal>) {
            return x.unscaled < y->unscaled ? -1 : (y->unscaled < x.unscaled ? 1 : 0);
          } else if constexpr (std::is_same_v<T, meta::Timestamp>) {
            auto lhs = std::tie(x.millis, x.nano_of_milli);
            auto rhs = std::tie(y->millis, y->nano_of_milli);
            return lhs < rhs ? -1 : (rhs < lhs ? 1 : 0);
          } else {
            return x < *y ? -1 : (*y < x ? 1 : 0);
          }
        }
      },
      a.storage());
}

bool CollectsMinMax(const DataType& type) {
  // Binary columns: Java leaves their bounds null (see docs/data-files.md); composite columns have
  // no order.
  return !type.IsComposite() && !type.IsBinaryLike() && type.root() != TypeRoot::kVariant &&
         type.root() != TypeRoot::kBlob;
}

Result<StatsCollector> StatsCollector::Make(std::vector<meta::DataField> fields,
                                            std::vector<StatsMode> modes) {
  if (fields.size() != modes.size()) {
    return Status::Invalid("stats collector: ", fields.size(), " fields but ", modes.size(),
                           " stats modes");
  }
  StatsCollector collector;
  for (size_t i = 0; i < fields.size(); ++i) {
    Column column;
    column.mode = modes[i];
    column.min_max =
        CollectsMinMax(*fields[i].type) &&
        (modes[i].kind == StatsMode::Kind::kFull || modes[i].kind == StatsMode::Kind::kTruncate);
    column.field = std::move(fields[i]);
    collector.columns_.push_back(std::move(column));
  }
  return collector;
}

Status StatsCollector::Update(const arrow::RecordBatch& batch) {
  if (batch.num_columns() != static_cast<int>(columns_.size())) {
    return Status::Invalid("stats collector: batch has ", batch.num_columns(), " columns, not ",
                           columns_.size());
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    FRESHET_RETURN_NOT_OK(UpdateColumn(&columns_[i], *batch.column(static_cast<int>(i))));
  }
  return Status::OK();
}

Status StatsCollector::UpdateColumn(Column* column, const arrow::Array& array) {
  column->null_count += array.null_count();
  if (!column->min_max || column->bounds_unknown) return Status::OK();
  bool has_nan = false;
  FRESHET_ASSIGN_OR_RETURN(auto indices, ColumnArgMinMax(array, &has_nan));
  if (has_nan) {
    // NaN has no place in an order Java and we agree on; an unknown bound is always safe.
    column->bounds_unknown = true;
    return Status::OK();
  }
  if (indices.first < 0) return Status::OK();
  const DataType& type = *column->field.type;
  FRESHET_ASSIGN_OR_RETURN(Value min, bridge::ArrowValueAt(array, indices.first, type));
  FRESHET_ASSIGN_OR_RETURN(Value max, bridge::ArrowValueAt(array, indices.second, type));
  if (column->min.is_null() || CompareStatsValues(min, column->min) < 0) column->min = min;
  if (column->max.is_null() || CompareStatsValues(column->max, max) < 0) column->max = max;
  return Status::OK();
}

Result<DataFileStats> StatsCollector::Finish() const {
  std::vector<meta::DataTypePtr> types;
  std::vector<Value> mins;
  std::vector<Value> maxs;
  std::vector<std::optional<int64_t>> null_counts;
  std::vector<std::string> names;
  for (const auto& column : columns_) {
    if (column.mode.kind == StatsMode::Kind::kNone) continue;
    names.push_back(column.field.name);
    types.push_back(column.field.type->WithNullable(true));
    null_counts.push_back(column.null_count);
    Value min;
    Value max;
    if (column.min_max && !column.bounds_unknown) {
      min = column.min;
      max = column.max;
      const std::string* min_text = min.get_if<std::string>();
      const std::string* max_text = max.get_if<std::string>();
      if (column.mode.kind == StatsMode::Kind::kTruncate && min_text != nullptr) {
        min = Value::String(TruncateStringMin(*min_text, column.mode.length));
        auto truncated_max = TruncateStringMax(*max_text, column.mode.length);
        max = truncated_max ? Value::String(*truncated_max) : Value::Null();
      }
    }
    mins.push_back(std::move(min));
    maxs.push_back(std::move(max));
  }
  DataFileStats result;
  FRESHET_ASSIGN_OR_RETURN(auto min_row, meta::BuildBinaryRow(types, mins));
  FRESHET_ASSIGN_OR_RETURN(auto max_row, meta::BuildBinaryRow(types, maxs));
  result.stats.min_values = meta::SerializeBinaryRow(min_row);
  result.stats.max_values = meta::SerializeBinaryRow(max_row);
  result.stats.null_counts = std::move(null_counts);
  if (names.size() != columns_.size()) result.columns = std::move(names);
  return result;
}

}  // namespace freshet::format
