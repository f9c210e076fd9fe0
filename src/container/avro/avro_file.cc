#include "container/avro/avro_file.h"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <random>

#include "container/avro/avro_binary.h"
#include "io/file_io.h"

namespace freshet::container::avro {

namespace {

constexpr std::string_view kMagic("Obj\x01", 4);
constexpr std::string_view kSchemaKey = "avro.schema";
constexpr std::string_view kCodecKey = "avro.codec";
constexpr int kDefaultZstdLevel = 1;  // what Java Paimon writes (file.compression.zstd-level)
// Records that encode to no bytes at all cannot be bounded by the block size.
constexpr int64_t kMaxEmptyRecordsPerBlock = int64_t{1} << 24;

SyncMarker RandomSyncMarker() {
  std::random_device device;
  SyncMarker marker;
  for (size_t i = 0; i < marker.size(); i += 4) {
    uint32_t bits = device();
    for (size_t j = 0; j < 4; ++j) marker[i + j] = static_cast<uint8_t>(bits >> (8 * j));
  }
  return marker;
}

std::string_view AsView(const SyncMarker& marker) {
  return std::string_view(reinterpret_cast<const char*>(marker.data()), marker.size());
}

void AppendBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xff));
}

uint32_t LoadBigEndian32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes a uInt length; feed large buffers in pieces.
  while (!data.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(data.size(), 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), n);
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

const char* AvroCodecName(AvroCodec codec) {
  switch (codec) {
    case AvroCodec::kNull:
      return "null";
    case AvroCodec::kDeflate:
      return "deflate";
    case AvroCodec::kSnappy:
      return "snappy";
    case AvroCodec::kZstandard:
      return "zstandard";
  }
  return "unknown";
}

Result<AvroCodec> ParseAvroCodec(std::string_view name) {
  for (AvroCodec codec :
       {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard}) {
    if (name == AvroCodecName(codec)) return codec;
  }
  return Status::NotImplemented("unsupported Avro codec '", name,
                                "' (supported: null, deflate, snappy, zstandard)");
}

// ---------------------------------------------------------------------------------------------
// Block compression

class AvroFileWriter::Compressor {
 public:
  Compressor(AvroCodec codec, int level) : codec_(codec), level_(level) {}
  ~Compressor() { ZSTD_freeCCtx(zstd_); }

  Status Compress(std::string_view in, std::string* out) {
    out->clear();
    switch (codec_) {
      case AvroCodec::kNull:
        out->assign(in);
        return Status::OK();
      case AvroCodec::kDeflate:
        return Deflate(in, out);
      case AvroCodec::kSnappy:
        snappy::Compress(in.data(), in.size(), out);
        AppendBigEndian32(Crc32(in), out);
        return Status::OK();
      case AvroCodec::kZstandard:
        return Zstd(in, out);
    }
    return Status::Internal("unhandled Avro codec");
  }

 private:
  Status Deflate(std::string_view in, std::string* out) {
    z_stream stream{};
    // Negative window bits: a raw deflate stream without zlib header, as Avro specifies.
    if (deflateInit2(&stream, level_, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status::Invalid("cannot initialize deflate at level ", level_);
    }
    out->resize(deflateBound(&stream, static_cast<uLong>(in.size())));
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream.avail_in = static_cast<uInt>(in.size());
    stream.next_out = reinterpret_cast<Bytef*>(out->data());
    stream.avail_out = static_cast<uInt>(out->size());
    int rc = deflate(&stream, Z_FINISH);
    out->resize(stream.total_out);
    deflateEnd(&stream);
    if (rc != Z_STREAM_END) return Status::Internal("deflate failed with code ", rc);
    return Status::OK();
  }

  // Compresses as a stream of unknown size (feed everything, then end the frame), the way Java's
  // ZstdOutputStream does: the frame then has no content size and zstd picks the same parameters,
  // so the output is byte-identical to Java Paimon's manifests.
  Status Zstd(std::string_view in, std::string* out) {
    if (zstd_ == nullptr) zstd_ = ZSTD_createCCtx();
    if (zstd_ == nullptr) return Status::ResourceExhausted("cannot create a zstd context");
    ZSTD_CCtx_reset(zstd_, ZSTD_reset_session_only);
    size_t rc = ZSTD_CCtx_setParameter(zstd_, ZSTD_c_compressionLevel, level_);
    if (ZSTD_isError(rc)) return Status::Invalid("bad zstd level ", level_);
    out->resize(ZSTD_compressBound(in.size()) + 64);
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    ZSTD_outBuffer output{out->data(), out->size(), 0};
    for (ZSTD_EndDirective mode : {ZSTD_e_continue, ZSTD_e_end}) {
      do {
        if (output.pos == output.size) {
          out->resize(out->size() * 2);
          output.dst = out->data();
          output.size = out->size();
        }
        rc = ZSTD_compressStream2(zstd_, &output, &input, mode);
        if (ZSTD_isError(rc)) {
          return Status::Internal("zstd compression failed: ", ZSTD_getErrorName(rc));
        }
      } while (mode == ZSTD_e_continue ? input.pos < input.size : rc != 0);
    }
    out->resize(output.pos);
    return Status::OK();
  }

  AvroCodec codec_;
  int level_;
  ZSTD_CCtx* zstd_ = nullptr;
};

class AvroFileReader::Decompressor {
 public:
  Decompressor(AvroCodec codec, int64_t max_bytes) : codec_(codec), max_bytes_(max_bytes) {}
  ~Decompressor() { ZSTD_freeDCtx(zstd_); }

