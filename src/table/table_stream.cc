// The public TableStreamReader (include/freshet/stream.h): scan/stream_scan.h plans, read by
// read/delta_read.h with each row's kind.
#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "common/arrow_status.h"
#include "freshet/row_kind.h"
#include "freshet/stream.h"
#include "freshet/table.h"
#include "meta/options/option_registry.h"
#include "meta/schema/schema_manager.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/consumer_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "read/delta_read.h"
#include "read/diff_read.h"
#include "scan/predicate.h"
#include "scan/stream_scan.h"
#include "table/bound_read.h"

namespace freshet {

namespace {

struct ModePair {
  ScanMode mode;
  scan::StartupMode startup;
};
constexpr ModePair kModes[] = {
    {ScanMode::kDefault, scan::StartupMode::kDefault},
    {ScanMode::kLatestFull, scan::StartupMode::kLatestFull},
    {ScanMode::kLatest, scan::StartupMode::kLatest},
    {ScanMode::kFromSnapshot, scan::StartupMode::kFromSnapshot},
    {ScanMode::kFromSnapshotFull, scan::StartupMode::kFromSnapshotFull},
    {ScanMode::kFromTimestamp, scan::StartupMode::kFromTimestamp},
    {ScanMode::kIncremental, scan::StartupMode::kIncremental},
};

scan::StartupMode ToStartupMode(ScanMode mode) {
  for (const ModePair& m : kModes) {
    if (m.mode == mode) return m.startup;
  }
  return scan::StartupMode::kDefault;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The schema a read with `options` uses: a batch read of one snapshot reads with the schema that
// snapshot was written with (as TableReader does); streaming and incremental reads with the
// table's current one, as Java's.
Result<meta::TableSchema> ReadSchema(const std::shared_ptr<io::FileIO>& file_io,
                                     const std::string& path, meta::TableSchema current,
                                     const scan::StreamScanOptions& options) {
  if (options.streaming) return current;
  meta::SnapshotManager snapshots(file_io, path);
  std::optional<int64_t> schema_id;
  if (!options.tag_name.empty()) {
    FRESHET_ASSIGN_OR_RETURN(meta::Tag tag,
                             meta::TagManager(file_io, path).GetOrError(options.tag_name));
    schema_id = tag.snapshot.schema_id;
  } else if (options.mode == scan::StartupMode::kFromSnapshot ||
             options.mode == scan::StartupMode::kFromSnapshotFull) {
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot s, snapshots.ReadSnapshot(*options.snapshot_id));
    schema_id = s.schema_id;
  } else if (options.mode == scan::StartupMode::kFromTimestamp) {
    FRESHET_ASSIGN_OR_RETURN(auto s, snapshots.SnapshotAtOrBefore(*options.timestamp_millis));
    if (s) schema_id = s->schema_id;
  }
  if (!schema_id || *schema_id == current.id()) return current;
  return meta::SchemaManager(file_io, path).ReadSchema(*schema_id);
}

// The consumer of a streaming read, and where it had got to.
struct ConsumerStart {
  std::string id;  // empty: no consumer
  std::optional<int64_t> next_snapshot;
};

// As Java's AbstractDataTableScan: a streaming read whose consumer has recorded progress
// continues from it (from-snapshot), whatever the scan mode says.
Result<ConsumerStart> StartFromConsumer(const std::shared_ptr<io::FileIO>& file_io,
                                        const std::string& path, const meta::TableSchema& schema,
                                        const StreamOptions& options,
                                        scan::StreamScanOptions* scan_options) {
  ConsumerStart start;
  start.id = options.consumer_id;
  if (start.id.empty()) {
    FRESHET_ASSIGN_OR_RETURN(auto id, meta::LookupOption(schema.options(), "consumer-id"));
    if (id) start.id = id->text;
  }
  if (start.id.empty() || !options.streaming) return ConsumerStart{};
  FRESHET_RETURN_NOT_OK(meta::ConsumerManager::CheckId(start.id));
  FRESHET_ASSIGN_OR_RETURN(bool ignore_progress,
                           meta::GetBoolOption(schema.options(), "consumer.ignore-progress"));
  if (options.consumer_ignore_progress || ignore_progress) return start;
  FRESHET_ASSIGN_OR_RETURN(start.next_snapshot,
                           meta::ConsumerManager(file_io, path).NextSnapshot(start.id));
  if (start.next_snapshot) {
    scan_options->mode = scan::StartupMode::kFromSnapshot;
    scan_options->snapshot_id = start.next_snapshot;
  }
  return start;
}

}  // namespace

Result<ScanMode> ParseScanMode(const std::string& text) {
  FRESHET_ASSIGN_OR_RETURN(scan::StartupMode startup, scan::ParseStartupMode(text));
  for (const ModePair& m : kModes) {
    if (m.startup == startup) return m.mode;
  }
  return Status::Internal("scan mode '", text, "'");
}

const char* ScanModeName(ScanMode mode) { return scan::StartupModeName(ToStartupMode(mode)); }

// ---------------------------------------------------------------------------------------------
class TableStreamReader::Impl {
 public:
  std::optional<scan::StreamScan> scan;
  std::shared_ptr<const read::KindedTableRead> read;
  std::shared_ptr<arrow::Schema> schema;  // of the batches returned
  bool with_row_kind = false;
  int64_t poll_interval_millis = 100;
  std::unique_ptr<read::BatchReader> plan_reader;  // the current plan's rows
  // Diff plans (incremental diffs of primary-key tables) compare whole rows: they read every
  // column, without the predicate, made when the first diff plan comes.
  std::function<Result<std::shared_ptr<const read::KindedTableRead>>()> make_full_read;
  std::shared_ptr<const read::KindedTableRead> full_read;
  std::vector<std::string> keys;  // the trimmed primary key
  int64_t plan_snapshot = 0;
  std::optional<int64_t> batch_snapshot;  // of the last batch returned
  // The consumer whose progress this reader records, and the last value recorded.
  std::optional<meta::ConsumerManager> consumers;
  std::string consumer_id;
  std::optional<int64_t> recorded_next;

