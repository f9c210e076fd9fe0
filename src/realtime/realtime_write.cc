#include "realtime/realtime_write.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <algorithm>

#include "common/uuid.h"
#include "format/arrow_status.h"
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
  FRESHET_ASSIGN_OR_RETURN(format::RowKeys keys, context_->keys().Extract(*batch));
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
    for (const format::RowGroup& group : keys.Groups()) {
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

Status RealtimeWrite::Write(const std::shared_ptr<arrow::RecordBatch>& batch,
                            const int64_t* offsets) {
  FRESHET_ASSIGN_OR_RETURN(std::vector<Routed> routed, Route(batch, offsets));
  if (routed.empty()) return Status::OK();
  const int64_t bytes = HeldBytes(*batch);
  FRESHET_RETURN_NOT_OK(context_->CheckBudget(bytes));
  // All slots of the batch are locked together: either every row is stored or none is.
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(routed.size());
  for (Routed& r : routed) locks.emplace_back(r.slot->write_mu);
  for (Routed& r : routed) {
    PartitionBucketSlot& slot = *r.slot;
    if (r.rows.offsets) {
      int64_t first = r.rows.offsets->Value(0);
      if (first < slot.next_offset) {
        return Status::Invalid("offset ", first, " of ", context_->Describe(slot.pb),
                               " does not follow the offsets already written or committed there ",
                               "(next free offset ", slot.next_offset,
                               "): offsets must increase strictly");
      }
      r.rows.first_offset = first;
    } else {
      r.rows.first_offset = slot.next_offset;
    }
  }
  for (size_t i = 0; i < routed.size(); ++i) {
    Routed& r = routed[i];
    Status st = r.slot->indexer->Write(r.rows);
    if (!st.ok()) {
      // Only a plugin failure gets here (input was validated); earlier buckets keep their rows.
      return st.WithContext("MemIndexer write of bucket " + std::to_string(r.slot->pb.bucket));
    }
    r.slot->next_offset = r.rows.EndOffset();
  }
  locks.clear();
  context_->AddMemory(bytes);
  context_->rows_written += batch->num_rows();
  context_->MaybeRequestCommit();
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// PrepareCommit

void RealtimeWrite::SealAll() {
  for (PartitionBucketSlot* slot : context_->Slots()) {
    std::unique_lock lock(slot->write_mu);
    Result<std::shared_ptr<SealedSegment>> sealed = slot->indexer->SealForCommit();
    lock.unlock();
    // A failed seal leaves the building segment as it was; the next PrepareCommit retries.
    if (sealed.ok() && *sealed) slot->unflushed.push_back(std::move(*sealed));
  }
}

Status RealtimeWrite::FlushUnflushed() {
  std::map<PartitionBucket, PartitionBucketSlot*> flushing;
  Status st;
  for (PartitionBucketSlot* slot : context_->Slots()) {
    if (slot->unflushed.empty()) continue;
    flushing[slot->pb] = slot;
    for (const auto& segment : slot->unflushed) {
      FRESHET_ASSIGN_OR_RETURN(RowBatchReaders readers,
                               slot->indexer->CreateCommitReaders(segment));
      for (auto& reader : readers) {
        while (true) {
          Result<std::optional<RowBatch>> next = reader->Next();
          if (!next.ok()) return next.status();
          if (!*next) break;
          FRESHET_RETURN_NOT_OK(
              flush_->WriteBucket(slot->pb.partition, slot->pb.bucket, *(*next)->rows));
        }
      }
    }
  }
  FRESHET_ASSIGN_OR_RETURN(std::vector<meta::CommitMessage> messages, flush_->PrepareCommit());
  for (meta::CommitMessage& message : messages) {
    PartitionBucket pb{message.partition, message.bucket};
    auto it = flushing.find(pb);
    if (it == flushing.end()) {
      return Status::Internal("flush produced files for a partition-bucket it did not write");
    }
    PartitionBucketSlot& slot = *it->second;
    OffsetRange range{slot.unflushed.front()->range().begin, slot.unflushed.back()->range().end};
    Prepared& prepared = prepared_[pb];
    if (prepared.segments.empty()) {
      prepared.range = range;
      prepared.files = std::move(message);
    } else {
      prepared.range.end = range.end;
      for (auto& file : message.new_files) prepared.files.new_files.push_back(std::move(file));
    }
    for (auto& segment : slot.unflushed) prepared.segments.push_back(std::move(segment));
    slot.unflushed.clear();
  }
  return Status::OK();
}

Result<std::vector<RealtimeCommitMessage>> RealtimeWrite::PrepareCommit() {
  std::lock_guard lock(commit_mu_);
  SealAll();
  Status flushed = FlushUnflushed();
  if (!flushed.ok()) {
    // Nothing is lost: the sealed segments stay unflushed and the next attempt writes them again.
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
    FRESHET_ASSIGN_OR_RETURN(PartitionBucketSlot * slot, context_->Slot(pb));
    slot->unflushed.insert(slot->unflushed.begin(), prepared.segments.begin(),
                           prepared.segments.end());
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
    // Forget prepared ranges this commit covered.
    auto it = prepared_.find(m.pb);
    if (it != prepared_.end() && it->second.range.end <= m.range.end) prepared_.erase(it);
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
