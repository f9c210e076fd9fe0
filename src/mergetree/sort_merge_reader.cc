#include "mergetree/sort_merge_reader.h"

#include <arrow/api.h>
#include <arrow/util/bit_util.h>

#include <cstring>
#include <unordered_map>

#include "bridge/array_gather.h"
#include "bridge/memory_pool.h"
#include "common/arrow_status.h"

namespace freshet::mergetree {

namespace {

class MergeBatchAdapter : public MergeBatchReader {
 public:
  MergeBatchAdapter(std::unique_ptr<format::BatchReader> batches, const MergeLayout& layout)
      : batches_(std::move(batches)), layout_(layout) {}

  Result<std::shared_ptr<MergeBatch>> Next() override {
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(auto batch, batches_->Next());
      if (!batch) return std::shared_ptr<MergeBatch>();
      if (batch->num_rows() > 0) return MergeBatch::Make(std::move(batch), layout_);
    }
  }

 private:
  std::unique_ptr<format::BatchReader> batches_;
  const MergeLayout& layout_;
};

class ArrowBatchAdapter : public format::BatchReader {
 public:
  explicit ArrowBatchAdapter(std::unique_ptr<MergeBatchReader> batches)
      : batches_(std::move(batches)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    FRESHET_ASSIGN_OR_RETURN(auto batch, batches_->Next());
    if (!batch) return std::shared_ptr<arrow::RecordBatch>();
    return batch->batch();
  }

 private:
  std::unique_ptr<MergeBatchReader> batches_;
};

}  // namespace

std::unique_ptr<MergeBatchReader> AsMergeBatches(std::unique_ptr<format::BatchReader> batches,
                                                 const MergeLayout& layout) {
  return std::make_unique<MergeBatchAdapter>(std::move(batches), layout);
}

std::unique_ptr<format::BatchReader> AsArrowBatches(std::unique_ptr<MergeBatchReader> batches) {
  return std::make_unique<ArrowBatchAdapter>(std::move(batches));
}

// ---------------------------------------------------------------------------------------------
// MergeBatchBuilder: appended records are kept as ranges of consecutive source rows (a stretch of
// keys that need no merge is one range) and each value column is gathered from them once, at
// Finish (bridge/array_gather.h): merges of overlapping runs switch source almost every row. A
// batch that is one range is a slice of its source, sharing its buffers.
// Records computed by a merge function (AppendFields) go through Arrow builders; a batch that has
// any moves its ranges into the builders as they come, to keep the order. Sequence numbers and
// kinds are kept apart, since a merged record may take its values from one version and its kind
// from another.

class MergeBatchBuilder::Impl {
 public:
  explicit Impl(const MergeLayout& layout) : layout_(layout) {}

  Status AppendRow(const KeyValueRef& source, RowKind kind) {
    if (!ranges_.empty()) {
      bridge::RowRange& last = ranges_.back();
      if (sources_[last.source].get() == source.batch && last.start + last.length == source.row) {
        ++last.length;
        return AppendSystemFields(source.sequence(), kind);
      }
    }
    ranges_.push_back(bridge::RowRange{SourceIndex(*source.batch), source.row, 1});
    return AppendSystemFields(source.sequence(), kind);
  }

  Status AppendFields(const std::vector<FieldValue>& fields, int64_t sequence, RowKind kind) {
    if (static_cast<int>(fields.size()) != layout_.num_value_fields()) {
      return Status::Invalid("a merged record has ", fields.size(), " fields, the layout ",
                             layout_.num_value_fields());
    }
    FRESHET_RETURN_NOT_OK(EnsureBuilders());
    FRESHET_RETURN_NOT_OK(MoveRangesToBuilders());
    for (size_t i = 0; i < fields.size(); ++i) {
      const FieldValue& field = fields[i];
      arrow::ArrayBuilder& builder = *builders_[i];
      arrow::Status st;
      if (field.batch) {
        arrow::ArraySpan span(*field.batch->column(static_cast<int>(i)).data());
        st = builder.AppendArraySlice(span, field.row, 1);
      } else if (field.scalar && field.scalar->is_valid) {
        st = builder.AppendScalar(*field.scalar);
      } else {
        st = builder.AppendNull();
      }
      FRESHET_RETURN_NOT_OK(FromArrowStatus(st));
    }
    builder_rows_ = true;
    return AppendSystemFields(sequence, kind);
  }

