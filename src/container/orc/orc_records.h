// Generic record access to ORC files. Java Paimon 1.x could write manifests as ORC
// (`manifest.format=orc`); reading them as the same generic records as Avro manifests lets one
// decoder (meta/manifest) serve both containers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "container/avro/avro_value.h"
#include "freshet/result.h"

namespace freshet::container {

// True when `content` starts with the ORC magic.
bool LooksLikeOrc(std::string_view content);

// Decodes every row of an ORC file into a record value whose fields are named like the ORC
// columns. Integers narrower than 64 bits become int, timestamps become epoch milliseconds.
Result<std::vector<avro::AvroValue>> ReadOrcRecords(std::string content, std::string_view source);

}  // namespace freshet::container
