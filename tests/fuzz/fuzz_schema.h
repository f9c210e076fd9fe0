// The table schema the text-input and predicate targets parse against: one column of every kind
// of type, nested ones included, and a partition key.
#pragma once

#include "meta/schema/schema_spec_json.h"
#include "meta/schema/table_schema.h"

namespace freshet::fuzz {

inline const meta::TableSchema& FuzzSchema() {
  static const meta::TableSchema schema = [] {
    auto spec = meta::SchemaSpecFromJson(R"json({
      "fields": [
        {"name": "id", "type": "BIGINT NOT NULL"},
        {"name": "dt", "type": "STRING"},
        {"name": "flag", "type": "BOOLEAN"},
        {"name": "small", "type": "SMALLINT"},
        {"name": "n", "type": "INT"},
        {"name": "f", "type": "FLOAT"},
        {"name": "d", "type": "DOUBLE"},
        {"name": "price", "type": "DECIMAL(10, 2)"},
        {"name": "big", "type": "DECIMAL(38, 6)"},
        {"name": "name", "type": "VARCHAR(20)"},
        {"name": "code", "type": "CHAR(3)"},
        {"name": "raw", "type": "BYTES"},
        {"name": "day", "type": "DATE"},
        {"name": "at", "type": "TIME(3)"},
        {"name": "ts", "type": "TIMESTAMP(6)"},
        {"name": "ltz", "type": "TIMESTAMP_LTZ(3)"},
        {"name": "tags", "type": {"type": "ARRAY", "element": "STRING"}},
        {"name": "attrs", "type": {"type": "MAP", "key": "STRING NOT NULL", "value": "INT"}},
        {"name": "point", "type": {"type": "ROW", "fields": [
          {"name": "x", "type": "DOUBLE"},
          {"name": "labels", "type": {"type": "ARRAY", "element": "STRING"}}]}}
      ],
      "partitionKeys": ["dt"]
    })json",
                                         "fuzz-schema");
    return *meta::TableSchema::Create(0, std::move(*spec), 0);
  }();
  return schema;
}

}  // namespace freshet::fuzz
