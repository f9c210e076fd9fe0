#include "compact/append_compactor.h"

#include <arrow/api.h>

#include <algorithm>
#include <cctype>

#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"
#include "read/table_read.h"
#include "write/append_table_write.h"

namespace freshet::compact {

namespace {

// Options freshet has no registry row for (it does not honour them): read as Java's booleans.
bool IsTrue(const meta::TableSchema& schema, std::string_view key) {
  std::optional<std::string> value = meta::FindOption(schema.options(), key);
  if (!value) return false;
  std::string lower(*value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "true";
}

}  // namespace

Status CheckAppendCompaction(const meta::TableSchema& schema) {
  if (!schema.primary_keys().empty()) {
    return Status::Invalid("AppendCompactor compacts append tables only");
  }
  FRESHET_ASSIGN_OR_RETURN(bool deletion_vectors,
                           meta::GetBoolOption(schema.options(), "deletion-vectors.enabled"));
  const char* refused = nullptr;
  if (deletion_vectors) {
    refused = "deletion-vectors.enabled";
  } else if (IsTrue(schema, "row-tracking.enabled")) {
    refused = "row-tracking.enabled";
  } else if (IsTrue(schema, "data-evolution.enabled")) {
    refused = "data-evolution.enabled";
  } else if (IsTrue(schema, "clustering.incremental")) {
    refused = "clustering.incremental";
  }
  if (refused) {
    return Status::NotImplemented("compaction of an append table with '", refused,
                                  "' = true is not supported by freshet; compact it with Java "
                                  "Paimon");
  }
  return Status::OK();
}

struct AppendCompactor::State {
  std::shared_ptr<io::FileIO> file_io;
  std::optional<meta::TableSchema> schema;
  std::optional<meta::DataFilePaths> paths;
  std::optional<read::TableRead> read;  // every field, in the current schema
  write::DataFileSettings files;
  write::AppendCompactOptions options;
  int32_t total_buckets = -1;
};

AppendCompactor::AppendCompactor(std::unique_ptr<State> state) : state_(std::move(state)) {}
AppendCompactor::~AppendCompactor() = default;

Result<std::unique_ptr<AppendCompactor>> AppendCompactor::Make(std::shared_ptr<io::FileIO> file_io,
                                                               std::string table_path,
                                                               meta::TableSchema schema) {
  FRESHET_RETURN_NOT_OK(CheckAppendCompaction(schema));
  auto state = std::make_unique<State>();
  state->file_io = file_io;
  state->schema.emplace(schema);
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  state->paths.emplace(std::move(paths));
  read::ReadOptions read_options;
  read_options.parallel_decode = false;  // a background job: one core
  FRESHET_ASSIGN_OR_RETURN(auto read,
                           read::TableRead::Make(file_io, table_path, schema, read_options));
  state->read.emplace(std::move(read));
  FRESHET_ASSIGN_OR_RETURN(auto core, meta::CoreOptions::Make(schema.options(), false));
  FRESHET_ASSIGN_OR_RETURN(state->files, write::AppendFileSettings(file_io, schema, core));
  FRESHET_ASSIGN_OR_RETURN(state->options, write::AppendCompactOptions::FromTableOptions(schema));
  state->total_buckets = core.bucket();
  return std::unique_ptr<AppendCompactor>(new AppendCompactor(std::move(state)));
}

Result<write::CompactionResult> AppendCompactor::Rewrite(
    const std::string& partition, int32_t bucket, const std::vector<meta::DataFileMeta>& files) {
  write::CompactionResult result;
  if (files.empty()) return result;
  FRESHET_ASSIGN_OR_RETURN(std::string directory,
                           state_->paths->BucketDirectory(partition, bucket));
  write::AppendFileWriter writer(&state_->files, std::move(directory), partition, bucket,
                                 state_->total_buckets, files.front().min_sequence_number,
                                 &*state_->schema, meta::FileSource::kCompact);
  scan::DataSplit split;
  split.partition = partition;
  split.bucket = bucket;
  split.total_buckets = state_->total_buckets;
  split.files = files;
  auto copy = [&]() -> Status {
    FRESHET_ASSIGN_OR_RETURN(auto reader, state_->read->CreateReader(split));
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      FRESHET_RETURN_NOT_OK(writer.Write(*batch));
    }
    return writer.CloseOpenFile();
  };
  Status copied = copy();
  if (!copied.ok()) {
    for (const auto& path : writer.PendingPaths()) (void)state_->file_io->Delete(path, false);
    writer.DropPending();
    return copied;
  }
  result.written = writer.PendingPaths();
  result.before = files;
  result.after = writer.TakeMessage().new_files;
  return result;
}

Result<CompactOutcome> AppendCompactor::CompactBucket(const std::string& partition, int32_t bucket,
                                                      std::vector<meta::DataFileMeta> files,
                                                      bool full) {
  std::vector<std::vector<meta::DataFileMeta>> units;
  if (state_->total_buckets == -1) {
    // A pass is a batch coordinator: it plans once, without ages.
    write::AppendCompactCoordinator coordinator(&state_->options);
    for (auto& task : coordinator.Plan({{partition, std::move(files)}}, full)) {
      units.push_back(std::move(task.files));
    }
  } else {
    write::SortBySequence(&files);
    if (full) {
      units.push_back(write::PickFullCompaction(files, state_->options));
    } else if (auto picked = write::PickCompactBefore(&files, state_->options)) {
      units.push_back(std::move(*picked));
    }
  }
  CompactOutcome outcome;
  for (const auto& unit : units) {
    if (unit.empty()) continue;
    Result<write::CompactionResult> done = Rewrite(partition, bucket, unit);
    if (!done.ok()) {
      for (const auto& path : outcome.written) (void)state_->file_io->Delete(path, false);
      return done.status();
    }
    outcome.Merge(
        CompactOutcome{std::move(done->before), std::move(done->after), std::move(done->written)});
  }
  return outcome;
}

Result<std::shared_ptr<write::AppendRewriter>> MakeAppendRewriter(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  auto compactor =
      AppendCompactor::Make(std::move(file_io), std::move(table_path), std::move(schema));
  if (compactor.status().IsNotImplemented()) return std::shared_ptr<write::AppendRewriter>();
  if (!compactor.ok()) return compactor.status();
  return std::shared_ptr<write::AppendRewriter>(std::move(*compactor));
}

}  // namespace freshet::compact