  // Returns Corruption (without file context) when `in` is not valid for the codec.
  Status Decompress(std::string_view in, std::string* out) {
    out->clear();
    switch (codec_) {
      case AvroCodec::kNull:
        return Status::Internal("the null codec needs no decompression");
      case AvroCodec::kDeflate:
        return Inflate(in, out);
      case AvroCodec::kSnappy:
        return Snappy(in, out);
      case AvroCodec::kZstandard:
        return Zstd(in, out);
    }
    return Status::Internal("unhandled Avro codec");
  }

 private:
  // Grows `out` for streaming decompression, refusing to go beyond the block limit.
  Status Grow(std::string* out, size_t used, size_t input_size) {
    if (static_cast<int64_t>(used) >= max_bytes_) {
      return Status::Corruption("decompresses to more than ", max_bytes_,
                                " bytes (the reader's max_block_bytes)");
    }
    size_t wanted = std::max<size_t>({64 << 10, out->size() * 2, input_size * 4});
    out->resize(std::min<size_t>(wanted, static_cast<size_t>(max_bytes_)));
    return Status::OK();
  }

  Status Inflate(std::string_view in, std::string* out) {
    z_stream stream{};
    if (inflateInit2(&stream, -15) != Z_OK) return Status::Internal("cannot initialize inflate");
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream.avail_in = static_cast<uInt>(in.size());
    Status st;
    while (true) {
      if (stream.total_out == out->size()) {
        st = Grow(out, stream.total_out, in.size());
        if (!st.ok()) break;
      }
      stream.next_out = reinterpret_cast<Bytef*>(out->data() + stream.total_out);
      stream.avail_out = static_cast<uInt>(out->size() - stream.total_out);
      int rc = inflate(&stream, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) break;
      if (rc == Z_BUF_ERROR && stream.avail_in == 0) {
        st = Status::Corruption("deflate data is truncated");
        break;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        st = Status::Corruption("deflate data is invalid: ",
                                stream.msg != nullptr ? stream.msg : "code " + std::to_string(rc));
        break;
      }
    }
    out->resize(stream.total_out);
    inflateEnd(&stream);
    return st;
  }

  Status Snappy(std::string_view in, std::string* out) {
    if (in.size() < 4) return Status::Corruption("snappy block is shorter than its checksum");
    std::string_view data = in.substr(0, in.size() - 4);
    size_t length = 0;
    if (!snappy::GetUncompressedLength(data.data(), data.size(), &length)) {
      return Status::Corruption("snappy data is invalid");
    }
    if (length > static_cast<uint64_t>(max_bytes_)) {
      return Status::Corruption("snappy data claims ", length, " bytes, more than the reader's ",
                                "max_block_bytes (", max_bytes_, ")");
    }
    out->resize(length);
    if (!snappy::RawUncompress(data.data(), data.size(), out->data())) {
      return Status::Corruption("snappy data is invalid");
    }
    uint32_t expected = LoadBigEndian32(in.data() + data.size());
    uint32_t actual = Crc32(*out);
    if (expected != actual) {
      return Status::Corruption("snappy checksum mismatch (stored ", expected, ", computed ",
                                actual, ")");
    }
    return Status::OK();
  }

