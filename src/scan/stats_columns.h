// StatsColumns: the value statistics a predicate reads, decoded once for every entry of a live
// set and tested from arrays.
//
// Testing a file against a predicate decodes its statistics (two BinaryRows, a Value per bound)
// each time: ~170 ns a file, 1.7 ms at 10,000 live files for every query whose plan was never
// made (a point query with a new literal). Here each column's statistics are decoded once per
// live set into a StatsColumn (int64 bounds for integer columns, Values otherwise), kept
// process-wide per table and column, and carried over to the table's next live set for the
// entries that stay live: a commit decodes only its own files, and a query tests a file with a
// few loads and compares.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/live_files_cache.h"
#include "meta/schema/table_schema.h"
#include "scan/predicate.h"

namespace freshet::scan {

// One column's statistics (a bound leaf's field: id and type) over the entries of a live set.
struct StatsColumn {
  // Shape bits of an entry whose statistics are known.
  static constexpr uint8_t kHasNull = 1;     // some row may be NULL
  static constexpr uint8_t kHasNonNull = 2;  // some row may be non-NULL
  static constexpr uint8_t kBounded = 4;     // min and max are known (integral columns)

  meta::DataField field;   // the column (id and type)
  meta::LiveEntries live;  // the entries, in the order of the arrays
  // Integer-valued types (TINYINT to BIGINT, DATE, TIME): bounds as int64 in `min` / `max`.
  bool integral = false;
  std::vector<FileColumnStats::Kind> kinds;  // per entry
  std::vector<uint8_t> shapes;               // integral: per entry
  std::vector<int64_t> min, max;             // integral: per entry
  std::vector<ColumnStats> stats;            // other types: per entry

  // Integral: a summary per block of kBlockEntries consecutive entries (the last one shorter),
  // so that a comparison skips whole blocks: the least min and the greatest max of its entries
  // with plain bounds (known, some value not NULL, min and max). The others are listed in
  // `irregular` (ascending), to be tested one by one. Live sets list files by commit, so blocks
  // of a column that grows with time (ids, event times) are narrow.
  static constexpr size_t kBlockEntries = 64;
  std::vector<int64_t> block_min, block_max;
  std::vector<uint32_t> irregular;

  // The column of `field` over `live`, built from `previous` (the same column over an earlier
  // live set of the same table) for the entries both hold.
  using SchemaOf = std::function<Result<const meta::TableSchema*>(int64_t schema_id)>;
  static Result<StatsColumn> Build(const meta::DataField& field, const meta::LiveEntries& live,
                                   const StatsColumn* previous, const SchemaOf& schema_of);
  // Entries decoded by Build so far in this process (the rest were carried over).
  static int64_t DecodedEntries();
};

// A predicate's test of a file's statistics, over the StatsColumns of the columns it reads.
class StatsColumns {
 public:
  // The columns of `predicate` over `live` of the table at `table_path`, from the process-wide
  // cache or built (from the cache's column over the table's previous live set where it has one).
  // nullopt when the live set is too large to keep columns for (more than kMaxEntries) or a
  // literal does not fit its integral column: then test files one by one (EvaluateFileStats).
  static Result<std::optional<StatsColumns>> Make(const std::string& table_path,
                                                  const Predicate& predicate,
                                                  const meta::LiveEntries& live,
                                                  const StatsColumn::SchemaOf& schema_of);

  // After a commit of this process: every column of the table at `table_path` cached for an
  // earlier live set is built for `live` (carried over where entries stayed), so that the next
  // query finds it ready.
  static Status CarryCached(const std::string& table_path, const meta::LiveEntries& live,
                            const StatsColumn::SchemaOf& schema_of);

  // EvaluateFileStats(predicate, file of entry `i` of the live set, the file's schema).
  Outcomes Evaluate(size_t i) const { return all_.empty() ? EvaluateNode(0, i) : all_[i]; }
  // Evaluates every entry of the live set at once, a pass over the column arrays per predicate
  // node instead of a walk of the predicate per entry (for plans that test most of the live
  // set); Evaluate then reads the result.
  void EvaluateAll();
  // Every entry's outcomes after EvaluateAll (kAskTheFile, 0, where the file must be tested
  // itself); nullptr before.
  const std::vector<Outcomes>* AllOutcomes() const { return all_.empty() ? nullptr : &all_; }

  // When the predicate is a comparison of an integral column with a literal (=, <, <=, >, >=),
  // or an AND of which one is: the ranges [begin, end) of entry indexes outside which no entry's
  // statistics let it be TRUE (blocks of StatsColumn::kBlockEntries whose summary rules the
  // comparison out are left out but for their irregular entries; ascending, adjacent ones
  // joined). nullopt for other predicates.
  using EntryRanges = std::vector<std::pair<uint32_t, uint32_t>>;
  std::optional<EntryRanges> CandidateRanges() const;

  static constexpr size_t kMaxEntries = size_t{1} << 18;
  // Entries over all cached columns (integral entries cost 1, others 4).
  static constexpr int64_t kCacheBudget = int64_t{1} << 21;

 private:
  struct Node {
    Expr::Kind kind = Expr::Kind::kAnd;
    std::vector<uint32_t> children;  // node indexes (kAnd, kOr, kNot)
    const Predicate* leaf = nullptr;
    std::shared_ptr<const StatsColumn> column;
    Outcomes null_outcome = kNull;      // the leaf's outcome for a NULL value
    std::vector<int64_t> int_literals;  // integral leaves: the non-null literals
    bool null_literal = false;          // integral leaves: some literal is NULL
  };
  Result<uint32_t> AddNode(const std::string& table_path, const Predicate& p,
                           const meta::LiveEntries& live, const StatsColumn::SchemaOf& schema_of);
  Outcomes EvaluateNode(uint32_t node, size_t i) const;
  Outcomes EvaluateLeaf(const Node& node, size_t i) const;
  Outcomes EvaluateIntegralLeaf(const Node& node, size_t i) const;
  // EvaluateNode of every entry, into `out` (entries_ of them).
  void EvaluateNodeAll(uint32_t node, std::vector<Outcomes>* out) const;
  void EvaluateLeafAll(const Node& node, std::vector<Outcomes>* out) const;
  // A comparison leaf CandidateRanges can drive; nullptr if `node` is none.
  const Node* RangeLeaf(const Node& node) const;

  std::vector<Node> nodes_;  // nodes_[0] is the root
  bool literals_fit_ = true;
  size_t entries_ = 0;         // of the live set
  std::vector<Outcomes> all_;  // by EvaluateAll: every entry's outcomes
};

}  // namespace freshet::scan
