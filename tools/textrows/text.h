// Text conventions the tools share with the library: UTF-8 checks and repair (docs/json-rows.md,
// "Bytes that are not UTF-8") and JSON parsing with freshet's nesting limit and error messages.
// The CLI uses these instead of the library's internal headers.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "freshet/result.h"

namespace freshet::textrows {

// Whether `text` is well-formed UTF-8.
bool IsValidUtf8(std::string_view text);
// `text` with every ill-formed sequence replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view text);

// Parses JSON text (objects keep their key order); nesting deeper than the library allows or a
// syntax error is Corruption naming `source`: "'--schema' is not valid JSON: ...".
Result<nlohmann::ordered_json> ParseJson(std::string_view text, std::string_view source);

}  // namespace freshet::textrows
