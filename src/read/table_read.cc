#include "read/table_read.h"

#include <arrow/api.h>

#include <algorithm>
#include <thread>

#include "bridge/arrow_schema.h"
#include "common/arrow_status.h"
#include "meta/options/option_registry.h"
#include "read/data_file_reader.h"
#include "read/predicate_filter.h"
#include "read/primary_key_read.h"
#include "read/split_prefetch.h"

namespace freshet::read {

namespace {

// Reads whose splits' files add up to less than this stay on the caller's thread: starting
// workers would cost more than they save (a point query, a real-time query of a few files).
constexpr int64_t kPrefetchMinBytes = 16 << 20;

// Workers of a prefetching read: one per core, at most 8 (each holds its files' read buffers and,
// for primary-key tables, a merge).
int PrefetchThreads() {
  return static_cast<int>(std::min(std::thread::hardware_concurrency(), 8u));
}

// The files of one split, one after another (append tables).
class SplitFilesReader : public format::ChainedBatchReader {
 public:
  SplitFilesReader(DataFileOpener* files, const scan::DataSplit* split,
                   const std::vector<meta::DataField>* fields)
      : files_(files), split_(split), fields_(fields) {}

 private:
  Result<std::unique_ptr<BatchReader>> OpenNext() override {
    if (file_ >= split_->files.size()) return std::unique_ptr<BatchReader>();
    return files_->Open(*split_, file_++, *fields_);
  }

  DataFileOpener* files_;
  const scan::DataSplit* split_;
  const std::vector<meta::DataField>* fields_;
  size_t file_ = 0;
};

// A split's reader with the file opener it reads through (destroyed after the reader).
class OwningSplitReader : public BatchReader {
 public:
  OwningSplitReader(std::unique_ptr<DataFileOpener> files, std::unique_ptr<BatchReader> reader)
      : files_(std::move(files)), reader_(std::move(reader)) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override { return reader_->Next(); }

 private:
  std::unique_ptr<DataFileOpener> files_;
  std::unique_ptr<BatchReader> reader_;
};

// Reads splits one after another, then the tail readers. Append tables concatenate a split's
// files; primary-key tables merge them (read/primary_key_read.h).
class SplitsReader : public format::ChainedBatchReader {
 public:
  using NewerRuns = std::vector<std::unique_ptr<mergetree::MergeBatchReader>>;

  SplitsReader(const TableRead* read, std::shared_ptr<io::FileIO> file_io,
               const meta::DataFilePaths* paths, std::vector<scan::DataSplit> splits,
               std::vector<std::unique_ptr<BatchReader>> tail, std::vector<NewerRuns> newer = {})
      : read_(read),
        file_io_(file_io),
        paths_(paths),
        files_(std::move(file_io), paths, read->schema_id(), read->options().batch_size),
        splits_(std::make_shared<std::vector<scan::DataSplit>>(std::move(splits))),
        tail_(std::move(tail)),
        newer_(std::move(newer)) {
    if (read->primary_key_plan()) files_.SelectKeys(read->options().key_selection);
    if (!read->options().parallel_decode) files_.DecodeOnReadingThread();
  }

 private:
  // The next split or tail reader; null at the end. The splits are read by workers ahead of the
  // caller when the read is large enough (read/split_prefetch.h).
  Result<std::unique_ptr<BatchReader>> OpenNext() override {
    if (split_ == 0 && Prefetches()) {
      split_ = splits_->size();
      return MakePrefetchingReader(
          splits_->size(),
          [read = read_, paths = paths_, file_io = file_io_, splits = splits_](size_t i) {
            return OpenOnWorker(read, paths, file_io, (*splits)[i]);
          },
          PrefetchOptions{PrefetchThreads(), read_->prefetch_memory()});
    }
    if (split_ < splits_->size()) {
      const scan::DataSplit& split = (*splits_)[split_];
      NewerRuns newer;
      if (split_ < newer_.size()) newer = std::move(newer_[split_]);
      ++split_;
      return OpenSplit(read_, &files_, split, std::move(newer));
    }
    if (tail_index_ < tail_.size()) return std::move(tail_[tail_index_++]);
    return std::unique_ptr<BatchReader>();
  }

