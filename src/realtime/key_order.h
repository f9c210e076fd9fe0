// The framework's KeyOrder (include/freshet/realtime/mem_indexer.h): the merge order of a
// primary-key table's rows, over RowBatches of the table's columns.
#pragma once

#include <memory>

#include "freshet/realtime/mem_indexer.h"
#include "meta/schema/table_schema.h"

namespace freshet::realtime {

// The order SortMergeReader merges `schema`'s rows in (write::RecordOrder over every field):
// trimmed primary key, `sequence.field` (with `sequence.field.sort-order`), sequence number.
Result<std::shared_ptr<const KeyOrder>> MakeKeyOrder(const meta::TableSchema& schema);

}  // namespace freshet::realtime
