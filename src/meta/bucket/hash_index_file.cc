#include "meta/bucket/hash_index_file.h"

#include <utility>

#include "common/uuid.h"

namespace freshet::meta {

std::string EncodeHashIndex(const std::vector<int32_t>& hashes) {
  std::string bytes;
  bytes.reserve(hashes.size() * 4);
  for (int32_t hash : hashes) {
    auto bits = static_cast<uint32_t>(hash);
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes.push_back(static_cast<char>((bits >> shift) & 0xff));
    }
  }
  return bytes;
}

Result<std::vector<int32_t>> DecodeHashIndex(std::string_view bytes, std::string_view file) {
  if (bytes.size() % 4 != 0) {
    return Status::Corruption("hash index file '", file, "' has ", bytes.size(),
                              " bytes, not a whole number of 4-byte hashes");
  }
  std::vector<int32_t> hashes;
  hashes.reserve(bytes.size() / 4);
  for (size_t at = 0; at < bytes.size(); at += 4) {
    uint32_t bits = 0;
    for (size_t i = 0; i < 4; ++i) bits = (bits << 8) | static_cast<uint8_t>(bytes[at + i]);
    hashes.push_back(static_cast<int32_t>(bits));
  }
  return hashes;
}

HashIndexFileWriter::HashIndexFileWriter(std::shared_ptr<io::FileIO> file_io, std::string directory)
    : file_io_(std::move(file_io)), directory_(std::move(directory)), uuid_(RandomUuid()) {}

Result<IndexManifestEntry> HashIndexFileWriter::Write(const std::vector<int32_t>& hashes) {
  IndexManifestEntry entry;
  entry.index_type = kHashIndexType;
  entry.file_name = "index-" + uuid_ + "-" + std::to_string(next_++);
  std::string bytes = EncodeHashIndex(hashes);
  std::string path = io::JoinPath(directory_, entry.file_name);
  FRESHET_RETURN_NOT_OK(file_io_->MakeDirs(directory_));
  Status written = file_io_->WriteFile(path, bytes);
  if (!written.ok()) {
    (void)file_io_->Delete(path, false);  // a partial file must not be mistaken for an index
    return written;
  }
  entry.file_size = static_cast<int64_t>(bytes.size());
  entry.row_count = static_cast<int64_t>(hashes.size());
  return entry;
}

Result<std::vector<int32_t>> ReadHashIndex(io::FileIO& file_io, const std::string& path) {
  FRESHET_ASSIGN_OR_RETURN(std::string bytes, file_io.ReadFile(path));
  return DecodeHashIndex(bytes, path);
}

}  // namespace freshet::meta
