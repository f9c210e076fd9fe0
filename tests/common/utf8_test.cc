// The shared UTF-8 validator and the U+FFFD repair used by the JSON printers.
#include "common/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/json.h"

namespace freshet {
namespace {

constexpr size_t kValid = std::string_view::npos;
const std::string kReplacement = "\xEF\xBF\xBD";

TEST(Utf8Test, FindsTheFirstIllFormedByte) {
  struct Case {
    std::string text;
    size_t invalid_at;
  };
  std::vector<Case> cases = {
      {"", kValid},
      {"plain ascii", kValid},
      {"\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80", kValid},      // é中😀
      {"\xED\x9F\xBF\xEE\x80\x80\xF4\x8F\xBF\xBF", kValid},  // U+D7FF, U+E000, U+10FFFF
      {"\xFF", 0},
      {"ab\x80", 2},            // a lone continuation byte
      {"x\xC0\xAF", 1},         // overlong '/'
      {"\xE0\x80\xAF", 0},      // overlong, three bytes
      {"ok\xED\xA0\x80", 2},    // a surrogate
      {"\xF4\x90\x80\x80", 0},  // above U+10FFFF
      {"\xC3\xA9\xE4\xB8", 2},  // cut after two of three bytes
      {"\xF0\x9F\x98 z", 0},    // three of four bytes, then a space
  };
  for (const auto& c : cases) {
    EXPECT_EQ(FindInvalidUtf8(c.text), c.invalid_at) << c.text;
    EXPECT_EQ(IsValidUtf8(c.text), c.invalid_at == kValid) << c.text;
  }
}

TEST(Utf8Test, ReplacesEachMaximalIllFormedSubpartWithOneReplacementCharacter) {
  // The Unicode Standard's example (section 3.9, table 3-8).
  std::string text = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
  const std::string& r = kReplacement;
  EXPECT_EQ(ReplaceInvalidUtf8(text), "a" + r + r + r + "b" + r + "c" + r + r + "d");
  EXPECT_EQ(ReplaceInvalidUtf8("\xC3\xA9 ok"), "\xC3\xA9 ok");
  EXPECT_EQ(ReplaceInvalidUtf8("\xE4\xB8"), r);  // a cut sequence at the end is one subpart
  EXPECT_TRUE(IsValidUtf8(ReplaceInvalidUtf8("\xED\xA0\x80\xF5\xC0")));
}

// `freshet inspect --json` repairs with nlohmann's error_handler_t::replace, `freshet read` with
// ReplaceInvalidUtf8: both must show the same text for the same bytes.
TEST(Utf8Test, RepairsLikeNlohmannJsonReplace) {
  for (std::string text :
       {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "\xFF\xFE", "\xE0\x80\xAF",
        "\xED\xA0\x80x", "\xF4\x90\x80\x80", "\xF0\x9F\x98", "\xC3", "a\xC3\xA9\xE4\xB8\xAD\x80"}) {
    std::string quoted =
        Json(text).dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
    EXPECT_EQ("\"" + ReplaceInvalidUtf8(text) + "\"", quoted) << text;
  }
}

}  // namespace
}  // namespace freshet
