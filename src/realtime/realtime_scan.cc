#include "realtime/realtime_scan.h"

#include <arrow/api.h>

#include <map>

#include "bridge/arrow_schema.h"
#include "bridge/arrow_value.h"
#include "common/arrow_status.h"
#include "read/predicate_filter.h"
#include "read/primary_key_read.h"
#include "realtime/context.h"
#include "realtime/indexers/key_ordered_rows.h"
#include "realtime/records.h"
#include "realtime/zone_map.h"
#include "write/sort_buffer.h"

namespace freshet::realtime {

namespace {

// Memory rows as the batches a file reader of the same read fields would return, clipped to the
// split's [from, end) whatever the plugin returned.
class MemoryReader : public read::BatchReader {
 public:
  MemoryReader(RowBatchReaders readers, std::shared_ptr<arrow::Schema> schema,
               const RealtimeSplit& split, std::shared_ptr<const RowFilter> filter)
      : readers_(std::move(readers)),
        filter_(std::move(filter)),
        schema_(std::move(schema)),
        view_(split.view),
        from_(split.from_offset),
        end_(split.end_offset) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (next_ < readers_.size()) {
      FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> batch, readers_[next_]->Next());
      if (!batch) {
        ++next_;
        continue;
      }
      int64_t first = batch->LowerBound(from_);
      int64_t last = batch->LowerBound(end_);
      if (last <= first) continue;
      if (first > 0 || last < batch->num_rows()) *batch = batch->Slice(first, last - first);
      return arrow::RecordBatch::Make(schema_, batch->num_rows(), batch->rows->columns());
    }
    return std::shared_ptr<arrow::RecordBatch>();
  }

 private:
  RowBatchReaders readers_;
  std::shared_ptr<const RowFilter> filter_;  // the readers' QuerySpec::filter, if any
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<const ReadView> view_;  // pinned while this reader lives
  const int64_t from_;
  const int64_t end_;
  size_t next_ = 0;
};

// Memory records that may matter to a read with `key_filter` (a predicate on primary-key columns
// only, or null): the others are dropped before the merge, which is safe since every version of
// a key passes or fails such a predicate alike.
Result<std::shared_ptr<mergetree::MergeBatch>> KeyFiltered(
    std::shared_ptr<mergetree::MergeBatch> records, const mergetree::MergeLayout& layout,
    const scan::Predicate* key_filter) {
  if (key_filter == nullptr || records->num_rows() == 0) return records;
  FRESHET_ASSIGN_OR_RETURN(auto kept,
                           read::FilterBatch(*key_filter, records->batch(), layout.AllFields()));
  if (kept == records->batch()) return records;
  return mergetree::MergeBatch::Make(std::move(kept), layout);
}

// The memory rows of one primary-key split as one run in merge order: every version in [from,
// end), sorted by key, `sequence.field` and sequence number when first read.
class SortedMemoryRun : public mergetree::MergeBatchReader {
 public:
  SortedMemoryRun(RowBatchReaders readers, const mergetree::MergeLayout& layout,
                  write::RecordOrder order, const RealtimeSplit& split, int64_t batch_rows,
                  const scan::Predicate* key_filter)
      : readers_(std::move(readers)),
        layout_(layout),
        key_filter_(key_filter),
        order_(std::move(order)),
        view_(split.view),
        from_(split.from_offset),
        end_(split.end_offset),
        batch_rows_(batch_rows) {}

  Result<std::shared_ptr<mergetree::MergeBatch>> Next() override {
    if (!sorted_) FRESHET_RETURN_NOT_OK(Sort());
    return sorted_->Next();
  }

 private:
  Status Sort() {
    std::vector<std::shared_ptr<mergetree::MergeBatch>> records;
    for (auto& reader : readers_) {
      while (true) {
        FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> batch, reader->Next());
        if (!batch) break;
        int64_t first = batch->LowerBound(from_);
        int64_t last = batch->LowerBound(end_);
        if (last <= first) continue;
        FRESHET_ASSIGN_OR_RETURN(auto part, AsRecords(batch->Slice(first, last - first), layout_));
        FRESHET_ASSIGN_OR_RETURN(part, KeyFiltered(std::move(part), layout_, key_filter_));
        if (part->num_rows() > 0) records.push_back(std::move(part));
      }
    }
    readers_.clear();
    sorted_ = write::SortedRun(layout_, order_, std::move(records), batch_rows_);
    return Status::OK();
  }

  RowBatchReaders readers_;
  const mergetree::MergeLayout& layout_;
  const scan::Predicate* key_filter_;
  const write::RecordOrder order_;
  std::shared_ptr<const ReadView> view_;  // pinned while this reader lives
  const int64_t from_;
  const int64_t end_;
  const int64_t batch_rows_;
  std::unique_ptr<mergetree::MergeBatchReader> sorted_;
};

