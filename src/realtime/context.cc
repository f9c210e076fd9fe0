#include "realtime/context.h"

#include <arrow/api.h>

#include <algorithm>
#include <filesystem>

#include "bridge/arrow_schema.h"
#include "meta/options/option_registry.h"
#include "meta/partition/partition_path.h"
#include "meta/row/binary_row.h"
#include "realtime/indexers/mem_indexer_registry.h"
#include "realtime/key_order.h"
#include "realtime/realtime_write.h"
#include "write/table_write.h"

namespace freshet::realtime {

namespace {

// Contexts by table path: one per table and process, alive while a Table, writer, reader or
// split holds it.
std::mutex registry_mu;
std::map<std::string, std::weak_ptr<RealtimeContext>>& Registry() {
  static auto* registry = new std::map<std::string, std::weak_ptr<RealtimeContext>>();
  return *registry;
}

std::string CanonicalTablePath(const std::string& path) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

}  // namespace

Result<RealtimeOptions> RealtimeOptions::FromTableOptions(const meta::Options& options) {
  // Parsed by the option registry (meta/options/option_registry.h); its rules include
  // soft-limit <= hard-limit.
  FRESHET_RETURN_NOT_OK(
      meta::OptionRegistry::Global().Validate(options, meta::OptionCheck::kOpen, "realtime"));
  RealtimeOptions out;
  FRESHET_ASSIGN_OR_RETURN(out.enabled, meta::GetBoolOption(options, "realtime.enabled"));
  FRESHET_ASSIGN_OR_RETURN(out.mem_indexer, meta::GetStringOption(options, "realtime.mem-indexer"));
  FRESHET_ASSIGN_OR_RETURN(out.soft_limit_bytes,
                           meta::GetMemorySizeOption(options, "realtime.memory.soft-limit"));
  FRESHET_ASSIGN_OR_RETURN(out.hard_limit_bytes,
                           meta::GetMemorySizeOption(options, "realtime.memory.hard-limit"));
  return out;
}

// ---------------------------------------------------------------------------------------------

int64_t PartitionBucketSlot::EndAt(uint64_t sequence) const {
  // Marks are in sequence order (numbers are assigned under write_mu).
  auto after =
      std::upper_bound(marks.begin(), marks.end(), sequence,
                       [](uint64_t s, const WriteMark& mark) { return s < mark.sequence; });
  return after == marks.begin() ? trimmed_end : std::prev(after)->end_offset;
}

void PartitionBucketSlot::TrimMarks(int64_t committed_end) {
  while (!marks.empty() && marks.front().end_offset <= committed_end) {
    trimmed_end = marks.front().end_offset;
    marks.pop_front();
  }
}

// ---------------------------------------------------------------------------------------------

RealtimeContext::RealtimeContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RealtimeContext::Impl& InternalImpl(RealtimeContext& context) { return *context.impl_; }
RealtimeContext::~RealtimeContext() = default;

std::vector<PartitionBucketProgress> RealtimeContext::CommittedProgress() const {
  return impl_->CommittedProgress();
}
RealtimeUsage RealtimeContext::Usage() const { return impl_->Usage(); }
void RealtimeContext::SetCommitRequestCallback(std::function<void(const RealtimeUsage&)> cb) {
  impl_->SetCommitRequestCallback(std::move(cb));
}
void RealtimeContext::CollectGarbage() { impl_->CollectGarbage(); }

RealtimeContext::Impl::Impl(std::shared_ptr<io::FileIO> file_io, std::string path,
                            meta::TableSchema schema, std::shared_ptr<arrow::Schema> arrow_schema,
                            RealtimeOptions options, write::RowKeyExtractor keys,
                            std::shared_ptr<MemIndexerFactory> factory)
    : file_io_(file_io),
      path_(path),
      schema_(std::move(schema)),
      arrow_schema_(std::move(arrow_schema)),
      options_(std::move(options)),
      keys_(std::move(keys)),
      factory_(std::move(factory)),
      resolver_(file_io, path) {}

RealtimeContext::Impl::~Impl() = default;

Result<std::shared_ptr<RealtimeContext>> RealtimeContext::Impl::ForTable(
    std::shared_ptr<io::FileIO> file_io, const std::string& path, const meta::TableSchema& schema) {
  std::lock_guard lock(registry_mu);
  const std::string key = CanonicalTablePath(path);
  if (auto existing = Registry()[key].lock()) {
    if (InternalImpl(*existing).schema().id() != schema.id()) {
      return Status::NotImplemented("the schema of '", path, "' changed (",
                                    InternalImpl(*existing).schema().id(), " -> ", schema.id(),
                                    ") while this process holds uncommitted real-time rows for it");
    }
    return existing;
  }
  FRESHET_ASSIGN_OR_RETURN(RealtimeOptions options,
                           RealtimeOptions::FromTableOptions(schema.options()));
  if (!options.enabled) {
    return Status::Invalid("table '", path, "' does not have realtime.enabled = true");
  }
  FRESHET_ASSIGN_OR_RETURN(auto factory, FindMemIndexerFactory(options.mem_indexer));
  FRESHET_RETURN_NOT_OK(CheckMemIndexerOptions(options.mem_indexer, schema.options())
                            .WithContext("table '" + path + "'"));
  FRESHET_ASSIGN_OR_RETURN(auto arrow_schema, bridge::ToArrowSchema(schema.fields()));
  // Dynamic-bucket primary-key tables: key hashes, whose buckets RealtimeWrite assigns.
  const bool dynamic_buckets = !schema.primary_keys().empty() && schema.bucket() == -1;
  FRESHET_ASSIGN_OR_RETURN(auto keys, write::RowKeyExtractor::Make(schema, dynamic_buckets));
  auto impl =
      std::unique_ptr<Impl>(new Impl(file_io, path, schema, std::move(arrow_schema),
                                     std::move(options), std::move(keys), std::move(factory)));
  if (!schema.primary_keys().empty()) {
    FRESHET_ASSIGN_OR_RETURN(impl->key_order_, MakeKeyOrder(schema));
  }
  // Restart: progress continues from the latest snapshot.
  FRESHET_ASSIGN_OR_RETURN(auto latest, impl->resolver_.Latest());
  impl->committed_ = std::move(latest.second);
  FRESHET_ASSIGN_OR_RETURN(impl->write_, RealtimeWrite::Make(impl.get()));
  auto context = std::shared_ptr<RealtimeContext>(new RealtimeContext(std::move(impl)));
  Registry()[key] = context;
  return context;
}

Result<PartitionBucketSlot*> RealtimeContext::Impl::Slot(const PartitionBucket& pb) {
  {
    std::shared_lock lock(slots_mu_);
    if (auto it = slots_.find(pb); it != slots_.end()) return it->second.get();
  }
  // Primary-key rows continue the bucket's sequence numbers; read before taking the lock (file
  // I/O), once per partition-bucket and process.
  int64_t next_sequence = 0;
  if (!schema_.primary_keys().empty()) {
    FRESHET_ASSIGN_OR_RETURN(auto max_sequences, write::LoadMaxSequenceNumbers(file_io_, path_));
    next_sequence = write::NextSequenceNumber(max_sequences, pb.partition, pb.bucket);
  }
  std::unique_lock lock(slots_mu_);
  if (auto it = slots_.find(pb); it != slots_.end()) return it->second.get();
  auto slot = std::make_unique<PartitionBucketSlot>();
  slot->pb = pb;
  slot->next_sequence = next_sequence;
  {
    std::lock_guard committed_lock(committed_mu_);
    if (auto it = committed_.find(pb); it != committed_.end()) slot->next_offset = it->second;
  }
  slot->trimmed_end = slot->flushed_end = slot->next_offset;
  MemIndexerOptions options;
  options.schema = arrow_schema_;
  options.partition_bucket = pb;
  options.start_offset = slot->next_offset;
  options.primary_key_table = !schema_.primary_keys().empty();
  options.key_order = key_order_;
  for (const auto& [key, value] : schema_.options()) options.table_options[key] = value;
  Result<std::unique_ptr<MemIndexer>> indexer = factory_->Create(options);
  if (!indexer.ok()) {
    return indexer.status().WithContext("MemIndexer '" + factory_->name() + "'");
  }
  slot->indexer = std::move(*indexer);
  PartitionBucketSlot* out = slot.get();
  slots_.emplace(pb, std::move(slot));
  return out;
}

std::vector<PartitionBucketSlot*> RealtimeContext::Impl::Slots() const {
  std::shared_lock lock(slots_mu_);
  std::vector<PartitionBucketSlot*> out;
  out.reserve(slots_.size());
  for (const auto& [pb, slot] : slots_) out.push_back(slot.get());
  return out;
}

ProgressMap RealtimeContext::Impl::Committed() const {
  std::lock_guard lock(committed_mu_);
  return committed_;
}

void RealtimeContext::Impl::OnCommitted(const ProgressMap& ends, int64_t rows) {
  {
    std::lock_guard lock(committed_mu_);
    for (const auto& [pb, end] : ends) {
      int64_t& known = committed_[pb];
      known = std::max(known, end);
    }
  }
  rows_committed += rows;
  // Only after the snapshot is published and the progress recorded may memory go.
  for (const auto& [pb, end] : ends) {
    PartitionBucketSlot* slot = nullptr;
    {
      std::shared_lock lock(slots_mu_);
      if (auto it = slots_.find(pb); it != slots_.end()) slot = it->second.get();
    }
    if (slot == nullptr) continue;
    {
      std::lock_guard lock(slot->write_mu);
      slot->TrimMarks(end);
    }
    slot->indexer->Reclaim(end);
  }
  Recount();
}

void RealtimeContext::Impl::CollectGarbage() {
  ProgressMap committed = Committed();
  for (PartitionBucketSlot* slot : Slots()) {
    if (auto it = committed.find(slot->pb); it != committed.end()) {
      slot->indexer->Reclaim(it->second);
    }
  }
  Recount();
}

Status RealtimeContext::Impl::CheckBudget(int64_t incoming_bytes) const {
  int64_t held = memory_bytes_.load();
  if (held + incoming_bytes > options_.hard_limit_bytes) {
    return Status::ResourceExhausted(
        "real-time memory of '", path_, "' would reach ", held + incoming_bytes,
        " bytes, over realtime.memory.hard-limit (", options_.hard_limit_bytes,
        " bytes): commit to flush rows to files, then write again");
  }
  return Status::OK();
}

void RealtimeContext::Impl::Recount() {
  int64_t bytes = 0;
  for (PartitionBucketSlot* slot : Slots()) bytes += slot->indexer->Usage().bytes;
  memory_bytes_ = bytes;
  if (bytes < options_.soft_limit_bytes) commit_requested_ = false;
}

void RealtimeContext::Impl::MaybeRequestCommit() {
  if (memory_bytes_.load() < options_.soft_limit_bytes || commit_requested_.exchange(true)) {
    return;
  }
  std::function<void(const RealtimeUsage&)> callback;
  {
    std::lock_guard lock(callback_mu_);
    callback = commit_request_callback_;
  }
  if (callback) callback(Usage());
}

void RealtimeContext::Impl::SetCommitRequestCallback(
    std::function<void(const RealtimeUsage&)> callback) {
  std::lock_guard lock(callback_mu_);
  commit_request_callback_ = std::move(callback);
}

RealtimeUsage RealtimeContext::Impl::Usage() const {
  RealtimeUsage usage;
  for (PartitionBucketSlot* slot : Slots()) {
    MemoryUsage u = slot->indexer->Usage();
    usage.memory_bytes += u.bytes;
    usage.spilled_bytes += u.spilled_bytes;
    usage.rows_in_memory += u.rows;
    ++usage.partition_buckets;
  }
  usage.rows_written = rows_written.load();
  usage.rows_committed = rows_committed.load();
  usage.soft_limit_bytes = options_.soft_limit_bytes;
  usage.hard_limit_bytes = options_.hard_limit_bytes;
  return usage;
}

std::vector<std::pair<std::string, std::string>> RealtimeContext::Impl::PartitionValues(
    const PartitionBucket& pb) const {
  auto naming = meta::PartitionNaming::FromOptions(schema_.options());
  auto row = meta::DeserializeBinaryRow(pb.partition);
  if (!naming.ok() || !row.ok()) return {};
  auto spec = meta::PartitionSpec(*row, schema_.PartitionFields(), *naming);
  return spec.ok() ? std::move(*spec) : std::vector<std::pair<std::string, std::string>>{};
}

std::string RealtimeContext::Impl::Describe(const PartitionBucket& pb) const {
  std::string out = "bucket " + std::to_string(pb.bucket);
  auto values = PartitionValues(pb);
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i == 0 ? " of partition " : ", ") + values[i].first + "=" + values[i].second;
  }
  return out;
}

std::vector<PartitionBucketProgress> RealtimeContext::Impl::CommittedProgress() const {
  std::vector<PartitionBucketProgress> out;
  for (const auto& [pb, end] : Committed()) {
    out.push_back(PartitionBucketProgress{PartitionValues(pb), pb.bucket, end});
  }
  return out;
}

}  // namespace freshet::realtime
