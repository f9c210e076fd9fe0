// Draining a reader of the public API (TableReader, TableStreamReader) through the Arrow C Data
// Interface, as an application does, batch by batch.
#pragma once

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

namespace freshet::testing {

// Calls `consume(const arrow::RecordBatch&)` with every batch `reader` hands out, in read order;
// a failed Next is a test failure and ends the read.
template <typename Reader, typename Consume>
void ForEachBatch(Reader& reader, Consume consume) {
  ArrowSchema c_schema;
  EXPECT_TRUE(reader.ExportArrowSchema(&c_schema).ok());
  auto schema = *arrow::ImportSchema(&c_schema);
  while (true) {
    ArrowArray array;
    auto more = reader.Next(&array);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    consume(*batch);
  }
}

}  // namespace freshet::testing
