// MemIndexer: the plugin that holds one partition-bucket's uncommitted rows (docs/realtime.md).
//
// The real-time layer (realtime.enabled = true) keeps one MemIndexer per partition-bucket. Rows
// written to the table go to the indexer's *building* segment; PrepareCommit seals it
// (SealForCommit) and flushes the sealed segment through the table's rolling file writers
// (CreateCommitReaders); queries read pinned, immutable views (AcquireReadView,
// CreateQueryReaders); once a snapshot covers rows, Reclaim lets their memory go.
//
// This is freshet's plugin interface, in Arrow C++ types (the table API itself stays on the Arrow
// C Data Interface). A plugin must be built against the same Arrow C++ as libfreshet.
//
// Threading contract (what the framework guarantees, what a plugin must support):
//   * Write, UndoLastWrite and SealForCommit of one indexer are never called concurrently with
//     each other (the framework holds the partition-bucket's write lock around them; keep them
//     short).
//   * AcquireReadView, CreateQueryReaders, reading those readers, CreateCommitReaders, Reclaim and
//     Usage may run on any thread, concurrently with each other and with Write/SealForCommit.
//   * A view never changes once acquired: later writes, seals and reclaims do not alter what it
//     returns, and the view keeps alive everything it references until it is released.
//   * Memory released when a query drops the last reference to a view should not be freed on that
//     thread; the shipped plugins defer it to the next Reclaim.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/export.h"
#include "freshet/result.h"
#include "freshet/row_kind.h"
#include "freshet/status.h"

namespace freshet::realtime {

// OffsetRange, PartitionBucket, QuerySpec, MemoryUsage and MemIndexerOptions are plain values.

// A half-open range [begin, end) of _OFFSETs within one partition-bucket.
struct OffsetRange {
  int64_t begin = 0;
  int64_t end = 0;

  bool empty() const { return end <= begin; }
  friend bool operator==(const OffsetRange&, const OffsetRange&) = default;
};

// One partition value (serialized Paimon BinaryRow, as in manifests) and one bucket.
struct PartitionBucket {
  std::string partition;
  int32_t bucket = 0;

  friend auto operator<=>(const PartitionBucket&, const PartitionBucket&) = default;
};

using ::freshet::RowKind;  // include/freshet/row_kind.h

// Rows of one partition-bucket with their offsets, as written and as read back.
// Thread-safe to read: a value whose arrays are immutable; const methods from any thread.
struct FRESHET_EXPORT RowBatch {
  // Columns: the table's columns (Write, commit readers) or the requested ones (query readers).
  std::shared_ptr<arrow::RecordBatch> rows;
  // Offset of row i: `first_offset + i` when `offsets` is null, else offsets->Value(i). Offsets
  // are strictly increasing, across batches too; gaps are allowed (application offsets).
  int64_t first_offset = 0;
  std::shared_ptr<arrow::Int64Array> offsets;
  // Primary-key tables: the kind of each row (null = all kInsert) and Paimon sequence numbers
  // (null for append tables, whose sequence numbers the file writer assigns).
  std::shared_ptr<arrow::Int8Array> row_kinds;
  std::shared_ptr<arrow::Int64Array> sequence_numbers;

  int64_t num_rows() const;
  int64_t OffsetAt(int64_t row) const;
  // One past the last row's offset (first_offset when empty).
  int64_t EndOffset() const;
  // Rows [offset, length) with the matching offsets, kinds and sequence numbers (zero-copy).
  RowBatch Slice(int64_t offset, int64_t length) const;
  // The first row whose offset is >= `offset` (num_rows() when none).
  int64_t LowerBound(int64_t offset) const;
};

// A stream of row batches; Next() returns nullopt at the end.
// Not thread-safe: one thread at a time (the framework reads each reader on one thread).
class FRESHET_EXPORT RowBatchReader {
 public:
  virtual ~RowBatchReader() = default;
  virtual Result<std::optional<RowBatch>> Next() = 0;
};
using RowBatchReaders = std::vector<std::unique_ptr<RowBatchReader>>;

// A frozen segment returned by SealForCommit; its rows go to files at the next flush.
// Thread-safe: immutable once returned.
class FRESHET_EXPORT SealedSegment {
 public:
  virtual ~SealedSegment() = default;
  // The offsets the segment spans: from the previous segment's end to one past its last row.
  virtual OffsetRange range() const = 0;
  virtual int64_t num_rows() const = 0;
};

// An immutable picture of an indexer's rows (sealed and building) at AcquireReadView time.
// Thread-safe: immutable; shared by every reader of a query, on any thread.
class FRESHET_EXPORT ReadView {
 public:
  virtual ~ReadView() = default;
  // [the lowest offset the view can still return, one past the highest written offset).
  virtual OffsetRange range() const = 0;
  virtual int64_t num_rows() const = 0;
};

namespace internal {
class ZoneColumns;
}  // namespace internal

// A zone map: what RowFilter::MayMatch learnt of one immutable run of rows (the value range and
// null count of each column it tested), kept so that later queries test the run without reading
// its rows again. A plugin keeps one beside each run of rows it never changes (the shipped
// plugins: one per block of rows, a written batch or small ones copied together) and passes it with
// those rows only. It starts empty and is filled column by column, on first use, by the framework.
// Thread-safe: any number of queries may use one at once.
class FRESHET_EXPORT ZoneMap {
 public:
  ZoneMap() = default;
  ~ZoneMap();
  ZoneMap(const ZoneMap&) = delete;
  ZoneMap& operator=(const ZoneMap&) = delete;

