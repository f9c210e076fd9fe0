#include "realtime/realtime_write.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include "common/arrow_status.h"
#include "common/uuid.h"
#include "compact/merge_tree_compactor.h"
#include "mergetree/merge_function.h"
#include "meta/options/core_options.h"
#include "meta/row/binary_row.h"
#include "read/predicate_filter.h"
#include "realtime/memory_size.h"
#include "realtime/records.h"
#include "scan/table_scan.h"

namespace freshet::realtime {

namespace {

// The application offsets of `rows` (all rows of the batch when null).
Result<std::shared_ptr<arrow::Int64Array>> OffsetsOf(const int64_t* offsets, int64_t num_rows,
                                                     const std::vector<int64_t>* rows) {
  arrow::Int64Builder builder;
  arrow::Status st = rows ? builder.Reserve(static_cast<int64_t>(rows->size()))
                          : builder.AppendValues(offsets, num_rows);
  if (rows && st.ok()) {
    for (int64_t row : *rows) builder.UnsafeAppend(offsets[row]);
  }
  std::shared_ptr<arrow::Int64Array> out;
  if (st.ok()) st = builder.Finish(&out);
  if (!st.ok()) return FromArrowStatus(st);
  return out;
}

std::string DescribeRange(const OffsetRange& range) {
  return "[" + std::to_string(range.begin) + ", " + std::to_string(range.end) + ")";
}

// The kinds of `rows` of the batch (all of them when null).
Result<std::shared_ptr<arrow::Int8Array>> KindsOf(const std::vector<RowKind>& kinds,
                                                  const std::vector<int64_t>* rows) {
  arrow::Int8Builder builder;
  const auto count = static_cast<int64_t>(rows ? rows->size() : kinds.size());
  FRESHET_RETURN_NOT_OK_ARROW(builder.Reserve(count));
  for (int64_t i = 0; i < count; ++i) {
    size_t row =
        rows ? static_cast<size_t>((*rows)[static_cast<size_t>(i)]) : static_cast<size_t>(i);
    builder.UnsafeAppend(static_cast<int8_t>(kinds[row]));
  }
  std::shared_ptr<arrow::Int8Array> out;
  FRESHET_RETURN_NOT_OK_ARROW(builder.Finish(&out));
  return out;
}

// Whether a flush message holds rows (files of a range of offsets), rather than only a
// compaction's result or the hash index of a dynamic bucket whose keys were assigned at Write.
bool CarriesRows(const meta::CommitMessage& message) {
  return !message.new_files.empty() || !message.changelog_files.empty();
}

// Primary-key tables (rows with kinds): Paimon sequence numbers continuing the slot's, so that
// every row orders after the bucket's committed rows and after the rows written before it.
Status NumberRecords(const PartitionBucketSlot& slot, RowBatch* rows) {
  if (rows->row_kinds == nullptr) return Status::OK();
  arrow::Int64Builder builder;
  FRESHET_RETURN_NOT_OK_ARROW(builder.Reserve(rows->num_rows()));
  for (int64_t i = 0; i < rows->num_rows(); ++i) builder.UnsafeAppend(slot.next_sequence + i);
  FRESHET_RETURN_NOT_OK_ARROW(builder.Finish(&rows->sequence_numbers));
  return Status::OK();
}

}  // namespace

RealtimeWrite::RealtimeWrite(RealtimeContext::Impl* context,
                             std::unique_ptr<write::AppendTableWrite> append,
                             std::unique_ptr<write::KeyValueTableWrite> key_value,
                             std::optional<write::RowKindExtractor> kinds, bool ignore_delete,
                             commit::FileStoreCommit committer)
    : context_(context),
      append_flush_(std::move(append)),
      key_value_flush_(std::move(key_value)),
      kinds_(std::move(kinds)),
      ignore_delete_(ignore_delete),
      committer_(std::move(committer)) {
  if (key_value_flush_ && key_value_flush_->dynamic_bucket_index()) {
    bucket_index_ = key_value_flush_->dynamic_bucket_index().get();
    // A failed commit keeps its rows in memory, in the buckets their keys were given.
    bucket_index_->KeepAssignmentsOnAbort();
  }
}

namespace {

// The schema the flush writes with. A flush runs while Writes and queries go on, on a machine
// they share: unless the table says otherwise, its Parquet writers encode on the committing
// thread instead of spreading the columns over every core (which, on 2 cores, took Writes during
// a 1 GiB flush from a p99 of ~200 us to ~1.5 ms).
Result<meta::TableSchema> FlushSchema(const meta::TableSchema& table) {
  constexpr char kParallelColumns[] = "parquet.write.parallel-columns";
  if (table.option(kParallelColumns)) return table;
  meta::Options options = table.options();
  options.emplace_back(kParallelColumns, "false");
  return table.WithOptions(std::move(options));
}

}  // namespace

Result<std::unique_ptr<RealtimeWrite>> RealtimeWrite::Make(RealtimeContext::Impl* context) {
  FRESHET_ASSIGN_OR_RETURN(const meta::TableSchema schema, FlushSchema(context->schema()));
  const bool primary_key = !schema.primary_keys().empty();
  std::unique_ptr<write::AppendTableWrite> append;
  std::unique_ptr<write::KeyValueTableWrite> key_value;
  std::optional<write::RowKindExtractor> kinds;
  bool ignore_delete = false;
  if (primary_key) {
    if (schema.bucket() < -1) {
      return Status::NotImplemented(
          "realtime.enabled on a primary-key table with 'bucket' = ", schema.bucket(),
          ": the real-time layer takes fixed buckets or dynamic buckets ('bucket' = -1)");
    }
    // Flushed rows are compacted in the background, as a plain writer's are.
    FRESHET_ASSIGN_OR_RETURN(auto compaction, compact::MakeCompactionRunner(
                                                  context->file_io(), context->path(), schema));
    FRESHET_ASSIGN_OR_RETURN(
        key_value, write::KeyValueTableWrite::Make(context->file_io(), context->path(), schema,
                                                   std::move(compaction)));
    FRESHET_ASSIGN_OR_RETURN(kinds, write::RowKindExtractor::Make(schema));
    FRESHET_ASSIGN_OR_RETURN(ignore_delete, mergetree::IgnoreDelete(schema));
  } else {
    FRESHET_ASSIGN_OR_RETURN(
        append, write::AppendTableWrite::Make(context->file_io(), context->path(), schema));
  }
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), primary_key));
  FRESHET_RETURN_NOT_OK(commit::FileStoreCommit::CheckCommitSupported(options));
  commit::FileStoreCommit committer(context->file_io(), context->path(), schema, std::move(options),
                                    RandomUuid());
  committer.OnPublished(scan::WarmAfterCommits(context->file_io(), context->path()));
  return std::unique_ptr<RealtimeWrite>(new RealtimeWrite(context, std::move(append),
                                                          std::move(key_value), std::move(kinds),
                                                          ignore_delete, std::move(committer)));
}