  int64_t num_rows() const { return static_cast<int64_t>(kinds_.size()); }

  Result<std::shared_ptr<MergeBatch>> Finish() {
    if (kinds_.empty()) return std::shared_ptr<MergeBatch>();
    std::vector<std::shared_ptr<arrow::Array>> columns;
    if (builder_rows_) {
      FRESHET_RETURN_NOT_OK(MoveRangesToBuilders());
      for (auto& builder : builders_) {
        FRESHET_ASSIGN_OR_RETURN_ARROW(auto column, builder->Finish());
        columns.push_back(std::move(column));
      }
    } else if (ranges_.size() == 1) {
      // One stretch of one source's rows (keys that needed no merge): its arrays, sliced.
      const bridge::RowRange& range = ranges_.front();
      const MergeBatch& source = *sources_[range.source];
      for (int i = 0; i < layout_.num_value_fields(); ++i) {
        columns.push_back(source.column(i).Slice(range.start, range.length));
      }
    } else {
      for (int i = 0; i < layout_.num_value_fields(); ++i) {
        FRESHET_ASSIGN_OR_RETURN(auto column, GatherColumn(i));
        columns.push_back(std::move(column));
      }
    }
    arrow::Int64Builder sequences;
    arrow::Int8Builder kinds;
    FRESHET_RETURN_NOT_OK(FromArrowStatus(sequences.AppendValues(sequences_)));
    FRESHET_RETURN_NOT_OK(FromArrowStatus(kinds.AppendValues(kinds_)));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto sequence_column, sequences.Finish());
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto kind_column, kinds.Finish());
    columns.push_back(std::move(sequence_column));
    columns.push_back(std::move(kind_column));
    int64_t rows = num_rows();
    sequences_.clear();
    kinds_.clear();
    ClearRanges();
    builder_rows_ = false;
    return MergeBatch::Make(arrow::RecordBatch::Make(layout_.arrow_schema(), rows, columns),
                            layout_);
  }

 private:
  Status AppendSystemFields(int64_t sequence, RowKind kind) {
    sequences_.push_back(sequence);
    kinds_.push_back(static_cast<int8_t>(kind));
    return Status::OK();
  }

  // The index of `batch` among the sources of the pending ranges (added, and pinned, if new).
  uint32_t SourceIndex(const MergeBatch& batch) {
    if (!sources_.empty() && sources_.back().get() == &batch) {
      return static_cast<uint32_t>(sources_.size() - 1);
    }
    auto [it, added] = source_index_.try_emplace(&batch, static_cast<uint32_t>(sources_.size()));
    if (added) sources_.push_back(batch.shared_from_this());
    return it->second;
  }

  // The sources' arrays of value column `column`, in the order ranges_ number them.
  std::vector<const arrow::Array*> SourceColumns(int column) const {
    std::vector<const arrow::Array*> arrays;
    arrays.reserve(sources_.size());
    for (const auto& source : sources_) arrays.push_back(&source->column(column));
    return arrays;
  }

  Result<std::shared_ptr<arrow::Array>> GatherColumn(int column) {
    return bridge::GatherRanges(layout_.arrow_schema()->field(column)->type(),
                                SourceColumns(column), ranges_, bridge::DataMemoryPool());
  }

  // Builders are made on first use: a constructor cannot report a failure.
  Status EnsureBuilders() {
    if (!builders_.empty() || layout_.num_value_fields() == 0) return Status::OK();
    for (int i = 0; i < layout_.num_value_fields(); ++i) {
      FRESHET_ASSIGN_OR_RETURN_ARROW(auto builder,
                                     arrow::MakeBuilder(layout_.arrow_schema()->field(i)->type()));
      builders_.push_back(std::move(builder));
    }
    return Status::OK();
  }

  Status MoveRangesToBuilders() {
    if (ranges_.empty()) return Status::OK();
    for (int i = 0; i < layout_.num_value_fields(); ++i) {
      FRESHET_RETURN_NOT_OK(
          bridge::AppendRanges(builders_[static_cast<size_t>(i)].get(), SourceColumns(i), ranges_));
    }
    ClearRanges();
    return Status::OK();
  }

  void ClearRanges() {
    ranges_.clear();
    sources_.clear();
    source_index_.clear();
  }

  const MergeLayout& layout_;
  std::vector<bridge::RowRange> ranges_;
  std::vector<std::shared_ptr<const MergeBatch>> sources_;  // of ranges_, pinned until gathered
  std::unordered_map<const MergeBatch*, uint32_t> source_index_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  bool builder_rows_ = false;  // the batch so far is in builders_ (and ranges_ after it)
  std::vector<int64_t> sequences_;
  std::vector<int8_t> kinds_;
};