// One reader of an indexer that reads in key order (MemIndexer::ReadsInKeyOrder): a sorted run
// as it comes, rows outside [from, end) dropped should the plugin return any.
class KeyOrderedRun : public mergetree::MergeBatchReader {
 public:
  KeyOrderedRun(std::unique_ptr<RowBatchReader> reader, const mergetree::MergeLayout& layout,
                const RealtimeSplit& split, const scan::Predicate* key_filter)
      : reader_(std::move(reader)),
        layout_(layout),
        key_filter_(key_filter),
        view_(split.view),
        from_(split.from_offset),
        end_(split.end_offset) {}

  Result<std::shared_ptr<mergetree::MergeBatch>> Next() override {
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> batch, reader_->Next());
      if (!batch) return std::shared_ptr<mergetree::MergeBatch>();
      if (batch->num_rows() == 0) continue;
      if (batch->offsets == nullptr) {
        return Status::Internal("a MemIndexer returned key-ordered rows without their offsets");
      }
      std::vector<read::RowRun> inside;
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        int64_t offset = batch->offsets->Value(row);
        if (offset < from_ || offset >= end_) continue;
        if (!inside.empty() && inside.back().second == row) {
          ++inside.back().second;
        } else {
          inside.emplace_back(row, row + 1);
        }
      }
      if (inside.empty()) continue;
      // The records carry kinds and sequence numbers in columns: one selection keeps them all.
      FRESHET_ASSIGN_OR_RETURN(auto records, AsRecords(*batch, layout_));
      if (inside.size() > 1 || inside[0] != read::RowRun{0, batch->num_rows()}) {
        FRESHET_ASSIGN_OR_RETURN(auto kept, read::SelectRowRuns(records->batch(), inside));
        FRESHET_ASSIGN_OR_RETURN(records, mergetree::MergeBatch::Make(std::move(kept), layout_));
      }
      FRESHET_ASSIGN_OR_RETURN(records, KeyFiltered(std::move(records), layout_, key_filter_));
      if (records->num_rows() > 0) return records;
    }
  }

 private:
  std::unique_ptr<RowBatchReader> reader_;
  const mergetree::MergeLayout& layout_;
  const scan::Predicate* key_filter_;
  std::shared_ptr<const ReadView> view_;  // pinned while this reader lives
  const int64_t from_;
  const int64_t end_;
};

// Table column indices of `fields` (by field id), in their order.
Result<std::vector<int>> ColumnsOf(const meta::TableSchema& schema,
                                   const std::vector<meta::DataField>& fields) {
  std::vector<int> columns;
  for (const meta::DataField& field : fields) {
    int index = -1;
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      if (schema.fields()[i].id == field.id) index = static_cast<int>(i);
    }
    if (index < 0) {
      return Status::NotImplemented("column '", field.name,
                                    "' is not in the schema the real-time rows were written with");
    }
    columns.push_back(index);
  }
  return columns;
}

// QuerySpec::keys of a read restricted to some keys (Table::Lookup): the selected keys as rows
// of the table's columns, the others null.
Result<std::optional<RowBatch>> KeysOf(const read::KeySelection* selection,
                                       const arrow::Schema& table) {
  if (selection == nullptr) return std::optional<RowBatch>();
  const auto& keys = selection->sorted_keys();
  arrow::ArrayVector columns;
  for (const auto& field : table.fields()) {
    std::shared_ptr<arrow::Array> column = keys->GetColumnByName(field->name());
    if (!column) {
      FRESHET_ASSIGN_OR_RETURN_ARROW(column,
                                     arrow::MakeArrayOfNull(field->type(), keys->num_rows()));
    }
    columns.push_back(std::move(column));
  }
  RowBatch rows;
  rows.rows = arrow::RecordBatch::Make(std::make_shared<arrow::Schema>(table.fields()),
                                       keys->num_rows(), std::move(columns));
  return std::optional<RowBatch>(std::move(rows));
}

// QuerySpec::keys_may_match of a key-only predicate, for tables whose trimmed primary key is one
// column (rows are sorted by it): a key range may hold wanted rows unless the predicate is
// FALSE or NULL for every value within it, as file statistics prune files. Empty otherwise.
KeyRangeTest KeyRangeTestOf(const scan::Predicate* key_filter, const meta::TableSchema& schema) {
  if (key_filter == nullptr) return {};
  const std::vector<std::string> keys = schema.TrimmedPrimaryKeys();
  if (keys.size() != 1) return {};
  const int column = schema.FieldIndex(keys[0]);
  const meta::DataField field = schema.fields()[static_cast<size_t>(column)];
  return [key_filter, column, field](const RowBatch& x, int64_t a, const RowBatch& y, int64_t b) {
    auto low = bridge::ArrowValueAt(*x.rows->column(column), a, *field.type);
    auto high = bridge::ArrowValueAt(*y.rows->column(column), b, *field.type);
    if (!low.ok() || !high.ok()) return true;  // cannot tell: keep the rows
    return (scan::EvaluateValueRange(*key_filter, field.id, *low, *high) & scan::kTrue) != 0;
  };
}

