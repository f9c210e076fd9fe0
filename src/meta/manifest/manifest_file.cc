#include "meta/manifest/manifest_file.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/uuid.h"
#include "container/orc/orc_records.h"
#include "meta/manifest/live_files_cache.h"
#include "meta/manifest/manifest_codec.h"
#include "meta/manifest/manifest_entry_decoder.h"

namespace freshet::meta {

using container::avro::AvroCodec;
using container::avro::AvroValue;

Result<ManifestWriteOptions> ManifestWriteOptions::FromCompression(std::string_view compression,
                                                                   int zstd_level) {
  ManifestWriteOptions options;
  if (compression == "zstd") {
    options.codec = AvroCodec::kZstandard;
    options.level = zstd_level;
  } else if (compression == "snappy") {
    options.codec = AvroCodec::kSnappy;
  } else if (compression == "deflate" || compression == "gzip") {
    options.codec = AvroCodec::kDeflate;
  } else if (compression == "none" || compression == "null" || compression == "uncompressed") {
    options.codec = AvroCodec::kNull;
  } else {
    return Status::Invalid("option 'manifest.compression' has unsupported value '", compression,
                           "' (expected zstd, snappy, deflate or none)");
  }
  return options;
}

ManifestFile::ManifestFile(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                           ManifestWriteOptions options)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)), options_(options) {}

std::string ManifestFile::ManifestDirectory() const {
  return io::JoinPath(table_path_, "manifest");
}

std::string ManifestFile::PathOf(const std::string& file_name) const {
  return io::JoinPath(ManifestDirectory(), file_name);
}

// The records of a manifest or manifest list file's content: Avro, or ORC (manifest.format=orc).
static Result<std::vector<AvroValue>> RecordsOf(std::string content, const std::string& path) {
  if (container::LooksLikeOrc(content)) return container::ReadOrcRecords(std::move(content), path);
  FRESHET_ASSIGN_OR_RETURN(auto file, container::avro::ReadAvroFile(content, path));
  return std::move(file.records);
}

Result<std::vector<AvroValue>> ManifestFile::ReadRecords(const std::string& file_name) const {
  std::string path = PathOf(file_name);
  FRESHET_ASSIGN_OR_RETURN(std::string content, file_io_->ReadFile(path));
  return RecordsOf(std::move(content), path);
}

template <typename T, typename Decode>
static Result<std::vector<T>> DecodeAll(const std::vector<AvroValue>& records, Decode decode,
                                        const std::string& source) {
  std::vector<T> out;
  out.reserve(records.size());
  for (const AvroValue& record : records) {
    FRESHET_ASSIGN_OR_RETURN(T value, decode(record, source));
    out.push_back(std::move(value));
  }
  return out;
}

Result<std::vector<ManifestFileMeta>> ManifestFile::ReadManifestList(
    const std::string& file_name) const {
  FRESHET_ASSIGN_OR_RETURN(auto records, ReadRecords(file_name));
  return DecodeAll<ManifestFileMeta>(records, DecodeManifestFileMeta, PathOf(file_name));
}

Result<std::vector<ManifestEntry>> ManifestFile::ReadManifest(const std::string& file_name,
                                                              int64_t expected_entries) const {
  FRESHET_ASSIGN_OR_RETURN(std::string content, ReadManifestContent(file_name));
  return DecodeManifest(std::move(content), file_name, expected_entries);
}

Result<std::string> ManifestFile::ReadManifestContent(const std::string& file_name) const {
  return file_io_->ReadFile(PathOf(file_name));
}

Result<std::vector<ManifestEntry>> ManifestFile::DecodeManifest(std::string content,
                                                                const std::string& file_name,
                                                                int64_t expected_entries) const {
  std::string path = PathOf(file_name);
  // The direct decoder first; a manifest it does not take (an unusual writer schema, or a damaged
  // file) is decoded the generic way, which reports any error as it always has.
  if (!container::LooksLikeOrc(content)) {
    auto direct = DecodeManifestEntriesDirect(content, path, expected_entries);
    if (direct.ok()) return direct;
  }
  FRESHET_ASSIGN_OR_RETURN(auto records, RecordsOf(std::move(content), path));
  return DecodeAll<ManifestEntry>(records, DecodeManifestEntry, path);
}

