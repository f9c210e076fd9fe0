// Helpers shared by the tests of the public table API.
#pragma once

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <cstdint>

#include "freshet/table.h"

namespace freshet::testing {

// Writes ids first .. first + n - 1 as one batch of a single BIGINT column "id".
inline Status WriteIds(TableWriter& writer, int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  for (int64_t i = first; i < first + n; ++i) (void)ids.Append(i);
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), n,
                                        {*ids.Finish()});
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  return writer.Write(&array, &schema);
}

}  // namespace freshet::testing