  Status Zstd(std::string_view in, std::string* out) {
    if (zstd_ == nullptr) zstd_ = ZSTD_createDCtx();
    if (zstd_ == nullptr) return Status::ResourceExhausted("cannot create a zstd context");
    ZSTD_DCtx_reset(zstd_, ZSTD_reset_session_only);
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    size_t used = 0;
    size_t rc = 0;
    while (input.pos < input.size) {
      if (used == out->size()) FRESHET_RETURN_NOT_OK(Grow(out, used, in.size()));
      ZSTD_outBuffer output{out->data(), out->size(), used};
      rc = ZSTD_decompressStream(zstd_, &output, &input);
      used = output.pos;
      if (ZSTD_isError(rc)) {
        return Status::Corruption("zstd data is invalid: ", ZSTD_getErrorName(rc));
      }
      // rc == 0 with output space left means a frame ended; more input starts another frame.
    }
    // Drain output still buffered inside zstd after the last input byte was consumed.
    while (rc != 0) {
      if (used == out->size()) FRESHET_RETURN_NOT_OK(Grow(out, used, in.size()));
      ZSTD_outBuffer output{out->data(), out->size(), used};
      size_t before = used;
      rc = ZSTD_decompressStream(zstd_, &output, &input);
      used = output.pos;
      if (ZSTD_isError(rc)) {
        return Status::Corruption("zstd data is invalid: ", ZSTD_getErrorName(rc));
      }
      if (rc != 0 && used == before && used < out->size()) {
        return Status::Corruption("zstd frame is truncated");
      }
    }
    out->resize(used);
    return Status::OK();
  }

