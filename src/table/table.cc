// The public Table / TableWriter / TableReader API, on top of the internal layers.
#include "freshet/table.h"

#include "freshet/realtime/realtime_context.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "bridge/arrow_schema.h"
#include "bridge/schema_import.h"
#include "catalog/filesystem_catalog.h"
#include "commit/file_store_commit.h"
#include "commit/tag_expiration.h"
#include "common/arrow_status.h"
#include "common/uuid.h"
#include "compact/append_compactor.h"
#include "compact/merge_tree_compactor.h"
#include "compact/table_compaction.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"
#include "meta/partition/partition_path.h"
#include "meta/schema/schema_manager.h"
#include "meta/schema/schema_spec_json.h"
#include "meta/snapshot/snapshot_manager.h"
#include "meta/snapshot/tag_manager.h"
#include "read/table_read.h"
#include "realtime/context.h"
#include "realtime/realtime_scan.h"
#include "realtime/realtime_write.h"
#include "scan/table_scan.h"
#include "table/bound_read.h"
#include "table/table_impl.h"
#include "write/append_table_write.h"
#include "write/row_keys.h"
#include "write/row_kinds.h"
#include "write/table_write.h"

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
  // The common case in one comparison: the same fields (Arrow compares cached fingerprints).
  if (given.Equals(*table, /*check_metadata=*/false)) {
    return arrow::RecordBatch::Make(table, batch->num_rows(), batch->columns());
  }
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

// ConformToTable for a write: a primary-key table's batch may also hold the row kinds in a
// `_ROW_KIND` column (write/row_kinds.h), which then comes last.
Result<std::shared_ptr<arrow::RecordBatch>> ConformToWrite(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::shared_ptr<arrow::Schema>& table,
    bool takes_row_kinds) {
  int kinds = takes_row_kinds && table->GetFieldIndex(write::kRowKindColumn) < 0
                  ? batch->schema()->GetFieldIndex(write::kRowKindColumn)
                  : -1;
  if (kinds < 0) return ConformToTable(batch, table);
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto rest, batch->RemoveColumn(kinds));
  FRESHET_ASSIGN_OR_RETURN(auto conformed, ConformToTable(rest, table));
  FRESHET_ASSIGN_OR_RETURN_ARROW(
      auto out, conformed->AddColumn(conformed->num_columns(), batch->schema()->field(kinds),
                                     batch->column(kinds)));
  return out;
}

SnapshotInfo ToSnapshotInfo(const meta::Snapshot& s) {
  SnapshotInfo info;
  info.id = s.id;
  info.commit_kind = meta::CommitKindName(s.commit_kind);
  info.time_millis = s.time_millis;
  info.total_record_count = s.total_record_count.value_or(0);
  info.delta_record_count = s.delta_record_count.value_or(0);
  info.schema_id = s.schema_id;
  info.commit_user = s.commit_user;
  info.commit_identifier = s.commit_identifier;
  info.properties = s.properties;
  return info;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

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
  FRESHET_RETURN_NOT_OK(catalog::CheckNewTableSpec(spec));
  meta::SchemaManager schemas(io::LocalFileIO(), path);
  Result<meta::TableSchema> created = schemas.CreateTable(std::move(spec), NowMillis());
  if (!created.ok() && !(created.status().IsAlreadyExists() && ignore_if_exists)) {
    return created.status();
  }
  return Open(path);
}

const std::string& Table::path() const { return impl_->path; }

SchemaInfo Table::Schema() const {
  const meta::TableSchema& schema = *impl_->schema;
  SchemaInfo info;
  info.id = schema.id();
  for (const meta::DataField& f : schema.fields()) {
    info.fields.push_back(FieldInfo{f.id, f.name, f.type->ToString(), f.description});
  }
  info.partition_keys = schema.partition_keys();
  info.primary_keys = schema.primary_keys();
  info.options = schema.options();
  info.comment = schema.comment();
  return info;
}

std::string Table::SchemaJson() const { return impl_->schema->ToJson(); }