  // The framework's side (opaque to plugins): the per-column ranges, made on first use.
  internal::ZoneColumns& Columns(int num_columns) const;

 private:
  mutable std::atomic<internal::ZoneColumns*> columns_{nullptr};
};

// Exact row filter a query applies; plugins may use it to skip rows early (a hint: the framework
// applies the filter again to whatever the readers return).
// Thread-safe: made by the framework; Filter and MayMatch may be called from several threads at
// once.
class FRESHET_EXPORT RowFilter {
 public:
  virtual ~RowFilter() = default;
  // The rows of `batch` (columns as requested in QuerySpec::columns) that pass.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Filter(
      const std::shared_ptr<arrow::RecordBatch>& batch) const = 0;
  // Whether some row of `rows` (a run of rows as written: every table column) may pass; false
  // only when none can, so a reader may skip the run. `zone` belongs to these rows and keeps
  // what this learns for the next query (ZoneMap). Cheap after the first call per run.
  virtual bool MayMatch(const RowBatch& rows, const ZoneMap& zone) const = 0;
};

// Primary-key tables: the order in which the merge takes rows, by primary key, then the
// `sequence.field` columns, then sequence number (Java's order of each type, nulls first). The
// framework makes it (MemIndexerOptions::key_order) for plugins that keep or return rows in it.
// Thread-safe: immutable.
class FRESHET_EXPORT KeyOrder {
 public:
  virtual ~KeyOrder() = default;
  // <0, 0, >0: row `a` of `x` against row `b` of `y`, batches of the table's columns with
  // sequence numbers (as written).
  virtual int Compare(const RowBatch& x, int64_t a, const RowBatch& y, int64_t b) const = 0;
  // The same on the primary key alone.
  virtual int CompareKeys(const RowBatch& x, int64_t a, const RowBatch& y, int64_t b) const = 0;
};

struct QuerySpec {
  // Table column indices to return, in this order (the projection plus filter columns).
  std::vector<int> columns;
  // Only rows with offset in [from_offset, end_offset). The end is the query's cut: a view may
  // hold rows of Writes still in flight when the query began, which it must not return.
  int64_t from_offset = 0;
  int64_t end_offset = std::numeric_limits<int64_t>::max();
  const RowFilter* filter = nullptr;  // optional hint, see RowFilter
  int64_t batch_size = 4096;          // upper bound on rows per returned batch
  // Primary-key tables, asked only of indexers whose ReadsInKeyOrder() is true: each returned
  // reader is one sorted run in MemIndexerOptions::key_order (the framework merges the runs),
  // whose batches carry `offsets` (in any order) and only rows within [from_offset, end_offset).
  bool key_order = false;
  // With key_order, optional: only the rows of these primary keys are needed (a point lookup).
  // Rows with the table's columns, of which only the primary-key columns count, sorted by
  // KeyOrder::CompareKeys and distinct. A hint, as `filter`: an indexer that keeps its rows in
  // key order can seek to each key instead of returning every row; the framework drops the
  // rows of other keys anyway.
  const RowBatch* keys = nullptr;
  // With key_order, optional (a hint, as `filter`): whether rows whose primary keys lie between
  // row `a` of `x` and row `b` of `y` (inclusive; a's key not above b's) may be needed. False
  // for a range implies false for every range inside it, so an indexer may skip the rows before
  // the first and after the last range it cannot rule out (a key-range predicate).
  std::function<bool(const RowBatch& x, int64_t a, const RowBatch& y, int64_t b)> keys_may_match;
};