write::TableWrite& RealtimeWrite::flush() const {
  if (key_value_flush_) return *key_value_flush_;
  return *append_flush_;
}

int64_t RealtimeWrite::NextIdentifier() {
  std::lock_guard lock(commit_mu_);
  return next_identifier_++;
}

// ---------------------------------------------------------------------------------------------
// Write

Result<RealtimeWrite::Input> RealtimeWrite::CheckInput(
    const std::shared_ptr<arrow::RecordBatch>& batch, const int64_t* offsets) const {
  Input input;
  input.offsets = offsets;
  if (!kinds_) {
    input.rows = batch;
    return input;
  }
  FRESHET_ASSIGN_OR_RETURN(write::KindedBatch kinded, kinds_->Extract(*batch));
  input.rows = std::move(kinded.rows);
  input.kinds = std::move(kinded.kinds);
  if (!ignore_delete_) return input;
  // As Java's TableWriteImpl, ignore-delete tables drop retract rows before they are written.
  std::vector<int64_t> kept;
  for (int64_t row = 0; row < input.rows->num_rows(); ++row) {
    if (!mergetree::IsRetract(input.kinds[static_cast<size_t>(row)])) kept.push_back(row);
  }
  if (static_cast<int64_t>(kept.size()) == input.rows->num_rows()) return input;
  write::RowGroup group{{}, 0, kept};
  FRESHET_ASSIGN_OR_RETURN(input.rows, read::SelectRowRuns(input.rows, group.Runs()));
  std::vector<RowKind> kinds;
  for (int64_t row : kept) {
    kinds.push_back(input.kinds[static_cast<size_t>(row)]);
    if (offsets) input.kept_offsets.push_back(offsets[row]);
  }
  input.kinds = std::move(kinds);
  if (offsets) input.offsets = input.kept_offsets.data();
  return input;
}