// Primary-key tables: per partition-bucket, its files merged with its memory rows (newest).
Result<std::unique_ptr<read::BatchReader>> CreatePrimaryKeyReader(
    const read::TableRead& read, const RealtimeScanPlan& plan,
    const std::vector<const RealtimeSplit*>& splits) {
  const read::PrimaryKeyReadPlan& merge = *read.primary_key_plan();
  QuerySpec spec;
  spec.batch_size = read.options().batch_size;
  // Every version goes into the merge: no filter before it (a filtered-out newer version may
  // be the one that wins, or partial fields an older one completes).
  FRESHET_ASSIGN_OR_RETURN(
      spec.columns, ColumnsOf(InternalImpl(*plan.context).schema(), merge.layout.value_fields()));
  FRESHET_ASSIGN_OR_RETURN(write::RecordOrder order, write::RecordOrder::Make(merge.layout));
  const scan::Predicate* predicate = read.options().predicate.get();
  const scan::Predicate* key_filter =
      predicate && scan::ReadsOnlyKeyColumns(*predicate, merge.schema) ? predicate : nullptr;
  // A lookup: key-ordered indexers seek to its keys (the framework filters by key_filter too).
  FRESHET_ASSIGN_OR_RETURN(
      std::optional<RowBatch> keys,
      KeysOf(read.options().key_selection.get(), *InternalImpl(*plan.context).arrow_schema()));
  // A key-range predicate: key-ordered indexers skip the rows outside its range.
  const KeyRangeTest key_range = KeyRangeTestOf(key_filter, InternalImpl(*plan.context).schema());
  std::vector<scan::DataSplit> disk;
  std::vector<std::vector<std::unique_ptr<mergetree::MergeBatchReader>>> newer;
  for (const RealtimeSplit* split : splits) {
    scan::DataSplit files;
    files.partition = split->pb.partition;
    files.bucket = split->pb.bucket;
    // A primary-key table's scan makes one split per partition-bucket.
    for (const scan::DataSplit& part : split->disk) files = part;
    std::vector<std::unique_ptr<mergetree::MergeBatchReader>> memory;
    if (split->indexer) {
      spec.from_offset = split->from_offset;
      spec.end_offset = split->end_offset;
      spec.key_order = split->indexer->ReadsInKeyOrder();
      spec.keys = spec.key_order && keys ? &*keys : nullptr;
      spec.keys_may_match = spec.key_order ? key_range : KeyRangeTest();
      FRESHET_ASSIGN_OR_RETURN(RowBatchReaders readers,
                               split->indexer->CreateQueryReaders(split->view, spec));
      if (spec.key_order) {
        for (auto& reader : readers) {
          memory.push_back(
              std::make_unique<KeyOrderedRun>(std::move(reader), merge.layout, *split, key_filter));
        }
      } else {
        memory.push_back(std::make_unique<SortedMemoryRun>(std::move(readers), merge.layout, order,
                                                           *split, spec.batch_size, key_filter));
      }
    }
    disk.push_back(std::move(files));
    newer.push_back(std::move(memory));
  }
  return read.CreateMergingReader(std::move(disk), std::move(newer));
}

}  // namespace