Result<std::vector<IndexManifestEntry>> ManifestFile::ReadIndexManifest(
    const std::string& file_name) const {
  FRESHET_ASSIGN_OR_RETURN(auto records, ReadRecords(file_name));
  return DecodeAll<IndexManifestEntry>(records, DecodeIndexManifestEntry, PathOf(file_name));
}

Result<WrittenFile> ManifestFile::WriteRecords(const std::string& prefix,
                                               const container::avro::AvroSchema& schema,
                                               const std::vector<AvroValue>& records) {
  container::avro::AvroWriterOptions writer_options;
  writer_options.codec = options_.codec;
  writer_options.compression_level = options_.level;
  FRESHET_ASSIGN_OR_RETURN(auto writer,
                           container::avro::AvroFileWriter::Make(schema, writer_options));
  for (const AvroValue& record : records) FRESHET_RETURN_NOT_OK(writer->Append(record));
  FRESHET_ASSIGN_OR_RETURN(std::string bytes, writer->Finish());
  // The uuid is made by the first write: most ManifestFile objects only read (every query makes
  // one), and a random uuid showed in their profiles.
  std::call_once(uuid_once_, [this] { uuid_ = RandomUuid(); });
  std::string name = prefix + uuid_ + "-" + std::to_string(next_file_number_.fetch_add(1));
  // Manifest names are unique, so a plain write suffices; the snapshot publish is the atomic step.
  FRESHET_RETURN_NOT_OK(file_io_->WriteFile(PathOf(name), bytes));
  return WrittenFile{name, static_cast<int64_t>(bytes.size())};
}

Result<WrittenFile> ManifestFile::WriteManifestList(const std::vector<ManifestFileMeta>& metas) {
  std::vector<AvroValue> records;
  for (const auto& meta : metas) records.push_back(EncodeManifestFileMeta(meta));
  return WriteRecords("manifest-list-", ManifestListAvroSchema(), records);
}

Result<ManifestFileMeta> ManifestFile::WriteManifest(const std::vector<ManifestEntry>& entries,
                                                     int64_t schema_id,
                                                     SimpleStats partition_stats) {
  std::vector<AvroValue> records;
  ManifestFileMeta meta;
  meta.schema_id = schema_id;
  meta.partition_stats = std::move(partition_stats);
  for (const auto& entry : entries) {
    records.push_back(EncodeManifestEntry(entry));
    (entry.kind == FileKind::kAdd ? meta.num_added_files : meta.num_deleted_files)++;
    meta.schema_id = std::max(meta.schema_id, entry.file.schema_id);
    auto widen = [](std::optional<int32_t>& lo, std::optional<int32_t>& hi, int32_t v) {
      lo = lo ? std::min(*lo, v) : v;
      hi = hi ? std::max(*hi, v) : v;
    };
    widen(meta.min_bucket, meta.max_bucket, entry.bucket);
    widen(meta.min_level, meta.max_level, entry.file.level);
  }
  FRESHET_ASSIGN_OR_RETURN(WrittenFile written,
                           WriteRecords("manifest-", ManifestEntryAvroSchema(), records));
  meta.file_name = written.name;
  meta.file_size = written.size;
  return meta;
}

Result<WrittenFile> ManifestFile::WriteIndexManifest(
    const std::vector<IndexManifestEntry>& entries) {
  std::vector<AvroValue> records;
  for (const auto& entry : entries) records.push_back(EncodeIndexManifestEntry(entry));
  return WriteRecords("index-manifest-", IndexManifestAvroSchema(), records);
}

