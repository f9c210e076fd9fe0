#include "meta/manifest/manifest_file.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
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
  std::string path = PathOf(file_name);
  FRESHET_ASSIGN_OR_RETURN(std::string content, file_io_->ReadFile(path));
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

// ResolveChanges of ADD entries alone on an empty base (a full read whose manifests hold no
// DELETE, as after manifest compaction): every entry stays, unless one is added twice. The check
// uses an open-addressing table of (hash, position) instead of a node per entry.
static Result<ResolvedChanges> ResolveAddsOnly(const std::vector<ManifestEntry*>& changes) {
  size_t slots = 16;
  while (slots < changes.size() * 2) slots *= 2;
  std::vector<uint64_t> table(slots, 0);  // (hash high bits << 32) | (position + 1); 0: empty
  const FileIdentityHash hash;
  for (size_t i = 0; i < changes.size(); ++i) {
    const size_t h = hash(changes[i]);
    const uint64_t tag = static_cast<uint64_t>(h >> 32) << 32;
    for (size_t at = h & (slots - 1);; at = (at + 1) & (slots - 1)) {
      if (table[at] == 0) {
        table[at] = tag | (i + 1);
        break;
      }
      if ((table[at] & ~uint64_t{0xFFFFFFFF}) == tag &&
          SameFileIdentity()(changes[(table[at] & 0xFFFFFFFF) - 1], changes[i])) {
        return Status::Corruption("file '", changes[i]->file.file_name, "' (bucket ",
                                  changes[i]->bucket, ", level ", changes[i]->file.level,
                                  ") is added twice");
      }
    }
  }
  ResolvedChanges out;
  out.kept.resize(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) out.kept[i] = i;
  return out;
}

uint64_t FileNameHash(std::string_view file_name) {
  return std::hash<std::string_view>()(file_name);
}

Result<ResolvedChanges> ResolveChanges(size_t base_size,
                                       const std::function<const ManifestEntry&(size_t)>& base_at,
                                       const std::vector<ManifestEntry*>& changes,
                                       const std::vector<uint64_t>* base_name_hashes) {
  if (base_size == 0 && changes.size() < (size_t{1} << 32) &&
      std::all_of(changes.begin(), changes.end(),
                  [](const ManifestEntry* e) { return e->kind == FileKind::kAdd; })) {
    return ResolveAddsOnly(changes);
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
    if (kept[i]) out.kept.push_back(i);
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

Result<std::vector<std::vector<ManifestEntry>>> ReadManifestsOfLists(
    const ManifestFile& manifests, const std::vector<std::string>& lists) {
  std::vector<ManifestFileMeta> metas;
  int64_t total = 0;
  for (const std::string& list : lists) {
    FRESHET_ASSIGN_OR_RETURN(auto part, manifests.ReadManifestList(list));
    for (ManifestFileMeta& meta : part) {
      total +=
          std::max<int64_t>(0, meta.num_added_files) + std::max<int64_t>(0, meta.num_deleted_files);
      metas.push_back(std::move(meta));
    }
  }
  // Decoding is CPU-bound and manifests are independent: large reads (a cold plan of a big table)
  // decode them on several threads, each manifest into its own vector, joined in list order.
  std::vector<std::vector<ManifestEntry>> parts(metas.size());
  std::vector<Status> errors(metas.size());
  // Largest first: a table whose manifests were merged has a few big ones among many small ones,
  // and a big one taken last would leave the other threads idle while it decodes.
  std::vector<size_t> order(metas.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return metas[a].file_size > metas[b].file_size; });
  std::atomic<size_t> next{0};
  auto decode = [&] {
    for (size_t at = next++; at < metas.size(); at = next++) {
      const size_t i = order[at];
      auto entries = manifests.ReadManifest(metas[i].file_name,
                                            metas[i].num_added_files + metas[i].num_deleted_files);
      if (entries.ok()) {
        parts[i] = std::move(entries).ValueOrDie();
      } else {
        errors[i] = entries.status();
      }
    }
  };
  const size_t threads =
      total < kParallelDecodeEntries
          ? 1
          : std::min<size_t>({metas.size(), std::max(1u, std::thread::hardware_concurrency()),
                              kMaxDecodeThreads});
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(decode);
  decode();
  for (std::thread& helper : helpers) helper.join();
  for (const Status& error : errors) FRESHET_RETURN_NOT_OK(error);
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
  int64_t rows = 0;
  out.live.reserve(resolved.kept.size());
  for (size_t i : resolved.kept) {
    rows += entries[i]->file.row_count;
    out.live.push_back(entries[i]);
  }
  FRESHET_RETURN_NOT_OK(CheckLiveRows(snapshot, rows));
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
