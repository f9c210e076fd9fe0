// Filter expressions (`read --where`, ReadOptions::filter): any text must parse and bind to a
// predicate or give a clean error; a bound predicate must filter a batch of every column type
// without failing, and keep only rows that are a subset of the input.
#include <arrow/api.h>

#include "fuzz_schema.h"
#include "fuzz_target.h"
#include "read/predicate_filter.h"
#include "scan/predicate.h"
#include "textrows/json_rows.h"

namespace {

// Rows with nulls, extremes and nested values for every column of FuzzSchema().
std::shared_ptr<arrow::RecordBatch> SampleRows() {
  static const std::shared_ptr<arrow::RecordBatch> batch = [] {
    auto rows = freshet::textrows::ParseJsonRows(
        R"({"id": 1, "dt": "2024-01-01", "flag": true, "small": -32768, "n": 7, "f": 1.5, "d": -0.0, "price": "12.34", "big": "-1.000001", "name": "ada", "code": "abc", "raw": "AAE=", "day": "2024-02-29", "at": "23:59:59.999", "ts": "2024-01-01 00:00:00.123456", "ltz": "1970-01-01 00:00:00.001", "tags": ["a", null], "attrs": {"k": 1}, "point": {"x": 1e300, "labels": []}}
{"id": 2}
{"id": -9223372036854775808, "dt": "", "flag": false, "n": 2147483647, "f": -1e-30, "d": 1e308, "price": "-99999999.99", "name": "", "tags": [], "attrs": {}}
)",
        freshet::fuzz::FuzzSchema().fields());
    if (!rows.ok()) freshet::fuzz::PropertyViolated("the sample rows do not parse", rows.status());
    return rows->batch;
  }();
  return batch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& schema = freshet::fuzz::FuzzSchema();
  auto predicate = freshet::scan::MakePredicate(freshet::fuzz::AsText(data, size), schema);
  if (!predicate.ok()) return 0;
  auto kept = freshet::read::FilterBatch(*predicate, SampleRows(), schema.fields());
  if (!kept.ok())
    freshet::fuzz::PropertyViolated("a bound predicate fails to filter", kept.status());
  if ((*kept)->num_rows() > SampleRows()->num_rows()) {
    freshet::fuzz::PropertyViolated("filtering added rows");
  }
  return 0;
}