namespace {

// Entries by the identity of the file they name (FileIdentifier's fields), compared in place.
struct FileIdentityHash {
  size_t operator()(const ManifestEntry* e) const {
    size_t h = std::hash<std::string_view>()(e->file.file_name);
    h = h * 31 + std::hash<std::string_view>()(e->partition);
    return h * 31 + static_cast<size_t>(e->bucket) * 7 + static_cast<size_t>(e->file.level);
  }
};
struct SameFileIdentity {
  bool operator()(const ManifestEntry* a, const ManifestEntry* b) const {
    return a->file.file_name == b->file.file_name && a->partition == b->partition &&
           a->bucket == b->bucket && a->file.level == b->file.level &&
           a->file.extra_files == b->file.extra_files &&
           a->file.embedded_index == b->file.embedded_index &&
           a->file.external_path == b->file.external_path;
  }
};
template <typename T>
using ByFileIdentity =
    std::unordered_map<const ManifestEntry*, T, FileIdentityHash, SameFileIdentity>;

}  // namespace

// Runs work(i) for every i in [0, count) on up to `threads` threads, the caller's among them.
static void RunOnThreads(size_t count, size_t threads, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i = next++; i < count; i = next++) work(i);
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min(threads, count); ++t) helpers.emplace_back(loop);
  loop();
  for (std::thread& helper : helpers) helper.join();
}

size_t DecodeThreads(int64_t entries) {
  if (entries < kParallelDecodeEntries) return 1;
  return std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), kMaxDecodeThreads);
}

// ResolveChanges of ADD entries alone on an empty base (a full read whose manifests hold no
// DELETE, as after manifest compaction): every entry stays, unless one is added twice. nullopt if
// an entry is not an ADD. The check uses open-addressing tables of (hash, position) instead of a
// node per entry; a large input (a cold read of a big table) is hashed on several threads, each
// taking a share of the entries, and then checked on as many, each keeping the table of one
// shard of the hashes.
static std::optional<Result<ResolvedChanges>> ResolveAddsOnly(
    const std::vector<ManifestEntry*>& changes) {
  const size_t n = changes.size();
  const size_t threads = DecodeThreads(static_cast<int64_t>(n));
  std::vector<uint64_t> hashes(n);
  std::vector<int64_t> rows(threads, 0);
  std::vector<uint8_t> all_adds(threads, 1);
  RunOnThreads(threads, threads, [&](size_t share) {
    const FileIdentityHash hash;
    for (size_t i = n * share / threads; i < n * (share + 1) / threads; ++i) {
      const ManifestEntry& change = *changes[i];
      if (change.kind != FileKind::kAdd) {
        all_adds[share] = 0;
        return;
      }
      hashes[i] = hash(&change);
      rows[share] += change.file.row_count;
    }
  });
  if (std::find(all_adds.begin(), all_adds.end(), 0) != all_adds.end()) return std::nullopt;
  auto shard_of = [&](uint64_t h) { return static_cast<size_t>((h >> 32) % threads); };
  std::vector<size_t> first_twice(threads, n);  // per shard: the first entry added twice
  RunOnThreads(threads, threads, [&](size_t shard) {
    size_t count = 0;
    for (uint64_t h : hashes) count += shard_of(h) == shard;
    size_t slots = 16;
    while (slots < count * 2) slots *= 2;
    std::vector<uint64_t> table(slots, 0);  // (hash high bits << 32) | (position + 1); 0: empty
    for (size_t i = 0; i < n; ++i) {
      const uint64_t h = hashes[i];
      if (shard_of(h) != shard) continue;
      const uint64_t tag = (h >> 32) << 32;
      for (size_t at = h & (slots - 1);; at = (at + 1) & (slots - 1)) {
        if (table[at] == 0) {
          table[at] = tag | (i + 1);
          break;
        }
        if ((table[at] & ~uint64_t{0xFFFFFFFF}) == tag &&
            SameFileIdentity()(changes[(table[at] & 0xFFFFFFFF) - 1], changes[i])) {
          first_twice[shard] = i;
          return;
        }
      }
    }
  });
  // The first in order, as one table would have found it.
  if (const size_t twice = *std::min_element(first_twice.begin(), first_twice.end()); twice < n) {
    const ManifestEntry& change = *changes[twice];
    return Result<ResolvedChanges>(Status::Corruption("file '", change.file.file_name, "' (bucket ",
                                                      change.bucket, ", level ", change.file.level,
                                                      ") is added twice"));
  }
  ResolvedChanges out;
  out.kept.resize(n);
  std::iota(out.kept.begin(), out.kept.end(), size_t{0});
  for (int64_t share_rows : rows) out.kept_rows += share_rows;
  return Result<ResolvedChanges>(std::move(out));
}

