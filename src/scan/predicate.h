// Predicates: filter expressions over a table's columns, parsed from text ("dt = '2024-01-01' AND
// (amount >= 10.5 OR user IN ('ada', 'grace'))"), bound to a schema (literals typed as the
// column's Paimon type) and evaluated with SQL three-valued logic.
//
// One evaluator serves every use: it works on *sets* of possible outcomes (TRUE, FALSE, NULL), so
// a row (one known outcome per leaf), a partition (leaves on other columns: anything is possible)
// and a data file's statistics (a leaf may be TRUE only if the value range allows it) go through
// the same AND/OR/NOT combinators. A row is returned when its outcome is TRUE; a partition or file
// is kept when TRUE is possible, so pruning never drops a file that may hold a matching row.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/row/binary_row.h"
#include "meta/row/value.h"
#include "meta/schema/table_schema.h"
#include "meta/types/data_type.h"

namespace freshet::scan {

// A set of possible outcomes of SQL three-valued logic, as bits.
using Outcomes = uint8_t;
inline constexpr Outcomes kTrue = 1;
inline constexpr Outcomes kFalse = 2;
inline constexpr Outcomes kNull = 4;  // SQL UNKNOWN
inline constexpr Outcomes kAnyOutcome = kTrue | kFalse | kNull;

// NOT, and AND (is_and) or OR, over sets: every outcome reachable from one outcome of each
// side. On single outcomes (one bit each) they are SQL's three-valued NOT, AND and OR.
Outcomes Not3(Outcomes a);
Outcomes CombineSets(Outcomes a, Outcomes b, bool is_and);

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
const char* CompareOpName(CompareOp op);
// Whether `op` holds between two values whose three-way comparison is `c` (<0, 0, >0).
bool CompareHolds(CompareOp op, int c);

// A literal as written in the expression text, before it is typed by its column.
struct Literal {
  enum class Kind { kNull, kBoolean, kNumber, kString };
  Kind kind = Kind::kNull;
  std::string text;  // number or string contents ('' unescaped); "TRUE"/"FALSE"
};

// A parsed (unbound) expression tree.
struct Expr {
  enum class Kind { kCompare, kIn, kIsNull, kIsNotNull, kAnd, kOr, kNot };
  Kind kind = Kind::kAnd;
  CompareOp op = CompareOp::kEq;  // kCompare
  std::string column;             // leaves
  std::vector<Literal> literals;  // kCompare: one; kIn: the list
  std::vector<Expr> children;     // kAnd / kOr: two or more; kNot: one
};

// Parses the expression text. Errors are Invalid and name the 1-based position and what was
// expected: "filter: at position 7: expected a literal (number, 'string', TRUE, FALSE or NULL),
// found end of input".
Result<Expr> ParsePredicate(std::string_view text);

// An expression bound to a schema: leaves know their column (field id, type, partition position)
// and hold literals converted to the column's type.
struct Predicate {
  Expr::Kind kind = Expr::Kind::kAnd;
  CompareOp op = CompareOp::kEq;
  meta::DataField field;              // leaves
  int32_t partition_index = -1;       // position in the partition row, -1 if not a partition key
  std::vector<meta::Value> literals;  // typed; Value::Null() for NULL
  std::vector<Predicate> children;

  bool IsLeaf() const;
  // The field ids the predicate reads, without duplicates, in first-use order.
  std::vector<meta::DataField> Fields() const;
  // A byte string equal for equal predicates (structure, field ids, typed literals) and different
  // otherwise: a cache key.
  std::string Key() const;
  // Key() appended to `out`.
  void AppendKey(std::string* out) const;
  // Outcomes of the tree given the outcomes of each leaf.
  Outcomes Evaluate(const std::function<Outcomes(const Predicate& leaf)>& leaf_outcomes) const;
  // The outcome of this leaf for one value of its column (exactly one bit).
  Outcomes EvaluateLeaf(const meta::Value& value) const;
};

// Binds `expr` to `schema` (column names, types, partition keys). Errors are Invalid: unknown
// column, a literal that does not fit ("column 'price' is DECIMAL(10, 2); '12.345' has too many
// digits"), nested columns.
Result<Predicate> BindPredicate(const Expr& expr, const meta::TableSchema& schema);
// Parse + bind.
Result<Predicate> MakePredicate(std::string_view text, const meta::TableSchema& schema);

// Whether every column `predicate` reads is a primary-key column of `schema` (partition keys
// belong to the primary key of a partitioned primary-key table). Such a predicate may drop rows
// before a merge: every version of a key passes or fails it alike.
bool ReadsOnlyKeyColumns(const Predicate& predicate, const meta::TableSchema& schema);

// Outcomes for a partition (serialized BinaryRow of the bound schema's partition keys): exact for
// leaves on partition keys, anything for the others.
Result<Outcomes> EvaluatePartition(const Predicate& predicate,
                                   const std::string& serialized_partition);

// Outcomes for a data file from its value statistics. `file_schema` is the schema the file was
// written with (its schema_id); columns are matched by field id, and a column without usable
// statistics (not a stats column, type changed since, unknown min/max) may be anything.
Result<Outcomes> EvaluateFileStats(const Predicate& predicate, const meta::DataFileMeta& file,
                                   const meta::TableSchema& file_schema);

// What is known of one column's values over some rows (a data file's statistics, a zone map of
// memory rows).
struct ColumnStats {
  meta::Value min;  // null = unknown
  meta::Value max;
  std::optional<int64_t> null_count;  // unknown when unset
  int64_t row_count = 0;
};

// Outcomes of one leaf for rows whose column `stats` describes.
Outcomes EvaluateLeafStats(const Predicate& leaf, const ColumnStats& stats);

// One column's statistics in one data file, as EvaluateFileStats reads them.
struct FileColumnStats {
  enum class Kind : uint8_t {
    kAbsent,   // the file's schema has no such column: it reads as NULL in every row
    kUnknown,  // no usable statistics (not a stats column, type changed since)
    kKnown,    // `stats` holds them
  };
  Kind kind = Kind::kUnknown;
  ColumnStats stats;
};

// The statistics of `field` (matched by id) in `file`, whose value statistics rows are
// `min_row` and `max_row`; `file_schema` is the schema the file was written with.
Result<FileColumnStats> FindFileColumnStats(const meta::DataField& field,
                                            const meta::DataFileMeta& file,
                                            const meta::TableSchema& file_schema,
                                            const meta::BinaryRow& min_row,
                                            const meta::BinaryRow& max_row);

// Outcomes of one leaf for a file whose column `stats` describes: EvaluateFileStats is this
// leaf by leaf.
Outcomes EvaluateLeafFileStats(const Predicate& leaf, const FileColumnStats& stats);

// Outcomes for rows whose column `field_id` holds a non-null value within [min, max], every other
// column unknown (a key range of sorted rows, as file statistics are a file's).
Outcomes EvaluateValueRange(const Predicate& predicate, int32_t field_id, const meta::Value& min,
                            const meta::Value& max);

}  // namespace freshet::scan