MergeBatchBuilder::MergeBatchBuilder(const MergeLayout& layout)
    : impl_(std::make_unique<Impl>(layout)) {}
MergeBatchBuilder::~MergeBatchBuilder() = default;

Status MergeBatchBuilder::AppendRow(const KeyValueRef& source, RowKind kind) {
  return impl_->AppendRow(source, kind);
}
Status MergeBatchBuilder::AppendFields(const std::vector<FieldValue>& fields, int64_t sequence,
                                       RowKind kind) {
  return impl_->AppendFields(fields, sequence, kind);
}
int64_t MergeBatchBuilder::num_rows() const { return impl_->num_rows(); }
Result<std::shared_ptr<MergeBatch>> MergeBatchBuilder::Finish() { return impl_->Finish(); }

// ---------------------------------------------------------------------------------------------
// SortMergeReader: a min-heap of run cursors (Java's SortMergeReaderWithMinHeap). Each step pops
// every cursor positioned on the smallest key, oldest version first.

class SortMergeReader::Impl {
 public:
  Impl(const MergeLayout& layout, std::vector<std::unique_ptr<MergeBatchReader>> runs,
       std::unique_ptr<MergeFunction> merge, SortMergeOptions options, RowComparator keys,
       RowComparator user_sequence)
      : layout_(layout),
        merge_(std::move(merge)),
        options_(std::move(options)),
        keys_(std::move(keys)),
        user_sequence_(std::move(user_sequence)),
        builder_(layout) {
    for (auto& run : runs) {
      cursors_.emplace_back();
      cursors_.back().reader = std::move(run);
    }
    options_.run_levels.resize(cursors_.size(), 0);
  }

