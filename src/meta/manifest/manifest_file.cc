#include "meta/manifest/manifest_file.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/uuid.h"
#include "container/orc/orc_records.h"
#include "meta/manifest/live_files_cache.h"
#include "meta/manifest/manifest_codec.h"

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
    : file_io_(std::move(file_io)),
      table_path_(std::move(table_path)),
      options_(options),
      uuid_(RandomUuid()) {}

std::string ManifestFile::ManifestDirectory() const {
  return io::JoinPath(table_path_, "manifest");
}

std::string ManifestFile::PathOf(const std::string& file_name) const {
  return io::JoinPath(ManifestDirectory(), file_name);
}

Result<std::vector<AvroValue>> ManifestFile::ReadRecords(const std::string& file_name) const {
  std::string path = PathOf(file_name);
  FRESHET_ASSIGN_OR_RETURN(std::string content, file_io_->ReadFile(path));
  if (container::LooksLikeOrc(content)) return container::ReadOrcRecords(std::move(content), path);
  FRESHET_ASSIGN_OR_RETURN(auto file, container::avro::ReadAvroFile(content, path));
  return std::move(file.records);
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

Result<std::vector<ManifestEntry>> ManifestFile::ReadManifest(const std::string& file_name) const {
  FRESHET_ASSIGN_OR_RETURN(auto records, ReadRecords(file_name));
  return DecodeAll<ManifestEntry>(records, DecodeManifestEntry, PathOf(file_name));
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

Result<ManifestChanges> ResolveManifestChanges(
    size_t base_size, const std::function<const ManifestEntry&(size_t)>& base_at,
    std::vector<ManifestEntry> changes) {
  std::unordered_set<std::string_view> touched;
  for (const ManifestEntry& change : changes) touched.insert(change.file.file_name);
  std::unordered_map<std::string_view, std::vector<size_t>> base_by_name;
  if (!touched.empty()) {
    for (size_t i = 0; i < base_size; ++i) {
      const std::string& name = base_at(i).file.file_name;
      if (touched.count(name)) base_by_name[name].push_back(i);
    }
  }
  ManifestChanges out;
  out.base_gone.assign(base_size, false);
  auto live_in_base = [&](const FileIdentifier& id) -> std::optional<size_t> {
    auto it = base_by_name.find(id.file_name);
    if (it == base_by_name.end()) return std::nullopt;
    for (size_t i : it->second) {
      if (!out.base_gone[i] && FileIdentifier::Of(base_at(i)) == id) return i;
    }
    return std::nullopt;
  };
  std::vector<std::optional<ManifestEntry>> added;
  std::map<FileIdentifier, size_t> added_live;
  std::map<FileIdentifier, int> pending_deletes;
  for (ManifestEntry& change : changes) {
    FileIdentifier id = FileIdentifier::Of(change);
    if (change.kind == FileKind::kAdd) {
      if (auto it = pending_deletes.find(id); it != pending_deletes.end()) {
        if (--it->second == 0) pending_deletes.erase(it);
        continue;
      }
      if (added_live.count(id) || live_in_base(id)) {
        return Status::Corruption("file '", change.file.file_name, "' (bucket ", change.bucket,
                                  ", level ", change.file.level, ") is added twice");
      }
      added_live[id] = added.size();
      added.push_back(std::move(change));
    } else if (auto it = added_live.find(id); it != added_live.end()) {
      added[it->second].reset();
      added_live.erase(it);
    } else if (auto at = live_in_base(id)) {
      out.base_gone[*at] = true;
    } else {
      pending_deletes[id]++;  // its ADD comes later in the changes
    }
  }
  out.added.reserve(added_live.size());
  for (auto& entry : added) {
    if (entry) out.added.push_back(std::move(*entry));
  }
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

Result<std::vector<ManifestEntry>> ReadEntriesOfLists(const ManifestFile& manifests,
                                                      const std::vector<std::string>& lists) {
  std::vector<ManifestEntry> entries;
  for (const std::string& list : lists) {
    FRESHET_ASSIGN_OR_RETURN(auto metas, manifests.ReadManifestList(list));
    for (const ManifestFileMeta& meta : metas) {
      FRESHET_ASSIGN_OR_RETURN(auto part, manifests.ReadManifest(meta.file_name));
      std::move(part.begin(), part.end(), std::back_inserter(entries));
    }
  }
  return entries;
}

Result<std::vector<ManifestEntry>> ReadLiveEntries(const ManifestFile& manifests,
                                                   const Snapshot& snapshot) {
  FRESHET_ASSIGN_OR_RETURN(
      auto entries,
      ReadEntriesOfLists(manifests, {snapshot.base_manifest_list, snapshot.delta_manifest_list}));
  FRESHET_ASSIGN_OR_RETURN(auto live, MergeManifestEntries(std::move(entries)));
  FRESHET_RETURN_NOT_OK(CheckLiveRowCount(snapshot, live));
  return live;
}

}  // namespace freshet::meta
