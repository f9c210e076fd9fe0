// UTF-8 validation and repair, shared by the text inputs (which reject what is not UTF-8) and the
// JSON printers (which must emit valid JSON whatever bytes a data or metadata file holds: Arrow,
// Parquet and ORC do not check that strings are UTF-8).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace freshet {

// The offset of the first byte of `text` that does not belong to a well-formed UTF-8 sequence
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or npos when all of it is
// well formed.
size_t FindInvalidUtf8(std::string_view text);

inline bool IsValidUtf8(std::string_view text) {
  return FindInvalidUtf8(text) == std::string_view::npos;
}

// `text` with each maximal ill-formed subsequence replaced by U+FFFD, the Unicode Standard's
// recommended practice (chapter 3, "U+FFFD Substitution of Maximal Subparts"). Java's UTF-8
// decoder and nlohmann::json's error_handler_t::replace do the same, so Java Paimon, `freshet read`
// and `freshet inspect --json` show the same text for the same bytes.
std::string ReplaceInvalidUtf8(std::string_view text);

}  // namespace freshet