  // Called when every batch handed out so far has been taken: records the next snapshot.
  Status RecordProgress() {
    std::optional<int64_t> next = scan->next_snapshot_id();
    if (!consumers || !next || next == recorded_next) return Status::OK();
    FRESHET_RETURN_NOT_OK(consumers->Reset(consumer_id, *next));
    recorded_next = next;
    return Status::OK();
  }

  // The next batch (read columns then the int8 kind), or null when nothing more is there now.
  Result<std::shared_ptr<arrow::RecordBatch>> NextBatch() {
    while (true) {
      if (plan_reader) {
        FRESHET_ASSIGN_OR_RETURN(auto batch, plan_reader->Next());
        if (batch) {
          batch_snapshot = plan_snapshot;
          return batch;
        }
        plan_reader.reset();
      }
      FRESHET_RETURN_NOT_OK(RecordProgress());
      FRESHET_ASSIGN_OR_RETURN(scan::StreamScan::Step step, scan->Next());
      if (step.state != scan::StreamScan::State::kPlan) {
        return std::shared_ptr<arrow::RecordBatch>();
      }
      if (step.plan->splits.empty()) continue;
      plan_snapshot = step.plan->snapshot_id;
      if (step.plan->kind == scan::StreamPlan::Kind::kDiff) {
        FRESHET_ASSIGN_OR_RETURN(plan_reader, DiffReader(std::move(*step.plan)));
        continue;
      }
      FRESHET_ASSIGN_OR_RETURN(
          plan_reader, read->CreateReader(std::move(step.plan->splits), step.plan->merge()));
    }
  }

  Result<std::unique_ptr<format::BatchReader>> DiffReader(scan::StreamPlan plan) {
    if (!full_read) {
      FRESHET_ASSIGN_OR_RETURN(full_read, make_full_read());
    }
    std::vector<read::DiffBucket> buckets;
    for (size_t i = 0; i < plan.splits.size(); ++i) {
      buckets.push_back({std::move(plan.before_splits[i]), std::move(plan.splits[i])});
    }
    return read::CreateDiffReader(full_read.get(), read.get(), keys, std::move(buckets));
  }

  // The kind column as `_ROW_KIND` text first, or dropped.
  Result<std::shared_ptr<arrow::RecordBatch>> Present(
      const std::shared_ptr<arrow::RecordBatch>& batch) const {
    const int kind_column = batch->num_columns() - 1;
    std::vector<std::shared_ptr<arrow::Array>> columns;
    if (with_row_kind) {
      const auto& kinds = static_cast<const arrow::Int8Array&>(*batch->column(kind_column));
      arrow::StringBuilder text;
      FRESHET_RETURN_NOT_OK(FromArrowStatus(text.Reserve(batch->num_rows())));
      FRESHET_RETURN_NOT_OK(FromArrowStatus(text.ReserveData(2 * batch->num_rows())));
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        text.UnsafeAppend(RowKindShortString(static_cast<RowKind>(kinds.Value(row))), 2);
      }
      std::shared_ptr<arrow::Array> kind_text;
      FRESHET_RETURN_NOT_OK(FromArrowStatus(text.Finish(&kind_text)));
      columns.push_back(std::move(kind_text));
    }
    columns.insert(columns.end(), batch->columns().begin(), batch->columns().begin() + kind_column);
    return arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(columns));
  }
};

TableStreamReader::TableStreamReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableStreamReader::~TableStreamReader() = default;

