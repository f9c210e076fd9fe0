#include "cli/stream_read_command.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <csignal>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "common/arrow_status.h"
#include "freshet/stream.h"
#include "freshet/table.h"
#include "textrows/columns.h"
#include "textrows/json_rows.h"

namespace freshet::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

// SIGINT ends a --follow read cleanly (rows printed so far stay printed, exit code 0).
class InterruptScope {
 public:
  InterruptScope() {
    g_interrupted = 0;
    struct sigaction action {};
    action.sa_handler = &OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptScope() { sigaction(SIGINT, &previous_, nullptr); }

 private:
  struct sigaction previous_ {};
};

// Prints batches in --format jsonl, csv (one header) or table (one aligned table per call of
// Flush: the whole result, or each batch of a --follow read).
class RowPrinter {
 public:
  RowPrinter(std::string format, std::vector<meta::DataField> fields)
      : format_(std::move(format)), fields_(std::move(fields)) {}

  Status Print(const std::shared_ptr<arrow::RecordBatch>& batch) {
    if (format_ == "table") {
      collected_.push_back(batch);
      return Status::OK();
    }
    std::string text;
    if (format_ == "csv") {
      FRESHET_ASSIGN_OR_RETURN(text, textrows::FormatCsvRows(*batch, fields_));
      if (header_printed_) text.erase(0, text.find('\n') + 1);
      header_printed_ = true;
    } else {
      FRESHET_ASSIGN_OR_RETURN(text, textrows::FormatJsonRows(*batch, fields_));
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::OK();
  }

  // Table format: prints what was collected. `empty_too`: also an empty table (the end of a
  // whole read); an empty CSV result still gets its header.
  Status Flush(const std::shared_ptr<arrow::Schema>& schema, bool empty_too) {
    if (format_ == "table" && (!collected_.empty() || empty_too)) {
      FRESHET_ASSIGN_OR_RETURN(
          auto combined, FromArrowResult(arrow::Table::FromRecordBatches(schema, collected_)));
      FRESHET_ASSIGN_OR_RETURN(auto batch, FromArrowResult(combined->CombineChunksToBatch()));
      FRESHET_ASSIGN_OR_RETURN(std::string text, textrows::FormatTableRows(*batch, fields_));
      std::fwrite(text.data(), 1, text.size(), stdout);
      collected_.clear();
    } else if (format_ == "csv" && empty_too && !header_printed_) {
      std::string header;
      for (size_t i = 0; i < fields_.size(); ++i) header += (i ? "," : "") + fields_[i].name;
      std::printf("%s\n", header.c_str());
      header_printed_ = true;
    }
    std::fflush(stdout);
    return Status::OK();
  }

 private:
  const std::string format_;
  const std::vector<meta::DataField> fields_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> collected_;
  bool header_printed_ = false;
};

}  // namespace

bool IsStreamRead(const Args& args) {
  return args.Has("delta") || args.Has("incremental-between") ||
         args.Has("incremental-between-timestamp") || args.Has("with-row-kind") ||
         args.Has("follow") || args.Has("scan-mode") || args.Has("consumer-id");
}

Status RunStreamRead(const Args& args) {
  if (args.positionals().size() != 1) return Status::Invalid("expected one table path");
  const std::string& path = args.positionals()[0];
  std::string format = args.Get("format").value_or("jsonl");
  if (format != "jsonl" && format != "csv" && format != "table") {
    return Status::Invalid("--format must be jsonl, csv or table, not '", format, "'");
  }
  FRESHET_ASSIGN_OR_RETURN(int64_t limit, args.GetInt("limit", -1));
  const bool follow = args.Has("follow");
  const bool range = args.Has("incremental-between") || args.Has("incremental-between-timestamp");
  int given = (args.Has("delta") ? 1 : 0) + (args.Has("incremental-between") ? 1 : 0) +
              (args.Has("incremental-between-timestamp") ? 1 : 0) + (follow ? 1 : 0);
  if (given > 1) {
    return Status::Invalid(
        "--delta, --incremental-between, --incremental-between-timestamp and --follow exclude "
        "each other");
  }
  if ((args.Has("delta") || range) &&
      (args.Has("snapshot") || args.Has("scan-mode") || args.Has("tag"))) {
    return Status::Invalid(
        "--delta and --incremental-between name their snapshots: no --snapshot, --tag or "
        "--scan-mode");
  }

  if (args.Has("consumer-id") && !follow) {
    return Status::Invalid("--consumer-id records the progress of a --follow read");
  }

  StreamOptions options;
  options.with_row_kind = args.Has("with-row-kind");
  options.consumer_id = args.Get("consumer-id").value_or("");
  if (auto select = args.Get("select")) options.columns = SplitComma(*select);
  if (auto where = args.Get("where")) options.filter = *where;
  if (auto mode = args.Get("scan-mode")) {
    FRESHET_ASSIGN_OR_RETURN(options.mode, ParseScanMode(*mode));
  }
  if (auto tag = args.Get("tag")) options.tag_name = *tag;
  if (args.Has("snapshot")) {
    FRESHET_ASSIGN_OR_RETURN(int64_t id, args.GetInt("snapshot", 0));
    options.snapshot_id = id;
  }
  if (args.Has("delta")) {
    // What a streaming read emits for snapshot N: its APPEND delta, or its changelog when the
    // table has a changelog producer.
    FRESHET_ASSIGN_OR_RETURN(int64_t id, args.GetInt("delta", 0));
    options.mode = ScanMode::kFromSnapshot;
    options.snapshot_id = id;
    options.end_snapshot_id = id;
    options.streaming = true;
  } else if (range) {
    options.mode = ScanMode::kIncremental;
    options.incremental_between = args.Get("incremental-between").value_or("");
    options.incremental_between_timestamp = args.Get("incremental-between-timestamp").value_or("");
    options.streaming = false;
  } else {
    options.streaming = follow;
  }

  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  // A --delta of a snapshot that does not exist (yet) is an error, not a wait.
  if (args.Has("delta")) FRESHET_RETURN_NOT_OK(table->Snapshot(*options.snapshot_id).status());
  FRESHET_ASSIGN_OR_RETURN(auto reader, table->NewStreamReader(options));

  // Format with the Paimon types of the columns read: a batch read of one snapshot reads in
  // that snapshot's schema, streaming and incremental reads in the current one.
  textrows::Columns all_columns;
  if (!options.streaming && !options.tag_name.empty()) {
    FRESHET_ASSIGN_OR_RETURN(int64_t schema_id, SchemaIdOfTag(*table, options.tag_name));
    FRESHET_ASSIGN_OR_RETURN(all_columns, textrows::Columns::Of(*table, schema_id));
  } else if (!options.streaming && options.snapshot_id && options.mode != ScanMode::kIncremental) {
    FRESHET_ASSIGN_OR_RETURN(SnapshotInfo snapshot, table->Snapshot(*options.snapshot_id));
    FRESHET_ASSIGN_OR_RETURN(all_columns, textrows::Columns::Of(*table, snapshot.schema_id));
  } else {
    FRESHET_ASSIGN_OR_RETURN(all_columns, textrows::Columns::Of(*table));
  }
  std::vector<meta::DataField> fields;
  if (options.with_row_kind) {
    meta::DataField kind;
    kind.name = kRowKindColumn;
    kind.type = meta::DataType::String(false);
    fields.push_back(std::move(kind));
  }
  const textrows::Columns selected = all_columns.Select(options.columns);
  fields.insert(fields.end(), selected.fields().begin(), selected.fields().end());

  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader->ExportArrowSchema(&c_schema));
  FRESHET_ASSIGN_OR_RETURN(auto schema, FromArrowResult(arrow::ImportSchema(&c_schema)));
  RowPrinter printer(format, std::move(fields));
  InterruptScope interrupts;
  int64_t remaining = limit;
  while (remaining != 0 && !g_interrupted) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader->Next(&array));
    if (more) {
      FRESHET_ASSIGN_OR_RETURN(auto batch,
                               FromArrowResult(arrow::ImportRecordBatch(&array, schema)));
      if (remaining > 0 && batch->num_rows() > remaining) batch = batch->Slice(0, remaining);
      if (remaining > 0) remaining -= batch->num_rows();
      FRESHET_RETURN_NOT_OK(printer.Print(batch));
      continue;
    }
    if (!follow || reader->finished()) break;
    // Caught up: show what arrived, then wait for the next snapshot (or Ctrl-C).
    FRESHET_RETURN_NOT_OK(printer.Flush(schema, false));
    FRESHET_RETURN_NOT_OK(reader->WaitForNext(200).status());
  }
  return printer.Flush(schema, !follow);
}

}  // namespace freshet::cli