  Status Init() {
    for (size_t i = 0; i < cursors_.size(); ++i) {
      FRESHET_ASSIGN_OR_RETURN(bool has_row, LoadBatch(&cursors_[i]));
      if (has_row) heap_.push_back(i);
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    return Status::OK();
  }

  Result<std::shared_ptr<MergeBatch>> Next() {
    const MergeBatch* first_source = nullptr;
    while (!heap_.empty() && builder_.num_rows() < options_.batch_size) {
      // With one run left, a batch ends where the run's batch does: a stretch of keys that needs
      // no merge then leaves as a slice of that batch (MergeBatchBuilder::Finish), not a copy.
      if (heap_.size() == 1) {
        const MergeBatch* source = cursors_[heap_.front()].batch.get();
        if (builder_.num_rows() == 0) {
          first_source = source;
        } else if (source != first_source) {
          break;
        }
      }
      FRESHET_RETURN_NOT_OK(MergeNextKey());
    }
    return builder_.Finish();
  }

 private:
  struct IntegerKey {
    int64_t value = 0;
    bool null = false;
  };

  struct Cursor {
    std::unique_ptr<MergeBatchReader> reader;
    std::shared_ptr<MergeBatch> batch;
    int64_t row = 0;
    // With an integer key (keys_.integer_width() > 0): the batch's key column, and the current
    // record's key, so that the heap compares integers rather than calling the comparator.
    const uint8_t* key_values = nullptr;    // at the column's offset
    const uint8_t* key_validity = nullptr;  // null when the column has no nulls
    int64_t key_offset = 0;                 // of key_validity
    IntegerKey key;

    KeyValueRef current() const { return KeyValueRef{batch.get(), row}; }
  };

  // Whether cursor `a`'s record comes before cursor `b`'s.
  bool Before(size_t a, size_t b) const {
    const Cursor& x = cursors_[a];
    const Cursor& y = cursors_[b];
    if (keys_.integer_width() == 0) return Order(x.current(), y.current()) < 0;
    if (x.key.null != y.key.null) return x.key.null;  // nulls first
    if (x.key.value != y.key.value) return x.key.value < y.key.value;
    return OrderOfVersions(x.current(), y.current()) < 0;
  }

  // Whether the cursor's record has the key of `first_record` (whose integer key is `first`).
  bool SameKey(const Cursor& cursor, IntegerKey first, const KeyValueRef& first_record) const {
    if (keys_.integer_width() == 0) return keys_.Compare(cursor.current(), first_record) == 0;
    return cursor.key.null == first.null && (first.null || cursor.key.value == first.value);
  }

  void PointAtKeyColumn(Cursor* cursor) const {
    if (keys_.integer_width() == 0) return;
    const arrow::ArrayData& data = *cursor->batch->column(keys_.integer_column()).data();
    cursor->key_values = data.GetValues<uint8_t>(1, data.offset * keys_.integer_width());
    cursor->key_validity =
        data.null_count != 0 && data.buffers[0] ? data.buffers[0]->data() : nullptr;
    cursor->key_offset = data.offset;
  }

  void LoadKey(Cursor* cursor) const {
    if (keys_.integer_width() == 0) return;
    const int64_t row = cursor->row;
    cursor->key.null = cursor->key_validity != nullptr &&
                       !arrow::bit_util::GetBit(cursor->key_validity, cursor->key_offset + row);
    if (keys_.integer_width() == 8) {
      int64_t value;
      std::memcpy(&value, cursor->key_values + row * 8, 8);
      cursor->key.value = value;
    } else {
      int32_t value;
      std::memcpy(&value, cursor->key_values + row * 4, 4);
      cursor->key.value = value;
    }
  }

  // Restores the heap order below position `i` (a binary min-heap of cursor indices). The top
  // cursor is moved on in place and sifted down once, rather than popped and pushed again.
  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    const size_t item = heap_[i];
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], item)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = item;
  }

  // Key, then sequence.field, then _SEQUENCE_NUMBER.
  int Order(const KeyValueRef& a, const KeyValueRef& b) const {
    int c = keys_.Compare(a, b);
    return c != 0 ? c : OrderOfVersions(a, b);
  }

  // Versions of one key: sequence.field, then _SEQUENCE_NUMBER.
  int OrderOfVersions(const KeyValueRef& a, const KeyValueRef& b) const {
    int c = user_sequence_.Compare(a, b);
    if (c != 0) return c;
    return a.sequence() < b.sequence() ? -1 : (a.sequence() > b.sequence() ? 1 : 0);
  }

  // Loads the cursor's next non-empty batch; false at the end of its run.
  Result<bool> LoadBatch(Cursor* cursor) {
    do {
      FRESHET_ASSIGN_OR_RETURN(cursor->batch, cursor->reader->Next());
    } while (cursor->batch != nullptr && cursor->batch->num_rows() == 0);
    cursor->row = 0;
    if (cursor->batch == nullptr) return false;
    PointAtKeyColumn(cursor);
    LoadKey(cursor);
    return true;
  }

  // Moves the cursor one record on; the batch it leaves stays pinned until the key is merged.
  Result<bool> Advance(Cursor* cursor) {
    if (++cursor->row < cursor->batch->num_rows()) {
      LoadKey(cursor);
      return true;
    }
    pinned_.push_back(cursor->batch);
    return LoadBatch(cursor);
  }

  Status MergeNextKey() {
    versions_.clear();
    levels_.clear();
    const IntegerKey first = cursors_[heap_.front()].key;
    do {
      size_t index = heap_.front();
      Cursor& cursor = cursors_[index];
      versions_.push_back(cursor.current());
      levels_.push_back(options_.run_levels[index]);
      FRESHET_ASSIGN_OR_RETURN(bool more, Advance(&cursor));
      if (!more) {
        heap_.front() = heap_.back();
        heap_.pop_back();
      }
      if (!heap_.empty()) SiftDown(0);
    } while (!heap_.empty() && SameKey(cursors_[heap_.front()], first, versions_[0]));

    Status status = MergeVersions();
    pinned_.clear();
    return status;
  }

  Status MergeVersions() {
    if (options_.key_merger) return options_.key_merger->Merge(versions_, levels_, &builder_);
    const std::vector<KeyValueRef>* inputs = &versions_;
    if (options_.lookup_levels && versions_.size() > 1 && merge_) {
      // Java wraps the merge function: even one picked version goes through it.
      PickLookupVersions(versions_, levels_, &picked_);
      inputs = &picked_;
    } else if (versions_.size() == 1 || !merge_) {
      // A single version keeps its own kind (Java's ReducerMergeFunctionWrapper).
      for (const KeyValueRef& version : versions_) {
        FRESHET_RETURN_NOT_OK(builder_.AppendRow(version, version.kind()));
      }
      return Status::OK();
    }
    merge_->Reset();
    for (const KeyValueRef& version : *inputs) FRESHET_RETURN_NOT_OK(merge_->Add(version));
    return merge_->Finish(&builder_);
  }

  const MergeLayout& layout_;
  std::unique_ptr<MergeFunction> merge_;
  SortMergeOptions options_;
  RowComparator keys_;
  RowComparator user_sequence_;
  std::vector<Cursor> cursors_;
  std::vector<size_t> heap_;  // cursors with a record, the first record's cursor in front
  std::vector<KeyValueRef> versions_;
  std::vector<int32_t> levels_;  // of versions_
  std::vector<KeyValueRef> picked_;
  std::vector<std::shared_ptr<MergeBatch>> pinned_;
  MergeBatchBuilder builder_;
};