Result<std::vector<RealtimeWrite::Routed>> RealtimeWrite::Route(const Input& input) {
  const std::shared_ptr<arrow::RecordBatch>& batch = input.rows;
  const int64_t* offsets = input.offsets;
  const write::RowKeyExtractor& extractor = context_->keys();
  // Every row in one partition-bucket: no per-row keys, and its slot looked up once.
  const bool one_group = extractor.OneGroupForEveryRow();
  write::RowKeys keys;
  if (one_group) {
    FRESHET_RETURN_NOT_OK(extractor.Check(*batch));
  } else {
    FRESHET_ASSIGN_OR_RETURN(keys, extractor.Extract(*batch));
  }
  // A key assigned here keeps its bucket even if this Write fails later: the index only records
  // that the key belongs there, which holds for its next Write too.
  if (bucket_index_) FRESHET_RETURN_NOT_OK(bucket_index_->Assign(&keys));
  std::vector<Routed> routed;
  auto add = [&](const meta::BinaryRow& partition, int32_t bucket,
                 std::shared_ptr<arrow::RecordBatch> rows,
                 const std::vector<int64_t>* group_rows) -> Status {
    PartitionBucketSlot* slot =
        one_group ? one_group_slot_.load(std::memory_order_acquire) : nullptr;
    if (slot == nullptr) {
      PartitionBucket pb{meta::SerializeBinaryRow(partition), bucket};
      FRESHET_ASSIGN_OR_RETURN(slot, context_->Slot(pb));
      // Slots live as long as the context, so the pointer can be kept.
      if (one_group) one_group_slot_.store(slot, std::memory_order_release);
    }
    Routed r;
    r.slot = slot;
    r.rows.rows = std::move(rows);
    if (offsets) {
      FRESHET_ASSIGN_OR_RETURN(r.rows.offsets, OffsetsOf(offsets, batch->num_rows(), group_rows));
    }
    if (kinds_) {
      FRESHET_ASSIGN_OR_RETURN(r.rows.row_kinds, KindsOf(input.kinds, group_rows));
    }
    routed.push_back(std::move(r));
    return Status::OK();
  };
  if (batch->num_rows() == 0) return routed;
  if (one_group) {
    FRESHET_RETURN_NOT_OK(add(meta::BinaryRow(), 0, batch, nullptr));
  } else if (keys.SingleGroup()) {
    FRESHET_RETURN_NOT_OK(add(keys.partitions[0], keys.bucket_of_row.front(), batch, nullptr));
  } else {
    for (const write::RowGroup& group : keys.Groups()) {
      FRESHET_ASSIGN_OR_RETURN(auto rows, read::SelectRowRuns(batch, group.Runs()));
      FRESHET_RETURN_NOT_OK(add(group.partition, group.bucket, rows, &group.rows));
    }
  }
  // Application offsets must increase strictly within each partition-bucket of the batch.
  for (const Routed& r : routed) {
    if (!r.rows.offsets) continue;
    if (r.rows.offsets->Value(0) < 0) {
      return Status::Invalid("offset ", r.rows.offsets->Value(0), " is negative");
    }
    for (int64_t i = 1; i < r.rows.offsets->length(); ++i) {
      if (r.rows.offsets->Value(i) <= r.rows.offsets->Value(i - 1)) {
        return Status::Invalid("offsets must increase strictly within a partition-bucket: ",
                               r.rows.offsets->Value(i), " follows ", r.rows.offsets->Value(i - 1));
      }
    }
  }
  // Lock order: by partition-bucket, so that concurrent multi-bucket writes cannot deadlock.
  std::sort(routed.begin(), routed.end(),
            [](const Routed& a, const Routed& b) { return a.slot->pb < b.slot->pb; });
  return routed;
}