Result<std::string> Table::SchemaJson(int64_t schema_id) const {
  if (schema_id == impl_->schema->id()) return impl_->schema->ToJson();
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema,
                           meta::SchemaManager(impl_->file_io, impl_->path).ReadSchema(schema_id));
  return schema.ToJson();
}

Result<std::vector<std::pair<std::string, std::string>>> Table::Options() const {
  const meta::TableSchema& schema = *impl_->schema;
  FRESHET_ASSIGN_OR_RETURN(
      auto options, meta::CoreOptions::Make(schema.options(), !schema.primary_keys().empty()));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : options.Effective()) out.emplace_back(key, value);
  return out;
}

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
    out.push_back(ToSnapshotInfo(s));
  }
  return out;
}

Status Table::CreateTag(const std::string& name, std::optional<int64_t> snapshot_id,
                        const std::string& time_retained) const {
  FRESHET_RETURN_NOT_OK(meta::TagManager::ValidateName(name));
  meta::TagManager tags(impl_->file_io, impl_->path);
  std::optional<meta::Snapshot> snapshot;
  if (snapshot_id) {
    FRESHET_ASSIGN_OR_RETURN(snapshot, tags.FindSnapshot(*snapshot_id));
  } else {
    FRESHET_ASSIGN_OR_RETURN(snapshot,
                             meta::SnapshotManager(impl_->file_io, impl_->path).LatestSnapshot());
    if (!snapshot) {
      return Status::NotFound("cannot create tag '", name, "': table '", impl_->path,
                              "' has no snapshot yet");
    }
  }
  std::optional<int64_t> retained_millis;
  if (!time_retained.empty()) {
    auto parsed = meta::ParseDurationMillis(time_retained);
    if (!parsed.ok()) return parsed.status().WithContext("the tag's time retained");
    retained_millis = *parsed;
  } else {
    FRESHET_ASSIGN_OR_RETURN(
        auto configured, meta::LookupOption(impl_->schema->options(), "tag.default-time-retained"));
    if (configured) retained_millis = configured->number;
  }
  return tags.Create(name, *snapshot, retained_millis);
}

Status Table::DeleteTag(const std::string& name) const {
  return commit::DeleteTag(impl_->file_io, impl_->path, *impl_->schema, name);
}

Result<std::vector<TagInfo>> Table::Tags() const {
  FRESHET_ASSIGN_OR_RETURN(auto tags, meta::TagManager(impl_->file_io, impl_->path).List());
  std::vector<TagInfo> out;
  for (meta::Tag& tag : tags) {
    out.push_back(TagInfo{std::move(tag.name), ToSnapshotInfo(tag.snapshot),
                          std::move(tag.create_time), std::move(tag.time_retained)});
  }
  return out;
}

Result<std::vector<int64_t>> Table::SnapshotIds() const {
  return meta::SnapshotManager(impl_->file_io, impl_->path).ListSnapshotIds();
}

Result<SnapshotInfo> Table::Snapshot(int64_t id) const {
  FRESHET_ASSIGN_OR_RETURN(meta::Snapshot s,
                           meta::SnapshotManager(impl_->file_io, impl_->path).ReadSnapshot(id));
  return ToSnapshotInfo(s);
}

