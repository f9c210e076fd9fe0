// The public Table / TableWriter / TableReader API, on top of the internal layers.
#include "freshet/table.h"

#include "freshet/realtime/realtime_context.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <chrono>

#include "bridge/arrow_schema.h"
#include "catalog/filesystem_catalog.h"
#include "commit/file_store_commit.h"
#include "common/arrow_status.h"
#include "common/uuid.h"
#include "meta/partition/partition_path.h"
#include "meta/schema/schema_manager.h"
#include "meta/schema/schema_spec_json.h"
#include "read/table_read.h"
#include "realtime/context.h"
#include "realtime/realtime_scan.h"
#include "realtime/realtime_write.h"
#include "scan/table_scan.h"
#include "write/append_table_write.h"
#include "write/row_keys.h"

namespace freshet {

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Checks that `batch` has the table's columns (names and types, in order) and returns it with
// the table's own Arrow schema, whose field metadata carries the Paimon field ids.
Result<std::shared_ptr<arrow::RecordBatch>> ConformToTable(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::shared_ptr<arrow::Schema>& table) {
  const arrow::Schema& given = *batch->schema();
  if (given.num_fields() != table->num_fields()) {
    return Status::Invalid("the batch has ", given.num_fields(), " columns, the table has ",
                           table->num_fields(), " (", table->ToString(), ")");
  }
  for (int i = 0; i < table->num_fields(); ++i) {
    const auto& want = table->field(i);
    const auto& got = given.field(i);
    if (got->name() != want->name() || !got->type()->Equals(*want->type(), false)) {
      return Status::Invalid("column ", i, " of the batch is '", got->name(), "' ",
                             got->type()->ToString(), ", the table expects '", want->name(), "' ",
                             want->type()->ToString());
    }
  }
  return arrow::RecordBatch::Make(table, batch->num_rows(), batch->columns());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
class Table::Impl {
 public:
  std::shared_ptr<io::FileIO> file_io = io::LocalFileIO();
  std::string path;
  std::optional<meta::TableSchema> schema;
  std::shared_ptr<arrow::Schema> arrow_schema;
  // Set when realtime.enabled: shared by every Table of this path in the process.
  std::shared_ptr<realtime::RealtimeContext> realtime;
};

Table::Table(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Table::~Table() = default;

Result<std::shared_ptr<Table>> Table::Open(const std::string& path) {
  FRESHET_RETURN_NOT_OK(catalog::CheckTablePath(path));
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  FRESHET_ASSIGN_OR_RETURN(catalog::TableInfo info, catalog::LoadTable(impl->file_io, path));
  impl->schema = std::move(info.schema);
  FRESHET_ASSIGN_OR_RETURN(impl->arrow_schema, bridge::ToArrowSchema(impl->schema->fields()));
  FRESHET_ASSIGN_OR_RETURN(auto realtime_options,
                           realtime::RealtimeOptions::FromTableOptions(impl->schema->options()));
  if (realtime_options.enabled) {
    FRESHET_ASSIGN_OR_RETURN(impl->realtime, realtime::RealtimeContext::Impl::ForTable(
                                                 impl->file_io, path, *impl->schema));
  }
  return std::shared_ptr<Table>(new Table(std::move(impl)));
}

Result<std::shared_ptr<Table>> Table::Create(const std::string& path,
                                             const std::string& schema_spec_json,
                                             bool ignore_if_exists) {
  FRESHET_RETURN_NOT_OK(catalog::CheckNewTablePath(path));
  FRESHET_ASSIGN_OR_RETURN(meta::SchemaSpec spec,
                           meta::SchemaSpecFromJson(schema_spec_json, "schema"));
  FRESHET_RETURN_NOT_OK(meta::CoreOptions::Make(spec.options, !spec.primary_keys.empty()).status());
  meta::SchemaManager schemas(io::LocalFileIO(), path);
  Result<meta::TableSchema> created = schemas.CreateTable(std::move(spec), NowMillis());
  if (!created.ok() && !(created.status().IsAlreadyExists() && ignore_if_exists)) {
    return created.status();
  }
  return Open(path);
}

const std::string& Table::path() const { return impl_->path; }

std::string Table::SchemaJson() const { return impl_->schema->ToJson(); }

Status Table::ExportArrowSchema(ArrowSchema* out) const {
  return FromArrowStatus(arrow::ExportSchema(*impl_->arrow_schema, out));
}

Result<std::shared_ptr<realtime::RealtimeContext>> Table::Realtime() const {
  if (!impl_->realtime) {
    return Status::Invalid("table '", impl_->path,
                           "' does not have the option realtime.enabled = true");
  }
  return impl_->realtime;
}

Result<std::vector<SnapshotInfo>> Table::Snapshots() const {
  meta::SnapshotManager snapshots(impl_->file_io, impl_->path);
  FRESHET_ASSIGN_OR_RETURN(auto ids, snapshots.ListSnapshotIds());
  std::vector<SnapshotInfo> out;
  for (int64_t id : ids) {
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot s, snapshots.ReadSnapshot(id));
    out.push_back(SnapshotInfo{s.id, meta::CommitKindName(s.commit_kind), s.time_millis,
                               s.total_record_count.value_or(0)});
  }
  return out;
}

Result<RowRouting> Table::RouteRows(const ArrowArray* array, const ArrowSchema* schema) const {
  if (array == nullptr || schema == nullptr || array->release == nullptr ||
      schema->release == nullptr) {
    return Status::Invalid("RouteRows: the array or schema is null or released");
  }
  // Import shallow copies whose release does nothing: the caller keeps ownership, and nothing
  // imported outlives this call.
  ArrowArray borrowed_array = *array;
  ArrowSchema borrowed_schema = *schema;
  borrowed_array.release = [](ArrowArray* a) { a->release = nullptr; };
  borrowed_schema.release = [](ArrowSchema* s) { s->release = nullptr; };
  auto imported = arrow::ImportRecordBatch(&borrowed_array, &borrowed_schema);
  if (!imported.ok()) return FromArrowStatus(imported.status()).WithContext("RouteRows");
  FRESHET_ASSIGN_OR_RETURN(auto batch, ConformToTable(*imported, impl_->arrow_schema));
  FRESHET_ASSIGN_OR_RETURN(auto extractor, write::RowKeyExtractor::Make(*impl_->schema));
  FRESHET_ASSIGN_OR_RETURN(write::RowKeys keys, extractor.Extract(*batch));
  FRESHET_ASSIGN_OR_RETURN(auto naming,
                           meta::PartitionNaming::FromOptions(impl_->schema->options()));
  RowRouting routing;
  routing.of_row.reserve(keys.bucket_of_row.size());
  std::map<std::pair<int32_t, int32_t>, int32_t> index;  // (partition, bucket) -> position
  for (size_t row = 0; row < keys.bucket_of_row.size(); ++row) {
    std::pair<int32_t, int32_t> key{keys.partition_of_row[row], keys.bucket_of_row[row]};
    auto [it, added] = index.try_emplace(key, static_cast<int32_t>(index.size()));
    if (added) {
      FRESHET_ASSIGN_OR_RETURN(auto values,
                               meta::PartitionSpec(keys.partitions[key.first],
                                                   impl_->schema->PartitionFields(), naming));
      routing.partition_buckets.push_back(PartitionBucketId{std::move(values), key.second});
    }
    routing.of_row.push_back(it->second);
  }
  return routing;
}

// ---------------------------------------------------------------------------------------------
class TableWriter::Impl {
 public:
  std::shared_ptr<arrow::Schema> arrow_schema;
  // realtime.enabled: rows go to the shared context; otherwise straight to files.
  std::shared_ptr<realtime::RealtimeContext> realtime;
  std::unique_ptr<write::AppendTableWrite> write;
  std::optional<commit::FileStoreCommit> committer;
  // Files prepared by a Commit() that failed; the next Commit() or Abort() takes them.
  std::vector<meta::CommitMessage> pending;
};

TableWriter::TableWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableWriter::~TableWriter() = default;

Result<std::unique_ptr<TableWriter>> Table::NewWriter() const {
  auto impl = std::make_unique<TableWriter::Impl>();
  impl->arrow_schema = impl_->arrow_schema;
  if (impl_->realtime) {
    impl->realtime = impl_->realtime;
    return std::unique_ptr<TableWriter>(new TableWriter(std::move(impl)));
  }
  FRESHET_ASSIGN_OR_RETURN(
      impl->write, write::AppendTableWrite::Make(impl_->file_io, impl_->path, *impl_->schema));
  FRESHET_ASSIGN_OR_RETURN(
      auto options,
      meta::CoreOptions::Make(impl_->schema->options(), !impl_->schema->primary_keys().empty()));
  // Refuse before any data file is written rather than at Commit().
  FRESHET_RETURN_NOT_OK(commit::FileStoreCommit::CheckCommitSupported(options));
  impl->committer.emplace(impl_->file_io, impl_->path, *impl_->schema, std::move(options),
                          RandomUuid());
  return std::unique_ptr<TableWriter>(new TableWriter(std::move(impl)));
}

Status TableWriter::Write(ArrowArray* array, ArrowSchema* schema) {
  return WriteWithOffsets(array, schema, nullptr);
}

Status TableWriter::WriteWithOffsets(ArrowArray* array, ArrowSchema* schema,
                                     const int64_t* offsets) {
  return WriteWithOffsets(array, schema, offsets, OffsetMode::kStrict).status();
}

Result<WriteStats> TableWriter::WriteWithOffsets(ArrowArray* array, ArrowSchema* schema,
                                                 const int64_t* offsets, OffsetMode mode) {
  auto imported = arrow::ImportRecordBatch(array, schema);
  if (!imported.ok()) return FromArrowStatus(imported.status()).WithContext("Write");
  FRESHET_ASSIGN_OR_RETURN(auto batch, ConformToTable(*imported, impl_->arrow_schema));
  if (impl_->realtime) return InternalImpl(*impl_->realtime).write().Write(batch, offsets, mode);
  if (offsets) {
    return Status::Invalid("offsets are for tables with realtime.enabled = true");
  }
  FRESHET_RETURN_NOT_OK(impl_->write->Write(*batch));
  return WriteStats{batch->num_rows(), 0};
}

Result<std::optional<int64_t>> TableWriter::Commit(const CommitOptions& options) {
  if (impl_->realtime) {
    return InternalImpl(*impl_->realtime).write().PrepareAndCommit(options);
  }
  FRESHET_ASSIGN_OR_RETURN(auto messages, impl_->write->PrepareCommit());
  impl_->pending.insert(impl_->pending.end(), messages.begin(), messages.end());
  commit::CommitRequest request;
  request.messages = impl_->pending;
  request.overwrite = options.overwrite || options.overwrite_all;
  request.overwrite_all = options.overwrite_all;
  request.properties = options.properties;
  FRESHET_ASSIGN_OR_RETURN(commit::CommitResult result, impl_->committer->Commit(request));
  impl_->pending.clear();
  return result.snapshot_id;
}

Status TableWriter::Abort() {
  if (impl_->realtime) return InternalImpl(*impl_->realtime).write().AbortPrepared();
  Status st = impl_->write->Abort(impl_->pending);
  impl_->pending.clear();
  return st;
}

// ---------------------------------------------------------------------------------------------
class TableReader::Impl {
 public:
  std::optional<int64_t> snapshot_id;
  std::optional<read::TableRead> read;
  std::optional<realtime::RealtimeScanPlan> realtime_plan;  // pins uncommitted rows
  std::unique_ptr<read::BatchReader> reader;
};

TableReader::TableReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableReader::~TableReader() = default;

Result<std::unique_ptr<TableReader>> Table::NewReader(const ReadOptions& options) const {
  auto impl = std::make_unique<TableReader::Impl>();
  scan::TableScan scan(impl_->file_io, impl_->path);
  scan::ScanOptions scan_options;
  scan_options.snapshot_id = options.snapshot_id;
  scan_options.timestamp_millis = options.timestamp_millis;
  // Time travel reads with the schema the snapshot was written with, as Java does. The snapshot
  // is resolved first so that the filter binds to that schema before the scan prunes with it.
  meta::TableSchema schema = *impl_->schema;
  if (options.snapshot_id || options.timestamp_millis) {
    FRESHET_ASSIGN_OR_RETURN(auto snapshot, scan.ResolveSnapshot(scan_options));
    if (snapshot) {
      meta::SchemaManager schemas(impl_->file_io, impl_->path);
      FRESHET_ASSIGN_OR_RETURN(schema, schemas.ReadSchema(snapshot->schema_id));
      scan_options.snapshot_id = snapshot->id;
      scan_options.timestamp_millis.reset();
    }
  }
  std::shared_ptr<const scan::Predicate> predicate;
  if (!options.filter.empty()) {
    FRESHET_ASSIGN_OR_RETURN(scan::Predicate bound, scan::MakePredicate(options.filter, schema));
    predicate = std::make_shared<const scan::Predicate>(std::move(bound));
  }
  scan_options.predicate = predicate;
  read::ReadOptions read_options;
  read_options.projection = options.columns;
  read_options.batch_size = options.batch_size;
  read_options.predicate = predicate;
  FRESHET_ASSIGN_OR_RETURN(
      auto table_read, read::TableRead::Make(impl_->file_io, impl_->path, schema, read_options));
  impl->read.emplace(std::move(table_read));
  bool time_travel = options.snapshot_id || options.timestamp_millis;
  if (impl_->realtime && options.include_uncommitted && !time_travel) {
    FRESHET_ASSIGN_OR_RETURN(impl->realtime_plan,
                             realtime::PlanRealtimeScan(impl_->realtime, scan_options));
    if (impl->realtime_plan->snapshot) impl->snapshot_id = impl->realtime_plan->snapshot->id;
    FRESHET_ASSIGN_OR_RETURN(impl->reader,
                             realtime::CreateRealtimeReader(*impl->read, *impl->realtime_plan));
    return std::unique_ptr<TableReader>(new TableReader(std::move(impl)));
  }
  FRESHET_ASSIGN_OR_RETURN(scan::ScanPlan plan, scan.Plan(scan_options));
  if (plan.snapshot) impl->snapshot_id = plan.snapshot->id;
  FRESHET_ASSIGN_OR_RETURN(impl->reader, impl->read->CreateReader(std::move(plan.splits)));
  return std::unique_ptr<TableReader>(new TableReader(std::move(impl)));
}

Status TableReader::ExportArrowSchema(ArrowSchema* out) const {
  return FromArrowStatus(arrow::ExportSchema(*impl_->read->output_schema(), out));
}

Result<bool> TableReader::Next(ArrowArray* out) {
  FRESHET_ASSIGN_OR_RETURN(auto batch, impl_->reader->Next());
  if (!batch) return false;
  FRESHET_RETURN_NOT_OK(FromArrowStatus(arrow::ExportRecordBatch(*batch, out)));
  return true;
}

std::optional<int64_t> TableReader::snapshot_id() const { return impl_->snapshot_id; }

namespace {

// A TableReader as an arrow::RecordBatchReader, which Arrow exports as a C stream.
class TableBatchReader : public arrow::RecordBatchReader {
 public:
  TableBatchReader(std::unique_ptr<TableReader> reader, std::shared_ptr<arrow::Schema> schema)
      : reader_(std::move(reader)), schema_(std::move(schema)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    ArrowArray array;
    Result<bool> more = reader_->Next(&array);
    if (!more.ok()) return arrow::Status::IOError(more.status().ToString());
    if (!*more) {
      batch->reset();
      return arrow::Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(*batch, arrow::ImportRecordBatch(&array, schema_));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<TableReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
};

}  // namespace

Status TableReader::ExportArrowStream(std::unique_ptr<TableReader> reader, ArrowArrayStream* out) {
  if (!reader) return Status::Invalid("ExportArrowStream: no reader");
  std::shared_ptr<arrow::Schema> schema = reader->impl_->read->output_schema();
  auto batches = std::make_shared<TableBatchReader>(std::move(reader), std::move(schema));
  return FromArrowStatus(arrow::ExportRecordBatchReader(batches, out));
}

}  // namespace freshet
