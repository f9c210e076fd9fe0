#include "read/key_selection.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <algorithm>
#include <numeric>

namespace freshet::read {

Result<std::shared_ptr<const KeySelection>> KeySelection::Make(
    const std::shared_ptr<arrow::RecordBatch>& keys, int64_t cache_bytes) {
  std::shared_ptr<KeySelection> selection(new KeySelection());
  selection->keys_ = keys;
  selection->cache_bytes_ = cache_bytes;
  for (const auto& column : keys->columns()) {
    FRESHET_ASSIGN_OR_RETURN(auto compare, mergetree::ElementCompareFor(*column->type()));
    selection->compares_.push_back(compare);
  }
  std::vector<int64_t> order(static_cast<size_t>(keys->num_rows()));
  std::iota(order.begin(), order.end(), 0);
  auto compare_keys = [&](int64_t a, int64_t b) {
    for (size_t c = 0; c < selection->compares_.size(); ++c) {
      const arrow::Array& column = *keys->column(static_cast<int>(c));
      int order = selection->compares_[c](column, a, column, b);
      if (order != 0) return order;
    }
    return 0;
  };
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return compare_keys(a, b) < 0; });
  for (int64_t row : order) {
    if (selection->sorted_.empty() || compare_keys(selection->sorted_.back(), row) != 0) {
      selection->sorted_.push_back(row);
    }
  }
  std::vector<RowRun> runs;
  for (int64_t row : selection->sorted_) runs.emplace_back(row, row + 1);
  FRESHET_ASSIGN_OR_RETURN(selection->sorted_keys_, SelectRowRuns(keys, runs));
  return std::shared_ptr<const KeySelection>(std::move(selection));
}

int KeySelection::Compare(const std::vector<const arrow::Array*>& columns, int64_t row,
                          int64_t key) const {
  for (size_t c = 0; c < columns.size(); ++c) {
    int order = compares_[c](*columns[c], row, *keys_->column(static_cast<int>(c)), key);
    if (order != 0) return order;
  }
  return 0;
}

Result<std::vector<RowRun>> KeySelection::RowsOf(const arrow::RecordBatch& file) const {
  std::vector<const arrow::Array*> columns;
  for (int c = 0; c < keys_->num_columns(); ++c) {
    const std::string& name = keys_->schema()->field(c)->name();
    std::shared_ptr<arrow::Array> column = file.GetColumnByName(name);
    if (!column || !column->type()->Equals(*keys_->column(c)->type())) {
      return Status::Internal("key selection: the file batch has no key column '", name, "' of ",
                              keys_->column(c)->type()->ToString());
    }
    columns.push_back(column.get());
  }
  std::vector<RowRun> runs;
  int64_t from = 0;  // keys ascend: each search starts where the last one ended
  for (int64_t key : sorted_) {
    int64_t lo = from, hi = file.num_rows();
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (Compare(columns, mid, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    int64_t end = lo;
    while (end < file.num_rows() && Compare(columns, end, key) == 0) ++end;
    if (end > lo) runs.emplace_back(lo, end);
    from = end;
  }
  return runs;
}

// ---------------------------------------------------------------------------------------------

DecodedFileCache& DecodedFileCache::Instance() {
  static DecodedFileCache* cache = new DecodedFileCache();  // never destroyed: used at exit
  return *cache;
}

Result<std::shared_ptr<arrow::RecordBatch>> DecodedFileCache::GetOrLoad(const std::string& key,
                                                                        int64_t budget,
                                                                        const Loader& load) {
  if (auto cached = batches_.Get(key)) return *cached;
  // Decoded without holding the cache: other lookups go on meanwhile.
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<arrow::RecordBatch> batch, load());
  ++loads_;
  batches_.Put(key, batch, static_cast<int64_t>(arrow::util::TotalBufferSize(*batch)), budget);
  return batch;
}

int64_t DecodedFileCache::cached_bytes() const { return batches_.cost(); }

int64_t DecodedFileCache::loads() const { return loads_; }

void DecodedFileCache::Clear() { batches_.Clear(); }

}  // namespace freshet::read
