// GatherRanges: one Arrow array made of ranges of rows taken from several source arrays.
//
// Merges of overlapping sorted runs emit rows that alternate between sources almost every row,
// and filters keep scattered runs of rows. Appending each range through an Arrow builder costs an
// ArraySpan of the source (and a virtual call) per range and column; slicing and concatenating
// costs an Array per range. This copies the ranges of one column in a single typed pass instead:
// values (and string bytes) with memcpy, validity bits with bitmap copies, into buffers sized
// once. Types without a typed path go through a builder, with one span per source.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "freshet/result.h"

namespace freshet::bridge {

// `length` rows from row `start` of source array `source` (an index into the sources).
struct RowRange {
  uint32_t source = 0;
  int64_t start = 0;
  int64_t length = 0;
};

// The rows of `ranges`, in order, as one array of `type`. Every source must have that type and
// every range must lie within its source (Invalid otherwise).
Result<std::shared_ptr<arrow::Array>> GatherRanges(const std::shared_ptr<arrow::DataType>& type,
                                                   const std::vector<const arrow::Array*>& sources,
                                                   const std::vector<RowRange>& ranges,
                                                   arrow::MemoryPool* pool);

// The same rows appended to `builder` (of the sources' type), through its AppendArraySlice: for
// callers that mix ranges with values of their own in one builder.
Status AppendRanges(arrow::ArrayBuilder* builder, const std::vector<const arrow::Array*>& sources,
                    const std::vector<RowRange>& ranges);

}  // namespace freshet::bridge