struct MemoryUsage {
  int64_t bytes = 0;     // memory held (including segments waiting for their last view)
  int64_t rows = 0;      // rows held
  int64_t segments = 0;  // sealed + building segments held
  int64_t spilled_bytes = 0;
};

// Thread safety: the contract at the top of this file (Write, UndoLastWrite and SealForCommit
// serialized by the framework; everything else concurrent with them and with each other).
class FRESHET_EXPORT MemIndexer {
 public:
  virtual ~MemIndexer() = default;

  // Appends rows to the building segment. Their offsets are above every offset written before.
  // On error nothing of the batch is stored.
  virtual Status Write(const RowBatch& batch) = 0;
  // Removes the rows of the latest Write, which returned OK: a table Write spans several
  // partition-buckets and is all or nothing, so when another partition-bucket's indexer fails,
  // the ones that stored their part are asked to drop it. Called under the same write lock,
  // right after that Write, before any other Write or SealForCommit. Views acquired meanwhile
  // may keep the rows (the framework never returns them: they are above every query's cut);
  // later Writes reuse their offsets. The default refuses; the framework then stops accepting
  // Writes for this partition-bucket (the error names it) rather than let the rows surface.
  virtual Status UndoLastWrite() {
    return Status::NotImplemented("this MemIndexer cannot undo a Write");
  }
  // Freezes the building segment (nullptr when it holds no rows) and opens a new one at once.
  virtual Result<std::shared_ptr<SealedSegment>> SealForCommit() = 0;
  // Readers returning every row of `segment` once, in write order, with every column.
  virtual Result<RowBatchReaders> CreateCommitReaders(
      const std::shared_ptr<SealedSegment>& segment) = 0;
  // Pins what is visible now.
  virtual std::shared_ptr<const ReadView> AcquireReadView() = 0;
  // Readers over the view's rows with offset in [spec.from_offset, spec.end_offset), in offset
  // order (the framework drops rows outside the range too, so a plugin may return more).
  virtual Result<RowBatchReaders> CreateQueryReaders(const std::shared_ptr<const ReadView>& view,
                                                     const QuerySpec& spec) = 0;
  // Rows below `committed_end` are in a committed snapshot: drop them once no view needs them.
  // Idempotent and monotonic (a lower value than before is ignored).
  virtual void Reclaim(int64_t committed_end) = 0;
  virtual MemoryUsage Usage() const = 0;
  // Whether CreateQueryReaders honours QuerySpec::key_order. When false, the framework reads a
  // primary-key table's rows in offset order and sorts them for every query.
  virtual bool ReadsInKeyOrder() const { return false; }
};

struct MemIndexerOptions {
  std::shared_ptr<arrow::Schema> schema;  // the table's rows (with Paimon field ids)
  PartitionBucket partition_bucket;
  // The partition-bucket's committed end when the indexer is made: the first segment's range
  // begins here, and each later segment begins where the previous one ended.
  int64_t start_offset = 0;
  bool primary_key_table = false;
  // Primary-key tables: the merge order of rows (null for append tables).
  std::shared_ptr<const KeyOrder> key_order;
  // The table's options, for plugin settings (`realtime.*`).
  std::map<std::string, std::string> table_options;
};

// The plugin point: a factory named by the table option `realtime.mem-indexer`.
// Must be thread-safe: tables opened on different threads call Create concurrently.
class FRESHET_EXPORT MemIndexerFactory {
 public:
  virtual ~MemIndexerFactory() = default;
  virtual std::string name() const = 0;
  virtual Result<std::unique_ptr<MemIndexer>> Create(const MemIndexerOptions& options) = 0;
};

// Registers a factory for every table of the process (AlreadyExists if the name is taken).
// Built in: "columnar" (the default), "indexed" and "spilling". Both functions are thread-safe.
FRESHET_EXPORT Status RegisterMemIndexerFactory(std::shared_ptr<MemIndexerFactory> factory);
FRESHET_EXPORT Result<std::shared_ptr<MemIndexerFactory>> FindMemIndexerFactory(
    const std::string& name);

}  // namespace freshet::realtime
