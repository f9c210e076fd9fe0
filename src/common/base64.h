// Base64 (RFC 4648, standard alphabet, with padding): BYTES values in JSON rows, partitions in
// real-time progress records.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace freshet {

std::string Base64Encode(std::string_view bytes);
// nullopt for text that is not padded standard Base64.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace freshet
