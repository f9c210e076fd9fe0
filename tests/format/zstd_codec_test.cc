// Parquet's ZSTD pages decompressed on contexts kept per thread (src/format/zstd_codec.h): the
// replacement is what Arrow's codec factory returns in this program, it compresses exactly as
// Arrow's own codec, and it decompresses what Arrow's codec and the system libzstd write.
#include "format/zstd_codec.h"

#include <arrow/util/compression.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace freshet::format {
namespace {

using arrow::Compression;
using arrow::util::Codec;
using arrow::util::CodecOptions;

std::unique_ptr<Codec> Make(const CodecOptions& options) {
  auto codec = Codec::Create(Compression::ZSTD, options);
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? std::move(codec).ValueUnsafe() : nullptr;
}

std::unique_ptr<Codec> MakeArrows(const CodecOptions& options) {
  auto codec = CreateArrowCodec(Compression::ZSTD, options);
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? std::move(codec).ValueUnsafe() : nullptr;
}

// Bytes that compress somewhat, like a page of mixed columns: runs of a few symbols, some text,
// some noise.
std::vector<uint8_t> PageLike(size_t size, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) {
    const uint64_t r = random();
    bytes[i] = (r % 4 == 0) ? static_cast<uint8_t>(r >> 8) : static_cast<uint8_t>('a' + r % 7);
  }
  return bytes;
}

std::vector<uint8_t> Compress(Codec* codec, const std::vector<uint8_t>& input) {
  std::vector<uint8_t> out(static_cast<size_t>(
      codec->MaxCompressedLen(static_cast<int64_t>(input.size()), input.data())));
  auto written = codec->Compress(static_cast<int64_t>(input.size()), input.data(),
                                 static_cast<int64_t>(out.size()), out.data());
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  out.resize(written.ok() ? static_cast<size_t>(*written) : 0);
  return out;
}

std::vector<uint8_t> Decompress(Codec* codec, const std::vector<uint8_t>& frame, size_t size) {
  std::vector<uint8_t> out(size);
  auto read = codec->Decompress(static_cast<int64_t>(frame.size()), frame.data(),
                                static_cast<int64_t>(size), out.data());
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read.ValueOr(-1), static_cast<int64_t>(size));
  return out;
}

TEST(ZstdCodecTest, ArrowsFactoryReturnsTheReplacementInThisProgram) {
  EXPECT_TRUE(ParquetUsesZstdCodec());
  auto codec = Make(CodecOptions{});
  ASSERT_NE(codec, nullptr);
  EXPECT_TRUE(IsFreshetZstdCodec(*codec));
  EXPECT_EQ(codec->compression_type(), Compression::ZSTD);
  EXPECT_EQ(codec->compression_level(), 1);  // Arrow's default for ZSTD, resolved by its codec
  auto arrows = MakeArrows(CodecOptions{});
  ASSERT_NE(arrows, nullptr);
  EXPECT_FALSE(IsFreshetZstdCodec(*arrows));
  EXPECT_EQ(codec->minimum_compression_level(), arrows->minimum_compression_level());
  EXPECT_EQ(codec->maximum_compression_level(), arrows->maximum_compression_level());
  EXPECT_EQ(codec->default_compression_level(), arrows->default_compression_level());
  // Other codecs and ZSTD with context parameters stay Arrow's.
  auto snappy = Codec::Create(Compression::SNAPPY);
  ASSERT_TRUE(snappy.ok()) << snappy.status().ToString();
  EXPECT_FALSE(IsFreshetZstdCodec(**snappy));
  arrow::util::ZstdCodecOptions with_params;
  with_params.compression_context_params.push_back({ZSTD_c_checksumFlag, 1});
  auto parameterised = Make(with_params);
  ASSERT_NE(parameterised, nullptr);
  EXPECT_FALSE(IsFreshetZstdCodec(*parameterised));
}

TEST(ZstdCodecTest, CompressesAsArrowsCodecAtTheRequestedLevel) {
  for (int level : {1, 3, 9, -5}) {
    SCOPED_TRACE("level " + std::to_string(level));
    auto codec = Make(CodecOptions(level));
    auto arrows = MakeArrows(CodecOptions(level));
    ASSERT_NE(codec, nullptr);
    ASSERT_NE(arrows, nullptr);
    EXPECT_EQ(codec->compression_level(), level);
    for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 20}) {
      const auto input = PageLike(size, size + 11);
      EXPECT_EQ(codec->MaxCompressedLen(static_cast<int64_t>(size), input.data()),
                arrows->MaxCompressedLen(static_cast<int64_t>(size), input.data()));
      const auto frame = Compress(codec.get(), input);
      EXPECT_EQ(frame, Compress(arrows.get(), input)) << size << " bytes";
      // The frame is Zstandard at `level`: the system libzstd reads it.
      std::vector<uint8_t> back(size);
      EXPECT_EQ(ZSTD_decompress(back.data(), size, frame.data(), frame.size()), size);
      EXPECT_EQ(back, input);
    }
  }
}