Result<WriteStats> RealtimeWrite::Write(const std::shared_ptr<arrow::RecordBatch>& batch,
                                        const int64_t* offsets, OffsetMode mode) {
  FRESHET_ASSIGN_OR_RETURN(Input input, CheckInput(batch, offsets));
  FRESHET_ASSIGN_OR_RETURN(std::vector<Routed> routed, Route(input));
  WriteStats stats;
  // Rows ignore-delete dropped count as written: the table took them, as Java's writer does.
  stats.rows_written = batch->num_rows();
  if (routed.empty()) return stats;
  const int64_t bytes = HeldBytes(*batch);
  FRESHET_RETURN_NOT_OK(context_->CheckBudget(bytes));
  // All slots of the batch are locked together, and the Write's sequence number is taken under
  // these locks: every partition-bucket orders its rows as the sequencer orders the Writes.
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(routed.size());
  for (Routed& r : routed) locks.emplace_back(r.slot->write_mu);
  FRESHET_ASSIGN_OR_RETURN(stats.rows_skipped, PlaceRows(routed, mode));
  stats.rows_written = batch->num_rows() - stats.rows_skipped;
  if (stats.rows_skipped == input.rows->num_rows()) return stats;
  const uint64_t sequence = context_->sequencer().Assign();
  Status stored = StoreRows(routed, sequence);
  locks.clear();
  // Returns once every earlier Write has finished too: from now on every query sees this one.
  context_->sequencer().Finish(sequence);
  FRESHET_RETURN_NOT_OK(stored);
  context_->AddMemory(bytes * stats.rows_written / batch->num_rows());
  context_->rows_written += stats.rows_written;
  context_->MaybeRequestCommit();
  return stats;
}

Result<int64_t> RealtimeWrite::PlaceRows(std::vector<Routed>& routed, OffsetMode mode) {
  int64_t skipped = 0;
  for (Routed& r : routed) {
    PartitionBucketSlot& slot = *r.slot;
    if (!slot.broken.ok()) return slot.broken;
    if (!r.rows.offsets) {
      r.rows.first_offset = slot.next_offset;
      FRESHET_RETURN_NOT_OK(NumberRecords(slot, &r.rows));
      continue;
    }
    int64_t first = r.rows.offsets->Value(0);
    if (first < slot.next_offset && mode == OffsetMode::kReplay) {
      // Offsets increase within the partition-bucket: the rows already taken are a prefix.
      int64_t taken = r.rows.LowerBound(slot.next_offset);
      skipped += taken;
      r.rows = r.rows.Slice(taken, r.rows.num_rows() - taken);
      if (r.rows.num_rows() == 0) continue;
      first = r.rows.offsets->Value(0);
    }
    if (first < slot.next_offset) {
      return Status::Invalid("offset ", first, " of ", context_->Describe(slot.pb),
                             " does not follow the offsets already written or committed there ",
                             "(next free offset ", slot.next_offset,
                             "): offsets must increase strictly (OffsetMode::kReplay skips rows "
                             "whose offsets are taken)");
    }
    r.rows.first_offset = first;
    FRESHET_RETURN_NOT_OK(NumberRecords(slot, &r.rows));
  }
  return skipped;
}

