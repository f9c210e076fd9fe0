#include "write/sort_buffer.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/util/byte_size.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <system_error>

#include "common/arrow_status.h"
#include "common/uuid.h"

namespace freshet::write {

namespace fs = std::filesystem;
using mergetree::KeyValueRef;
using mergetree::MergeBatch;
using mergetree::MergeBatchReader;

namespace {

// The memory records in sorted order, copied into batches of kRunBatchRows records (the
// builder copies consecutive records of one batch as one slice).
class SortedRunReader : public MergeBatchReader {
 public:
  struct Position {
    uint32_t batch;
    int64_t row;
  };

  SortedRunReader(const mergetree::MergeLayout& layout,
                  std::vector<std::shared_ptr<MergeBatch>> batches, std::vector<Position> order,
                  int64_t batch_rows)
      : batches_(std::move(batches)),
        order_(std::move(order)),
        batch_rows_(static_cast<size_t>(batch_rows)),
        builder_(layout) {}

  Result<std::shared_ptr<MergeBatch>> Next() override {
    size_t end = std::min(order_.size(), next_ + batch_rows_);
    for (; next_ < end; ++next_) {
      const Position& p = order_[next_];
      KeyValueRef ref{batches_[p.batch].get(), p.row};
      FRESHET_RETURN_NOT_OK(builder_.AppendRow(ref, ref.kind()));
    }
    return builder_.Finish();
  }

 private:
  std::vector<std::shared_ptr<MergeBatch>> batches_;
  std::vector<Position> order_;
  size_t batch_rows_;
  size_t next_ = 0;
  mergetree::MergeBatchBuilder builder_;
};

// A spilled run, read back batch by batch.
class SpilledRunReader : public MergeBatchReader {
 public:
  static Result<std::unique_ptr<MergeBatchReader>> Open(const std::string& path,
                                                        const mergetree::MergeLayout& layout) {
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto file, arrow::io::ReadableFile::Open(path));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto reader, arrow::ipc::RecordBatchStreamReader::Open(file));
    return std::unique_ptr<MergeBatchReader>(new SpilledRunReader(std::move(reader), layout));
  }

  Result<std::shared_ptr<MergeBatch>> Next() override {
    std::shared_ptr<arrow::RecordBatch> batch;
    FRESHET_RETURN_NOT_OK_ARROW(reader_->ReadNext(&batch));
    if (!batch) return std::shared_ptr<MergeBatch>();
    return MergeBatch::Make(std::move(batch), layout_);
  }

 private:
  SpilledRunReader(std::shared_ptr<arrow::RecordBatchReader> reader,
                   const mergetree::MergeLayout& layout)
      : reader_(std::move(reader)), layout_(layout) {}

  std::shared_ptr<arrow::RecordBatchReader> reader_;
  const mergetree::MergeLayout& layout_;
};

void RemoveQuietly(const std::string& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
}

}  // namespace

SpillDirectory::~SpillDirectory() {
  if (path_.empty()) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

Result<std::string> SpillDirectory::NewFile() {
  if (path_.empty()) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) return Status::IOError("no temporary directory for spill files: ", ec.message());
    fs::path dir = base / ("freshet-sort-" + RandomUuid());
    fs::create_directories(dir, ec);
    if (ec) {
      return Status::IOError("cannot create spill directory '", dir.string(), "': ", ec.message());
    }
    path_ = dir.string();
  }
  return path_ + "/run-" + std::to_string(next_++) + ".arrows";
}

Result<RecordOrder> RecordOrder::Make(const mergetree::MergeLayout& layout) {
  RecordOrder order;
  const arrow::Schema& schema = *layout.arrow_schema();
  FRESHET_ASSIGN_OR_RETURN(order.keys_,
                           mergetree::RowComparator::Make(schema, layout.key_columns()));
  FRESHET_ASSIGN_OR_RETURN(order.user_sequence_,
                           mergetree::RowComparator::Make(schema, layout.user_sequence_columns(),
                                                          layout.user_sequence_descending()));
  return order;
}

bool RecordOrder::Less(const MergeBatch& a, int64_t a_row, const MergeBatch& b,
                       int64_t b_row) const {
  int c = keys_.Compare(a, a_row, b, b_row);
  if (c == 0) c = user_sequence_.Compare(a, a_row, b, b_row);
  if (c != 0) return c < 0;
  return a.sequence(a_row) < b.sequence(b_row);
}

SortBuffer::SortBuffer(const mergetree::MergeLayout* layout, const RecordOrder* order,
                       SpillDirectory* spill, int64_t run_batch_bytes)
    : layout_(layout), order_(order), spill_(spill), run_batch_bytes_(run_batch_bytes) {}

SortBuffer::~SortBuffer() { Clear(); }