Result<std::unique_ptr<TableStreamReader>> Table::NewStreamReader(
    const StreamOptions& options) const {
  std::shared_ptr<io::FileIO> file_io = io::LocalFileIO();
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema current,
                           meta::TableSchema::FromJson(SchemaJson(), path()));
  scan::StreamScanOptions scan_options;
  scan_options.mode = ToStartupMode(options.mode);
  scan_options.snapshot_id = options.snapshot_id;
  scan_options.timestamp_millis = options.timestamp_millis;
  scan_options.tag_name = options.tag_name;
  const meta::TagManager tags(file_io, path());
  if (!options.incremental_between.empty()) {
    FRESHET_ASSIGN_OR_RETURN(scan_options.incremental_between,
                             scan::ParseIncrementalBetween(options.incremental_between, &tags,
                                                           &scan_options.incremental_between_tags));
  }
  if (!options.incremental_between_timestamp.empty()) {
    FRESHET_ASSIGN_OR_RETURN(
        scan_options.incremental_between_timestamps,
        scan::ParseIncrementalBetweenTimestamps(options.incremental_between_timestamp));
  }
  scan_options.streaming = options.streaming;
  scan_options.end_snapshot_id = options.end_snapshot_id;
  FRESHET_ASSIGN_OR_RETURN(scan_options,
                           scan::ResolveStreamScanOptions(std::move(scan_options), current, &tags));
  FRESHET_ASSIGN_OR_RETURN(ConsumerStart consumer,
                           StartFromConsumer(file_io, path(), current, options, &scan_options));
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema,
                           ReadSchema(file_io, path(), std::move(current), scan_options));

  FRESHET_ASSIGN_OR_RETURN(BoundRead bound,
                           BindRead(options.filter, options.columns, options.batch_size, schema));
  scan_options.predicate = bound.predicate;
  read::ReadOptions read_options = std::move(bound.options);

  auto impl = std::make_unique<TableStreamReader::Impl>();
  FRESHET_ASSIGN_OR_RETURN(impl->read,
                           read::KindedTableRead::Make(file_io, path(), schema, read_options));
  FRESHET_ASSIGN_OR_RETURN(
      auto stream_scan, scan::StreamScan::Make(file_io, path(), schema, std::move(scan_options)));
  impl->scan.emplace(std::move(stream_scan));
  impl->keys = schema.TrimmedPrimaryKeys();
  impl->make_full_read = [file_io, path = path(), schema, batch_size = options.batch_size]() {
    read::ReadOptions every_column;
    every_column.batch_size = batch_size;
    return read::KindedTableRead::Make(file_io, path, schema, every_column);
  };
  impl->with_row_kind = options.with_row_kind;
  if (!consumer.id.empty()) {
    impl->consumers.emplace(file_io, path());
    impl->consumer_id = std::move(consumer.id);
    impl->recorded_next = consumer.next_snapshot;
  }
  impl->poll_interval_millis = std::max<int64_t>(1, options.poll_interval_millis);
  std::vector<std::shared_ptr<arrow::Field>> fields;
  if (options.with_row_kind) fields.push_back(arrow::field(kRowKindColumn, arrow::utf8(), false));
  const auto& read_fields = impl->read->output_schema()->fields();
  fields.insert(fields.end(), read_fields.begin(), read_fields.end());
  impl->schema = arrow::schema(std::move(fields));
  return std::unique_ptr<TableStreamReader>(new TableStreamReader(std::move(impl)));
}

Status TableStreamReader::ExportArrowSchema(ArrowSchema* out) const {
  return FromArrowStatus(arrow::ExportSchema(*impl_->schema, out));
}

Result<bool> TableStreamReader::Next(ArrowArray* out) {
  FRESHET_ASSIGN_OR_RETURN(auto batch, impl_->NextBatch());
  if (!batch) return false;
  FRESHET_ASSIGN_OR_RETURN(batch, impl_->Present(batch));
  FRESHET_RETURN_NOT_OK(FromArrowStatus(arrow::ExportRecordBatch(*batch, out)));
  return true;
}

Result<bool> TableStreamReader::WaitForNext(int64_t timeout_millis) {
  const int64_t deadline = NowMillis() + std::max<int64_t>(0, timeout_millis);
  while (true) {
    if (impl_->plan_reader || impl_->scan->finished()) return true;
    FRESHET_ASSIGN_OR_RETURN(bool fresh, impl_->scan->HasNewSnapshot());
    if (fresh) return true;
    const int64_t now = NowMillis();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::min(impl_->poll_interval_millis, deadline - now)));
  }
}

bool TableStreamReader::finished() const { return impl_->scan->finished() && !impl_->plan_reader; }

std::optional<int64_t> TableStreamReader::snapshot_id() const { return impl_->batch_snapshot; }

std::optional<int64_t> TableStreamReader::next_snapshot_id() const {
  return impl_->scan->next_snapshot_id();
}

}  // namespace freshet
