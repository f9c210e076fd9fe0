#include "textrows/text.h"

#include "common/json.h"
#include "common/utf8.h"

namespace freshet::textrows {

bool IsValidUtf8(std::string_view text) { return ::freshet::IsValidUtf8(text); }

std::string ReplaceInvalidUtf8(std::string_view text) {
  return ::freshet::ReplaceInvalidUtf8(text);
}

Result<nlohmann::ordered_json> ParseJson(std::string_view text, std::string_view source) {
  return ::freshet::ParseJson(text, source);
}

}  // namespace freshet::textrows
