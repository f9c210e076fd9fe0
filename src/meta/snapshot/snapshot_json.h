// Snapshot::FromJson for a document already parsed: a tag file is a snapshot with Java's extra
// keys, and its reader reads both from one parse.
#pragma once

#include <string_view>

#include "common/json.h"
#include "freshet/result.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::meta {

// As Snapshot::FromJson, for the parsed document of `source`.
Result<Snapshot> SnapshotFromJson(const Json& json, std::string_view source);

}  // namespace freshet::meta