  // Append tables concatenate a split's files; primary-key tables merge them.
  static Result<std::unique_ptr<BatchReader>> OpenSplit(const TableRead* read,
                                                        DataFileOpener* files,
                                                        const scan::DataSplit& split,
                                                        NewerRuns newer) {
    if (const PrimaryKeyReadPlan* plan = read->primary_key_plan()) {
      return ReadPrimaryKeySplit(*plan, files, split, read->options().batch_size, std::move(newer));
    }
    return std::unique_ptr<BatchReader>(new SplitFilesReader(files, &split, &read->read_fields()));
  }

  // A worker's reader of `split`, through a file opener of its own, decoding on its own thread
  // (the workers take the cores already). Static: the workers may outlive this object's members.
  static Result<std::unique_ptr<BatchReader>> OpenOnWorker(const TableRead* read,
                                                           const meta::DataFilePaths* paths,
                                                           std::shared_ptr<io::FileIO> file_io,
                                                           const scan::DataSplit& split) {
    auto files = std::make_unique<DataFileOpener>(std::move(file_io), paths, read->schema_id(),
                                                  read->options().batch_size);
    files->DecodeOnReadingThread();
    FRESHET_ASSIGN_OR_RETURN(auto reader, OpenSplit(read, files.get(), split, {}));
    return std::unique_ptr<BatchReader>(new OwningSplitReader(std::move(files), std::move(reader)));
  }

  // Workers read the splits when there are at least two, they hold enough bytes, the read is not
  // background work, and nothing of this process's memory merges into them (the real-time layer's
  // newer runs, read on the caller's thread) nor are keys selected from the decoded-file cache.
  bool Prefetches() const {
    const ReadOptions& options = read_->options();
    if (splits_->size() < 2 || read_->prefetch_memory() <= 0 || !options.parallel_decode ||
        options.key_selection || PrefetchThreads() < 2) {
      return false;
    }
    for (const NewerRuns& runs : newer_) {
      if (!runs.empty()) return false;
    }
    int64_t bytes = 0;
    for (const scan::DataSplit& split : *splits_) {
      for (const meta::DataFileMeta& file : split.files) bytes += file.file_size;
    }
    return bytes >= kPrefetchMinBytes;
  }

  // Filters rows by the predicate and drops the columns read only for it.
  Result<std::shared_ptr<arrow::RecordBatch>> Transform(
      std::shared_ptr<arrow::RecordBatch> batch) override {
    const auto& predicate = read_->options().predicate;
    if (!predicate) return batch;
    FRESHET_ASSIGN_OR_RETURN(batch, FilterBatch(*predicate, batch, read_->read_fields()));
    const auto& schema = read_->output_schema();
    if (batch->num_columns() == schema->num_fields()) return batch;
    std::vector<std::shared_ptr<arrow::Array>> columns(
        batch->columns().begin(), batch->columns().begin() + schema->num_fields());
    return arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(columns));
  }

  const TableRead* read_;
  std::shared_ptr<io::FileIO> file_io_;
  const meta::DataFilePaths* paths_;
  DataFileOpener files_;
  // Shared with the workers of a prefetching reader, which the base class may destroy after this.
  std::shared_ptr<std::vector<scan::DataSplit>> splits_;
  size_t split_ = 0;
  std::vector<std::unique_ptr<BatchReader>> tail_;
  size_t tail_index_ = 0;
  std::vector<NewerRuns> newer_;  // primary-key tables: newer_[i] merges into splits_[i]
};

}  // namespace

TableRead::TableRead(std::shared_ptr<io::FileIO> file_io, std::shared_ptr<const Layout> layout,
                     ReadOptions options)
    : file_io_(std::move(file_io)), layout_(std::move(layout)), options_(std::move(options)) {}

