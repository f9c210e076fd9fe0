// JSON-lines input (`freshet write --input-format json`): any text must give rows or a clean
// error; rows that parse must print and parse back to the same printed text.
#include "fuzz_schema.h"
#include "fuzz_target.h"
#include "textrows/json_rows.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using freshet::fuzz::PropertyViolated;
  const auto& fields = freshet::fuzz::FuzzSchema().fields();
  auto rows =
      freshet::textrows::ParseJsonRows(freshet::fuzz::AsText(data, size), fields, "fuzz.jsonl");
  if (!rows.ok()) return 0;
  auto printed = freshet::textrows::FormatJsonRows(*rows->batch, fields);
  if (!printed.ok()) PropertyViolated("parsed rows do not print", printed.status());
  auto reparsed = freshet::textrows::ParseJsonRows(*printed, fields, "printed.jsonl");
  if (!reparsed.ok()) PropertyViolated("printed rows do not parse", reparsed.status());
  auto reprinted = freshet::textrows::FormatJsonRows(*reparsed->batch, fields);
  if (!reprinted.ok() || *reprinted != *printed) PropertyViolated("rows changed in a round trip");
  return 0;
}