Result<std::vector<DataFileInfo>> Table::DataFiles(int64_t snapshot_id) const {
  const meta::TableSchema& schema = *impl_->schema;
  FRESHET_ASSIGN_OR_RETURN(
      meta::Snapshot snapshot,
      meta::SnapshotManager(impl_->file_io, impl_->path).ReadSnapshot(snapshot_id));
  FRESHET_ASSIGN_OR_RETURN(auto naming, meta::PartitionNaming::FromOptions(schema.options()));
  const std::vector<meta::DataField> partition_fields = schema.PartitionFields();
  std::vector<meta::DataField> key_fields;
  for (const std::string& key : schema.TrimmedPrimaryKeys()) {
    key_fields.push_back(schema.fields()[static_cast<size_t>(schema.FieldIndex(key))]);
  }
  // A key row as (column, text) pairs, rendered like partition values.
  auto key_text = [&](const std::string& serialized)
      -> Result<std::vector<std::pair<std::string, std::string>>> {
    if (key_fields.empty()) return std::vector<std::pair<std::string, std::string>>{};
    FRESHET_ASSIGN_OR_RETURN(meta::BinaryRow row, meta::DeserializeBinaryRow(serialized));
    return meta::PartitionSpec(row, key_fields, naming);
  };
  meta::ManifestFile manifests(impl_->file_io, impl_->path);
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, snapshot));
  std::vector<DataFileInfo> out;
  out.reserve(live.size());
  for (const meta::ManifestEntry& e : live) {
    DataFileInfo info;
    if (!partition_fields.empty()) {
      // Partitions are named as Java names their directories: "dt=2024-01-01/hr=10".
      FRESHET_ASSIGN_OR_RETURN(meta::BinaryRow row, meta::DeserializeBinaryRow(e.partition));
      FRESHET_ASSIGN_OR_RETURN(info.partition_path,
                               meta::PartitionPath(row, partition_fields, naming));
      if (!info.partition_path.empty() && info.partition_path.back() == '/') {
        info.partition_path.pop_back();
      }
      FRESHET_ASSIGN_OR_RETURN(info.partition, meta::PartitionSpec(row, partition_fields, naming));
    }
    const meta::DataFileMeta& f = e.file;
    info.bucket = e.bucket;
    info.file_name = f.file_name;
    info.external_path = f.external_path;
    info.level = f.level;
    info.row_count = f.row_count;
    info.file_size = f.file_size;
    info.min_sequence_number = f.min_sequence_number;
    info.max_sequence_number = f.max_sequence_number;
    FRESHET_ASSIGN_OR_RETURN(info.min_key, key_text(f.min_key));
    FRESHET_ASSIGN_OR_RETURN(info.max_key, key_text(f.max_key));
    info.schema_id = f.schema_id;
    info.creation_time_millis = f.creation_time_millis;
    info.delete_row_count = f.delete_row_count;
    info.stats_columns = f.value_stats_cols.value_or(std::vector<std::string>{});
    info.null_counts = f.value_stats.null_counts.value_or(std::vector<std::optional<int64_t>>{});
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::shared_ptr<arrow::RecordBatch>> ImportBorrowed(const ArrowArray* array,
                                                           const ArrowSchema* schema,
                                                           const char* what) {
  if (array == nullptr || schema == nullptr || array->release == nullptr ||
      schema->release == nullptr) {
    return Status::Invalid(what, ": the array or schema is null or released");
  }
  // Import shallow copies whose release does nothing: the caller keeps ownership, and nothing
  // imported outlives the call.
  ArrowArray borrowed_array = *array;
  ArrowSchema borrowed_schema = *schema;
  borrowed_array.release = [](ArrowArray* a) { a->release = nullptr; };
  borrowed_schema.release = [](ArrowSchema* s) { s->release = nullptr; };
  auto imported = arrow::ImportRecordBatch(&borrowed_array, &borrowed_schema);
  if (!imported.ok()) return FromArrowStatus(imported.status()).WithContext(what);
  return *imported;
}

Result<RowRouting> Table::RouteRows(const ArrowArray* array, const ArrowSchema* schema) const {
  FRESHET_ASSIGN_OR_RETURN(auto imported, ImportBorrowed(array, schema, "RouteRows"));
  FRESHET_ASSIGN_OR_RETURN(auto batch, ConformToTable(imported, impl_->arrow_schema));
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
  bridge::SchemaImportCache imports;  // the callers' batches, imported
  bool takes_row_kinds = false;       // a primary-key table: batches may carry `_ROW_KIND`
  bool dynamic_buckets = false;       // a primary-key table with `bucket` = -1
  // realtime.enabled: rows go to the shared context; otherwise straight to files.
  std::shared_ptr<realtime::RealtimeContext> realtime;
  std::unique_ptr<write::TableWrite> write;
  std::optional<commit::FileStoreCommit> committer;
  // Files prepared by a Commit() that failed; the next Commit() or Abort() takes them.
  std::vector<meta::CommitMessage> pending;
};

TableWriter::TableWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableWriter::~TableWriter() = default;

Result<std::unique_ptr<TableWriter>> Table::NewWriter() const {
  auto impl = std::make_unique<TableWriter::Impl>();
  impl->arrow_schema = impl_->arrow_schema;
  impl->takes_row_kinds = !impl_->schema->primary_keys().empty();
  impl->dynamic_buckets = impl->takes_row_kinds && impl_->schema->bucket() == -1;
  if (impl_->realtime) {
    impl->realtime = impl_->realtime;
    return std::unique_ptr<TableWriter>(new TableWriter(std::move(impl)));
  }
  if (impl->takes_row_kinds) {
    FRESHET_ASSIGN_OR_RETURN(auto compaction, compact::MakeCompactionRunner(
                                                  impl_->file_io, impl_->path, *impl_->schema));
    FRESHET_ASSIGN_OR_RETURN(impl->write, write::MakeTableWrite(impl_->file_io, impl_->path,
                                                                *impl_->schema, compaction));
  } else {
    // Append writers compact small files in the background as Java's do (docs/compaction.md).
    FRESHET_ASSIGN_OR_RETURN(
        auto compaction, compact::MakeAppendRewriter(impl_->file_io, impl_->path, *impl_->schema));
    FRESHET_ASSIGN_OR_RETURN(
        impl->write, write::AppendTableWrite::Make(impl_->file_io, impl_->path, *impl_->schema,
                                                   std::move(compaction)));
  }
  FRESHET_ASSIGN_OR_RETURN(
      auto options,
      meta::CoreOptions::Make(impl_->schema->options(), !impl_->schema->primary_keys().empty()));
  // Refuse before any data file is written rather than at Commit().
  FRESHET_RETURN_NOT_OK(commit::FileStoreCommit::CheckCommitSupported(options));
  impl->committer.emplace(impl_->file_io, impl_->path, *impl_->schema, std::move(options),
                          RandomUuid());
  impl->committer->OnPublished(scan::WarmAfterCommits(impl_->file_io, impl_->path));
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
  auto imported = impl_->imports.ImportRecordBatch(array, schema);
  if (!imported.ok()) return imported.status().WithContext("Write");
  if (impl_->realtime) {
    FRESHET_ASSIGN_OR_RETURN(
        auto batch, ConformToWrite(*imported, impl_->arrow_schema, impl_->takes_row_kinds));
    return InternalImpl(*impl_->realtime).write().Write(batch, offsets, mode);
  }
  FRESHET_ASSIGN_OR_RETURN(auto batch,
                           ConformToWrite(*imported, impl_->arrow_schema, impl_->takes_row_kinds));
  if (offsets) {
    return Status::Invalid("offsets are for tables with realtime.enabled = true");
  }
  FRESHET_RETURN_NOT_OK(impl_->write->Write(*batch));
  return WriteStats{batch->num_rows(), 0};
}

Result<std::optional<int64_t>> TableWriter::Commit(const CommitOptions& options) {
  if ((options.overwrite || options.overwrite_all) && impl_->dynamic_buckets) {
    // The overwrite drops the partitions' hash index, while this writer assigned buckets from it
    // and writes index files only for buckets that got new keys (Java starts from an empty index).
    return Status::NotImplemented(
        "overwrite of a dynamic-bucket primary-key table (option 'bucket' = -1)");
  }
  if (impl_->realtime) {
    return InternalImpl(*impl_->realtime).write().PrepareAndCommit(options);
  }
  write::PrepareOptions prepare;
  prepare.wait_compaction = options.wait_compaction;
  FRESHET_ASSIGN_OR_RETURN(auto messages, impl_->write->PrepareCommit(prepare));
  impl_->pending.insert(impl_->pending.end(), messages.begin(), messages.end());
  commit::CommitRequest request;
  request.messages = impl_->pending;
  request.overwrite = options.overwrite || options.overwrite_all;
  request.overwrite_all = options.overwrite_all;
  request.properties = options.properties;
  // Each attempt checks its base first (dynamic buckets: no other writer's new keys).
  request.properties_for_base =
      [&](const std::optional<meta::Snapshot>& base) -> Result<std::map<std::string, std::string>> {
    FRESHET_RETURN_NOT_OK(impl_->write->CheckCommitBase(request.messages, base));
    return std::map<std::string, std::string>{};
  };
  Result<commit::CommitResult> committed = impl_->committer->Commit(request);
  const bool compaction_only =
      !request.overwrite &&
      std::none_of(request.messages.begin(), request.messages.end(),
                   [](const meta::CommitMessage& m) { return m.HasAppendPart(); });
  if (compaction_only && committed.status().IsConflict()) {
    // Nothing but this writer's compactions, refused before publishing (another commit replaced
    // their files): as when they follow new files, the writer drops them, and nothing is lost.
    impl_->pending.clear();
    FRESHET_RETURN_NOT_OK(impl_->write->CompactionsRejected(request.messages, true));
    return std::optional<int64_t>();
  }
  FRESHET_ASSIGN_OR_RETURN(commit::CommitResult result, std::move(committed));
  impl_->pending.clear();
  if (!result.compaction_status.ok()) {
    // The rows are committed, the compaction is not (another commit replaced its files, or its
    // outcome is unknown): the writer's buckets are restored from the latest snapshot.
    FRESHET_RETURN_NOT_OK(
        impl_->write->CompactionsRejected(request.messages, result.compaction_status.IsConflict()));
  }
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

Result<CompactResult> Table::Compact(const CompactOptions& options) const {
  compact::TableCompactOptions pass;
  pass.full = options.full;
  pass.partitions = options.partitions;
  FRESHET_ASSIGN_OR_RETURN(
      auto done, compact::CompactTable(impl_->file_io, impl_->path, *impl_->schema, pass));
  return CompactResult{done.snapshot_id, done.buckets, done.files_before, done.files_after,
                       done.conflicts};
}

Result<read::TableRead> Table::Impl::MakeRead(const meta::TableSchema& schema,
                                              read::ReadOptions options) const {
  constexpr int64_t kKeptReads = 64;
  const std::string key = read::TableRead::LayoutKey(schema, options);
  if (auto known = reads->Get(key)) return (*known)->WithOptions(std::move(options));
  FRESHET_ASSIGN_OR_RETURN(auto made, read::TableRead::Make(file_io, path, schema, options));
  reads->Put(key, std::make_shared<const read::TableRead>(made.WithOptions({})), 1, kKeptReads);
  return made;
}

Result<std::unique_ptr<TableReader>> Table::NewReader(const ReadOptions& options) const {
  auto impl = std::make_unique<TableReader::Impl>();
  scan::TableScan scan(impl_->file_io, impl_->path);
  scan::ScanOptions scan_options;
  scan_options.snapshot_id = options.snapshot_id;
  scan_options.timestamp_millis = options.timestamp_millis;
  const bool time_travel =
      options.snapshot_id || options.timestamp_millis || !options.tag_name.empty();
  if (!options.tag_name.empty()) {
    if (options.snapshot_id || options.timestamp_millis) {
      return Status::Invalid("a read names a tag or a snapshot (id or time), not both");
    }
    meta::TagManager tags(impl_->file_io, impl_->path);
    FRESHET_ASSIGN_OR_RETURN(meta::Tag tag, tags.GetOrError(options.tag_name));
    scan_options.snapshot = std::make_shared<const meta::Snapshot>(std::move(tag.snapshot));
  }
  // Time travel reads with the schema the snapshot was written with, as Java does. The snapshot
  // is resolved first so that the filter binds to that schema before the scan prunes with it.
  std::shared_ptr<const meta::TableSchema> snapshot_schema;
  if (time_travel) {
    FRESHET_ASSIGN_OR_RETURN(auto snapshot, scan.ResolveSnapshot(scan_options));
    if (snapshot) {
      meta::SchemaManager schemas(impl_->file_io, impl_->path);
      FRESHET_ASSIGN_OR_RETURN(snapshot_schema, schemas.ReadSchemaShared(snapshot->schema_id));
      if (!scan_options.snapshot) scan_options.snapshot_id = snapshot->id;
      scan_options.timestamp_millis.reset();
    }
  }
  const meta::TableSchema& schema = snapshot_schema ? *snapshot_schema : *impl_->schema;
  FRESHET_ASSIGN_OR_RETURN(BoundRead bound,
                           BindRead(options.filter, options.columns, options.batch_size, schema));
  scan_options.predicate = bound.predicate;
  read::ReadOptions read_options = std::move(bound.options);
  FRESHET_ASSIGN_OR_RETURN(auto table_read, impl_->MakeRead(schema, read_options));
  impl->read.emplace(std::move(table_read));
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

// The C stream of ExportArrowStream, implemented directly on the C interface so that a failed
// call keeps freshet's Status: get_last_error() is its ToString(), and LastStreamError() returns
// it whole.
struct StreamState {
  std::unique_ptr<TableReader> reader;
  Status error;  // of the last failed call; sticky: every later call fails with it
  std::string error_text;
};

// An errno for `status`, as the C stream interface asks (Arrow's importer maps EINVAL, ENOMEM and
// ENOSYS to Invalid, OutOfMemory and NotImplemented, anything else to IOError).
int ErrnoOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kInvalid:
      return EINVAL;
    case StatusCode::kNotFound:
      return ENOENT;
    case StatusCode::kAlreadyExists:
      return EEXIST;
    case StatusCode::kNotImplemented:
      return ENOSYS;
    case StatusCode::kResourceExhausted:
      return ENOMEM;
    default:
      return EIO;
  }
}

StreamState* StateOf(ArrowArrayStream* stream) {
  return static_cast<StreamState*>(stream->private_data);
}

int Fail(StreamState* state, Status status) {
  state->error_text = status.ToString();
  state->error = std::move(status);
  return ErrnoOf(state->error);
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  StreamState* state = StateOf(stream);
  if (!state->error.ok()) return ErrnoOf(state->error);
  Status st = state->reader->ExportArrowSchema(out);
  return st.ok() ? 0 : Fail(state, std::move(st));
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  StreamState* state = StateOf(stream);
  if (!state->error.ok()) return ErrnoOf(state->error);
  Result<bool> more = state->reader->Next(out);
  if (!more.ok()) return Fail(state, more.status());
  if (!*more) out->release = nullptr;  // a released array: the end of the stream
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  StreamState* state = StateOf(stream);
  return state->error.ok() ? nullptr : state->error_text.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  delete StateOf(stream);
  stream->release = nullptr;
}

}  // namespace

Status TableReader::ExportArrowStream(std::unique_ptr<TableReader> reader, ArrowArrayStream* out) {
  if (!reader) return Status::Invalid("ExportArrowStream: no reader");
  if (out == nullptr) return Status::Invalid("ExportArrowStream: no stream to fill");
  out->get_schema = &StreamGetSchema;
  out->get_next = &StreamGetNext;
  out->get_last_error = &StreamGetLastError;
  out->release = &StreamRelease;
  out->private_data = new StreamState{std::move(reader), Status::OK(), std::string()};
  return Status::OK();
}

Status TableReader::LastStreamError(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) {
    return Status::Invalid("LastStreamError: the stream is null or released");
  }
  if (stream->get_last_error == &StreamGetLastError) return StateOf(stream)->error;
  const char* text = stream->get_last_error(stream);
  return Status::IOError(text != nullptr ? text : "the Arrow stream failed");
}

}  // namespace freshet
