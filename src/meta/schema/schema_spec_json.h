// The schema-spec JSON that users (CLI `--schema`), the reference harnesses and tests use to
// describe a new table:
//   {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "tags",
//     "type": {"type": "ARRAY", "element": "STRING"}}], "partitionKeys": ["dt"],
//    "primaryKeys": ["id"], "options": {"bucket": "4"}, "comment": "..."}
// Types use Paimon's schema-file encoding; field ids are assigned when the table is created.
#pragma once

#include <string_view>

#include "freshet/result.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

// `source` names the input (a file path or "--schema") in error messages.
Result<SchemaSpec> SchemaSpecFromJson(std::string_view text, std::string_view source);

}  // namespace freshet::meta