Result<TableRead> TableRead::Make(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                  const meta::TableSchema& schema, ReadOptions options) {
  std::vector<meta::DataField> fields = schema.fields();
  if (!options.projection.empty()) {
    std::vector<meta::DataField> projected;
    for (const std::string& name : options.projection) {
      int index = schema.FieldIndex(name);
      if (index < 0) {
        return Status::Invalid("column '", name, "' does not exist in table '", table_path, "'");
      }
      projected.push_back(fields[static_cast<size_t>(index)]);
    }
    fields = std::move(projected);
  }
  FRESHET_ASSIGN_OR_RETURN(auto output_schema, bridge::ToArrowSchema(fields));
  if (options.predicate) {
    for (const meta::DataField& f : options.predicate->Fields()) {
      bool present = false;
      for (const auto& have : fields) present = present || have.id == f.id;
      if (!present) fields.push_back(f);
    }
  }
  std::shared_ptr<const PrimaryKeyReadPlan> primary_key_plan;
  if (!schema.primary_keys().empty()) {
    FRESHET_ASSIGN_OR_RETURN(primary_key_plan, PrimaryKeyReadPlan::Make(schema, fields));
  }
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(std::move(table_path), schema));
  // The read's schema is the output's unless the predicate added columns.
  std::shared_ptr<arrow::Schema> read_schema = output_schema;
  if (static_cast<int>(fields.size()) != output_schema->num_fields()) {
    FRESHET_ASSIGN_OR_RETURN(read_schema, bridge::ToArrowSchema(fields));
  }
  FRESHET_ASSIGN_OR_RETURN(int64_t prefetch_memory,
                           meta::GetMemorySizeOption(schema.options(), "read.prefetch.max-memory"));
  auto layout = std::make_shared<const Layout>(
      Layout{schema.id(), std::move(paths), std::move(fields), std::move(read_schema),
             std::move(output_schema), std::move(primary_key_plan), prefetch_memory});
  return TableRead(std::move(file_io), std::move(layout), std::move(options));
}

TableRead TableRead::WithOptions(ReadOptions options) const {
  return TableRead(file_io_, layout_, std::move(options));
}

std::string TableRead::LayoutKey(const meta::TableSchema& schema, const ReadOptions& options) {
  std::string key = std::to_string(schema.id());
  for (const std::string& name : options.projection) key += '\n' + name;
  key += '\n';
  if (options.predicate) {
    for (const meta::DataField& f : options.predicate->Fields()) key += std::to_string(f.id) + ',';
  }
  return key;
}

Result<std::unique_ptr<BatchReader>> TableRead::CreateReader(const scan::DataSplit& split) const {
  return CreateReader(std::vector<scan::DataSplit>{split});
}

Result<std::unique_ptr<BatchReader>> TableRead::CreateReader(
    std::vector<scan::DataSplit> splits, std::vector<std::unique_ptr<BatchReader>> tail) const {
  if (layout_->primary_key_plan && !tail.empty()) {
    return Status::NotImplemented("memory rows of a primary-key table (the real-time layer)");
  }
  return std::unique_ptr<BatchReader>(
      new SplitsReader(this, file_io_, &layout_->paths, std::move(splits), std::move(tail)));
}

Result<std::unique_ptr<BatchReader>> TableRead::CreateMergingReader(
    std::vector<scan::DataSplit> splits,
    std::vector<std::vector<std::unique_ptr<mergetree::MergeBatchReader>>> newer_runs) const {
  if (!layout_->primary_key_plan) {
    return Status::Invalid("merging newer runs into splits needs a primary-key table");
  }
  if (newer_runs.size() != splits.size()) {
    return Status::Invalid(newer_runs.size(), " lists of newer runs for ", splits.size(),
                           " splits");
  }
  return std::unique_ptr<BatchReader>(new SplitsReader(
      this, file_io_, &layout_->paths, std::move(splits), {}, std::move(newer_runs)));
}

}  // namespace freshet::read
