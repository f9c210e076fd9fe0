#include "format/zstd_codec.h"

#include <zstd.h>

#include <memory>
#include <utility>

#include "format/arrow_symbols.h"

namespace freshet::format {

namespace {

// The mangled name of arrow::util::Codec::Create(Compression::type, const CodecOptions&).
constexpr const char kCodecCreateSymbol[] =
    "_ZN5arrow4util5Codec6CreateENS_11Compression4typeERKNS0_12CodecOptionsE";

using CreateFunction = arrow::Result<std::unique_ptr<arrow::util::Codec>> (*)(
    arrow::Compression::type, const arrow::util::CodecOptions&);

// This thread's decompression context, made on first use and freed when the thread ends. One per
// thread is enough: a Decompress call never calls another.
ZSTD_DCtx* ThreadContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context(nullptr, ZSTD_freeDCtx);
  if (context == nullptr) context.reset(ZSTD_createDCtx());
  return context.get();
}

class ZstdCodec final : public arrow::util::Codec {
 public:
  explicit ZstdCodec(std::unique_ptr<Codec> arrow_codec) : arrow_codec_(std::move(arrow_codec)) {}

  // Arrow's: the bundled zstd compresses the bench's pages ~8% faster than the system's, even
  // on a reused context (docs/data-files.md), and freshet's files stay byte for byte what they
  // were.
  arrow::Result<int64_t> Compress(int64_t input_len, const uint8_t* input, int64_t output_len,
                                  uint8_t* output) override {
    return arrow_codec_->Compress(input_len, input, output_len, output);
  }

  arrow::Result<int64_t> Decompress(int64_t input_len, const uint8_t* input, int64_t output_len,
                                    uint8_t* output) override {
    ZSTD_DCtx* context = ThreadContext();
    if (context == nullptr) return arrow::Status::OutOfMemory("cannot create a ZSTD context");
    uint8_t empty = 0;  // some zstd versions reject a null output even for zero bytes
    const size_t read =
        ZSTD_decompressDCtx(context, output == nullptr ? &empty : output,
                            static_cast<size_t>(output_len), input, static_cast<size_t>(input_len));
    if (ZSTD_isError(read)) {
      return arrow::Status::IOError("ZSTD decompression failed: ", ZSTD_getErrorName(read));
    }
    // As Arrow's codec: a one-shot caller knows the decompressed length.
    if (static_cast<int64_t>(read) != output_len) {
      return arrow::Status::IOError("Corrupt ZSTD compressed data: ", read, " bytes, expected ",
                                    output_len);
    }
    return static_cast<int64_t>(read);
  }

  int64_t MaxCompressedLen(int64_t input_len, const uint8_t* input) override {
    return arrow_codec_->MaxCompressedLen(input_len, input);
  }
  arrow::Result<std::shared_ptr<arrow::util::Compressor>> MakeCompressor() override {
    return arrow_codec_->MakeCompressor();
  }
  arrow::Result<std::shared_ptr<arrow::util::Decompressor>> MakeDecompressor() override {
    return arrow_codec_->MakeDecompressor();
  }
  arrow::Compression::type compression_type() const override { return arrow::Compression::ZSTD; }
  int compression_level() const override { return arrow_codec_->compression_level(); }
  int minimum_compression_level() const override {
    return arrow_codec_->minimum_compression_level();
  }
  int maximum_compression_level() const override {
    return arrow_codec_->maximum_compression_level();
  }
  int default_compression_level() const override {
    return arrow_codec_->default_compression_level();
  }

 private:
  std::unique_ptr<Codec> arrow_codec_;
};

// Context parameters (window size, checksums, ...) are Arrow's codec's business.
bool HasContextParameters(const arrow::util::CodecOptions& options) {
  const auto* zstd = dynamic_cast<const arrow::util::ZstdCodecOptions*>(&options);
  return zstd != nullptr &&
         (!zstd->compression_context_params.empty() || !zstd->decompression_context_params.empty());
}

}  // namespace

bool IsFreshetZstdCodec(const arrow::util::Codec& codec) {
  return dynamic_cast<const ZstdCodec*>(&codec) != nullptr;
}

arrow::Result<std::unique_ptr<arrow::util::Codec>> CreateArrowCodec(
    arrow::Compression::type type, const arrow::util::CodecOptions& options) {
  static const auto arrow_create =
      reinterpret_cast<CreateFunction>(ArrowsOwnDefinition(kCodecCreateSymbol));
  if (arrow_create == nullptr ||
      arrow_create == static_cast<CreateFunction>(&arrow::util::Codec::Create)) {
    return arrow::Status::NotImplemented("Arrow's codec factory not found in libarrow");
  }
  return arrow_create(type, options);
}

arrow::Result<std::unique_ptr<arrow::util::Codec>> CreateCodec(
    arrow::Compression::type type, const arrow::util::CodecOptions& options) {
  auto codec = CreateArrowCodec(type, options);
  if (!codec.ok() || type != arrow::Compression::ZSTD || HasContextParameters(options)) {
    return codec;
  }
  return std::make_unique<ZstdCodec>(std::move(codec).ValueUnsafe());
}

bool ParquetUsesZstdCodec() {
  return BoundToObjectOf(kCodecCreateSymbol, reinterpret_cast<const void*>(&CreateCodec));
}

}  // namespace freshet::format

// The replacement (zstd_codec.h): a qualified definition, so a change of Arrow's signature fails
// to compile instead of silently defining another function.
__attribute__((visibility("default"))) arrow::Result<std::unique_ptr<arrow::util::Codec>>
arrow::util::Codec::Create(arrow::Compression::type type,
                           const arrow::util::CodecOptions& options) {
  return freshet::format::CreateCodec(type, options);
}