void SortBuffer::Add(std::shared_ptr<MergeBatch> batch) {
  memory_bytes_ += arrow::util::TotalBufferSize(*batch->batch());
  batches_.push_back(std::move(batch));
}

namespace {

using Position = SortedRunReader::Position;

// A record's integer key beside its place in the buffer, for a sort that neither calls a
// comparator nor reaches into the batches (spread over a buffer of hundreds of MiB, that missed
// the cache on almost every comparison).
struct KeyedRecord {
  uint64_t key;    // the signed key with its sign bit flipped: unsigned order is signed order
  uint64_t place;  // batch index << 32 | row: the write order
};

// Appends the batch's records; false if a sequence number is not above the one before it.
template <typename Int>
bool AppendKeyedRecords(const MergeBatch& batch, int key_column, uint64_t batch_index,
                        int64_t* last_sequence, std::vector<KeyedRecord>* out) {
  const Int* keys = batch.column(key_column).data()->GetValues<Int>(1);
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    if (batch.sequence(row) <= *last_sequence) return false;
    *last_sequence = batch.sequence(row);
    const auto key = static_cast<uint64_t>(static_cast<int64_t>(keys[row]));
    out->push_back({key ^ (uint64_t{1} << 63), batch_index << 32 | static_cast<uint64_t>(row)});
  }
  return true;
}

// Sorts by key, records of one key kept in their order: a least-significant-byte-first radix
// sort, skipping the bytes every key shares (most, for keys of a narrow range).
void RadixSortByKey(std::vector<KeyedRecord>* records) {
  const size_t n = records->size();
  if (n < 2) return;
  std::array<std::array<size_t, 256>, 8> counts{};
  for (const KeyedRecord& r : *records) {
    for (int b = 0; b < 8; ++b) ++counts[b][(r.key >> (8 * b)) & 0xff];
  }
  std::vector<KeyedRecord> scratch(n);
  KeyedRecord* from = records->data();
  KeyedRecord* to = scratch.data();
  for (int b = 0; b < 8; ++b) {
    if (counts[b][(from[0].key >> (8 * b)) & 0xff] == n) continue;
    std::array<size_t, 256> next;
    size_t sum = 0;
    for (int digit = 0; digit < 256; ++digit) {
      next[digit] = sum;
      sum += counts[b][digit];
    }
    for (size_t i = 0; i < n; ++i) to[next[(from[i].key >> (8 * b)) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != records->data()) records->swap(scratch);
}

// The records of `batches` sorted by (integer key, sequence number), if `order` is such an order,
// no key is null (a primary key never is) and sequence numbers ascend in write order (as Add
// takes them), so that a stable sort by key orders the versions of a key; nullopt otherwise.
// `newest_only`: the last version of each key alone.
std::optional<std::vector<Position>> SortByIntegerKey(
    const RecordOrder& order, const std::vector<std::shared_ptr<MergeBatch>>& batches,
    bool newest_only) {
  const int width = order.integer_key_width();
  const int column = order.integer_key_column();
  if (width == 0) return std::nullopt;
  int64_t rows = 0;
  for (const auto& batch : batches) {
    if (batch->column(column).null_count() != 0 || batch->num_rows() > UINT32_MAX) {
      return std::nullopt;
    }
    rows += batch->num_rows();
  }
  std::vector<KeyedRecord> keyed;
  keyed.reserve(static_cast<size_t>(rows));
  int64_t last_sequence = INT64_MIN;
  for (size_t b = 0; b < batches.size(); ++b) {
    bool ascending =
        width == 8 ? AppendKeyedRecords<int64_t>(*batches[b], column, b, &last_sequence, &keyed)
                   : AppendKeyedRecords<int32_t>(*batches[b], column, b, &last_sequence, &keyed);
    if (!ascending) return std::nullopt;
  }
  RadixSortByKey(&keyed);
  std::vector<Position> positions;
  positions.reserve(keyed.size());
  for (size_t i = 0; i < keyed.size(); ++i) {
    const KeyedRecord& k = keyed[i];
    if (newest_only && i + 1 < keyed.size() && keyed[i + 1].key == k.key) continue;
    positions.push_back(
        {static_cast<uint32_t>(k.place >> 32), static_cast<int64_t>(k.place & UINT32_MAX)});
  }
  return positions;
}

}  // namespace

std::unique_ptr<MergeBatchReader> SortedRun(const mergetree::MergeLayout& layout,
                                            const RecordOrder& order,
                                            std::vector<std::shared_ptr<MergeBatch>> batches,
                                            int64_t batch_rows) {
  std::vector<Position> positions;
  if (auto sorted = SortByIntegerKey(order, batches, false)) {
    positions = std::move(*sorted);
  } else {
    for (size_t b = 0; b < batches.size(); ++b) {
      for (int64_t row = 0; row < batches[b]->num_rows(); ++row) {
        positions.push_back({static_cast<uint32_t>(b), row});
      }
    }
    std::sort(positions.begin(), positions.end(), [&](const auto& x, const auto& y) {
      return order.Less(*batches[x.batch], x.row, *batches[y.batch], y.row);
    });
  }
  return std::make_unique<SortedRunReader>(layout, std::move(batches), std::move(positions),
                                           batch_rows);
}

std::unique_ptr<MergeBatchReader> SortedRunOfNewestVersions(
    const mergetree::MergeLayout& layout, const RecordOrder& order,
    std::vector<std::shared_ptr<MergeBatch>> batches, int64_t batch_rows) {
  auto sorted = SortByIntegerKey(order, batches, true);
  if (!sorted) return nullptr;
  return std::make_unique<SortedRunReader>(layout, std::move(batches), std::move(*sorted),
                                           batch_rows);
}

std::unique_ptr<MergeBatchReader> SortBuffer::NewestVersionsRun() const {
  if (!spilled_.empty()) return nullptr;
  return SortedRunOfNewestVersions(*layout_, *order_, batches_, kRunBatchRows);
}

std::unique_ptr<MergeBatchReader> SortBuffer::MemoryRun(int64_t batch_rows) const {
  return SortedRun(*layout_, *order_, batches_, batch_rows);
}

Status SortBuffer::WriteRun(MergeBatchReader* run, const std::string& path) const {
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto out, arrow::io::FileOutputStream::Open(path));
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto writer,
                                 arrow::ipc::MakeStreamWriter(out, layout_->arrow_schema()));
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, run->Next());
    if (!batch) break;
    FRESHET_RETURN_NOT_OK_ARROW(writer->WriteRecordBatch(*batch->batch()));
  }
  FRESHET_RETURN_NOT_OK_ARROW(writer->Close());
  return FromArrowStatus(out->Close());
}

