// ORC data files through Arrow's ORC adapter. Field ids travel as the ORC type attribute
// `paimon.id`, which the adapter writes from and reads into Arrow field metadata.
#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/compression.h>
#include <arrow/vendored/datetime/tz.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <string_view>

#include "bridge/arrow_io.h"
#include "bridge/arrow_schema.h"
#include "common/arrow_status.h"
#include "container/orc/orc_read_pool.h"
#include "format/format_internal.h"
#include "format/orc_rle.h"
#include "io/file_io.h"

namespace freshet::format::internal {
namespace {

namespace orc = arrow::adapters::orc;

std::shared_ptr<arrow::DataType> OrcType(const std::shared_ptr<arrow::DataType>& type);

// The field as the ORC writer should see it: only the `paimon.id` attribute (Java's key), and
// types ORC lacks replaced by their storage (TIME is an ORC INT holding millis, as in Java).
std::shared_ptr<arrow::Field> OrcField(const arrow::Field& field) {
  std::shared_ptr<const arrow::KeyValueMetadata> metadata;
  if (auto id = bridge::FieldIdOf(field)) {
    metadata = arrow::key_value_metadata({bridge::kOrcFieldIdKey}, {std::to_string(*id)});
  }
  return arrow::field(field.name(), OrcType(field.type()), field.nullable(), metadata);
}

std::shared_ptr<arrow::DataType> OrcType(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::TIME32:
      return arrow::int32();
    case arrow::Type::LIST:
      return arrow::list(OrcField(*static_cast<const arrow::ListType&>(*type).value_field()));
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return std::make_shared<arrow::MapType>(OrcField(*map.key_field()),
                                              OrcField(*map.item_field()));
    }
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& child : type->fields()) fields.push_back(OrcField(*child));
      return arrow::struct_(fields);
    }
    default:
      return type;
  }
}