Result<RealtimeScanPlan> PlanRealtimeScan(const std::shared_ptr<RealtimeContext>& context,
                                          scan::ScanOptions options) {
  if (options.snapshot_id || options.timestamp_millis) {
    return Status::Invalid("a real-time scan reads the latest snapshot; time travel is disk-only");
  }
  RealtimeContext::Impl& impl = InternalImpl(*context);
  // 1. Cut: the Writes numbered up to the watermark have all finished; the query returns
  // exactly those of them that are not in the snapshot, so it never holds part of a Write.
  const uint64_t cut = impl.sequencer().watermark();
  // 2. Pin memory (after the cut, so every view holds the cut's rows; rows pinned now cannot be
  // reclaimed before this plan is released) and find each partition-bucket's end at the cut.
  struct Pinned {
    PartitionBucketSlot* slot;
    std::shared_ptr<const ReadView> view;
    int64_t cut_end;
  };
  std::vector<Pinned> pinned;
  for (PartitionBucketSlot* slot : impl.Slots()) {
    Pinned p{slot, slot->indexer->AcquireReadView(), 0};
    {
      std::lock_guard lock(slot->write_mu);
      p.cut_end = slot->EndAt(cut);
    }
    pinned.push_back(std::move(p));
  }
  // Read after pinning: a reclaim that a view already reflects was preceded by this record.
  ProgressMap committed = impl.Committed();

  // 3. Then the snapshot and its files. Commits also cut at a watermark, so the snapshot holds
  // whole Writes; if it is newer than the query's cut, memory adds nothing (its ends are past
  // the cut's), otherwise memory adds the Writes between the snapshot's cut and the query's.
  scan::TableScan scan(impl.file_io(), impl.path());
  // Primary-key tables merge every committed row with memory, level 0 included where a batch
  // scan skips it (deletion vectors, first-row): nothing written may be invisible.
  options.read_level0 = true;
  FRESHET_ASSIGN_OR_RETURN(scan::ScanPlan disk, scan.Plan(options));
  ProgressMap progress;
  if (disk.snapshot) {
    FRESHET_ASSIGN_OR_RETURN(progress, impl.progress_resolver().ProgressOf(*disk.snapshot));
  }
  RealtimeScanPlan plan;
  plan.snapshot = disk.snapshot;
  plan.context = context;
  std::map<PartitionBucket, RealtimeSplit> splits;
  for (scan::DataSplit& split : disk.splits) {
    PartitionBucket pb{split.partition, split.bucket};
    RealtimeSplit& out = splits[pb];
    out.pb = pb;
    out.disk.push_back(std::move(split));
  }

  // 4. Clip memory with the snapshot's progress.
  for (Pinned& p : pinned) {
    const PartitionBucket& pb = p.slot->pb;
    OffsetRange held = p.view->range();
    int64_t from = held.begin;
    if (auto it = progress.find(pb); it != progress.end()) {
      from = it->second;
    } else if (auto known = committed.find(pb); known != committed.end()) {
      // The snapshot has no progress for pb (an overwrite replaced its partition): rows this
      // process committed before are not in it any more, and must not come back from memory.
      from = known->second;
    }
    if (from < held.begin) {
      return Status::Internal("real-time coverage invariant broken for ", impl.Describe(pb),
                              ": snapshot ", disk.snapshot ? disk.snapshot->id : 0,
                              " covers offsets below ", from,
                              " but memory only holds offsets from ", held.begin,
                              "; offsets in between are in no "
                              "snapshot and no longer in memory");
    }
    const int64_t end = std::min(held.end, p.cut_end);
    if (from >= end) continue;  // everything of the cut is already on disk
    RealtimeSplit& out = splits[pb];
    out.pb = pb;
    out.indexer = p.slot->indexer.get();
    out.view = std::move(p.view);
    out.from_offset = from;
    out.end_offset = end;
  }
  for (auto& [pb, split] : splits) plan.splits.push_back(std::move(split));
  return plan;
}

Result<std::unique_ptr<read::BatchReader>> CreateRealtimeReader(
    const read::TableRead& read, const RealtimeScanPlan& plan,
    const std::vector<const RealtimeSplit*>& splits) {
  if (read.primary_key_plan()) return CreatePrimaryKeyReader(read, plan, splits);
  const meta::TableSchema& schema = InternalImpl(*plan.context).schema();
  QuerySpec spec;
  spec.batch_size = read.options().batch_size;
  FRESHET_ASSIGN_OR_RETURN(spec.columns, ColumnsOf(schema, read.read_fields()));
  const std::shared_ptr<arrow::Schema>& read_schema = read.read_schema();
  // Lets the indexer skip written batches by their zone maps; the rows it returns are filtered
  // by the table read, as disk rows are.
  std::shared_ptr<const RowFilter> filter;
  if (read.options().predicate) {
    filter = std::make_shared<PredicateRowFilter>(read.options().predicate, schema,
                                                  read.shared_read_fields());
  }
  spec.filter = filter.get();
  std::vector<scan::DataSplit> disk;
  std::vector<std::unique_ptr<read::BatchReader>> memory;
  for (const RealtimeSplit* split : splits) {
    disk.insert(disk.end(), split->disk.begin(), split->disk.end());
    if (!split->indexer) continue;
    spec.from_offset = split->from_offset;
    spec.end_offset = split->end_offset;
    FRESHET_ASSIGN_OR_RETURN(RowBatchReaders readers,
                             split->indexer->CreateQueryReaders(split->view, spec));
    memory.push_back(
        std::make_unique<MemoryReader>(std::move(readers), read_schema, *split, filter));
  }
  return read.CreateReader(std::move(disk), std::move(memory));
}

Result<std::unique_ptr<read::BatchReader>> CreateRealtimeReader(const read::TableRead& read,
                                                                const RealtimeScanPlan& plan) {
  std::vector<const RealtimeSplit*> all;
  for (const RealtimeSplit& split : plan.splits) all.push_back(&split);
  return CreateRealtimeReader(read, plan, all);
}

}  // namespace freshet::realtime
