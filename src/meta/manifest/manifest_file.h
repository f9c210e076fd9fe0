// ManifestFile: reads and writes the files under `<table>/manifest/`: manifest lists, data
// manifests and index manifests. Reads accept Avro (every Java version) and ORC (Java 1.x with
// manifest.format=orc); writes produce Avro in the Java 2.0 layout.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "container/avro/avro_file.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::meta {

struct ManifestWriteOptions {
  // From `manifest.compression`: zstd (Java's default), snappy, deflate/gzip or none.
  container::avro::AvroCodec codec = container::avro::AvroCodec::kZstandard;
  std::optional<int> level;  // zstd level 1 by default, as Java writes

  // Maps a `manifest.compression` value to the Avro codec Java would use.
  static Result<ManifestWriteOptions> FromCompression(std::string_view compression, int zstd_level);
};

struct WrittenFile {
  std::string name;
  int64_t size = 0;
};

class ManifestFile {
 public:
  ManifestFile(std::shared_ptr<io::FileIO> file_io, std::string table_path,
               ManifestWriteOptions options = {});

  std::string ManifestDirectory() const;
  std::string PathOf(const std::string& file_name) const;

  Result<std::vector<ManifestFileMeta>> ReadManifestList(const std::string& file_name) const;
  // `expected_entries` (a manifest list's count of its entries) only sizes the result up front.
  Result<std::vector<ManifestEntry>> ReadManifest(const std::string& file_name,
                                                  int64_t expected_entries = 0) const;
  // ReadManifest in its two steps, for callers that look at the bytes before decoding them (a
  // large manifest decoded on several threads).
  Result<std::string> ReadManifestContent(const std::string& file_name) const;
  Result<std::vector<ManifestEntry>> DecodeManifest(std::string content,
                                                    const std::string& file_name,
                                                    int64_t expected_entries = 0) const;
  Result<std::vector<IndexManifestEntry>> ReadIndexManifest(const std::string& file_name) const;

  // Writes a new manifest list `manifest-list-<uuid>-<n>`.
  Result<WrittenFile> WriteManifestList(const std::vector<ManifestFileMeta>& metas);
  // Writes a new data manifest `manifest-<uuid>-<n>` and describes it for a manifest list.
  // `partition_stats` summarizes the partitions of `entries` (meta/manifest/partition_stats.h).
  Result<ManifestFileMeta> WriteManifest(const std::vector<ManifestEntry>& entries,
                                         int64_t schema_id, SimpleStats partition_stats);
  Result<WrittenFile> WriteIndexManifest(const std::vector<IndexManifestEntry>& entries);

 private:
  Result<std::vector<container::avro::AvroValue>> ReadRecords(const std::string& file_name) const;
  Result<WrittenFile> WriteRecords(const std::string& prefix,
                                   const container::avro::AvroSchema& schema,
                                   const std::vector<container::avro::AvroValue>& records);

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  ManifestWriteOptions options_;
  std::once_flag uuid_once_;
  std::string uuid_;  // one per writer, as Java's path factory does; made by the first write
  std::atomic<int64_t> next_file_number_{0};
};

// The live files of a snapshot: entries of its manifests, read in order (base then delta), with
// DELETE entries cancelling the ADD of the same file identifier. A second ADD of a live file is
// corruption.
Result<std::vector<ManifestEntry>> MergeManifestEntries(std::vector<ManifestEntry> entries);
// What `changes` do to a `base` that is merged already (no DELETE, no file twice): which base
// entries they remove and what they add, as MergeManifestEntries(base ++ changes) would, looking
// at base entries only where a change names their file (a commit's delta costs the delta plus
// one pass over the base names, not a map of every live file). `base_at(i)` is base entry i.
struct ManifestChanges {
  std::vector<bool> base_gone;       // per base entry
  std::vector<ManifestEntry> added;  // in order, after the base entries
};
// `base_name_hashes`, when given, holds FileNameHash of each base entry's file name: then only
// base entries whose hash a change has are looked at (a pass over 8 bytes an entry, not over the
// entries, which a large live set holds all over the heap).
Result<ManifestChanges> ResolveManifestChanges(
    size_t base_size, const std::function<const ManifestEntry&(size_t)>& base_at,
    std::vector<ManifestEntry> changes, const std::vector<uint64_t>* base_name_hashes = nullptr);
uint64_t FileNameHash(std::string_view file_name);

// The same resolution without moving anything: which changes stay added (their positions in
// `changes`, in order) and which base entries they remove.
struct ResolvedChanges {
  std::vector<bool> base_gone;
  std::vector<size_t> kept;
  int64_t kept_rows = 0;  // the row counts of the kept changes, summed
};
Result<ResolvedChanges> ResolveChanges(size_t base_size,
                                       const std::function<const ManifestEntry&(size_t)>& base_at,
                                       const std::vector<ManifestEntry*>& changes,
                                       const std::vector<uint64_t>* base_name_hashes = nullptr);

// Every entry of the manifests listed in the given manifest lists, in order. Lists of at least
// kParallelDecodeEntries entries are decoded on up to kMaxDecodeThreads threads; a manifest of
// at least kSplitManifestEntries entries (one merged by a full compaction holds most of a large
// table) is split into runs of blocks that all threads decode.
inline constexpr int64_t kParallelDecodeEntries = 20'000;
inline constexpr int64_t kSplitManifestEntries = 40'000;
inline constexpr size_t kMaxDecodeThreads = 8;
Result<std::vector<ManifestEntry>> ReadEntriesOfLists(const ManifestFile& manifests,
                                                      const std::vector<std::string>& lists);
// The same, in consecutive parts (one per manifest, or per run of a split manifest; nothing
// moved to join them). `threads` 0 chooses by the entry count and the cores.
Result<std::vector<std::vector<ManifestEntry>>> ReadManifestsOfLists(
    const ManifestFile& manifests, const std::vector<std::string>& lists, size_t threads = 0);
// Pointers to every entry of `parts`, in order.
std::vector<ManifestEntry*> EntriesOf(std::vector<std::vector<ManifestEntry>>* parts);
// The live data files of a snapshot (base + delta lists, merged). Corruption if their row counts
// do not add up to the snapshot's totalRecordCount.
// As decoded: `live` points into `parts`, in order (callers move the entries where they keep them).
struct DecodedLiveEntries {
  std::vector<std::vector<ManifestEntry>> parts;
  std::vector<ManifestEntry*> live;
};
Result<DecodedLiveEntries> DecodeLiveEntries(const ManifestFile& manifests,
                                             const Snapshot& snapshot);
Result<std::vector<ManifestEntry>> ReadLiveEntries(const ManifestFile& manifests,
                                                   const Snapshot& snapshot);

}  // namespace freshet::meta
