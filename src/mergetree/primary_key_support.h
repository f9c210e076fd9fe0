// What freshet supports of primary-key tables, checked where a table is created, opened for
// writing and read, so that an option freshet cannot honour is refused with a message naming it
// instead of being silently ignored.
#pragma once

#include "freshet/result.h"
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

// Java's CoreOptions.needLookup: compactions look keys up in the levels above their output
// (merge-engine first-row, changelog-producer lookup, deletion vectors, force-lookup).
Result<bool> NeedsLookup(const meta::Options& options);
// Whether every merge of the table follows Java's LookupMergeFunction (NeedsLookup, but not
// first-row, which Java leaves unwrapped).
Result<bool> MergesWithLookupLevels(const meta::TableSchema& schema);

}  // namespace freshet::mergetree