  AvroCodec codec_;
  int64_t max_bytes_;
  ZSTD_DCtx* zstd_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// AvroFileWriter

namespace {

Status ValidateOptions(const AvroWriterOptions& options) {
  if (options.records_per_block < 0) {
    return Status::Invalid("Avro records_per_block must not be negative: ",
                           options.records_per_block);
  }
  if (options.block_size_bytes <= 0) {
    return Status::Invalid("Avro block_size_bytes must be positive: ", options.block_size_bytes);
  }
  for (const auto& [key, value] : options.metadata) {
    if (key.rfind("avro.", 0) == 0) {
      return Status::Invalid("Avro metadata key '", key, "' is reserved");
    }
  }
  if (!options.compression_level) return Status::OK();
  int level = *options.compression_level;
  if (options.codec == AvroCodec::kDeflate && (level < -1 || level > 9)) {
    return Status::Invalid("deflate compression level must be -1..9, not ", level);
  }
  if (options.codec == AvroCodec::kZstandard &&
      (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())) {
    return Status::Invalid("zstd compression level must be ", ZSTD_minCLevel(), "..",
                           ZSTD_maxCLevel(), ", not ", level);
  }
  return Status::OK();
}

int EffectiveLevel(const AvroWriterOptions& options) {
  if (options.compression_level) return *options.compression_level;
  return options.codec == AvroCodec::kDeflate ? Z_DEFAULT_COMPRESSION : kDefaultZstdLevel;
}

}  // namespace

AvroFileWriter::AvroFileWriter(AvroSchema schema, AvroWriterOptions options, io::OutputStream* sink)
    : schema_(std::move(schema)), options_(std::move(options)), sink_(sink) {
  compressor_ = std::make_unique<Compressor>(options_.codec, EffectiveLevel(options_));
  sync_ = options_.sync_marker ? *options_.sync_marker : RandomSyncMarker();
}

AvroFileWriter::~AvroFileWriter() = default;

Result<std::unique_ptr<AvroFileWriter>> AvroFileWriter::Make(AvroSchema schema,
                                                             AvroWriterOptions options,
                                                             io::OutputStream* sink) {
  FRESHET_RETURN_NOT_OK(ValidateOptions(options));
  std::unique_ptr<AvroFileWriter> writer(
      new AvroFileWriter(std::move(schema), std::move(options), sink));
  FRESHET_RETURN_NOT_OK(writer->WriteHeader());
  return writer;
}

Status AvroFileWriter::WriteHeader() {
  std::string header(kMagic);
  EncodeLong(static_cast<int64_t>(2 + options_.metadata.size()), &header);
  EncodeBytes(kSchemaKey, &header);
  EncodeBytes(schema_.ToJson(), &header);
  EncodeBytes(kCodecKey, &header);
  EncodeBytes(AvroCodecName(options_.codec), &header);
  for (const auto& [key, value] : options_.metadata) {
    EncodeBytes(key, &header);
    EncodeBytes(value, &header);
  }
  EncodeLong(0, &header);
  header.append(AsView(sync_));
  return Emit(header);
}

Status AvroFileWriter::Append(const AvroValue& value) {
  if (finished_) return Status::Invalid("Avro writer is already finished");
  size_t before = block_.size();
  Status st = EncodeValue(schema_.root(), value, &block_);
  if (!st.ok()) {
    block_.resize(before);  // drop the partial datum; the writer stays usable
    return st.WithContext("record " + std::to_string(num_records_));
  }
  ++block_records_;
  ++num_records_;
  bool full = static_cast<int64_t>(block_.size()) >= options_.block_size_bytes ||
              (options_.records_per_block > 0 && block_records_ >= options_.records_per_block);
  return full ? FlushBlock() : Status::OK();
}

Status AvroFileWriter::FlushBlock() {
  if (block_records_ == 0) return Status::OK();
  std::string compressed;
  FRESHET_RETURN_NOT_OK(compressor_->Compress(block_, &compressed));
  std::string frame;
  EncodeLong(block_records_, &frame);
  EncodeLong(static_cast<int64_t>(compressed.size()), &frame);
  frame.append(compressed);
  frame.append(AsView(sync_));
  block_.clear();
  block_records_ = 0;
  return Emit(frame);
}

Status AvroFileWriter::Emit(std::string_view bytes) {
  bytes_written_ += static_cast<int64_t>(bytes.size());
  if (sink_ != nullptr) return sink_->Write(bytes);
  out_.append(bytes);
  return Status::OK();
}

Result<std::string> AvroFileWriter::Finish() {
  if (finished_) return Status::Invalid("Avro writer is already finished");
  FRESHET_RETURN_NOT_OK(FlushBlock());
  finished_ = true;
  return std::move(out_);
}

// ---------------------------------------------------------------------------------------------
// AvroFileReader

AvroFileReader::AvroFileReader(std::string_view content, std::string source_name,
                               AvroReaderOptions options)
    : content_(content), source_name_(std::move(source_name)), options_(options) {}

AvroFileReader::~AvroFileReader() = default;

Result<std::unique_ptr<AvroFileReader>> AvroFileReader::Open(std::string_view content,
                                                             std::string source_name,
                                                             AvroReaderOptions options) {
  std::unique_ptr<AvroFileReader> reader(
      new AvroFileReader(content, std::move(source_name), options));
  FRESHET_RETURN_NOT_OK(reader->ReadHeader());
  return reader;
}

Status AvroFileReader::Corrupt(const Status& cause) const {
  return Status(cause.code(), "'" + source_name_ + "': " + cause.message());
}

Status AvroFileReader::ReadHeader() {
  if (content_.substr(0, kMagic.size()) != kMagic) {
    return Corrupt(
        Status::Corruption("not an Avro container file (the first bytes are not "
                           "'Obj\\x01'; file size ",
                           content_.size(), ")"));
  }
  size_t pos = kMagic.size();
  FRESHET_RETURN_NOT_OK(ReadMetadata(&pos));
  AvroDecoder in(content_, pos);
  Result<std::string_view> sync = in.ReadFixed(sync_.size());
  if (!sync.ok()) return Corrupt(sync.status().WithContext("header sync marker"));
  std::copy(sync->begin(), sync->end(), sync_.begin());
  pos_ = in.position();
  data_begin_ = pos_;
  end_ = content_.size();

  std::optional<std::string_view> schema_json = GetMetadata(kSchemaKey);
  if (!schema_json) return Corrupt(Status::Corruption("the header has no avro.schema"));
  Result<AvroSchema> schema = AvroSchema::ParseCached(*schema_json);
  if (!schema.ok()) {
    return Corrupt(Status::Corruption("invalid avro.schema: ", schema.status().message()));
  }
  schema_ = std::move(schema).MoveValueUnsafe();

  std::optional<std::string_view> codec_name = GetMetadata(kCodecKey);
  Result<AvroCodec> codec = ParseAvroCodec(codec_name ? *codec_name : "null");
  if (!codec.ok()) return Corrupt(codec.status());
  codec_ = *codec;
  decompressor_ = std::make_unique<Decompressor>(codec_, options_.max_block_bytes);
  return Status::OK();
}

Status AvroFileReader::ReadMetadata(size_t* pos) {
  AvroDecoder in(content_, *pos);
  while (true) {
    Result<int64_t> count = in.ReadBlockCount();
    if (!count.ok()) return Corrupt(count.status().WithContext("header metadata"));
    if (*count == 0) break;
    // Each entry holds at least two length bytes.
    if (static_cast<uint64_t>(*count) > in.remaining() / 2) {
      return Corrupt(Status::Corruption("header metadata claims ", *count, " entries but only ",
                                        in.remaining(), " bytes are left"));
    }
    for (int64_t i = 0; i < *count; ++i) {
      Result<std::string_view> key = in.ReadBytes();
      if (!key.ok()) return Corrupt(key.status().WithContext("header metadata key"));
      Result<std::string_view> value = in.ReadBytes();
      if (!value.ok()) {
        return Corrupt(value.status().WithContext("header metadata '" + std::string(*key) + "'"));
      }
      metadata_.emplace_back(std::string(*key), std::string(*value));
    }
  }
  *pos = in.position();
  return Status::OK();
}

std::optional<std::string_view> AvroFileReader::GetMetadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

Result<AvroFileReader::BlockFrame> AvroFileReader::ReadBlockFrame(size_t pos, int64_t index) const {
  // Named in errors only: built when one is reported.
  auto where = [index] { return "block " + std::to_string(index); };
  AvroDecoder in(content_.substr(0, end_), pos);
  Result<int64_t> count = in.ReadLong();
  if (!count.ok()) return Corrupt(count.status().WithContext(where() + " record count"));
  Result<int64_t> size = in.ReadLong();
  if (!size.ok()) return Corrupt(size.status().WithContext(where() + " size"));
  if (*count < 0 || *size < 0) {
    return Corrupt(Status::Corruption(where(), " at byte ", pos, " has a negative record count (",
                                      *count, ") or size (", *size, ")"));
  }
  uint64_t needed = static_cast<uint64_t>(*size) + sync_.size();
  if (needed > in.remaining()) {
    return Corrupt(Status::Corruption(where(), " is truncated (needs ", needed, " bytes, ",
                                      in.remaining(), " left)"));
  }
  BlockFrame frame;
  frame.count = *count;
  frame.data = *in.ReadFixed(static_cast<size_t>(*size));
  std::string_view sync = *in.ReadFixed(sync_.size());
  if (sync != AsView(sync_)) {
    return Corrupt(Status::Corruption(where(), " ends with a wrong sync marker (at byte ",
                                      in.position() - sync_.size(), ")"));
  }
  frame.next = in.position();
  return frame;
}

Result<std::vector<AvroFileReader::BlockRun>> AvroFileReader::SplitIntoRuns(size_t max_runs) const {
  const int64_t max_block_records = std::max(options_.max_block_bytes, kMaxEmptyRecordsPerBlock);
  std::vector<BlockRun> blocks;
  int64_t total = 0;
  for (size_t pos = pos_; pos < end_;) {
    const int64_t index = block_index_ + 1 + static_cast<int64_t>(blocks.size());
    FRESHET_ASSIGN_OR_RETURN(BlockFrame frame, ReadBlockFrame(pos, index));
    // A count beyond what a block can hold is an error its reader reports; capped here so that
    // the sums stay in range.
    const int64_t count = std::min(frame.count, max_block_records);
    blocks.push_back(BlockRun{pos, frame.next, index, count});
    total += count;
    pos = frame.next;
  }
  std::vector<BlockRun> runs;
  if (blocks.empty() || max_runs == 0) return runs;
  // Whole blocks only: a run closes once it holds its share of the records.
  const int64_t share =
      (total + static_cast<int64_t>(max_runs) - 1) / static_cast<int64_t>(max_runs);
  for (const BlockRun& block : blocks) {
    if (runs.empty() || (runs.back().records >= share && runs.size() < max_runs)) {
      runs.push_back(BlockRun{block.begin, block.end, block.first_block, 0});
    }
    runs.back().end = block.end;
    runs.back().records += block.records;
  }
  return runs;
}

Status AvroFileReader::RestrictTo(const BlockRun& run) {
  if (block_index_ != -1 || pos_ != data_begin_) {
    return Status::Invalid("'", source_name_, "': a reader can be restricted before it reads only");
  }
  if (run.begin < data_begin_ || run.end < run.begin || run.end > content_.size() ||
      run.first_block < 0) {
    return Status::Invalid("'", source_name_, "': block run [", run.begin, ", ", run.end,
                           ") is not within the file's blocks");
  }
  pos_ = run.begin;
  end_ = run.end;
  block_index_ = run.first_block - 1;
  return Status::OK();
}

Result<bool> AvroFileReader::LoadBlock() {
  if (pos_ == end_) return false;
  ++block_index_;
  auto where = [this] { return "block " + std::to_string(block_index_); };
  FRESHET_ASSIGN_OR_RETURN(BlockFrame frame, ReadBlockFrame(pos_, block_index_));
  pos_ = frame.next;
  const int64_t count = frame.count;
  if (codec_ == AvroCodec::kNull) {
    block_data_ = frame.data;
  } else {
    Status st = decompressor_->Decompress(frame.data, &block_buffer_);
    if (!st.ok()) return Corrupt(st.WithContext(where() + " (" + AvroCodecName(codec_) + ")"));
    block_data_ = block_buffer_;
  }
  // A block of no records holds no bytes: a count damaged down to 0 would drop its records.
  if (count == 0 && !block_data_.empty()) {
    return Corrupt(
        Status::Corruption(where(), " claims 0 records but holds ", block_data_.size(), " bytes"));
  }
  // Every record but an empty one takes at least a byte, so the count is bounded by the data.
  bool empty_records = schema_->root().can_be_empty;
  if ((!empty_records && static_cast<uint64_t>(count) > block_data_.size()) ||
      (empty_records && count > kMaxEmptyRecordsPerBlock)) {
    return Corrupt(Status::Corruption(where(), " claims ", count, " records but holds only ",
                                      block_data_.size(), " bytes"));
  }
  block_pos_ = 0;
  block_remaining_ = count;
  block_record_ = 0;
  return true;
}

Result<bool> AvroFileReader::NextDatum(const DatumDecoder& decode) {
  while (block_remaining_ == 0) {
    FRESHET_ASSIGN_OR_RETURN(bool loaded, LoadBlock());
    if (!loaded) return false;
  }
  AvroDecoder in(block_data_, block_pos_);
  Status decoded = decode(&in);
  if (!decoded.ok()) {
    return Corrupt(decoded.WithContext("block " + std::to_string(block_index_) + ", record " +
                                       std::to_string(block_record_)));
  }
  block_pos_ = in.position();
  ++block_record_;
  // Bytes left over after the last record mean the data does not match the schema.
  if (--block_remaining_ == 0 && !in.at_end()) {
    return Corrupt(Status::Corruption("block ", block_index_, " has ", in.remaining(),
                                      " unread bytes after its ", block_record_, " records"));
  }
  return true;
}

Result<bool> AvroFileReader::Next(AvroValue* out) {
  return NextDatum([&](AvroDecoder* in) -> Status {
    FRESHET_ASSIGN_OR_RETURN(*out, DecodeValue(*schema_, schema_->root(), in));
    return Status::OK();
  });
}

Status AvroFileReader::DecodeEach(const DatumDecoder& decode) {
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(bool more, NextDatum(decode));
    if (!more) return Status::OK();
  }
}

Result<std::vector<AvroValue>> AvroFileReader::ReadAll() {
  std::vector<AvroValue> records;
  AvroValue value;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(bool more, Next(&value));
    if (!more) break;
    records.push_back(std::move(value));
  }
  return records;
}

Result<AvroFileContents> ReadAvroFile(std::string_view content, const std::string& source_name,
                                      AvroReaderOptions options) {
  FRESHET_ASSIGN_OR_RETURN(std::unique_ptr<AvroFileReader> reader,
                           AvroFileReader::Open(content, source_name, options));
  FRESHET_ASSIGN_OR_RETURN(std::vector<AvroValue> records, reader->ReadAll());
  return AvroFileContents{reader->schema(), reader->codec(), reader->metadata(),
                          std::move(records)};
}

}  // namespace freshet::container::avro
