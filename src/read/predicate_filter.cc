#include "read/predicate_filter.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>

#include <map>

#include "bridge/arrow_value.h"
#include "common/arrow_status.h"

namespace freshet::read {

namespace {

// Column index of every field the predicate reads, by field id.
Result<std::map<int32_t, int>> LeafColumns(const scan::Predicate& predicate,
                                           const std::vector<meta::DataField>& fields) {
  std::map<int32_t, int> columns;
  for (const meta::DataField& f : predicate.Fields()) {
    int index = -1;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].id == f.id) index = static_cast<int>(i);
    }
    if (index < 0) return Status::Invalid("filter column '", f.name, "' is not in the batch");
    columns[f.id] = index;
  }
  return columns;
}

// Row ranges [begin, end) of the rows that match.
Result<std::vector<std::pair<int64_t, int64_t>>> MatchingRuns(
    const scan::Predicate& predicate, const arrow::RecordBatch& batch,
    const std::map<int32_t, int>& columns) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  Status status;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    scan::Outcomes outcome = predicate.Evaluate([&](const scan::Predicate& leaf) {
      const arrow::Array& array = *batch.column(columns.at(leaf.field.id));
      auto value = bridge::ArrowValueAt(array, row, *leaf.field.type);
      if (!value.ok()) {
        status = value.status();
        return scan::kNull;
      }
      return leaf.EvaluateLeaf(*value);
    });
    FRESHET_RETURN_NOT_OK(status);
    if (outcome != scan::kTrue) continue;
    if (!runs.empty() && runs.back().second == row) {
      runs.back().second = row + 1;
    } else {
      runs.emplace_back(row, row + 1);
    }
  }
  return runs;
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(
    const scan::Predicate& predicate, const std::shared_ptr<arrow::RecordBatch>& batch,
    const std::vector<meta::DataField>& fields) {
  FRESHET_ASSIGN_OR_RETURN(auto columns, LeafColumns(predicate, fields));
  FRESHET_ASSIGN_OR_RETURN(auto runs, MatchingRuns(predicate, *batch, columns));
  if (runs.size() == 1 && runs[0].first == 0 && runs[0].second == batch->num_rows()) {
    return batch;
  }
  return SelectRowRuns(batch, runs);
}

Result<std::shared_ptr<arrow::RecordBatch>> SelectRowRuns(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<RowRun>& runs) {
  if (runs.size() == 1) return batch->Slice(runs[0].first, runs[0].second - runs[0].first);
  int64_t rows = 0;
  for (const auto& [begin, end] : runs) rows += end - begin;
  std::vector<std::shared_ptr<arrow::Array>> out;
  for (int c = 0; c < batch->num_columns(); ++c) {
    arrow::ArrayVector pieces;
    for (const auto& [begin, end] : runs)
      pieces.push_back(batch->column(c)->Slice(begin, end - begin));
    if (pieces.empty()) {
      auto empty = arrow::MakeEmptyArray(batch->column(c)->type());
      if (!empty.ok()) return FromArrowStatus(empty.status());
      out.push_back(*empty);
      continue;
    }
    auto joined = arrow::Concatenate(pieces);
    if (!joined.ok()) return FromArrowStatus(joined.status());
    out.push_back(*joined);
  }
  return arrow::RecordBatch::Make(batch->schema(), rows, std::move(out));
}

}  // namespace freshet::read