Status SortBuffer::Spill() {
  if (spill_ == nullptr) return Status::Invalid("this write buffer is not spillable");
  if (batches_.empty()) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(std::string path, spill_->NewFile());
  // Batches of about run_batch_bytes_, from the records' average size.
  int64_t rows = 0;
  for (const auto& batch : batches_) rows += batch->num_rows();
  int64_t record_bytes = std::max<int64_t>(1, memory_bytes_ / std::max<int64_t>(1, rows));
  spill_batch_rows_ = std::clamp<int64_t>(run_batch_bytes_ / record_bytes, 1, kRunBatchRows);
  Status written = WriteRun(MemoryRun(spill_batch_rows_).get(), path);
  if (!written.ok()) {
    RemoveQuietly(path);
    return written.WithContext("spilling the write buffer to '" + path + "'");
  }
  spilled_.push_back(std::move(path));
  batches_.clear();
  memory_bytes_ = 0;
  if (static_cast<int>(spilled_.size()) >= kMaxSpillRuns) return MergeSpilledRuns();
  return Status::OK();
}

Status SortBuffer::MergeSpilledRuns() {
  std::vector<std::unique_ptr<MergeBatchReader>> runs;
  for (const std::string& path : spilled_) {
    FRESHET_ASSIGN_OR_RETURN(auto run, SpilledRunReader::Open(path, *layout_));
    runs.push_back(std::move(run));
  }
  // Without a merge function every version is kept, in merge order: the flush merges them.
  FRESHET_ASSIGN_OR_RETURN(auto merged, mergetree::SortMergeReader::Make(
                                            *layout_, std::move(runs), nullptr, spill_batch_rows_));
  FRESHET_ASSIGN_OR_RETURN(std::string path, spill_->NewFile());
  Status written = WriteRun(merged.get(), path);
  if (!written.ok()) {
    RemoveQuietly(path);
    return written.WithContext("merging spilled runs into '" + path + "'");
  }
  for (const std::string& old : spilled_) RemoveQuietly(old);
  spilled_.assign(1, std::move(path));
  return Status::OK();
}

Result<std::vector<std::unique_ptr<MergeBatchReader>>> SortBuffer::Runs() const {
  std::vector<std::unique_ptr<MergeBatchReader>> runs;
  for (const std::string& path : spilled_) {
    FRESHET_ASSIGN_OR_RETURN(auto run, SpilledRunReader::Open(path, *layout_));
    runs.push_back(std::move(run));
  }
  if (!batches_.empty()) runs.push_back(MemoryRun());
  return runs;
}

void SortBuffer::Clear() {
  batches_.clear();
  memory_bytes_ = 0;
  for (const std::string& path : spilled_) RemoveQuietly(path);
  spilled_.clear();
}

}  // namespace freshet::write
