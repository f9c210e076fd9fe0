#include "write/dynamic_bucket_assigner.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

#include "meta/manifest/manifest_file.h"
#include "meta/options/option_registry.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::write {

namespace {

// Java keeps bucket numbers in a short.
constexpr int32_t kBucketLimit = std::numeric_limits<int16_t>::max();

std::string IndexDirectory(const std::string& table_path) {
  return io::JoinPath(table_path, "index");
}

}  // namespace

Result<DynamicBucketOptions> DynamicBucketOptions::FromTableOptions(const meta::Options& options) {
  DynamicBucketOptions out;
  FRESHET_ASSIGN_OR_RETURN(out.target_row_num,
                           meta::GetIntOption(options, "dynamic-bucket.target-row-num"));
  FRESHET_ASSIGN_OR_RETURN(out.max_buckets,
                           meta::GetIntOption(options, "dynamic-bucket.max-buckets"));
  return out;
}

// ---------------------------------------------------------------------------------------------
// PartitionBucketChoice

void PartitionBucketChoice::AddBucket(int32_t bucket, const std::vector<int32_t>& hashes) {
  for (int32_t hash : hashes) bucket_of_hash_[hash] = bucket;
  auto [it, added] = keys_per_bucket_.try_emplace(bucket, 0);
  it->second += static_cast<int64_t>(hashes.size());
  if (added) {
    buckets_in_order_.push_back(bucket);
    not_full_.insert(bucket);
  }
}

Result<int32_t> PartitionBucketChoice::Assign(int32_t hash, const DynamicBucketOptions& options,
                                              std::mt19937* random) {
  if (auto known = bucket_of_hash_.find(hash); known != bucket_of_hash_.end()) {
    return known->second;
  }
  // A bucket with room, lowest first; a full one never takes new keys again.
  while (!not_full_.empty()) {
    int32_t bucket = *not_full_.begin();
    int64_t& keys = keys_per_bucket_[bucket];
    if (keys < options.target_row_num) {
      ++keys;
      bucket_of_hash_[hash] = bucket;
      return bucket;
    }
    not_full_.erase(not_full_.begin());
  }
  int32_t limit = options.max_buckets == -1 ? kBucketLimit : options.max_buckets;
  if (!no_new_buckets_) {
    for (int32_t bucket = 0; bucket < limit; ++bucket) {
      if (keys_per_bucket_.count(bucket)) continue;
      keys_per_bucket_[bucket] = 1;
      not_full_.insert(bucket);
      buckets_in_order_.push_back(bucket);
      bucket_of_hash_[hash] = bucket;
      return bucket;
    }
    if (options.max_buckets == -1) {
      return Status::Invalid("dynamic bucket mode: all ", kBucketLimit,
                             " buckets of a partition hold 'dynamic-bucket.target-row-num' (",
                             options.target_row_num, ") keys; raise that option");
    }
    no_new_buckets_ = true;
  }
  // Every bucket full and `dynamic-bucket.max-buckets` reached: Java spreads the new keys
  // randomly over the existing buckets.
  std::uniform_int_distribution<size_t> pick(0, buckets_in_order_.size() - 1);
  int32_t bucket = buckets_in_order_[pick(*random)];
  bucket_of_hash_[hash] = bucket;
  return bucket;
}

// ---------------------------------------------------------------------------------------------
// DynamicBucketIndex

DynamicBucketIndex::DynamicBucketIndex(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                       DynamicBucketOptions options)
    : file_io_(file_io),
      table_path_(std::move(table_path)),
      options_(options),
      files_(std::move(file_io), IndexDirectory(table_path_)),
      random_(std::random_device{}()) {}

