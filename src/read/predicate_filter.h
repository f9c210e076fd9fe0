// Exact row filtering of Arrow record batches by a bound predicate (scan/predicate.h).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "meta/types/data_type.h"
#include "scan/predicate.h"

namespace freshet::read {

// The rows of `batch` (whose columns are `fields`, matched to the predicate by field id) for
// which `predicate` is TRUE; NULL (unknown) and FALSE rows are dropped. Returns `batch` itself
// when every row matches. Every column the predicate reads must be in `fields`.
Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(
    const scan::Predicate& predicate, const std::shared_ptr<arrow::RecordBatch>& batch,
    const std::vector<meta::DataField>& fields);

// A half-open range [first, second) of row indices.
using RowRun = std::pair<int64_t, int64_t>;

// The rows of `batch` in `runs`, in that order (a zero-copy slice for a single run).
Result<std::shared_ptr<arrow::RecordBatch>> SelectRowRuns(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<RowRun>& runs);

}  // namespace freshet::read
