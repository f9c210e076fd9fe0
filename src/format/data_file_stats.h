// Per-column statistics of a data file, as Java Paimon records them in DataFileMeta
// (`_VALUE_STATS` / `_KEY_STATS` and `_VALUE_STATS_COLS`).
//
// Statistics let readers skip files, so a bound must never be wrong: when a bound cannot be
// computed exactly (NaN, a string whose truncated max cannot be incremented, a nested column) it is
// written as null, which readers treat as "may match".
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/options/option_registry.h"
#include "meta/row/value.h"
#include "meta/schema/table_schema.h"
#include "meta/types/data_type.h"

namespace freshet::format {

// `metadata.stats-mode` / `fields.<name>.stats-mode`: none, counts, full or truncate(n).
struct StatsMode {
  enum class Kind : uint8_t { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int32_t length = 16;  // for kTruncate: characters kept in string bounds

  // Java's default, truncate(16).
  static StatsMode Default() { return StatsMode{}; }
  // Case-insensitive; Invalid for anything else (the option registry's rule).
  static Result<StatsMode> Parse(std::string_view text);
  static StatsMode FromOption(const meta::StatsModeValue& mode);
  std::string ToString() const;
  bool operator==(const StatsMode&) const = default;
};

// The stats mode of every column of `fields`, from table options.
Result<std::vector<StatsMode>> StatsModesFromOptions(const std::vector<meta::DataField>& fields,
                                                     const meta::Options& options);

// String bounds truncated to `length` code points. The min is the plain prefix; the max is the
// prefix with its last code point incremented (nullopt when that is impossible, i.e. it is
// U+10FFFF). Strings of at most `length` code points are returned unchanged.
std::string TruncateStringMin(std::string_view utf8, int32_t length);
std::optional<std::string> TruncateStringMax(std::string_view utf8, int32_t length);

// Orders two non-null values of the same type (-1, 0, 1) the way Java compares them for
// statistics: numbers numerically, strings and bytes by unsigned bytes, decimals by value,
// timestamps by instant.
int CompareStatsValues(const meta::Value& a, const meta::Value& b);

// Whether min/max of this type are collected at all (primitive columns except binary; see
// docs/data-files.md).
bool CollectsMinMax(const meta::DataType& type);

// Indices of the smallest and largest non-null element of a primitive column (-1 when all are
// null), or NotImplemented for a type without an order. Sets `*has_nan` for floating-point
// columns holding a NaN.
Result<std::pair<int64_t, int64_t>> ColumnArgMinMax(const arrow::Array& array, bool* has_nan);

struct DataFileStats {
  meta::SimpleStats stats;
  // Names of the columns the stats cover, when not all columns of the file (dense store: columns
  // in mode `none` are left out).
  std::optional<std::vector<std::string>> columns;
};

// Accumulates statistics over the batches written to one file.
class StatsCollector {
 public:
  // `modes` has one entry per field (StatsModesFromOptions).
  static Result<StatsCollector> Make(std::vector<meta::DataField> fields,
                                     std::vector<StatsMode> modes);

  // `batch` has the Arrow layout of ToArrowSchema(fields).
  Status Update(const arrow::RecordBatch& batch);
  Result<DataFileStats> Finish() const;

 private:
  struct Column {
    meta::DataField field;
    StatsMode mode;
    bool min_max = false;  // collected for this column
    meta::Value min;
    meta::Value max;
    bool bounds_unknown = false;  // e.g. a NaN was seen
    int64_t null_count = 0;
  };
  Status UpdateColumn(Column* column, const arrow::Array& array);

  std::vector<Column> columns_;
};

}  // namespace freshet::format