Result<std::unique_ptr<DynamicBucketIndex>> DynamicBucketIndex::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, const meta::TableSchema& schema) {
  std::string in_data_dir = schema.option("index-file-in-data-file-dir").value_or("false");
  std::transform(in_data_dir.begin(), in_data_dir.end(), in_data_dir.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (in_data_dir == "true") {
    return Status::NotImplemented(
        "option 'index-file-in-data-file-dir' = true on a dynamic-bucket table: freshet writes "
        "hash index files into <table>/index only");
  }
  FRESHET_ASSIGN_OR_RETURN(auto options, DynamicBucketOptions::FromTableOptions(schema.options()));
  return std::unique_ptr<DynamicBucketIndex>(
      new DynamicBucketIndex(std::move(file_io), std::move(table_path), options));
}

Result<std::vector<meta::IndexManifestEntry>> DynamicBucketIndex::HashEntriesOf(
    const std::optional<meta::Snapshot>& snapshot) const {
  if (!snapshot || !snapshot->index_manifest) return std::vector<meta::IndexManifestEntry>{};
  meta::ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto entries, manifests.ReadIndexManifest(*snapshot->index_manifest));
  // The manifest Java and freshet write holds only ADD entries; a DELETE still withdraws its file.
  std::set<std::string> deleted;
  for (const auto& entry : entries) {
    if (entry.kind == meta::FileKind::kDelete) deleted.insert(entry.file_name);
  }
  std::vector<meta::IndexManifestEntry> live;
  for (auto& entry : entries) {
    if (entry.index_type == meta::kHashIndexType && entry.kind == meta::FileKind::kAdd &&
        !deleted.count(entry.file_name)) {
      live.push_back(std::move(entry));
    }
  }
  return live;
}

