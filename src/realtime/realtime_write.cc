#include "realtime/realtime_write.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <algorithm>

#include "common/arrow_status.h"
#include "common/uuid.h"
#include "meta/options/core_options.h"
#include "meta/row/binary_row.h"
#include "read/predicate_filter.h"
#include "realtime/memory_size.h"

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

}  // namespace

RealtimeWrite::RealtimeWrite(RealtimeContext::Impl* context,
                             std::unique_ptr<write::AppendTableWrite> flush,
                             commit::FileStoreCommit committer)
    : context_(context), flush_(std::move(flush)), committer_(std::move(committer)) {}

Result<std::unique_ptr<RealtimeWrite>> RealtimeWrite::Make(RealtimeContext::Impl* context) {
  const meta::TableSchema& schema = context->schema();
  if (!schema.primary_keys().empty()) {
    return Status::NotImplemented(
        "realtime.enabled on a primary-key table: the real-time layer supports append tables "
        "for now (primary-key tables come next)");
  }
  FRESHET_ASSIGN_OR_RETURN(
      auto flush, write::AppendTableWrite::Make(context->file_io(), context->path(), schema));
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), false));
  commit::FileStoreCommit committer(context->file_io(), context->path(), schema, std::move(options),
                                    RandomUuid());
  return std::unique_ptr<RealtimeWrite>(
      new RealtimeWrite(context, std::move(flush), std::move(committer)));
}

int64_t RealtimeWrite::NextIdentifier() {
  std::lock_guard lock(commit_mu_);
  return next_identifier_++;
}

// ---------------------------------------------------------------------------------------------
// Write

Result<std::vector<RealtimeWrite::Routed>> RealtimeWrite::Route(
    const std::shared_ptr<arrow::RecordBatch>& batch, const int64_t* offsets) {
  FRESHET_ASSIGN_OR_RETURN(write::RowKeys keys, context_->keys().Extract(*batch));
  std::vector<Routed> routed;
  auto add = [&](const meta::BinaryRow& partition, int32_t bucket,
                 std::shared_ptr<arrow::RecordBatch> rows,
                 std::shared_ptr<arrow::Int64Array> row_offsets) -> Status {
    PartitionBucket pb{meta::SerializeBinaryRow(partition), bucket};
    FRESHET_ASSIGN_OR_RETURN(PartitionBucketSlot * slot, context_->Slot(pb));
    Routed r;
    r.slot = slot;
    r.rows.rows = std::move(rows);
    r.rows.offsets = std::move(row_offsets);
    routed.push_back(std::move(r));
    return Status::OK();
  };
  if (batch->num_rows() == 0) return routed;
  if (keys.SingleGroup()) {
    std::shared_ptr<arrow::Int64Array> row_offsets;
    if (offsets) {
      FRESHET_ASSIGN_OR_RETURN(row_offsets, OffsetsOf(offsets, batch->num_rows(), nullptr));
    }
    FRESHET_RETURN_NOT_OK(add(keys.partitions[0], keys.bucket_of_row.front(), batch, row_offsets));
  } else {
    for (const write::RowGroup& group : keys.Groups()) {
      FRESHET_ASSIGN_OR_RETURN(auto rows, read::SelectRowRuns(batch, group.Runs()));
      std::shared_ptr<arrow::Int64Array> row_offsets;
      if (offsets) {
        FRESHET_ASSIGN_OR_RETURN(row_offsets, OffsetsOf(offsets, batch->num_rows(), &group.rows));
      }
      FRESHET_RETURN_NOT_OK(add(group.partition, group.bucket, rows, row_offsets));
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
  FRESHET_ASSIGN_OR_RETURN(std::vector<Routed> routed, Route(batch, offsets));
  WriteStats stats;
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
  if (stats.rows_written == 0) return stats;
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
          FRESHET_RETURN_NOT_OK(flush_->WriteBucket(slot->pb.partition, slot->pb.bucket,
                                                    *next->Slice(from, to - from).rows));
        }
      }
    }
  }
  FRESHET_ASSIGN_OR_RETURN(std::vector<meta::CommitMessage> messages, flush_->PrepareCommit());
  // One message per flushed slot, or the flush is abandoned (its files deleted) before any
  // state changes.
  bool matches = messages.size() == flushing.size();
  for (const meta::CommitMessage& message : messages) {
    matches = matches && flushing.count(PartitionBucket{message.partition, message.bucket});
  }
  if (!matches) {
    Status deleted = flush_->Abort(messages);
    return Status::Internal(
        "real-time flush wrote files for ", messages.size(), " partition-buckets, not for the ",
        flushing.size(), " it flushed",
        deleted.ok() ? "" : " (deleting them failed: " + deleted.ToString() + ")");
  }
  for (meta::CommitMessage& message : messages) {
    PartitionBucketSlot& slot = *flushing.at(PartitionBucket{message.partition, message.bucket});
    auto [prepared, first] = prepared_.try_emplace(slot.pb);
    if (first) {
      prepared->second.range = OffsetRange{slot.flushed_end, slot.flush_to};
      prepared->second.files = std::move(message);
    } else {
      prepared->second.range.end = slot.flush_to;
      auto& files = prepared->second.files.new_files;
      for (auto& file : message.new_files) files.push_back(std::move(file));
    }
  }
  for (auto& [pb, slot] : flushing) slot->flushed_end = slot->flush_to;
  return Status::OK();
}

Result<std::vector<RealtimeCommitMessage>> RealtimeWrite::PrepareCommit() {
  std::lock_guard lock(commit_mu_);
  FRESHET_RETURN_NOT_OK(SealAtCut());
  Status flushed = FlushSealed();
  if (!flushed.ok()) {
    // Nothing is lost: the sealed segments stay and the next attempt writes them again.
    Status aborted = flush_->Abort();
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
  for (auto& [pb, prepared] : prepared_) files.push_back(prepared.files);
  Status st = flush_->Abort(files);
  for (auto& [pb, prepared] : prepared_) {
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
      return Status::Invalid("commit of an empty offset range ", DescribeRange(m.range));
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
    ends[m.pb] = m.range.end;
    for (const auto& file : m.files.new_files) rows += file.row_count;
    // Forget prepared ranges and sealed segments this commit covered.
    auto it = prepared_.find(m.pb);
    if (it != prepared_.end() && it->second.range.end <= m.range.end) prepared_.erase(it);
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
  for (const auto& m : messages) request.messages.push_back(m.files);
  request.properties_for_base = [&](const std::optional<meta::Snapshot>& base) {
    return PropertiesFor(messages, base);
  };
  FRESHET_ASSIGN_OR_RETURN(commit::CommitResult result, committer_.Commit(request));
  if (result.snapshot_id) AfterCommit(messages);
  return result;
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
