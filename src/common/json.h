// JSON helpers shared by the metadata files (schemas, snapshots, progress records).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "freshet/result.h"

namespace freshet {

using Json = nlohmann::ordered_json;

// Parses JSON text; a syntax error becomes Status::Corruption naming `source` (usually a path).
Result<Json> ParseJson(std::string_view text, std::string_view source);

// Serializes like Java Paimon's Jackson pretty printer: two-space object indentation,
// `"key" : value`, arrays on one line as `[ a, b ]`, empty containers as `[ ]` and `{ }`.
// Java-written metadata files then compare byte for byte with ours.
std::string ToJacksonPrettyJson(const Json& value);

// Jackson's string escaping: `"`, `\`, \b \t \n \f \r, other control chars as \u00XX (uppercase
// hex); everything else, including non-ASCII UTF-8, is written as is.
std::string JacksonQuote(const std::string& text);

}  // namespace freshet
