#include "compact/lookup_levels.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <algorithm>

#include "bridge/arrow_value.h"
#include "mergetree/file_key_range.h"
#include "read/data_file_reader.h"

namespace freshet::compact {

namespace {
constexpr int64_t kLoadBatchRows = 8192;
}  // namespace

// One data file, whole, in the merge layout; `ends[i]` = rows of batches[0..i].
struct LookupLevels::FileIndex {
  std::vector<std::shared_ptr<mergetree::MergeBatch>> batches;
  std::vector<int64_t> ends;
  int64_t bytes = 0;

  int64_t num_rows() const { return ends.empty() ? 0 : ends.back(); }
  // (batch, row within it) of file row `position`.
  std::pair<size_t, int64_t> Locate(int64_t position) const {
    auto it = std::upper_bound(ends.begin(), ends.end(), position);
    auto batch = static_cast<size_t>(it - ends.begin());
    int64_t start = batch == 0 ? 0 : ends[batch - 1];
    return {batch, position - start};
  }
};

Result<std::unique_ptr<LookupLevels>> LookupLevels::Make(
    std::shared_ptr<io::FileIO> file_io, const meta::DataFilePaths* paths,
    std::shared_ptr<const read::PrimaryKeyReadPlan> plan, int64_t max_memory_bytes) {
  std::unique_ptr<LookupLevels> levels(new LookupLevels());
  levels->file_io_ = std::move(file_io);
  levels->paths_ = paths;
  FRESHET_ASSIGN_OR_RETURN(auto order, mergetree::RowComparator::Make(*plan->layout.arrow_schema(),
                                                                      plan->layout.key_columns()));
  levels->key_order_.emplace(std::move(order));
  levels->plan_ = std::move(plan);
  levels->max_memory_bytes_ = max_memory_bytes;
  return levels;
}

LookupLevels::~LookupLevels() = default;

Result<mergetree::FileKey> LookupLevels::KeyOf(const mergetree::MergeBatch& keys,
                                               int64_t row) const {
  mergetree::FileKey key;
  const std::vector<int>& columns = plan_->layout.key_columns();
  for (size_t i = 0; i < columns.size(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(
        auto value, bridge::ArrowValueAt(keys.column(columns[i]), row, *plan_->key_types[i]));
    key.push_back(std::move(value));
  }
  return key;
}

Result<const mergetree::FileKeyRange*> LookupLevels::RangeOf(const meta::DataFileMeta& file) {
  auto it = ranges_.find(file.file_name);
  if (it == ranges_.end()) {
    FRESHET_ASSIGN_OR_RETURN(auto range, mergetree::DecodeKeyRange(file, plan_->key_types));
    it = ranges_.emplace(file.file_name, std::move(range)).first;
  }
  return &it->second;
}

Result<const meta::DataFileMeta*> LookupLevels::FileFor(
    const std::vector<meta::DataFileMeta>& level, const mergetree::FileKey& key) {
  // The files of a level are sorted by key and disjoint: the first whose maximum is not below
  // the key is the only one that may hold it.
  size_t low = 0, high = level.size();
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    FRESHET_ASSIGN_OR_RETURN(const mergetree::FileKeyRange* range, RangeOf(level[mid]));
    if (mergetree::CompareFileKeys(range->max, key) < 0) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (low == level.size()) return nullptr;
  FRESHET_ASSIGN_OR_RETURN(const mergetree::FileKeyRange* range, RangeOf(level[low]));
  if (mergetree::CompareFileKeys(range->min, key) > 0) return nullptr;
  return &level[low];
}

Result<LookupLevels::FileIndex*> LookupLevels::IndexOf(const std::string& partition, int32_t bucket,
                                                       const meta::DataFileMeta& file) {
  auto cached = cache_.find(file.file_name);
  if (cached != cache_.end()) {
    recency_.remove(file.file_name);
    recency_.push_front(file.file_name);
    return cached->second.get();
  }
  static const std::vector<meta::DataField> kSystemFields = {mergetree::SequenceNumberField(),
                                                             mergetree::ValueKindField()};
  scan::DataSplit split;
  split.partition = partition;
  split.bucket = bucket;
  split.files = {file};  // no deletion file: positions are the file's own
  read::DataFileOpener opener(file_io_, paths_, plan_->schema.id(), kLoadBatchRows);
  opener.DecodeOnReadingThread();  // part of a compaction: one core
  FRESHET_ASSIGN_OR_RETURN(auto reader,
                           opener.Open(split, 0, plan_->layout.AllFields(), kSystemFields));
  auto index = std::make_unique<FileIndex>();
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    if (batch->num_rows() == 0) continue;
    index->bytes += arrow::util::TotalBufferSize(*batch);
    FRESHET_ASSIGN_OR_RETURN(auto records, mergetree::MergeBatch::Make(batch, plan_->layout));
    index->ends.push_back(index->num_rows() + records->num_rows());
    index->batches.push_back(std::move(records));
  }
  ++files_loaded_;
  cached_bytes_ += index->bytes;
  FileIndex* raw = index.get();
  cache_.emplace(file.file_name, std::move(index));
  recency_.push_front(file.file_name);
  EvictBeyondBudget();
  return raw;
}

void LookupLevels::EvictBeyondBudget() {
  // The most recent file stays: the caller is about to use it.
  while (cached_bytes_ > max_memory_bytes_ && recency_.size() > 1) {
    Forget(recency_.back());
  }
}

void LookupLevels::Forget(const std::string& file_name) {
  ranges_.erase(file_name);
  auto it = cache_.find(file_name);
  if (it == cache_.end()) return;
  cached_bytes_ -= it->second->bytes;
  cache_.erase(it);
  recency_.remove(file_name);
}

Result<std::optional<LookupHit>> LookupLevels::Lookup(
    const std::string& partition, int32_t bucket,
    const std::vector<std::vector<meta::DataFileMeta>>& levels, const mergetree::MergeBatch& keys,
    int64_t row, const IsDeletedFn& is_deleted) {
  FRESHET_ASSIGN_OR_RETURN(mergetree::FileKey key, KeyOf(keys, row));
  for (const std::vector<meta::DataFileMeta>& level : levels) {
    FRESHET_ASSIGN_OR_RETURN(const meta::DataFileMeta* file, FileFor(level, key));
    if (!file) continue;
    FRESHET_ASSIGN_OR_RETURN(FileIndex * index, IndexOf(partition, bucket, *file));
    // The first row whose key is not below the key.
    int64_t low = 0, high = index->num_rows();
    while (low < high) {
      int64_t mid = low + (high - low) / 2;
      auto [b, r] = index->Locate(mid);
      if (key_order_->Compare(*index->batches[b], r, keys, row) < 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    if (low == index->num_rows()) continue;
    auto [b, r] = index->Locate(low);
    if (key_order_->Compare(*index->batches[b], r, keys, row) != 0) continue;
    // A deleted row was superseded by a newer version: an older one may live further up.
    if (is_deleted && is_deleted(file->file_name, low)) continue;
    return std::optional<LookupHit>(LookupHit{file, low, index->batches[b], r});
  }
  return std::optional<LookupHit>();
}

}  // namespace freshet::compact