Status RealtimeWrite::StoreRows(std::vector<Routed>& routed, uint64_t sequence) {
  size_t stored = 0;
  Status st;
  for (; stored < routed.size(); ++stored) {
    Routed& r = routed[stored];
    if (r.rows.num_rows() == 0) continue;
    st = r.slot->indexer->Write(r.rows);
    if (!st.ok()) {
      st = st.WithContext("MemIndexer write of " + context_->Describe(r.slot->pb));
      break;
    }
  }
  if (!st.ok()) {
    // All or nothing: take back the parts already stored. Their rows carry no mark, so no query
    // or commit cut includes them even before they are gone.
    for (size_t i = 0; i < stored; ++i) {
      PartitionBucketSlot& slot = *routed[i].slot;
      if (routed[i].rows.num_rows() == 0) continue;
      Status undone = slot.indexer->UndoLastWrite();
      if (!undone.ok()) {
        slot.broken = undone.WithContext(
            "writes to " + context_->Describe(slot.pb) +
            " are refused: a failed Write left rows in its MemIndexer that it could not remove "
            "(committed rows are safe; reopen the table in a new process to go on)");
      }
    }
    return st;
  }
  for (Routed& r : routed) {
    if (r.rows.num_rows() == 0) continue;
    PartitionBucketSlot& slot = *r.slot;
    slot.next_offset = r.rows.EndOffset();
    if (r.rows.sequence_numbers) slot.next_sequence += r.rows.num_rows();
    slot.marks.push_back({sequence, slot.next_offset});
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// PrepareCommit

Status RealtimeWrite::SealAtCut() {
  // One cut for every partition-bucket: the Writes numbered up to the watermark, which have all
  // finished. Rows of later Writes sealed with them stay for the next commit.
  const uint64_t cut = context_->sequencer().watermark();
  for (PartitionBucketSlot* slot : context_->Slots()) {
    std::unique_lock lock(slot->write_mu);
    Result<std::shared_ptr<SealedSegment>> sealed = slot->indexer->SealForCommit();
    slot->flush_to = slot->EndAt(cut);
    lock.unlock();
    // A failed seal leaves its rows in the building segment, below the cut: flushing the other
    // partition-buckets alone would commit part of some Writes. Fail; the next attempt reseals.
    if (!sealed.ok()) {
      return sealed.status().WithContext("sealing " + context_->Describe(slot->pb));
    }
    if (*sealed) slot->sealed.push_back(std::move(*sealed));
  }
  return Status::OK();
}

Status RealtimeWrite::FlushSealed() {
  std::map<PartitionBucket, PartitionBucketSlot*> flushing;
  for (PartitionBucketSlot* slot : context_->Slots()) {
    if (slot->flush_to <= slot->flushed_end) continue;
    flushing[slot->pb] = slot;
    for (const auto& segment : slot->sealed) {
      if (segment->range().end <= slot->flushed_end) continue;
      if (segment->range().begin >= slot->flush_to) break;
      FRESHET_ASSIGN_OR_RETURN(RowBatchReaders readers,
                               slot->indexer->CreateCommitReaders(segment));
      for (auto& reader : readers) {
        while (true) {
          FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> next, reader->Next());
          if (!next) break;
          int64_t from = next->LowerBound(slot->flushed_end);
          int64_t to = next->LowerBound(slot->flush_to);
          if (to <= from) continue;
          FRESHET_RETURN_NOT_OK(FlushRows(*slot, next->Slice(from, to - from)));
        }
      }
    }
  }
  FRESHET_ASSIGN_OR_RETURN(std::vector<meta::CommitMessage> messages, flush().PrepareCommit());
  // One message per flushed slot (primary-key tables may add messages that only carry a
  // compaction or a dynamic bucket's hash index), or the flush is abandoned (its files deleted)
  // before any state changes.
  size_t flushed_messages = 0;
  bool matches = true;
  for (const meta::CommitMessage& message : messages) {
    bool flushed = flushing.count(PartitionBucket{message.partition, message.bucket}) > 0;
    flushed_messages += flushed ? 1 : 0;
    matches = matches && (flushed || !CarriesRows(message));
  }
  if (!matches || flushed_messages != flushing.size()) {
    Status deleted = flush().Abort(messages);
    return Status::Internal(
        "real-time flush wrote files for ", flushed_messages, " partition-buckets, not for the ",
        flushing.size(), " it flushed",
        deleted.ok() ? "" : " (deleting them failed: " + deleted.ToString() + ")");
  }
  for (meta::CommitMessage& message : messages) {
    PartitionBucket pb{message.partition, message.bucket};
    Prepared& prepared = prepared_[pb];
    if (auto it = flushing.find(pb); it != flushing.end()) {
      const PartitionBucketSlot& slot = *it->second;
      if (prepared.range.empty()) prepared.range.begin = slot.flushed_end;
      prepared.range.end = slot.flush_to;
    }
    prepared.files.push_back(std::move(message));
  }
  for (auto& [pb, slot] : flushing) slot->flushed_end = slot->flush_to;
  return Status::OK();
}

Status RealtimeWrite::FlushRows(const PartitionBucketSlot& slot, const RowBatch& rows) {
  if (!key_value_flush_) {
    return append_flush_->WriteBucket(slot.pb.partition, slot.pb.bucket, *rows.rows);
  }
  // Primary-key rows keep the kinds and sequence numbers they got at Write: the flush sorts and
  // merges them into level-0 files as a plain writer's buffer.
  FRESHET_ASSIGN_OR_RETURN(auto records, AsRecords(rows, key_value_flush_->layout()));
  return key_value_flush_->WriteRecords(slot.pb.partition, slot.pb.bucket, std::move(records));
}

Result<std::vector<RealtimeCommitMessage>> RealtimeWrite::PrepareCommit() {
  std::lock_guard lock(commit_mu_);
  FRESHET_RETURN_NOT_OK(SealAtCut());
  Status flushed = FlushSealed();
  if (!flushed.ok()) {
    // Nothing is lost: the sealed segments stay and the next attempt writes them again.
    Status aborted = flush().Abort();
    return flushed.WithContext(
        aborted.ok() ? "real-time flush (will be retried)"
                     : "real-time flush (cleanup also failed: " + aborted.ToString() + ")");
  }
  context_->CollectGarbage();
  std::vector<RealtimeCommitMessage> out;
  for (const auto& [pb, prepared] : prepared_) {
    out.push_back(RealtimeCommitMessage{pb, prepared.range, prepared.files});
  }
  return out;
}

Status RealtimeWrite::AbortPrepared() {
  std::lock_guard lock(commit_mu_);
  std::vector<meta::CommitMessage> files;
  for (auto& [pb, prepared] : prepared_) {
    files.insert(files.end(), prepared.files.begin(), prepared.files.end());
  }
  Status st = flush().Abort(files);
  for (auto& [pb, prepared] : prepared_) {
    if (prepared.range.empty()) continue;  // a compaction only
    // The rows are still in the sealed segments: the next PrepareCommit flushes them again.
    FRESHET_ASSIGN_OR_RETURN(PartitionBucketSlot * slot, context_->Slot(pb));
    slot->flushed_end = prepared.range.begin;
  }
  prepared_.clear();
  return st;
}

// ---------------------------------------------------------------------------------------------
// Commit

Result<std::map<std::string, std::string>> RealtimeWrite::PropertiesFor(
    const std::vector<RealtimeCommitMessage>& messages, const std::optional<meta::Snapshot>& base) {
  ProgressMap progress;
  if (base) {
    FRESHET_ASSIGN_OR_RETURN(progress, context_->progress_resolver().ProgressOf(*base));
  }
  for (const RealtimeCommitMessage& m : messages) {
    if (m.range.empty()) {
      for (const meta::CommitMessage& files : m.files) {
        if (CarriesRows(files)) {
          return Status::Invalid("commit of new files with an empty offset range ",
                                 DescribeRange(m.range));
        }
      }
      continue;  // a compaction's result or a hash index: no rows, no progress
    }
    auto it = progress.find(m.pb);
    // A partition-bucket without progress (never committed, or replaced by an overwrite)
    // accepts any start; otherwise the range must continue the committed end exactly.
    if (it != progress.end() && it->second != m.range.begin) {
      bool overlap = m.range.begin < it->second;
      return Status::Invalid(
          "real-time commit rejected: offsets ", DescribeRange(m.range), " of ",
          context_->Describe(m.pb), (overlap ? " overlap" : " leave a gap after"),
          " the committed progress, which ends at ", it->second, " in snapshot ", base->id,
          overlap ? " (already committed rows would be committed twice)"
                  : " (rows in between would be lost)");
    }
    progress[m.pb] = m.range.end;
  }
  return std::map<std::string, std::string>{{kProgressProperty, EncodeProgress(progress)}};
}

void RealtimeWrite::AfterCommit(const std::vector<RealtimeCommitMessage>& messages) {
  ProgressMap ends;
  int64_t rows = 0;
  for (const RealtimeCommitMessage& m : messages) {
    // Forget prepared ranges and sealed segments this commit covered.
    auto it = prepared_.find(m.pb);
    if (it != prepared_.end() && it->second.range.end <= m.range.end) prepared_.erase(it);
    if (m.range.empty()) continue;
    ends[m.pb] = m.range.end;
    for (const auto& files : m.files) {
      for (const auto& file : files.new_files) rows += file.row_count;
    }
    Result<PartitionBucketSlot*> slot = context_->Slot(m.pb);
    if (!slot.ok()) continue;
    auto& sealed = (*slot)->sealed;
    auto covered = std::find_if(sealed.begin(), sealed.end(), [&](const auto& segment) {
      return segment->range().end > m.range.end;
    });
    sealed.erase(sealed.begin(), covered);
  }
  context_->OnCommitted(ends, rows);
}

Result<commit::CommitResult> RealtimeWrite::Commit(
    const std::vector<RealtimeCommitMessage>& messages, int64_t identifier,
    const CommitOptions& options) {
  std::lock_guard lock(commit_mu_);
  commit::CommitRequest request;
  request.identifier = identifier;
  request.overwrite = options.overwrite || options.overwrite_all;
  request.overwrite_all = options.overwrite_all;
  request.properties = options.properties;
  for (const auto& m : messages) {
    request.messages.insert(request.messages.end(), m.files.begin(), m.files.end());
  }
  request.properties_for_base =
      [&](const std::optional<meta::Snapshot>& base) -> Result<std::map<std::string, std::string>> {
    // Dynamic buckets: no other writer committed new keys to a partition this one assigns in.
    FRESHET_RETURN_NOT_OK(flush().CheckCommitBase(request.messages, base));
    return PropertiesFor(messages, base);
  };
  Result<commit::CommitResult> committed = committer_.Commit(request);
  const bool compaction_only =
      !request.overwrite &&
      std::none_of(request.messages.begin(), request.messages.end(),
                   [](const meta::CommitMessage& m) { return m.HasAppendPart(); });
  if (compaction_only && committed.status().IsConflict()) {
    // Only compactions, refused because another commit replaced their input files: the writer
    // drops them and restores its buckets; no row is involved.
    for (const auto& m : messages) prepared_.erase(m.pb);
    FRESHET_RETURN_NOT_OK(AfterCompactions(request.messages, committed.status()));
    return commit::CommitResult{};
  }
  FRESHET_ASSIGN_OR_RETURN(commit::CommitResult result, std::move(committed));
  if (result.snapshot_id) AfterCommit(messages);
  FRESHET_RETURN_NOT_OK(AfterCompactions(request.messages, result.compaction_status));
  return result;
}

Status RealtimeWrite::AfterCompactions(const std::vector<meta::CommitMessage>& messages,
                                       const Status& outcome) {
  if (outcome.ok() || !key_value_flush_) return Status::OK();
  // The rows are committed (or there were none); the compaction is not: its files are deleted
  // when it was refused (Conflict), kept when its outcome is unknown.
  return key_value_flush_->CompactionsRejected(messages, outcome.IsConflict());
}

Result<std::optional<int64_t>> RealtimeWrite::PrepareAndCommit(const CommitOptions& options) {
  FRESHET_ASSIGN_OR_RETURN(auto messages, PrepareCommit());
  if (messages.empty() && !options.overwrite && !options.overwrite_all) {
    return std::optional<int64_t>();
  }
  FRESHET_ASSIGN_OR_RETURN(commit::CommitResult result,
                           Commit(messages, NextIdentifier(), options));
  return result.snapshot_id;
}

}  // namespace freshet::realtime
