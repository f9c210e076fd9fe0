// What a read of the public API binds once its schema is known: the filter as a predicate over
// that schema (also handed to the scan for pruning) and the read options. Shared by batch reads
// (table.cc) and stream reads (table_stream.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/schema/table_schema.h"
#include "read/table_read.h"
#include "scan/predicate.h"

namespace freshet {

struct BoundRead {
  std::shared_ptr<const scan::Predicate> predicate;  // null without a filter
  read::ReadOptions options;
};

inline Result<BoundRead> BindRead(const std::string& filter,
                                  const std::vector<std::string>& columns, int64_t batch_size,
                                  const meta::TableSchema& schema) {
  BoundRead bound;
  if (!filter.empty()) {
    FRESHET_ASSIGN_OR_RETURN(scan::Predicate predicate, scan::MakePredicate(filter, schema));
    bound.predicate = std::make_shared<const scan::Predicate>(std::move(predicate));
  }
  bound.options.projection = columns;
  bound.options.batch_size = batch_size;
  bound.options.predicate = bound.predicate;
  return bound;
}

}  // namespace freshet