Result<DynamicBucketIndex::Partition*> DynamicBucketIndex::PartitionFor(
    const std::string& partition) {
  if (auto it = partitions_.find(partition); it != partitions_.end()) return &it->second;
  if (!latest_entries_) {
    meta::SnapshotManager snapshots(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(auto latest, snapshots.LatestSnapshot());
    FRESHET_ASSIGN_OR_RETURN(latest_entries_, HashEntriesOf(latest));
  }
  Partition loaded;
  for (const auto& entry : *latest_entries_) {
    if (entry.partition != partition) continue;
    std::string path =
        entry.external_path.value_or(io::JoinPath(files_.directory(), entry.file_name));
    FRESHET_ASSIGN_OR_RETURN(auto hashes, meta::ReadHashIndex(*file_io_, path));
    loaded.choice.AddBucket(entry.bucket, hashes);
    loaded.buckets[entry.bucket].hashes.insert(hashes.begin(), hashes.end());
    loaded.known_files.insert(entry.file_name);
  }
  return &partitions_.emplace(partition, std::move(loaded)).first->second;
}

Status DynamicBucketIndex::Assign(RowKeys* keys) {
  std::vector<std::string> partitions;
  partitions.reserve(keys->partitions.size());
  for (const auto& row : keys->partitions) partitions.push_back(meta::SerializeBinaryRow(row));
  std::lock_guard lock(mu_);
  for (size_t row = 0; row < keys->key_hash_of_row.size(); ++row) {
    FRESHET_ASSIGN_OR_RETURN(
        keys->bucket_of_row[row],
        AssignLocked(partitions[static_cast<size_t>(keys->partition_of_row[row])],
                     keys->key_hash_of_row[row]));
  }
  return Status::OK();
}

Result<int32_t> DynamicBucketIndex::AssignLocked(const std::string& partition, int32_t hash) {
  FRESHET_ASSIGN_OR_RETURN(Partition * state, PartitionFor(partition));
  FRESHET_ASSIGN_OR_RETURN(int32_t bucket, state->choice.Assign(hash, options_, &random_));
  Bucket& keys = state->buckets[bucket];
  if (keys.hashes.insert(hash).second) keys.grew = true;
  return bucket;
}

Result<HashIndexIncrements> DynamicBucketIndex::PrepareCommit() {
  std::lock_guard lock(mu_);
  std::vector<std::pair<Bucket*, meta::IndexManifestEntry>> written;
  for (auto& [partition, state] : partitions_) {
    for (auto& [bucket, keys] : state.buckets) {
      if (!keys.grew) continue;
      // Sorted: the file's content does not depend on the hash set's layout.
      std::vector<int32_t> hashes(keys.hashes.begin(), keys.hashes.end());
      std::sort(hashes.begin(), hashes.end());
      Result<meta::IndexManifestEntry> entry = files_.Write(hashes);
      if (!entry.ok()) {
        // Nothing of this attempt is handed out: its files go, the buckets stay to be written.
        for (const auto& [unused, done] : written) {
          (void)file_io_->Delete(io::JoinPath(files_.directory(), done.file_name), false);
        }
        return entry.status();
      }
      entry->partition = partition;
      entry->bucket = bucket;
      written.emplace_back(&keys, std::move(*entry));
    }
  }
  HashIndexIncrements increments;
  for (auto& [keys, entry] : written) {
    keys->grew = false;
    partitions_[entry.partition].known_files.insert(entry.file_name);
    increments[{entry.partition, entry.bucket}].added.push_back(std::move(entry));
  }
  return increments;
}

Status DynamicBucketIndex::CheckCommitBase(const std::vector<meta::CommitMessage>& messages,
                                           const std::optional<meta::Snapshot>& base) {
  std::lock_guard lock(mu_);
  std::set<std::string> written;
  for (const auto& message : messages) {
    for (const auto& entry : message.index_files.added) {
      if (entry.index_type == meta::kHashIndexType) written.insert(message.partition);
    }
  }
  if (written.empty()) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(auto entries, HashEntriesOf(base));
  for (const auto& entry : entries) {
    if (!written.count(entry.partition)) continue;
    auto state = partitions_.find(entry.partition);
    if (state != partitions_.end() && state->second.known_files.count(entry.file_name)) continue;
    return Status::Conflict(
        "dynamic-bucket table '", table_path_, "': another writer committed hash index file '",
        entry.file_name, "' (bucket ", entry.bucket,
        ") to a partition this writer assigned new keys in since it loaded the index; a key could "
        "end up in two buckets, so the commit is refused. A dynamic-bucket table takes one "
        "writer at a time: abort and write again");
  }
  return Status::OK();
}

Status DynamicBucketIndex::Abort(const std::vector<meta::CommitMessage>& uncommitted) {
  std::lock_guard lock(mu_);
  if (!keep_assignments_on_abort_) {
    partitions_.clear();
    latest_entries_.reset();
  }
  Status first_error;
  for (const auto& message : uncommitted) {
    for (const auto& entry : message.index_files.added) {
      if (entry.index_type != meta::kHashIndexType) continue;
      if (auto state = partitions_.find(message.partition); state != partitions_.end()) {
        // Kept assignments: the bucket's keys go into a new file at the next PrepareCommit.
        state->second.known_files.erase(entry.file_name);
        state->second.buckets[message.bucket].grew = true;
      }
      Status deleted = file_io_->Delete(io::JoinPath(files_.directory(), entry.file_name), false);
      if (!deleted.ok() && first_error.ok()) first_error = deleted;
    }
  }
  return first_error;
}

// ---------------------------------------------------------------------------------------------

void AddHashIndexFiles(HashIndexIncrements increments, int32_t total_buckets,
                       std::vector<meta::CommitMessage>* messages) {
  for (auto& message : *messages) {
    auto it = increments.find({message.partition, message.bucket});
    if (it == increments.end()) continue;
    for (auto& entry : it->second.added) message.index_files.added.push_back(std::move(entry));
    increments.erase(it);
  }
  // Buckets whose rows were all dropped (ignore-delete) still record the keys they were given.
  for (auto& [key, increment] : increments) {
    meta::CommitMessage message;
    message.partition = key.first;
    message.bucket = key.second;
    message.total_buckets = total_buckets;
    message.index_files = std::move(increment);
    messages->push_back(std::move(message));
  }
}

}  // namespace freshet::write
