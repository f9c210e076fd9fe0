// Avro object container files: the format of Paimon's manifest lists, manifests and index
// manifests.
//
// Layout: magic "Obj\x01", a metadata map (bytes values; `avro.schema` holds the writer schema as
// JSON, `avro.codec` the block codec), a 16-byte sync marker, then blocks of
// (record count, byte size, compressed records, sync marker).
//
// Codecs: null, deflate (raw deflate stream), snappy (snappy block followed by the big-endian
// CRC32 of the uncompressed data) and zstandard (a zstd frame; Java Paimon writes level 1).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "container/avro/avro_schema.h"
#include "container/avro/avro_value.h"
#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet::io {
class OutputStream;
}  // namespace freshet::io

namespace freshet::container::avro {

class AvroDecoder;  // container/avro/avro_binary.h

enum class AvroCodec : uint8_t { kNull, kDeflate, kSnappy, kZstandard };

// The codec's `avro.codec` spelling: "null", "deflate", "snappy", "zstandard".
const char* AvroCodecName(AvroCodec codec);
// Parses an `avro.codec` value; other codecs (bzip2, xz, ...) are NotImplemented.
Result<AvroCodec> ParseAvroCodec(std::string_view name);

using SyncMarker = std::array<uint8_t, 16>;

struct AvroWriterOptions {
  AvroCodec codec = AvroCodec::kZstandard;
  // zstd level (default 1, as Java Paimon writes) or deflate level 0-9 (default: zlib's default).
  // Ignored by null and snappy.
  std::optional<int> compression_level;
  // A block is written when it holds this many records (0 = no limit) ...
  int64_t records_per_block = 0;
  // ... or when its uncompressed size reaches this many bytes (Java's default sync interval).
  int64_t block_size_bytes = 64000;
  // Random when not set; fix it for byte-for-byte reproducible files.
  std::optional<SyncMarker> sync_marker;
  // Extra header metadata, written after avro.schema and avro.codec. Keys must not start with
  // "avro.".
  std::vector<std::pair<std::string, std::string>> metadata;
};

class AvroFileWriter {
 public:
  // Writes into memory (Finish() returns the bytes) or, when `sink` is given, streams each block
  // to it as it is completed. The sink is not owned and is not closed.
  static Result<std::unique_ptr<AvroFileWriter>> Make(AvroSchema schema,
                                                      AvroWriterOptions options = {},
                                                      io::OutputStream* sink = nullptr);
  ~AvroFileWriter();

  // Appends one datum of the schema's root type (normally a record).
  Status Append(const AvroValue& value);

  // Writes the last block. Returns the whole file when writing into memory, or "" after streaming
  // everything to the sink. The writer cannot be used afterwards.
  Result<std::string> Finish();

  const AvroSchema& schema() const { return schema_; }
  int64_t num_records() const { return num_records_; }
  // Bytes of the file produced so far (header and completed blocks).
  int64_t bytes_written() const { return bytes_written_; }

 private:
  class Compressor;
  AvroFileWriter(AvroSchema schema, AvroWriterOptions options, io::OutputStream* sink);
  Status WriteHeader();
  Status FlushBlock();
  Status Emit(std::string_view bytes);

  AvroSchema schema_;
  AvroWriterOptions options_;
  io::OutputStream* sink_;
  std::unique_ptr<Compressor> compressor_;
  SyncMarker sync_{};
  std::string out_;    // file bytes not yet handed to the sink
  std::string block_;  // encoded records of the open block
  int64_t block_records_ = 0;
  int64_t num_records_ = 0;
  int64_t bytes_written_ = 0;
  bool finished_ = false;
};

struct AvroReaderOptions {
  // Upper bound on one block's decompressed size, so that a corrupt or hostile block cannot make
  // the reader allocate without limit.
  int64_t max_block_bytes = int64_t{256} << 20;
};

class AvroFileReader {
 public:
  // Parses the header of a container file whose whole content is `content`; the content must stay
  // alive while the reader is used. `source_name` (the file path) is named in every error.
  static Result<std::unique_ptr<AvroFileReader>> Open(std::string_view content,
                                                      std::string source_name,
                                                      AvroReaderOptions options = {});
  ~AvroFileReader();

