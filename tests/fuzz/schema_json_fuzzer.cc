// Schema files: any text must parse into a valid schema or give a clean error; a parsed schema
// must print (Java's layout) and parse back to a schema that prints the same, and its fields must
// convert to Arrow (anything accepted can be written and read).
#include "bridge/arrow_schema.h"
#include "fuzz_target.h"
#include "meta/schema/table_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using freshet::meta::TableSchema;
  auto schema = TableSchema::FromJson(freshet::fuzz::AsText(data, size), "schema-fuzz");
  if (!schema.ok()) return 0;
  std::string printed = schema->ToJson();
  auto again = TableSchema::FromJson(printed, "printed");
  if (!again.ok())
    freshet::fuzz::PropertyViolated("a printed schema does not parse", again.status());
  if (again->ToJson() != printed)
    freshet::fuzz::PropertyViolated("a schema changed in a round trip");
  auto arrow_schema = freshet::bridge::ToArrowSchema(schema->fields());
  if (!arrow_schema.ok()) {
    freshet::fuzz::PropertyViolated("an accepted schema has no Arrow schema",
                                    arrow_schema.status());
  }
  return 0;
}