uint64_t FileNameHash(std::string_view file_name) {
  return std::hash<std::string_view>()(file_name);
}

Result<ResolvedChanges> ResolveChanges(size_t base_size,
                                       const std::function<const ManifestEntry&(size_t)>& base_at,
                                       const std::vector<ManifestEntry*>& changes,
                                       const std::vector<uint64_t>* base_name_hashes) {
  if (base_size == 0 && changes.size() < (size_t{1} << 32)) {
    if (auto resolved = ResolveAddsOnly(changes)) return std::move(*resolved);
  }
  std::unordered_set<std::string_view> touched;
  if (base_size > 0) {
    for (const ManifestEntry* change : changes) touched.insert(change->file.file_name);
  }
  std::vector<uint64_t> touched_hashes;  // sorted, when the base's name hashes are known
  if (base_name_hashes) {
    for (std::string_view name : touched) touched_hashes.push_back(FileNameHash(name));
    std::sort(touched_hashes.begin(), touched_hashes.end());
  }
  std::unordered_map<std::string_view, std::vector<size_t>> base_by_name;
  if (!touched.empty()) {
    for (size_t i = 0; i < base_size; ++i) {
      if (base_name_hashes && !std::binary_search(touched_hashes.begin(), touched_hashes.end(),
                                                  (*base_name_hashes)[i])) {
        continue;
      }
      const std::string& name = base_at(i).file.file_name;
      if (touched.count(name)) base_by_name[name].push_back(i);
    }
  }
  ResolvedChanges out;
  out.base_gone.assign(base_size, false);
  auto live_in_base = [&](const ManifestEntry& change) -> std::optional<size_t> {
    auto it = base_by_name.find(change.file.file_name);
    if (it == base_by_name.end()) return std::nullopt;
    for (size_t i : it->second) {
      if (!out.base_gone[i] && SameFileIdentity()(&base_at(i), &change)) return i;
    }
    return std::nullopt;
  };
  std::vector<uint8_t> kept(changes.size(), 0);
  ByFileIdentity<size_t> added_live;
  added_live.reserve(changes.size());
  ByFileIdentity<int> pending_deletes;
  for (size_t i = 0; i < changes.size(); ++i) {
    const ManifestEntry& change = *changes[i];
    if (change.kind == FileKind::kAdd) {
      if (auto it = pending_deletes.find(&change); it != pending_deletes.end()) {
        if (--it->second == 0) pending_deletes.erase(it);
        continue;
      }
      if (added_live.count(&change) || live_in_base(change)) {
        return Status::Corruption("file '", change.file.file_name, "' (bucket ", change.bucket,
                                  ", level ", change.file.level, ") is added twice");
      }
      added_live.emplace(&change, i);
      kept[i] = 1;
    } else if (auto it = added_live.find(&change); it != added_live.end()) {
      kept[it->second] = 0;
      added_live.erase(it);
    } else if (auto at = live_in_base(change)) {
      out.base_gone[*at] = true;
    } else {
      pending_deletes[&change]++;  // its ADD comes later in the changes
    }
  }
  out.kept.reserve(added_live.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    if (!kept[i]) continue;
    out.kept.push_back(i);
    out.kept_rows += changes[i]->file.row_count;
  }
  return out;
}

