// What freshet supports of primary-key tables, checked where a table is created, opened for
// writing and read, so that an option freshet cannot honour is refused with a message naming it
// instead of being silently ignored.
#pragma once

#include "freshet/status.h"
#include "meta/schema/table_schema.h"

namespace freshet::mergetree {

enum class PrimaryKeyUse : uint8_t { kCreate, kWrite, kRead };

// OK for append tables. For primary-key tables: the merge engine and its options (every engine
// validates its own), `sequence.field` / `rowkind.field` columns, and for kCreate / kWrite the
// write-side options this version does not implement yet (postponed buckets, cross-partition
// upsert with dynamic buckets, changelog producers): Invalid or NotImplemented, naming the
// option.
Status CheckPrimaryKeyTable(const meta::TableSchema& schema, PrimaryKeyUse use);

}  // namespace freshet::mergetree
