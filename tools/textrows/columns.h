// A table's columns as the text codecs (json_rows.h) need them: Paimon types, with the precision,
// scale and CHAR-vs-STRING distinctions that an Arrow schema alone does not carry.
#pragma once

#include <string>
#include <vector>

#include "freshet/result.h"
#include "freshet/table.h"
#include "meta/types/data_type.h"

namespace freshet::textrows {

// Not thread-safe to modify; const use from any thread.
class Columns {
 public:
  Columns() = default;
  explicit Columns(std::vector<meta::DataField> fields) : fields_(std::move(fields)) {}

  // Every column of `table`'s current schema, read through the public API (the schema file's
  // JSON, Table::SchemaJson()), so that a tool holding only a Table formats exactly as freshet
  // stores the columns.
  static Result<Columns> Of(const Table& table);
  // The columns of schema `schema_id` of `table` (a snapshot's, for a read of that snapshot).
  static Result<Columns> Of(const Table& table, int64_t schema_id);

  // The columns named in `names`, in that order; a name that is no column is skipped (the read
  // reports it). Every column when `names` is empty.
  Columns Select(const std::vector<std::string>& names) const;

  std::vector<std::string> names() const;
  const std::vector<meta::DataField>& fields() const { return fields_; }

 private:
  std::vector<meta::DataField> fields_;
};

}  // namespace freshet::textrows