Result<ManifestChanges> ResolveManifestChanges(
    size_t base_size, const std::function<const ManifestEntry&(size_t)>& base_at,
    std::vector<ManifestEntry> changes, const std::vector<uint64_t>* base_name_hashes) {
  std::vector<ManifestEntry*> pointers;
  pointers.reserve(changes.size());
  for (ManifestEntry& change : changes) pointers.push_back(&change);
  FRESHET_ASSIGN_OR_RETURN(ResolvedChanges resolved,
                           ResolveChanges(base_size, base_at, pointers, base_name_hashes));
  ManifestChanges out;
  out.base_gone = std::move(resolved.base_gone);
  out.added.reserve(resolved.kept.size());
  for (size_t i : resolved.kept) out.added.push_back(std::move(changes[i]));
  return out;
}

Result<std::vector<ManifestEntry>> MergeManifestEntries(std::vector<ManifestEntry> entries) {
  // Insertion order is kept so that files come out in commit order (append reads rely on it).
  FRESHET_ASSIGN_OR_RETURN(
      ManifestChanges merged,
      ResolveManifestChanges(
          0, [](size_t) -> const ManifestEntry& { std::abort(); }, std::move(entries)));
  return std::move(merged.added);
}

namespace {

// The entries a manifest list says a manifest holds (a hint: it comes from another file).
int64_t EntryCount(const ManifestFileMeta& meta) {
  return std::max<int64_t>(0, meta.num_added_files) + std::max<int64_t>(0, meta.num_deleted_files);
}

// A manifest too large for one thread, read and split into runs of blocks decoded apart.
struct SplitManifest {
  size_t index;  // in list order
  std::string path;
  std::string content;
  std::vector<container::avro::AvroFileReader::BlockRun> runs;
};

}  // namespace

Result<std::vector<std::vector<ManifestEntry>>> ReadManifestsOfLists(
    const ManifestFile& manifests, const std::vector<std::string>& lists, size_t threads) {
  std::vector<ManifestFileMeta> metas;
  int64_t total = 0;
  for (const std::string& list : lists) {
    FRESHET_ASSIGN_OR_RETURN(auto part, manifests.ReadManifestList(list));
    for (ManifestFileMeta& meta : part) {
      total += EntryCount(meta);
      metas.push_back(std::move(meta));
    }
  }
  if (threads == 0) threads = DecodeThreads(total);
  // Decoding is CPU-bound and manifests are independent: large reads (a cold plan of a big table)
  // decode them on several threads, each manifest into its own parts, joined in list order.
  std::vector<std::vector<std::vector<ManifestEntry>>> parts_of(metas.size());
  std::vector<Status> errors(metas.size());
  // Largest first: a table whose manifests were merged has a few big ones among many small ones,
  // and a big one taken last would leave the other threads idle while it decodes.
  std::vector<size_t> order(metas.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return metas[a].file_size > metas[b].file_size; });
  // First the small manifests are decoded while the large ones are only read and split: one
  // manifest of 880,000 entries on one thread was three quarters of a cold plan of 10^6 files.
  std::mutex splits_mutex;
  std::vector<SplitManifest> splits;
  RunOnThreads(metas.size(), threads, [&](size_t at) {
    const size_t i = order[at];
    const std::string& name = metas[i].file_name;
    const int64_t expected = EntryCount(metas[i]);
    Result<std::string> content = manifests.ReadManifestContent(name);
    if (!content.ok()) {
      errors[i] = content.status();
      return;
    }
    if (threads > 1 && expected >= kSplitManifestEntries && !container::LooksLikeOrc(*content)) {
      std::string path = manifests.PathOf(name);
      auto runs = SplitManifestIntoRuns(*content, path, threads);
      if (runs.ok() && runs->size() > 1) {
        std::lock_guard<std::mutex> lock(splits_mutex);
        splits.push_back(SplitManifest{i, std::move(path), std::move(*content), std::move(*runs)});
        return;
      }
    }
    auto entries = manifests.DecodeManifest(std::move(*content), name, expected);
    if (entries.ok()) {
      parts_of[i].push_back(std::move(entries).ValueOrDie());
    } else {
      errors[i] = entries.status();
    }
  });
  // Then every thread decodes runs of the large ones.
  std::vector<std::pair<size_t, size_t>> runs;  // (split, run)
  for (size_t s = 0; s < splits.size(); ++s) {
    parts_of[splits[s].index].resize(splits[s].runs.size());
    for (size_t r = 0; r < splits[s].runs.size(); ++r) runs.emplace_back(s, r);
  }
  std::vector<Status> run_errors(runs.size());
  RunOnThreads(runs.size(), threads, [&](size_t at) {
    const auto [s, r] = runs[at];
    const SplitManifest& split = splits[s];
    auto entries = DecodeManifestEntriesDirect(split.content, split.path, 0, &split.runs[r]);
    if (entries.ok()) {
      parts_of[split.index][r] = std::move(entries).ValueOrDie();
    } else {
      run_errors[at] = entries.status();
    }
  });
  // A run the direct decoder refused: that manifest is decoded whole, the way ReadManifest
  // would (which reports a damaged one as it always has).
  std::vector<bool> redone(splits.size(), false);
  for (size_t at = 0; at < runs.size(); ++at) {
    const size_t s = runs[at].first;
    if (run_errors[at].ok() || redone[s]) continue;
    redone[s] = true;
    SplitManifest& split = splits[s];
    parts_of[split.index].clear();
    auto entries = manifests.DecodeManifest(std::move(split.content), metas[split.index].file_name,
                                            EntryCount(metas[split.index]));
    if (entries.ok()) {
      parts_of[split.index].push_back(std::move(entries).ValueOrDie());
    } else {
      errors[split.index] = entries.status();
    }
  }
  for (const Status& error : errors) FRESHET_RETURN_NOT_OK(error);
  std::vector<std::vector<ManifestEntry>> parts;
  parts.reserve(metas.size() + runs.size());
  for (auto& manifest_parts : parts_of) {
    for (auto& part : manifest_parts) parts.push_back(std::move(part));
  }
  return parts;
}

