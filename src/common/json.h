// JSON helpers shared by the metadata files (schemas, snapshots, progress records).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "freshet/result.h"

namespace freshet {

using Json = nlohmann::ordered_json;

// How deep ParseJson lets arrays and objects nest. nlohmann's DOM recurses when it copies nested
// values, so a hostile document must be refused before it is parsed; metadata never comes close
// (a schema type at the deepest nesting freshet accepts is about 100 levels).
inline constexpr int kMaxJsonNestingDepth = 256;

// Corruption naming `source` when arrays and objects in `text` nest deeper than
// kMaxJsonNestingDepth (a scan of the text; strings are skipped).
Status CheckJsonNesting(std::string_view text, std::string_view source);

// Parses JSON text; a syntax error or nesting deeper than kMaxJsonNestingDepth becomes
// Status::Corruption naming `source` (usually a path).
Result<Json> ParseJson(std::string_view text, std::string_view source);

// Serializes like Java Paimon's Jackson pretty printer: two-space object indentation,
// `"key" : value`, arrays on one line as `[ a, b ]`, empty containers as `[ ]` and `{ }`.
// Java-written metadata files then compare byte for byte with ours.
std::string ToJacksonPrettyJson(const Json& value);

// Jackson's string escaping: `"`, `\`, \b \t \n \f \r, other control chars as \u00XX (uppercase
// hex); everything else, including non-ASCII UTF-8, is written as is.
std::string JacksonQuote(const std::string& text);

// A short rendering of `value` for error messages: nesting beyond a few levels and long
// containers are elided, so that describing a hostile, deeply nested document cannot exhaust
// the stack (nlohmann's dump() recurses) or produce megabytes of text.
std::string JsonSnippet(const Json& value);

}  // namespace freshet