TEST(ZstdCodecTest, ArrowsCodecAndTheReplacementReadEachOther) {
  auto ours = Make(CodecOptions(1));
  auto arrows = MakeArrows(CodecOptions(1));
  ASSERT_NE(ours, nullptr);
  ASSERT_NE(arrows, nullptr);
  std::mt19937_64 random(3);
  std::vector<size_t> sizes = {0, 1, 7, 4096, 65536, 1 << 20, 3 << 20};
  for (int i = 0; i < 20; ++i) sizes.push_back(random() % 300'000);
  for (size_t size : sizes) {
    const auto input = PageLike(size, random());
    EXPECT_EQ(Decompress(arrows.get(), Compress(ours.get(), input), size), input) << size;
    EXPECT_EQ(Decompress(ours.get(), Compress(arrows.get(), input), size), input) << size;
    std::vector<uint8_t> system_frame(ZSTD_compressBound(size));
    system_frame.resize(ZSTD_compress(system_frame.data(), system_frame.size(), input.data(), size,
                                      static_cast<int>(random() % 19) + 1));
    EXPECT_EQ(Decompress(ours.get(), system_frame, size), input) << size;
  }
}

TEST(ZstdCodecTest, StreamingIsArrowsAndReadsOneShotFrames) {
  auto codec = Make(CodecOptions{});
  ASSERT_NE(codec, nullptr);
  const auto input = PageLike(200'000, 5);
  const auto frame = Compress(codec.get(), input);
  auto decompressor = codec->MakeDecompressor();
  ASSERT_TRUE(decompressor.ok()) << decompressor.status().ToString();
  std::vector<uint8_t> out(input.size());
  int64_t in_at = 0, out_at = 0;
  while (!(*decompressor)->IsFinished()) {
    auto step = (*decompressor)
                    ->Decompress(static_cast<int64_t>(frame.size()) - in_at, frame.data() + in_at,
                                 static_cast<int64_t>(out.size()) - out_at, out.data() + out_at);
    ASSERT_TRUE(step.ok()) << step.status().ToString();
    ASSERT_TRUE(step->bytes_read > 0 || step->bytes_written > 0);
    in_at += step->bytes_read;
    out_at += step->bytes_written;
  }
  EXPECT_EQ(out_at, static_cast<int64_t>(input.size()));
  EXPECT_EQ(out, input);
}

TEST(ZstdCodecTest, DamagedFramesAndWrongLengthsAreErrors) {
  auto codec = Make(CodecOptions{});
  ASSERT_NE(codec, nullptr);
  const auto input = PageLike(100'000, 9);
  auto frame = Compress(codec.get(), input);
  std::vector<uint8_t> out(input.size() + 1);
  // The decompressed length is known to a one-shot caller: one byte more or less is corrupt data.
  for (int64_t length :
       {static_cast<int64_t>(input.size()) - 1, static_cast<int64_t>(input.size()) + 1}) {
    auto read =
        codec->Decompress(static_cast<int64_t>(frame.size()), frame.data(), length, out.data());
    EXPECT_FALSE(read.ok()) << length;
  }
  auto truncated = codec->Decompress(static_cast<int64_t>(frame.size()) / 2, frame.data(),
                                     static_cast<int64_t>(input.size()), out.data());
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("ZSTD decompression failed"), std::string::npos)
      << truncated.status().ToString();
  frame[0] ^= 0xFF;  // the frame's magic number
  EXPECT_FALSE(codec
                   ->Decompress(static_cast<int64_t>(frame.size()), frame.data(),
                                static_cast<int64_t>(input.size()), out.data())
                   .ok());
  // The thread's contexts still work after the errors.
  EXPECT_EQ(Decompress(codec.get(), Compress(codec.get(), input), input.size()), input);
}

// Threads decompressing at once each use their own context (run under ThreadSanitizer with the
// format tests).
TEST(ZstdCodecTest, ThreadsDecompressAtOnce) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      auto codec = Codec::Create(Compression::ZSTD, CodecOptions(1 + 2 * t));
      if (!codec.ok()) {
        ++failures[t];
        return;
      }
      for (int round = 0; round < 30; ++round) {
        const auto input = PageLike(20'000 + 1'000 * round, 100 * t + round);
        std::vector<uint8_t> frame(ZSTD_compressBound(input.size()));
        frame.resize(
            ZSTD_compress(frame.data(), frame.size(), input.data(), input.size(), 1 + 2 * t));
        if (Decompress(codec->get(), frame, input.size()) != input) ++failures[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

}  // namespace
}  // namespace freshet::format