std::vector<ManifestEntry*> EntriesOf(std::vector<std::vector<ManifestEntry>>* parts) {
  size_t total = 0;
  for (const auto& part : *parts) total += part.size();
  std::vector<ManifestEntry*> out;
  out.reserve(total);
  for (auto& part : *parts) {
    for (ManifestEntry& entry : part) out.push_back(&entry);
  }
  return out;
}

Result<std::vector<ManifestEntry>> ReadEntriesOfLists(const ManifestFile& manifests,
                                                      const std::vector<std::string>& lists) {
  FRESHET_ASSIGN_OR_RETURN(auto parts, ReadManifestsOfLists(manifests, lists));
  std::vector<ManifestEntry> entries;
  entries.reserve(EntriesOf(&parts).size());
  for (auto& part : parts) std::move(part.begin(), part.end(), std::back_inserter(entries));
  return entries;
}

Result<DecodedLiveEntries> DecodeLiveEntries(const ManifestFile& manifests,
                                             const Snapshot& snapshot) {
  DecodedLiveEntries out;
  FRESHET_ASSIGN_OR_RETURN(
      out.parts,
      ReadManifestsOfLists(manifests, {snapshot.base_manifest_list, snapshot.delta_manifest_list}));
  std::vector<ManifestEntry*> entries = EntriesOf(&out.parts);
  FRESHET_ASSIGN_OR_RETURN(ResolvedChanges resolved,
                           ResolveChanges(
                               0, [](size_t) -> const ManifestEntry& { std::abort(); }, entries));
  out.live.reserve(resolved.kept.size());
  for (size_t i : resolved.kept) out.live.push_back(entries[i]);
  FRESHET_RETURN_NOT_OK(CheckLiveRows(snapshot, resolved.kept_rows));
  return out;
}

Result<std::vector<ManifestEntry>> ReadLiveEntries(const ManifestFile& manifests,
                                                   const Snapshot& snapshot) {
  FRESHET_ASSIGN_OR_RETURN(DecodedLiveEntries decoded, DecodeLiveEntries(manifests, snapshot));
  std::vector<ManifestEntry> live;
  live.reserve(decoded.live.size());
  for (ManifestEntry* entry : decoded.live) live.push_back(std::move(*entry));
  return live;
}

}  // namespace freshet::meta
