// Primary-key rows of the real-time layer as merge records (mergetree/key_value.h).
#pragma once

#include <memory>

#include "freshet/realtime/mem_indexer.h"
#include "mergetree/key_value.h"

namespace freshet::realtime {

// `rows` (columns: `layout`'s value fields, in order) with their sequence numbers and kinds (all
// +I when null) as a MergeBatch of `layout`. Zero-copy but for an all-insert kind column.
// Internal when the rows have no sequence numbers (every primary-key row gets one at Write).
Result<std::shared_ptr<mergetree::MergeBatch>> AsRecords(const RowBatch& rows,
                                                         const mergetree::MergeLayout& layout);

}  // namespace freshet::realtime
