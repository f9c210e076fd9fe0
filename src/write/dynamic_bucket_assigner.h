// Dynamic bucket mode of primary-key tables (`bucket` = -1, Java's HASH_DYNAMIC): which bucket a
// key goes to, and the hash index files that make that choice last.
//
// As Java's HashBucketAssigner with a single assigner (one writer: Java's assigner parallelism,
// `dynamic-bucket.initial-buckets` and `dynamic-bucket.assigner-parallelism`, only split the
// buckets between Flink subtasks):
//  * per partition, the hash of every key (Java BinaryRow.hashCode() of the trimmed primary key)
//    is known with its bucket, loaded from the latest snapshot's HASH index files;
//  * a known key goes to its bucket; a new key to the lowest bucket holding fewer than
//    `dynamic-bucket.target-row-num` keys, else to a new bucket (the lowest unused number below
//    `dynamic-bucket.max-buckets`, -1: 32767), else — every bucket full and none left — to a
//    random existing one;
//  * every bucket whose key set grew gets, at the next commit, a new index file with all its
//    hashes (Java's DynamicBucketIndexMaintainer); the commit replaces the bucket's previous one.
//
// One writer per table (Java's rule for dynamic-bucket tables): a writer that lost track of the
// index because another writer committed new keys to a partition since it loaded the index
// could put a key in a second bucket. CheckCommitBase refuses such a commit (Conflict) instead.
//
// Thread-safe: the real-time layer assigns buckets from its concurrent Writes while its flush
// prepares and aborts commits (every public method takes the index's lock).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/bucket/hash_index_file.h"
#include "meta/manifest/commit_message.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot.h"
#include "write/row_keys.h"

namespace freshet::write {

// Index files per (serialized partition, bucket).
using HashIndexIncrements = std::map<std::pair<std::string, int32_t>, meta::IndexIncrement>;

struct DynamicBucketOptions {
  int64_t target_row_num = 2'000'000;  // `dynamic-bucket.target-row-num`
  int32_t max_buckets = -1;            // `dynamic-bucket.max-buckets`, -1: unlimited

  static Result<DynamicBucketOptions> FromTableOptions(const meta::Options& options);
};

// The bucket choice of one partition (Java's PartitionIndex), without I/O.
class PartitionBucketChoice {
 public:
  // Loading: `hashes` of `bucket`'s index file. Files are added in index-manifest order; a hash
  // two files list belongs to the later one, and each file's hashes count towards its bucket.
  void AddBucket(int32_t bucket, const std::vector<int32_t>& hashes);
  // The bucket of the key with `hash`, assigning a new key. Invalid when every bucket number up
  // to 32767 is taken and `max_buckets` is -1.
  Result<int32_t> Assign(int32_t hash, const DynamicBucketOptions& options, std::mt19937* random);
  // Keys (hashes) counted per bucket.
  const std::map<int32_t, int64_t>& keys_per_bucket() const { return keys_per_bucket_; }

 private:
  std::unordered_map<int32_t, int32_t> bucket_of_hash_;
  std::map<int32_t, int64_t> keys_per_bucket_;
  std::set<int32_t> not_full_;  // buckets still taking new keys, ascending as Java visits them
  std::vector<int32_t> buckets_in_order_;  // every bucket, in order of creation
  bool no_new_buckets_ = false;
};

class DynamicBucketIndex {
 public:
  // InvalidArgument-like errors for options freshet cannot honour (`index-file-in-data-file-dir`).
  static Result<std::unique_ptr<DynamicBucketIndex>> Make(std::shared_ptr<io::FileIO> file_io,
                                                          std::string table_path,
                                                          const meta::TableSchema& schema);

  // Fills `keys->bucket_of_row` from `keys->key_hash_of_row` (RowKeyExtractor with key hashes):
  // a key's bucket in its partition, whose index is loaded from the latest snapshot on first use.
  Status Assign(RowKeys* keys);

  // Abort() keeps what was assigned (the real-time layer, whose rows stay in memory with the
  // buckets they were given and are flushed again): only the aborted index files go, and their
  // buckets are written again at the next PrepareCommit.
  void KeepAssignmentsOnAbort() { keep_assignments_on_abort_ = true; }

  // One new index file for every bucket whose key set grew since the last call, with all its
  // hashes, keyed by (partition, bucket).
  // Nothing is handed out on failure (its files are deleted).
  Result<HashIndexIncrements> PrepareCommit();

  // Conflict when, in `base` (the snapshot a commit of `messages` builds on), a partition to which
  // `messages` add hash index files has an index file this writer neither loaded nor wrote: another
  // writer committed new keys there, and this writer may have put one of them in a second bucket.
  Status CheckCommitBase(const std::vector<meta::CommitMessage>& messages,
                         const std::optional<meta::Snapshot>& base);

  // Forgets every partition (the next Assign reloads from the latest snapshot; see
  // KeepAssignmentsOnAbort) and deletes the hash index files `uncommitted` adds.
  Status Abort(const std::vector<meta::CommitMessage>& uncommitted);

 private:
  struct Bucket {
    std::unordered_set<int32_t> hashes;
    bool grew = false;
  };
  struct Partition {
    PartitionBucketChoice choice;
    std::map<int32_t, Bucket> buckets;
    std::set<std::string> known_files;  // index files loaded or written
  };

  DynamicBucketIndex(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                     DynamicBucketOptions options);
  // The HASH entries of the latest snapshot (read once per generation) or of `base`.
  Result<std::vector<meta::IndexManifestEntry>> HashEntriesOf(
      const std::optional<meta::Snapshot>& snapshot) const;
  Result<Partition*> PartitionFor(const std::string& partition);
  Result<int32_t> AssignLocked(const std::string& partition, int32_t hash);

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  DynamicBucketOptions options_;
  meta::HashIndexFileWriter files_;
  std::mt19937 random_;
  std::optional<std::vector<meta::IndexManifestEntry>> latest_entries_;
  std::map<std::string, Partition> partitions_;
  bool keep_assignments_on_abort_ = false;
  std::mutex mu_;
};

// Adds the index files to the message of their partition-bucket, or to a new message.
void AddHashIndexFiles(HashIndexIncrements increments, int32_t total_buckets,
                       std::vector<meta::CommitMessage>* messages);

}  // namespace freshet::write
