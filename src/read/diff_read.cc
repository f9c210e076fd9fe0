#include "read/diff_read.h"

#include <arrow/api.h>
#include <arrow/compare.h>

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/arrow_status.h"
#include "mergetree/key_value.h"
#include "read/predicate_filter.h"

namespace freshet::read {

namespace {

// A row of one of the batches read, by batch and row.
struct RowRef {
  size_t batch = 0;
  int64_t row = 0;
};

// Whole rows compared as Java compares serialized rows: NaN equal to NaN, -0.0 not equal to 0.0.
const arrow::EqualOptions& RowEquality() {
  static const arrow::EqualOptions options =
      arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false);
  return options;
}

bool CellsEqual(const arrow::Array& a, int64_t row_a, const arrow::Array& b, int64_t row_b) {
  return a.RangeEquals(row_a, row_a + 1, row_b, b, RowEquality());
}

// A hash of one key cell that agrees with CellsEqual: equal cells hash alike (every NaN alike).
// Keys are primitive (Java refuses nested key types), so a cell is a bit, a fixed-width value or a
// string of bytes; nothing is allocated.
size_t CellHash(const arrow::Array& array, int64_t row) {
  constexpr size_t kNull = 0x9e3779b97f4a7c15ull;
  if (array.IsNull(row)) return kNull;
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(array).Value(row) ? 1 : 2;
    case arrow::Type::FLOAT:
      if (std::isnan(static_cast<const arrow::FloatArray&>(array).Value(row))) return kNull + 1;
      break;
    case arrow::Type::DOUBLE:
      if (std::isnan(static_cast<const arrow::DoubleArray&>(array).Value(row))) return kNull + 1;
      break;
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return std::hash<std::string_view>()(
          static_cast<const arrow::BinaryArray&>(array).GetView(row));
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return std::hash<std::string_view>()(
          static_cast<const arrow::LargeBinaryArray&>(array).GetView(row));
    default:
      break;
  }
  const int byte_width = array.type()->byte_width();
  if (byte_width <= 0) return 0;  // no other key types; equal cells still hash alike
  const auto* values = array.data()->GetValues<char>(1, 0) + (array.offset() + row) * byte_width;
  return std::hash<std::string_view>()(std::string_view(values, static_cast<size_t>(byte_width)));
}

class DiffReader : public format::BatchReader {
 public:
  DiffReader(const KindedTableRead* full, const KindedTableRead* output,
             std::vector<std::string> keys, std::vector<DiffBucket> buckets)
      : full_(full), output_(output), buckets_(std::move(buckets)) {
    const auto& schema = *full_->output_schema();
    for (const std::string& key : keys) key_columns_.push_back(schema.GetFieldIndex(key));
    for (const auto& field : output_->output_schema()->fields()) {
      output_columns_.push_back(schema.GetFieldIndex(field->name()));
    }
    auto fields = output_->output_schema()->fields();
    fields.push_back(arrow::field(mergetree::kValueKindFieldName, arrow::int8(), false));
    schema_ = arrow::schema(std::move(fields));
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (next_bucket_ < buckets_.size()) {
      DiffBucket& bucket = buckets_[next_bucket_++];
      FRESHET_ASSIGN_OR_RETURN(auto before, ReadMerged(std::move(bucket.before)));
      FRESHET_ASSIGN_OR_RETURN(auto after, ReadMerged(std::move(bucket.after)));
      FRESHET_ASSIGN_OR_RETURN(auto changed, Changed(before, after));
      if (changed && changed->num_rows() > 0) return changed;
    }
    return std::shared_ptr<arrow::RecordBatch>();
  }

 private:
  using Batches = std::vector<std::shared_ptr<arrow::RecordBatch>>;

