// Base64 (RFC 4648, standard alphabet, with padding).
#include "common/base64.h"

#include <cstdint>

namespace freshet {

namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 2]);
    out += kBase64Alphabet[(chunk >> 18) & 63];
    out += kBase64Alphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Alphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64Alphabet[chunk & 63] : '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int padding = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    uint32_t chunk = 0;
    for (int k = 0; k < 4; ++k) {
      int digit = k >= 4 - padding ? 0 : Base64Digit(text[i + k]);
      if (digit < 0) return std::nullopt;
      chunk = (chunk << 6) | static_cast<uint32_t>(digit);
    }
    out += static_cast<char>(chunk >> 16);
    if (padding < 2) out += static_cast<char>((chunk >> 8) & 0xFF);
    if (padding < 1) out += static_cast<char>(chunk & 0xFF);
  }
  return out;
}

}  // namespace freshet
