// Parquet's page CRCs through libdeflate (src/format/parquet_page_crc.h): the replacement is the
// one Parquet calls in this program, and it computes what Arrow's own implementation and zlib do.
#include "format/parquet_page_crc.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <vector>

#include "format/arrow_symbols.h"

namespace freshet::format {
namespace {

using CrcFunction = uint32_t (*)(uint32_t, const void*, size_t);

// libarrow's own arrow::internal::crc32 (not the replacement the process's lookup order finds).
CrcFunction ArrowsOwnCrc32() {
  return reinterpret_cast<CrcFunction>(ArrowsOwnDefinition("_ZN5arrow8internal5crc32EjPKvm"));
}

TEST(ParquetPageCrcTest, ParquetCallsTheReplacementInThisProgram) {
  EXPECT_TRUE(ParquetUsesPageCrc32());
  auto bound = reinterpret_cast<CrcFunction>(dlsym(RTLD_DEFAULT, "_ZN5arrow8internal5crc32EjPKvm"));
  ASSERT_NE(bound, nullptr);
  const char text[] = "123456789";
  EXPECT_EQ(bound(0, text, 9), 0xCBF43926u);  // CRC-32's check value
}

TEST(ParquetPageCrcTest, SameChecksumsAsArrowAndZlib) {
  CrcFunction arrow_crc = ArrowsOwnCrc32();
  ASSERT_NE(arrow_crc, nullptr) << "libarrow's crc32 not found";
  ASSERT_NE(reinterpret_cast<void*>(arrow_crc), reinterpret_cast<void*>(&PageCrc32));
  std::mt19937_64 random(7);
  std::vector<uint8_t> bytes(1 << 20);
  for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
  // Lengths around the vector widths and large pages, at unaligned starts, continuing from
  // arbitrary previous CRCs as a page written in pieces would.
  std::vector<size_t> lengths = {0, 1, 3, 15, 16, 17, 63, 64, 65, 255, 256, 4095, 65537, 1 << 19};
  for (int i = 0; i < 200; ++i) lengths.push_back(random() % 200'000);
  for (size_t length : lengths) {
    const size_t offset = random() % 61;
    const auto prev = static_cast<uint32_t>(random());
    const uint8_t* data = bytes.data() + offset;
    const uint32_t ours = PageCrc32(prev, data, length);
    EXPECT_EQ(ours, arrow_crc(prev, data, length)) << length << " bytes at " << offset;
    EXPECT_EQ(ours, static_cast<uint32_t>(crc32(prev, data, static_cast<uInt>(length))))
        << length << " bytes at " << offset;
  }
}

}  // namespace
}  // namespace freshet::format
