// The state behind a public Table, shared by the files that implement its methods.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <optional>
#include <string>

#include "common/lru_cache.h"
#include "freshet/arrow_c.h"
#include "freshet/realtime/realtime_context.h"
#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/schema/table_schema.h"
#include "read/table_read.h"

namespace freshet {

class Table::Impl {
 public:
  std::shared_ptr<io::FileIO> file_io = io::LocalFileIO();
  std::string path;
  std::optional<meta::TableSchema> schema;
  std::shared_ptr<arrow::Schema> arrow_schema;
  // Set when realtime.enabled: shared by every Table of this path in the process.
  std::shared_ptr<realtime::RealtimeContext> realtime;
  // The reads made for queries, by TableRead::LayoutKey: a query of the same columns takes one
  // WithOptions instead of deriving paths, Arrow schema and merge plan again.
  std::shared_ptr<LruCache<std::shared_ptr<const read::TableRead>>> reads =
      std::make_shared<LruCache<std::shared_ptr<const read::TableRead>>>();

  // A read of `schema` with `options`, sharing what an earlier read of the same columns derived.
  Result<read::TableRead> MakeRead(const meta::TableSchema& schema,
                                   read::ReadOptions options) const;
};

// Imports a struct array the caller keeps owning (shallow copies whose release does nothing;
// nothing imported may outlive the caller's array). `what` names the call in errors.
Result<std::shared_ptr<arrow::RecordBatch>> ImportBorrowed(const ArrowArray* array,
                                                           const ArrowSchema* schema,
                                                           const char* what);

}  // namespace freshet
