#include "common/utf8.h"

namespace freshet {

namespace {

struct Utf8Sequence {
  size_t length;  // bytes of the sequence, or of its maximal ill-formed subpart
  bool valid;
};

// The sequence starting at `pos`. The ranges of the second byte are those of the Unicode
// Standard's table 3-7: they exclude overlong forms (E0, F0), surrogates (ED) and code points
// above U+10FFFF (F4).
Utf8Sequence SequenceAt(std::string_view text, size_t pos) {
  auto lead = static_cast<unsigned char>(text[pos]);
  if (lead < 0x80) return {1, true};
  size_t continuations = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuations = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuations = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuations = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {1, false};  // a continuation byte, C0, C1 or F5..FF cannot start a sequence
  }
  for (size_t i = 1; i <= continuations; ++i) {
    if (pos + i >= text.size()) return {i, false};
    auto byte = static_cast<unsigned char>(text[pos + i]);
    if (byte < low || byte > high) return {i, false};
    low = 0x80;
    high = 0xBF;
  }
  return {continuations + 1, true};
}

}  // namespace

size_t FindInvalidUtf8(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    Utf8Sequence sequence = SequenceAt(text, pos);
    if (!sequence.valid) return pos;
    pos += sequence.length;
  }
  return std::string_view::npos;
}

std::string ReplaceInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    Utf8Sequence sequence = SequenceAt(text, pos);
    if (sequence.valid) {
      out.append(text, pos, sequence.length);
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
    }
    pos += sequence.length;
  }
  return out;
}

}  // namespace freshet