int PickLookupVersions(const std::vector<KeyValueRef>& versions, const std::vector<int32_t>& levels,
                       std::vector<KeyValueRef>* picked) {
  int high = -1;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (levels[i] > 0 && (high < 0 || levels[i] < levels[static_cast<size_t>(high)])) {
      high = static_cast<int>(i);
    }
  }
  picked->clear();
  for (size_t i = 0; i < versions.size(); ++i) {
    if (levels[i] <= 0 || static_cast<int>(i) == high) picked->push_back(versions[i]);
  }
  return high;
}

Result<std::unique_ptr<SortMergeReader>> SortMergeReader::Make(
    const MergeLayout& layout, std::vector<std::unique_ptr<MergeBatchReader>> runs,
    std::unique_ptr<MergeFunction> merge, int64_t batch_size) {
  SortMergeOptions options;
  options.batch_size = batch_size;
  return Make(layout, std::move(runs), std::move(merge), std::move(options));
}

Result<std::unique_ptr<SortMergeReader>> SortMergeReader::Make(
    const MergeLayout& layout, std::vector<std::unique_ptr<MergeBatchReader>> runs,
    std::unique_ptr<MergeFunction> merge, SortMergeOptions options) {
  if (options.batch_size < 1) {
    return Status::Invalid("merge batch size ", options.batch_size, " < 1");
  }
  if (!options.run_levels.empty() && options.run_levels.size() != runs.size()) {
    return Status::Invalid("merge of ", runs.size(), " runs given ", options.run_levels.size(),
                           " levels");
  }
  const arrow::Schema& schema = *layout.arrow_schema();
  FRESHET_ASSIGN_OR_RETURN(RowComparator keys, RowComparator::Make(schema, layout.key_columns()));
  FRESHET_ASSIGN_OR_RETURN(RowComparator user_sequence,
                           RowComparator::Make(schema, layout.user_sequence_columns(),
                                               layout.user_sequence_descending()));
  auto impl = std::make_unique<Impl>(layout, std::move(runs), std::move(merge), std::move(options),
                                     std::move(keys), std::move(user_sequence));
  FRESHET_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<SortMergeReader>(new SortMergeReader(std::move(impl)));
}

SortMergeReader::SortMergeReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SortMergeReader::~SortMergeReader() = default;

Result<std::shared_ptr<MergeBatch>> SortMergeReader::Next() { return impl_->Next(); }

}  // namespace freshet::mergetree