  // Every merged live row of a split (every column, then the kind).
  Result<Batches> ReadMerged(scan::DataSplit split) const {
    Batches batches;
    if (split.files.empty()) return batches;
    std::vector<scan::DataSplit> splits;
    splits.push_back(std::move(split));
    FRESHET_ASSIGN_OR_RETURN(auto reader, full_->CreateReader(std::move(splits), true));
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      if (batch->num_rows() > 0) batches.push_back(std::move(batch));
    }
    return batches;
  }

  size_t KeyHash(const arrow::RecordBatch& batch, int64_t row) const {
    size_t hash = 0;
    for (int column : key_columns_) hash = hash * 1000003u ^ CellHash(*batch.column(column), row);
    return hash;
  }

  bool SameKey(const arrow::RecordBatch& a, int64_t row_a, const arrow::RecordBatch& b,
               int64_t row_b) const {
    for (int column : key_columns_) {
      if (!CellsEqual(*a.column(column), row_a, *b.column(column), row_b)) return false;
    }
    return true;
  }

  bool SameRow(const arrow::RecordBatch& a, int64_t row_a, const arrow::RecordBatch& b,
               int64_t row_b) const {
    // Every column and the kind: Java compares the value and whether both are adds, and only
    // adds are left in a merged read.
    for (int column = 0; column < a.num_columns() - 1; ++column) {
      if (!CellsEqual(*a.column(column), row_a, *b.column(column), row_b)) return false;
    }
    return true;
  }

  // The after rows whose key is not before, or whose row differs, with the output's predicate
  // and columns.
  Result<std::shared_ptr<arrow::RecordBatch>> Changed(const Batches& before,
                                                      const Batches& after) const {
    std::unordered_multimap<size_t, RowRef> by_key;
    for (size_t b = 0; b < before.size(); ++b) {
      for (int64_t row = 0; row < before[b]->num_rows(); ++row) {
        by_key.emplace(KeyHash(*before[b], row), RowRef{b, row});
      }
    }
    Batches kept;
    for (const auto& batch : after) {
      arrow::BooleanBuilder keep;
      FRESHET_RETURN_NOT_OK_ARROW(keep.Reserve(batch->num_rows()));
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        bool changed = true;
        auto [first, last] = by_key.equal_range(KeyHash(*batch, row));
        for (auto it = first; it != last; ++it) {
          const arrow::RecordBatch& old = *before[it->second.batch];
          if (SameKey(old, it->second.row, *batch, row)) {
            changed = !SameRow(old, it->second.row, *batch, row);
            break;
          }
        }
        keep.UnsafeAppend(changed);
      }
      std::shared_ptr<arrow::Array> mask;
      FRESHET_RETURN_NOT_OK_ARROW(keep.Finish(&mask));
      FRESHET_ASSIGN_OR_RETURN(auto filtered, FilterByMask(batch, mask));
      FRESHET_ASSIGN_OR_RETURN(filtered, Present(filtered));
      if (filtered->num_rows() > 0) kept.push_back(std::move(filtered));
    }
    if (kept.empty()) return std::shared_ptr<arrow::RecordBatch>();
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto table, arrow::Table::FromRecordBatches(schema_, kept));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto combined, table->CombineChunksToBatch());
    return combined;
  }

  static Result<std::shared_ptr<arrow::RecordBatch>> FilterByMask(
      const std::shared_ptr<arrow::RecordBatch>& batch, const std::shared_ptr<arrow::Array>& mask) {
    const auto& keep = static_cast<const arrow::BooleanArray&>(*mask);
    std::vector<std::shared_ptr<arrow::RecordBatch>> runs;
    int64_t start = -1;
    for (int64_t row = 0; row <= batch->num_rows(); ++row) {
      const bool kept = row < batch->num_rows() && keep.Value(row);
      if (kept && start < 0) start = row;
      if (!kept && start >= 0) {
        runs.push_back(batch->Slice(start, row - start));
        start = -1;
      }
    }
    if (runs.size() == 1) return runs[0];
    if (runs.empty()) return batch->Slice(0, 0);
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto table, arrow::Table::FromRecordBatches(runs));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto combined, table->CombineChunksToBatch());
    return combined;
  }

  // The output read's predicate, then its columns and the kind.
  Result<std::shared_ptr<arrow::RecordBatch>> Present(
      std::shared_ptr<arrow::RecordBatch> batch) const {
    if (const auto& predicate = output_->table_read().options().predicate) {
      // The batch is the full read's fields, then the kind column, which the predicate never reads.
      FRESHET_ASSIGN_OR_RETURN(batch,
                               FilterBatch(*predicate, batch, full_->table_read().read_fields()));
    }
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (int column : output_columns_) columns.push_back(batch->column(column));
    columns.push_back(batch->column(batch->num_columns() - 1));
    return arrow::RecordBatch::Make(schema_, batch->num_rows(), std::move(columns));
  }

  const KindedTableRead* full_;
  const KindedTableRead* output_;
  std::vector<DiffBucket> buckets_;
  std::vector<int> key_columns_;     // in the full read's batches
  std::vector<int> output_columns_;  // the output's columns in the full read's batches
  std::shared_ptr<arrow::Schema> schema_;
  size_t next_bucket_ = 0;
};

}  // namespace

Result<std::unique_ptr<format::BatchReader>> CreateDiffReader(const KindedTableRead* full,
                                                              const KindedTableRead* output,
                                                              std::vector<std::string> keys,
                                                              std::vector<DiffBucket> buckets) {
  for (const std::string& key : keys) {
    if (full->output_schema()->GetFieldIndex(key) < 0) {
      return Status::Internal("diff read: key column '", key, "' is not read");
    }
  }
  return std::unique_ptr<format::BatchReader>(
      new DiffReader(full, output, std::move(keys), std::move(buckets)));
}

}  // namespace freshet::read