// `data` relabelled with `type`, which has the same physical layout at every level.
std::shared_ptr<arrow::ArrayData> Relabel(const std::shared_ptr<arrow::ArrayData>& data,
                                          const std::shared_ptr<arrow::DataType>& type) {
  auto copy = data->Copy();
  copy->type = type;
  for (size_t i = 0; i < copy->child_data.size(); ++i) {
    std::shared_ptr<arrow::DataType> child_type =
        type->id() == arrow::Type::MAP ? static_cast<const arrow::MapType&>(*type).value_type()
                                       : type->field(static_cast<int>(i))->type();
    copy->child_data[i] = Relabel(copy->child_data[i], child_type);
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Zone-less TIMESTAMP values and the writer's time zone.
//
// An ORC TIMESTAMP stores whole seconds (relative to 2015-01-01 in the writer's zone) and nanos.
// Java's ORC writer truncates the seconds toward zero, so a value with a negative seconds part
// and a fraction of at least 1 ms is stored one second too high; readers undo that by
// subtracting a second when the decoded seconds are negative and the nanos exceed 999999. Java's
// reader tests the seconds in the writer's zone, before shifting them to the reader's zone.
// liborc (behind Arrow's adapter, which reads in GMT) tests them after the shift. For files
// written in a zone other than UTC the two disagree for wall-clock times within the zone offset
// of 1970-01-01 00:00, e.g. `1970-01-01 00:00:00.001` written in Asia/Shanghai (stored at
// -28799 s local) comes back from liborc as `00:00:01.001`. FixZonelessTimestamps redoes that
// step the way Java does, using the writer zone recorded in each stripe footer, so the values
// are what Java wrote (and what Java reads). Files written in GMT/UTC, like freshet's own, are
// unaffected.

// The protobuf fields of one message, in order; stops at the end or at malformed input.
class ProtoFields {
 public:
  explicit ProtoFields(std::string_view data) : data_(data) {}

  bool Next() {
    if (pos_ >= data_.size()) return false;
    uint64_t key = 0;
    if (!ReadVarint(&key)) return Fail();
    number_ = key >> 3;
    switch (key & 7) {
      case 0:
        bytes_ = {};
        return ReadVarint(&varint_) || Fail();
      case 1:
        return Skip(8);
      case 2: {
        uint64_t length = 0;
        if (!ReadVarint(&length) || length > data_.size() - pos_) return Fail();
        bytes_ = data_.substr(pos_, length);
        pos_ += length;
        return true;
      }
      case 5:
        return Skip(4);
      default:
        return Fail();
    }
  }
  uint64_t number() const { return number_; }
  uint64_t varint() const { return varint_; }
  std::string_view bytes() const { return bytes_; }
  bool ok() const { return ok_; }

 private:
  bool ReadVarint(uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64 && pos_ < data_.size(); shift += 7) {
      auto byte = static_cast<uint8_t>(data_[pos_++]);
      *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool Skip(size_t n) {
    if (n > data_.size() - pos_) return Fail();
    varint_ = 0;
    bytes_ = {};
    pos_ += n;
    return true;
  }
  bool Fail() {
    ok_ = false;
    pos_ = data_.size();
    return false;
  }

  std::string_view data_;
  size_t pos_ = 0;
  uint64_t number_ = 0;
  uint64_t varint_ = 0;
  std::string_view bytes_;
  bool ok_ = true;
};

// ORC's CompressionKind values.
enum OrcCompression : uint64_t { kNone = 0, kZlib = 1, kSnappy = 2, kLzo = 3, kLz4 = 4, kZstd = 5 };

// The 3-byte little-endian header of a compressed ORC chunk: length << 1 | stored-uncompressed.
uint32_t ChunkHeader(std::string_view bytes) {
  return static_cast<uint8_t>(bytes[0]) |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[2])) << 16;
}

// A compressed ORC stream (chunks with a 3-byte header) decoded to its bytes.
Result<std::string> OrcDecompress(std::string_view stream, uint64_t compression,
                                  int64_t block_size) {
  if (compression == kNone) return std::string(stream);
  std::unique_ptr<arrow::util::Codec> codec;
  arrow::Result<std::unique_ptr<arrow::util::Codec>> made;
  switch (compression) {
    case kZlib: {
      arrow::util::GZipCodecOptions options;
      options.gzip_format = arrow::util::GZipFormat::DEFLATE;
      made = arrow::util::Codec::Create(arrow::Compression::GZIP, options);
      break;
    }
    case kSnappy:
      made = arrow::util::Codec::Create(arrow::Compression::SNAPPY);
      break;
    case kLz4:
      made = arrow::util::Codec::Create(arrow::Compression::LZ4);
      break;
    case kZstd:
      made = arrow::util::Codec::Create(arrow::Compression::ZSTD);
      break;
    default:
      return Status::NotImplemented("ORC compression kind ", compression);
  }
  if (!made.ok()) return FromArrowStatus(made.status());
  codec = std::move(made).ValueUnsafe();
  std::string out;
  size_t pos = 0;
  while (pos < stream.size()) {
    if (stream.size() - pos < 3) return Status::Corruption("truncated ORC compression chunk");
    uint32_t header = ChunkHeader(stream.substr(pos, 3));
    pos += 3;
    size_t length = header >> 1;
    if (length > stream.size() - pos) return Status::Corruption("truncated ORC compression chunk");
    const auto* input = reinterpret_cast<const uint8_t*>(stream.data() + pos);
    pos += length;
    if (header & 1) {  // stored uncompressed
      out.append(reinterpret_cast<const char*>(input), length);
      continue;
    }
    size_t start = out.size();
    out.resize(start + static_cast<size_t>(block_size));
    auto* output = reinterpret_cast<uint8_t*>(out.data() + start);
    int64_t written = 0;
    // One-shot ZSTD decompression insists on the exact size; its streaming form does not.
    auto decompressor = compression == kZstd || compression == kZlib
                            ? codec->MakeDecompressor()
                            : arrow::Result<std::shared_ptr<arrow::util::Decompressor>>(
                                  arrow::Status::NotImplemented(""));
    if (decompressor.ok()) {
      auto result =
          (*decompressor)->Decompress(static_cast<int64_t>(length), input, block_size, output);
      if (!result.ok()) return FromArrowStatus(result.status());
      if (result->need_more_output || result->bytes_read != static_cast<int64_t>(length)) {
        return Status::Corruption("ORC compression chunk exceeds the block size");
      }
      written = result->bytes_written;
    } else {
      FRESHET_ASSIGN_OR_RETURN_ARROW(
          written, codec->Decompress(static_cast<int64_t>(length), input, block_size, output));
    }
    out.resize(start + static_cast<size_t>(written));
  }
  return out;
}

// What freshet needs of an ORC file's tail: the compression, the footer's stripes and types.
struct OrcStripe {
  uint64_t offset = 0;
  uint64_t index_length = 0;
  uint64_t data_length = 0;
  uint64_t footer_length = 0;
  uint64_t rows = 0;
};
struct OrcTail {
  uint64_t compression = kNone;
  uint64_t block_size = 256 * 1024;
  std::vector<OrcStripe> stripes;
  std::vector<uint64_t> type_kinds;  // Footer.types[i].kind: the kind of ORC column i
};

Status MalformedOrcTail() { return Status::Corruption("malformed ORC file tail"); }

OrcStripe ParseStripe(std::string_view bytes, bool* ok) {
  OrcStripe stripe;
  ProtoFields fields(bytes);
  while (fields.Next()) {
    switch (fields.number()) {
      case 1:
        stripe.offset = fields.varint();
        break;
      case 2:
        stripe.index_length = fields.varint();
        break;
      case 3:
        stripe.data_length = fields.varint();
        break;
      case 4:
        stripe.footer_length = fields.varint();
        break;
      case 5:
        stripe.rows = fields.varint();
        break;
      default:
        break;
    }
  }
  *ok = fields.ok();
  return stripe;
}

Result<OrcTail> ReadOrcTail(io::RandomAccessFile& file, int64_t size) {
  int64_t tail_length = std::min<int64_t>(size, 16 * 1024);
  FRESHET_ASSIGN_OR_RETURN(std::string tail, file.ReadAt(size - tail_length, tail_length));
  if (tail.empty()) return MalformedOrcTail();
  size_t ps_length = static_cast<uint8_t>(tail.back());
  if (ps_length + 1 > tail.size()) return MalformedOrcTail();
  OrcTail result;
  uint64_t footer_length = 0;
  ProtoFields ps(std::string_view(tail).substr(tail.size() - 1 - ps_length, ps_length));
  while (ps.Next()) {
    if (ps.number() == 1) footer_length = ps.varint();
    if (ps.number() == 2) result.compression = ps.varint();
    if (ps.number() == 3) result.block_size = ps.varint();
  }
  if (!ps.ok() || result.block_size == 0 || result.block_size > (1u << 30)) {
    return MalformedOrcTail();
  }
  if (footer_length + ps_length + 1 > static_cast<uint64_t>(size)) return MalformedOrcTail();
  int64_t footer_start = size - 1 - static_cast<int64_t>(ps_length + footer_length);
  std::string footer_bytes;
  if (footer_start >= size - tail_length) {
    footer_bytes =
        tail.substr(static_cast<size_t>(footer_start - (size - tail_length)), footer_length);
  } else {
    FRESHET_ASSIGN_OR_RETURN(footer_bytes,
                             file.ReadAt(footer_start, static_cast<int64_t>(footer_length)));
  }
  FRESHET_ASSIGN_OR_RETURN(
      std::string footer,
      OrcDecompress(footer_bytes, result.compression, static_cast<int64_t>(result.block_size)));
  ProtoFields footer_fields(footer);
  while (footer_fields.Next()) {
    if (footer_fields.number() == 3) {  // Footer.stripes
      bool ok = false;
      OrcStripe stripe = ParseStripe(footer_fields.bytes(), &ok);
      uint64_t end = stripe.offset + stripe.index_length + stripe.data_length;
      if (!ok || end + stripe.footer_length > static_cast<uint64_t>(size)) {
        return MalformedOrcTail();
      }
      result.stripes.push_back(stripe);
    } else if (footer_fields.number() == 4) {  // Footer.types
      uint64_t kind = UINT64_MAX;
      ProtoFields type(footer_fields.bytes());
      while (type.Next()) {
        if (type.number() == 1) kind = type.varint();
      }
      if (!type.ok()) return MalformedOrcTail();
      result.type_kinds.push_back(kind);
    }
  }
  if (!footer_fields.ok()) return MalformedOrcTail();
  return result;
}

// A stripe's footer (StripeFooter), decompressed.
Result<std::string> ReadStripeFooter(io::RandomAccessFile& file, const OrcTail& tail,
                                     const OrcStripe& stripe) {
  uint64_t footer_offset = stripe.offset + stripe.index_length + stripe.data_length;
  FRESHET_ASSIGN_OR_RETURN(
      std::string bytes,
      file.ReadAt(static_cast<int64_t>(footer_offset), static_cast<int64_t>(stripe.footer_length)));
  return OrcDecompress(bytes, tail.compression, static_cast<int64_t>(tail.block_size));
}

struct StripeZone {
  int64_t first_row = 0;
  int64_t num_rows = 0;
  std::string zone;  // the stripe footer's writerTimezone; empty when absent
};

// The writer time zone of every stripe, from the file tail and the stripe footers.
Result<std::vector<StripeZone>> ReadStripeZones(io::RandomAccessFile& file, int64_t size) {
  FRESHET_ASSIGN_OR_RETURN(OrcTail tail, ReadOrcTail(file, size));
  std::vector<StripeZone> zones;
  int64_t next_row = 0;
  for (const OrcStripe& stripe : tail.stripes) {
    FRESHET_ASSIGN_OR_RETURN(std::string stripe_footer, ReadStripeFooter(file, tail, stripe));
    StripeZone zone{next_row, static_cast<int64_t>(stripe.rows), ""};
    ProtoFields stripe_footer_fields(stripe_footer);
    while (stripe_footer_fields.Next()) {
      if (stripe_footer_fields.number() == 3) zone.zone = stripe_footer_fields.bytes();
    }
    if (!stripe_footer_fields.ok()) return MalformedOrcTail();
    next_row += zone.num_rows;
    zones.push_back(std::move(zone));
  }
  return zones;
}

// ---------------------------------------------------------------------------------------------
// String lengths, checked before liborc decodes them. liborc (as bundled with Arrow 26) sums a
// batch's string lengths from the LENGTH stream and allocates that many bytes unchecked: a
// damaged stream (a length of 2^63 or more, fixed upstream as ORC-2192, or just a huge one)
// makes it write through the null pointer its allocator returned. So every LENGTH stream of a
// string-like column is decoded here first (format/orc_rle.h), and its lengths must fit in what
// the column's DATA (or DICTIONARY_DATA) stream can hold: its stored bytes, or a compression
// block per compressed chunk.

enum OrcTypeKind : uint64_t { kOrcString = 7, kOrcBinary = 8, kOrcVarchar = 16, kOrcChar = 17 };
enum OrcStreamKind : uint64_t { kOrcData = 1, kOrcLength = 2, kOrcDictionaryData = 3 };

struct OrcStreamRef {
  uint64_t kind = 0;
  uint64_t column = 0;
  uint64_t offset = 0;  // in the file
  uint64_t length = 0;
};

// The most bytes `stream` can decompress to. Only its chunk headers are read: the stream itself
// is liborc's to read.
Result<uint64_t> MaxDecodedBytes(io::RandomAccessFile& file, const OrcStreamRef& stream,
                                 const OrcTail& tail) {
  if (tail.compression == kNone) return stream.length;
  uint64_t total = 0;
  uint64_t pos = 0;
  while (stream.length - pos >= 3) {
    FRESHET_ASSIGN_OR_RETURN(std::string header_bytes,
                             file.ReadAt(static_cast<int64_t>(stream.offset + pos), 3));
    if (header_bytes.size() < 3) break;
    uint32_t header = ChunkHeader(header_bytes);
    pos += 3;
    uint64_t length = std::min<uint64_t>(header >> 1, stream.length - pos);
    total += (header & 1) ? length : tail.block_size;
    pos += length;
  }
  return total;
}

Status CheckStripeStringLengths(io::RandomAccessFile& file, const OrcTail& tail,
                                const OrcStripe& stripe) {
  FRESHET_ASSIGN_OR_RETURN(std::string footer, ReadStripeFooter(file, tail, stripe));
  std::vector<OrcStreamRef> streams;
  std::vector<uint64_t> encodings;  // ColumnEncoding.kind by column
  uint64_t offset = stripe.offset;
  ProtoFields fields(footer);
  while (fields.Next()) {
    ProtoFields message(fields.bytes());
    if (fields.number() == 1) {  // StripeFooter.streams, laid out in this order
      OrcStreamRef stream;
      while (message.Next()) {
        if (message.number() == 1) stream.kind = message.varint();
        if (message.number() == 2) stream.column = message.varint();
        if (message.number() == 3) stream.length = message.varint();
      }
      stream.offset = offset;
      offset += stream.length;
      streams.push_back(stream);
    } else if (fields.number() == 2) {  // StripeFooter.columns
      uint64_t kind = 0;
      while (message.Next()) {
        if (message.number() == 1) kind = message.varint();
      }
      encodings.push_back(kind);
    } else {
      continue;
    }
    if (!message.ok()) return MalformedOrcTail();
  }
  if (!fields.ok() || offset > stripe.offset + stripe.index_length + stripe.data_length) {
    return Status::Corruption("malformed ORC stripe footer");
  }
  for (const OrcStreamRef& lengths : streams) {
    if (lengths.kind != kOrcLength || lengths.column >= tail.type_kinds.size() ||
        lengths.column >= encodings.size()) {
      continue;
    }
    uint64_t type = tail.type_kinds[lengths.column];
    if (type != kOrcString && type != kOrcBinary && type != kOrcVarchar && type != kOrcChar) {
      continue;
    }
    uint64_t encoding = encodings[lengths.column];
    bool dictionary = encoding == 1 || encoding == 3;
    uint64_t bytes_kind = dictionary ? kOrcDictionaryData : kOrcData;
    uint64_t capacity = 0;
    for (const OrcStreamRef& bytes : streams) {
      if (bytes.kind != bytes_kind || bytes.column != lengths.column) continue;
      FRESHET_ASSIGN_OR_RETURN(uint64_t most, MaxDecodedBytes(file, bytes, tail));
      capacity += most;
    }
    FRESHET_ASSIGN_OR_RETURN(std::string stored, file.ReadAt(static_cast<int64_t>(lengths.offset),
                                                             static_cast<int64_t>(lengths.length)));
    FRESHET_ASSIGN_OR_RETURN(
        std::string decoded,
        OrcDecompress(stored, tail.compression, static_cast<int64_t>(tail.block_size)));
    uint64_t total = 0;
    OrcRleVersion version = encoding >= 2 ? OrcRleVersion::kV2 : OrcRleVersion::kV1;
    bool fits = DecodeUnsignedOrcRle(decoded, version, [&](uint64_t length) {
      if (length > capacity - total) return false;
      total += length;
      return true;
    });
    if (!fits) {
      return Status::Corruption("ORC column ", lengths.column,
                                ": string lengths that its data cannot hold (damaged LENGTH "
                                "stream)");
    }
  }
  return Status::OK();
}

// Every stripe's string lengths (see above).
Status CheckOrcStringLengths(io::RandomAccessFile& file, int64_t size) {
  FRESHET_ASSIGN_OR_RETURN(OrcTail tail, ReadOrcTail(file, size));
  bool has_strings = std::any_of(tail.type_kinds.begin(), tail.type_kinds.end(), [](uint64_t k) {
    return k == kOrcString || k == kOrcBinary || k == kOrcVarchar || k == kOrcChar;
  });
  if (!has_strings) return Status::OK();
  for (const OrcStripe& stripe : tail.stripes) {
    FRESHET_RETURN_NOT_OK(CheckStripeStringLengths(file, tail, stripe));
  }
  return Status::OK();
}

bool HasZonelessTimestamp(const arrow::DataType& type) {
  if (type.id() == arrow::Type::TIMESTAMP) {
    return static_cast<const arrow::TimestampType&>(type).timezone().empty();
  }
  return std::any_of(type.fields().begin(), type.fields().end(),
                     [](const auto& field) { return HasZonelessTimestamp(*field->type()); });
}

// The zone a stripe's TIMESTAMP values were written in, or null when it is UTC or not recorded
// (then liborc and Java agree).
Result<const arrow_vendored::date::time_zone*> WriterZone(const std::string& name) {
  if (name.empty() || name == "GMT" || name == "UTC" || name == "Etc/UTC" || name == "Etc/GMT") {
    return nullptr;
  }
  try {
    return arrow_vendored::date::locate_zone(name);
  } catch (const std::exception& e) {
    return Status::Corruption("unknown ORC writer time zone '", name, "': ", e.what());
  }
}

// `value` (ticks of `ticks_per_second` since the epoch, as liborc decoded it) redone the way
// Java's ORC reader decodes it for a file written in `zone`.
int64_t JavaOrcTimestamp(int64_t value, int64_t ticks_per_second,
                         const arrow_vendored::date::time_zone& zone) {
  int64_t seconds = value / ticks_per_second;
  int64_t fraction = value % ticks_per_second;
  if (fraction < 0) {
    fraction += ticks_per_second;
    seconds -= 1;
  }
  // Both readers only adjust values with at least 1 ms of fraction (nanos > 999999).
  if (fraction < ticks_per_second / 1000) return value;
  // Both subtract a second from negative seconds; liborc did so if the result is negative.
  int64_t wall = seconds < 0 ? seconds + 1 : seconds;
  // Offsets stay below a day, so far from the epoch both see the same sign.
  constexpr int64_t kTwoDays = 2 * 24 * 3600;
  if (wall >= kTwoDays || wall <= -kTwoDays) return value;
  // The seconds as stored, in the writer's zone: `wall` is their wall-clock time there.
  auto stored = zone.to_sys(arrow_vendored::date::local_seconds(std::chrono::seconds(wall)),
                            arrow_vendored::date::choose::earliest);
  int64_t java_seconds = stored.time_since_epoch().count() < 0 ? wall - 1 : wall;
  return java_seconds * ticks_per_second + fraction;
}

// `data` with every zone-less timestamp (at any nesting depth) redone by JavaOrcTimestamp;
// `data` itself when nothing changes.
Result<std::shared_ptr<arrow::ArrayData>> FixZonelessTimestamps(
    const std::shared_ptr<arrow::ArrayData>& data, const arrow_vendored::date::time_zone& zone) {
  if (data->type->id() == arrow::Type::TIMESTAMP) {
    const auto& type = static_cast<const arrow::TimestampType&>(*data->type);
    if (!type.timezone().empty() || type.unit() == arrow::TimeUnit::SECOND) return data;
    int64_t ticks_per_second = type.unit() == arrow::TimeUnit::MILLI   ? 1000
                               : type.unit() == arrow::TimeUnit::MICRO ? 1000000
                                                                       : 1000000000;
    const int64_t* values = data->GetValues<int64_t>(1, 0);
    std::shared_ptr<arrow::Buffer> fixed;
    for (int64_t i = data->offset; i < data->offset + data->length; ++i) {
      if (data->IsNull(i - data->offset)) continue;
      int64_t value = JavaOrcTimestamp(values[i], ticks_per_second, zone);
      if (value == values[i]) continue;
      if (fixed == nullptr) {
        auto size = (data->offset + data->length) * static_cast<int64_t>(sizeof(int64_t));
        FRESHET_ASSIGN_OR_RETURN_ARROW(fixed, arrow::AllocateBuffer(size));
        std::memcpy(fixed->mutable_data(), values, static_cast<size_t>(size));
      }
      reinterpret_cast<int64_t*>(fixed->mutable_data())[i] = value;
    }
    if (fixed == nullptr) return data;
    auto copy = data->Copy();
    copy->buffers[1] = std::move(fixed);
    return copy;
  }
  std::shared_ptr<arrow::ArrayData> copy;
  for (size_t i = 0; i < data->child_data.size(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(auto child, FixZonelessTimestamps(data->child_data[i], zone));
    if (child == data->child_data[i]) continue;
    if (copy == nullptr) copy = data->Copy();
    copy->child_data[i] = std::move(child);
  }
  return copy == nullptr ? data : copy;
}

class OrcFormatWriter : public FormatWriter {
 public:
  static Result<std::unique_ptr<FormatWriter>> Make(WriterParts parts,
                                                    const FormatWriterOptions& options) {
    FRESHET_ASSIGN_OR_RETURN(int codec, ArrowCompressionOf(options.compression));
    arrow::FieldVector fields;
    for (const auto& field : parts.arrow_schema->fields()) fields.push_back(OrcField(*field));
    auto writer = std::unique_ptr<OrcFormatWriter>(new OrcFormatWriter(std::move(parts)));
    writer->orc_schema_ = arrow::schema(fields);
    writer->sink_ = bridge::MakeArrowOutputStream(writer->out());
    orc::WriteOptions write_options;
    write_options.compression = static_cast<arrow::Compression::type>(codec);
    write_options.stripe_size = options.orc_stripe_bytes;
    FRESHET_ASSIGN_OR_RETURN_ARROW(writer->writer_,
                                   orc::ORCFileWriter::Open(writer->sink_.get(), write_options));
    return std::unique_ptr<FormatWriter>(std::move(writer));
  }

 protected:
  Status WriteBatch(const arrow::RecordBatch& batch) override {
    arrow::ArrayVector columns;
    for (int i = 0; i < batch.num_columns(); ++i) {
      std::shared_ptr<arrow::Array> column = batch.column(i);
      if (column->offset() != 0) {
        // Arrow's ORC writer ignores the offset of a sliced struct's validity bitmap (a null ROW
        // of a sliced batch came back as a value), so sliced columns are copied to offset 0.
        FRESHET_ASSIGN_OR_RETURN_ARROW(column, arrow::Concatenate({column}));
      }
      columns.push_back(arrow::MakeArray(Relabel(column->data(), orc_schema_->field(i)->type())));
    }
    auto orc_batch = arrow::RecordBatch::Make(orc_schema_, batch.num_rows(), columns);
    int64_t before = out()->Position();
    try {  // see CloseFormat(): liborc exceptions may escape the adapter
      FRESHET_RETURN_NOT_OK_ARROW(writer_->Write(*orc_batch));
    } catch (const std::exception& e) {
      return Status::IOError("ORC writer: ", e.what());
    }
    // Bytes written since the ORC writer last flushed a stripe approximate what it buffers.
    if (out()->Position() != before) buffered_bytes_ = 0;
    buffered_bytes_ += arrow::util::TotalBufferSize(batch);
    return Status::OK();
  }
  int64_t BufferedBytes() const override { return buffered_bytes_; }
  Status CloseFormat() override {
    if (row_count() == 0) {
      // The adapter only starts the file on the first batch; an empty file still needs a footer.
      FRESHET_ASSIGN_OR_RETURN_ARROW(auto empty, arrow::RecordBatch::MakeEmpty(orc_schema_));
      FRESHET_RETURN_NOT_OK_ARROW(writer_->Write(*empty));
    }
    // Arrow's ORC adapter lets liborc's exceptions out of Close() when the sink fails (seen with
    // an I/O error while writing the footer); turn them into a Status like every other error.
    try {
      FRESHET_RETURN_NOT_OK_ARROW(writer_->Close());
    } catch (const std::exception& e) {
      return Status::IOError("ORC writer: ", e.what());
    }
    return FromArrowStatus(sink_->Close());
  }

 private:
  explicit OrcFormatWriter(WriterParts parts)
      : FormatWriter(std::move(parts.out), std::move(parts.schema), std::move(parts.arrow_schema),
                     std::move(parts.stats)) {}

  std::shared_ptr<arrow::Schema> orc_schema_;
  std::shared_ptr<arrow::io::OutputStream> sink_;
  std::unique_ptr<orc::ORCFileWriter> writer_;
  int64_t buffered_bytes_ = 0;
};

class OrcPhysicalReader : public PhysicalReader {
 public:
  static Result<std::unique_ptr<PhysicalReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size) {
    auto reader = std::make_unique<OrcPhysicalReader>();
    arrow::Result<std::unique_ptr<orc::ORCFileReader>> orc_reader;
    try {
      orc_reader = orc::ORCFileReader::Open(bridge::MakeArrowInputFile(file, size),
                                            container::OrcReadPool());
    } catch (const std::exception& e) {  // see container/orc/orc_read_pool.h
      return Status::Corruption("not a readable ORC file: ", e.what());
    }
    if (!orc_reader.ok()) {
      return Status::Corruption("not a readable ORC file: ", orc_reader.status().message());
    }
    reader->reader_ = std::move(orc_reader).ValueUnsafe();
    reader->file_ = std::move(file);
    reader->size_ = size;
    FRESHET_ASSIGN_OR_RETURN_ARROW(reader->schema_, reader->reader_->ReadSchema());
    return std::unique_ptr<PhysicalReader>(std::move(reader));
  }

  const std::shared_ptr<arrow::Schema>& schema() const override { return schema_; }
  int64_t num_rows() const override { return reader_->NumberOfRows(); }

  Status Select(const std::vector<int>& fields, int64_t batch_size,
                bool /*parallel_decode*/) override {
    batch_size_ = batch_size;
    remaining_rows_ = num_rows();
    stripe_zones_.clear();
    next_row_ = 0;
    if (fields.empty()) return Status::OK();  // rows only; see Next()
    std::vector<std::string> names;
    bool zoneless = false;
    for (int field : fields) {
      names.push_back(schema_->field(field)->name());
      zoneless = zoneless || HasZonelessTimestamp(*schema_->field(field)->type());
    }
    if (zoneless) {
      FRESHET_ASSIGN_OR_RETURN(auto stripes, ReadStripeZones(*file_, size_));
      for (const auto& stripe : stripes) {
        FRESHET_ASSIGN_OR_RETURN(auto zone, WriterZone(stripe.zone));
        stripe_zones_.push_back({stripe.first_row + stripe.num_rows, zone});
      }
    }
    if (!lengths_checked_) {
      FRESHET_RETURN_NOT_OK(CheckOrcStringLengths(*file_, size_));
      lengths_checked_ = true;
    }
    try {
      FRESHET_ASSIGN_OR_RETURN_ARROW(batches_, reader_->GetRecordBatchReader(batch_size, names));
    } catch (const std::exception& e) {  // see container/orc/orc_read_pool.h
      return Status::Corruption("cannot read ORC stripes: ", e.what());
    }
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (batches_ == nullptr) {
      if (remaining_rows_ <= 0) return std::shared_ptr<arrow::RecordBatch>();
      int64_t rows = std::min(remaining_rows_, batch_size_);
      remaining_rows_ -= rows;
      return arrow::RecordBatch::Make(arrow::schema({}), rows, arrow::ArrayVector{});
    }
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status status;
    try {
      status = batches_->ReadNext(&batch);
    } catch (const std::exception& e) {  // see container/orc/orc_read_pool.h
      return Status::Corruption("cannot decode ORC data: ", e.what());
    }
    if (!status.ok()) return Status::Corruption("cannot decode ORC data: ", status.message());
    if (batch == nullptr || stripe_zones_.empty()) return batch;
    int64_t first_row = next_row_;
    next_row_ += batch->num_rows();
    return FixBatch(std::move(batch), first_row);
  }

 private:
  struct StripeEnd {
    int64_t end_row;                              // one past the stripe's last row
    const arrow_vendored::date::time_zone* zone;  // null when no fix is needed
  };

  // `batch`, rows [first_row, first_row + num_rows) of the file, with its zone-less timestamps
  // decoded as Java does (see JavaOrcTimestamp). liborc's batches never span stripes.
  Result<std::shared_ptr<arrow::RecordBatch>> FixBatch(std::shared_ptr<arrow::RecordBatch> batch,
                                                       int64_t first_row) {
    auto stripe =
        std::upper_bound(stripe_zones_.begin(), stripe_zones_.end(), first_row,
                         [](int64_t row, const StripeEnd& end) { return row < end.end_row; });
    if (stripe == stripe_zones_.end()) return Status::Corruption("ORC rows beyond the last stripe");
    for (auto it = stripe; it != stripe_zones_.end(); ++it) {
      if (it->zone != stripe->zone) {
        return Status::NotImplemented("ORC batch spans stripes with different writer zones");
      }
      if (it->end_row >= first_row + batch->num_rows()) break;
    }
    if (stripe->zone == nullptr) return batch;
    arrow::ArrayVector columns;
    for (const auto& column : batch->columns()) {
      FRESHET_ASSIGN_OR_RETURN(auto fixed, FixZonelessTimestamps(column->data(), *stripe->zone));
      columns.push_back(arrow::MakeArray(fixed));
    }
    return arrow::RecordBatch::Make(batch->schema(), batch->num_rows(), std::move(columns));
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  int64_t size_ = 0;
  std::vector<StripeEnd> stripe_zones_;  // by stripe; empty when nothing needs fixing
  bool lengths_checked_ = false;         // CheckOrcStringLengths passed
  int64_t next_row_ = 0;
  std::unique_ptr<orc::ORCFileReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::RecordBatchReader> batches_;
  int64_t batch_size_ = 1024;
  int64_t remaining_rows_ = 0;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> MakeOrcWriter(WriterParts parts,
                                                    const FormatWriterOptions& options) {
  return OrcFormatWriter::Make(std::move(parts), options);
}

Result<std::unique_ptr<PhysicalReader>> OpenOrcReader(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size) {
  return OrcPhysicalReader::Open(std::move(file), size);
}

}  // namespace freshet::format::internal