  const AvroSchema& schema() const { return *schema_; }
  AvroCodec codec() const { return codec_; }
  const SyncMarker& sync_marker() const { return sync_; }
  // Header metadata in file order (including avro.schema and avro.codec).
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  std::optional<std::string_view> GetMetadata(std::string_view key) const;
  const std::string& source_name() const { return source_name_; }

  // Reads the next datum into `out`. Returns false at the end of the file.
  Result<bool> Next(AvroValue* out);
  // Reads all remaining data.
  Result<std::vector<AvroValue>> ReadAll();

  // Reads one datum of schema() from the decoder it is given (positioned at the datum), for
  // decoders that build their own structures straight from the encoding, without AvroValues.
  using DatumDecoder = std::function<Status(AvroDecoder*)>;
  // Calls `decode` once per remaining datum. Its errors, and bytes a block has left after its
  // last datum, are Corruption naming the file, block and record, as Next's.
  Status DecodeEach(const DatumDecoder& decode);

  // Consecutive blocks of the file, which a reader of their own can decode (RestrictTo): one
  // large file decoded on several threads.
  struct BlockRun {
    size_t begin = 0;         // byte offset of the first block
    size_t end = 0;           // byte offset just past the last block's sync marker
    int64_t first_block = 0;  // index of the first block in the file (named in errors)
    int64_t records = 0;      // records the blocks claim to hold
  };
  // Splits the blocks not read yet into at most `max_runs` runs of about equal record counts.
  // Reads the block frames only (counts, sizes, sync markers: errors as reading them would
  // report); nothing is decompressed.
  Result<std::vector<BlockRun>> SplitIntoRuns(size_t max_runs) const;
  // Limits this reader, which has read nothing yet, to the blocks of `run` (from SplitIntoRuns
  // of a reader of the same content).
  Status RestrictTo(const BlockRun& run);

 private:
  class Decompressor;
  // A block's frame: its record count, its (compressed) data and where the next block starts.
  struct BlockFrame {
    int64_t count = 0;
    std::string_view data;
    size_t next = 0;
  };
  AvroFileReader(std::string_view content, std::string source_name, AvroReaderOptions options);
  Status ReadHeader();
  Status ReadMetadata(size_t* pos);
  Result<BlockFrame> ReadBlockFrame(size_t pos, int64_t index) const;
  // Loads the next block into `block_data_`; returns false at the end of the file.
  Result<bool> LoadBlock();
  // Decodes the next datum with `decode`; false at the end of the file.
  Result<bool> NextDatum(const DatumDecoder& decode);
  Status Corrupt(const Status& cause) const;

  std::string_view content_;
  std::string source_name_;
  AvroReaderOptions options_;
  std::optional<AvroSchema> schema_;  // set by ReadHeader()
  AvroCodec codec_ = AvroCodec::kNull;
  SyncMarker sync_{};
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::unique_ptr<Decompressor> decompressor_;

  size_t pos_ = 0;            // next block in `content_`
  size_t end_ = 0;            // end of the blocks to read (the content's end unless restricted)
  size_t data_begin_ = 0;     // the first block, just past the header
  int64_t block_index_ = -1;  // index of the loaded block
  std::string block_buffer_;  // decompressed data of the loaded block
  std::string_view block_data_;
  size_t block_pos_ = 0;
  int64_t block_remaining_ = 0;  // records not yet read from the loaded block
  int64_t block_record_ = 0;     // index of the next record within the block
};

// Reads a whole container file.
struct AvroFileContents {
  AvroSchema schema;
  AvroCodec codec;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<AvroValue> records;
};
Result<AvroFileContents> ReadAvroFile(std::string_view content, const std::string& source_name,
                                      AvroReaderOptions options = {});

}  // namespace freshet::container::avro
