#include "meta/options/option_registry.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>

namespace freshet::meta {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "128 mb" into (128, "mb").
Result<std::pair<int64_t, std::string>> SplitNumberAndUnit(std::string_view text) {
  std::string_view t = Trim(text);
  int64_t number = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), number);
  if (ec != std::errc() || end == t.data() || number < 0) {
    return Status::Invalid("'", text, "' does not start with a non-negative number");
  }
  return std::make_pair(number, Lower(Trim(std::string_view(end, t.data() + t.size() - end))));
}

Result<int64_t> MultiplyChecked(int64_t number, int64_t unit, std::string_view text) {
  if (number > INT64_MAX / unit) return Status::Invalid("'", text, "' is too large");
  return number * unit;
}

constexpr char kPlaceholder[] = "<name>";

std::string Join(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += values[i];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The built-in rows. Defaults are Java Paimon's (CoreOptions) where Java has the key.

OptionDef Row(std::string name, OptionType type, std::optional<std::string> default_value,
              std::string owner, std::string description) {
  OptionDef row;
  row.name = std::move(name);
  row.type = type;
  row.default_value = std::move(default_value);
  row.owner = std::move(owner);
  row.description = std::move(description);
  return row;
}

OptionDef EnumRow(std::string name, std::vector<std::string> allowed, std::string default_value,
                  std::string owner, std::string description) {
  OptionDef row = Row(std::move(name), OptionType::kEnum, std::move(default_value),
                      std::move(owner), std::move(description));
  row.allowed = std::move(allowed);
  return row;
}

OptionDef WithMin(OptionDef row, int64_t min) {
  row.min = min;
  return row;
}

OptionDef WriteChecked(OptionDef row) {
  row.check = OptionCheck::kWrite;
  return row;
}

// Changelog files (`changelog-file.*` fall back to their data-file twins, as Java's
// KeyValueFileWriterFactory), the producers' options and changelog retention.
void AddChangelogRows(std::vector<OptionDef>* rows) {
  auto fallback = [](OptionDef row, const char* key) {
    row.fallback_key = key;
    row.default_note = std::string("the value of ") + key;
    return row;
  };
  OptionDef prefix = WriteChecked(Row("changelog-file.prefix", OptionType::kString, "changelog-",
                                      "write", "Name prefix of new changelog files."));
  prefix.check_text = [](std::string_view text) {
    return text.find('/') == std::string_view::npos && text.find('\0') == std::string_view::npos;
  };
  prefix.accepted = "text without '/'";
  rows->push_back(std::move(prefix));
  OptionDef format = Row("changelog-file.format", OptionType::kEnum, std::nullopt, "write",
                         "Format of new changelog files.");
  format.allowed = {"parquet", "orc", "avro"};
  rows->push_back(fallback(WriteChecked(std::move(format)), "file.format"));
  OptionDef compression = Row("changelog-file.compression", OptionType::kEnum, std::nullopt,
                              "write", "Compression codec of new changelog files.");
  compression.allowed = {"zstd", "snappy", "gzip", "deflate",
                         "zlib", "lz4",    "none", "uncompressed"};
  rows->push_back(fallback(WriteChecked(std::move(compression)), "file.compression"));
  rows->push_back(fallback(
      WriteChecked(Row("changelog-file.stats-mode", OptionType::kStatsMode, std::nullopt, "write",
                       "Value statistics kept per column of new changelog "
                       "files.")),
      "metadata.stats-mode"));
  rows->push_back(Row("changelog-producer.row-deduplicate", OptionType::kBool, "false", "write",
                      "full-compaction and lookup producers leave out -U/+U pairs of equal "
                      "values."));
  OptionDef ignored =
      Row("changelog-producer.row-deduplicate-ignore-fields", OptionType::kString, std::nullopt,
          "write", "Comma-separated columns left out of that comparison.");
  ignored.default_note = "none";
  rows->push_back(std::move(ignored));
  auto retained = [&](const char* key, const char* snapshot_key, const char* what) {
    OptionDef row = WithMin(Row(key, OptionType::kInt, std::nullopt, "commit", what), 1);
    row.fallback_key = snapshot_key;
    row.default_note = std::string("the value of ") + snapshot_key;
    rows->push_back(std::move(row));
  };
  retained("changelog.num-retained.min", "snapshot.num-retained.min",
           "Least number of changelogs kept by expiration.");
  retained("changelog.num-retained.max", "snapshot.num-retained.max",
           "Most changelogs kept by expiration; above the snapshots', changelogs outlive their "
           "snapshots in changelog/ (docs/expiration.md).");
  OptionDef time = Row("changelog.time-retained", OptionType::kDuration, std::nullopt, "commit",
                       "Changelogs younger than this are kept (within the min and max).");
  time.fallback_key = "snapshot.time-retained";
  time.default_note = "the value of snapshot.time-retained";
  rows->push_back(std::move(time));
}

std::vector<OptionDef> BuiltinRows() {
  std::vector<OptionDef> rows;
  // --- meta: the table's layout
  OptionDef bucket = Row("bucket", OptionType::kInt, "-1", "meta",
                         "Number of buckets: -1 dynamic (append tables: unaware), -2 postpone "
                         "(primary-key tables), or a fixed positive number.");
  bucket.min = -2;
  bucket.check_number = [](int64_t n) { return n != 0; };
  bucket.accepted = "-2, -1 or a positive number";
  rows.push_back(std::move(bucket));
  OptionDef bucket_key = Row("bucket-key", OptionType::kString, std::nullopt, "meta",
                             "Comma-separated columns whose hash picks a row's bucket.");
  bucket_key.default_note = "the primary keys minus the partition keys";
  rows.push_back(std::move(bucket_key));
  // Dynamic buckets of primary-key tables (write/dynamic_bucket_assigner.h).
  rows.push_back(WithMin(
      WriteChecked(Row("dynamic-bucket.target-row-num", OptionType::kInt, "2000000", "write",
                       "Dynamic buckets: keys a bucket takes before new keys "
                       "open another (Java's is a long; freshet reads an int).")),
      1));
  OptionDef max_buckets =
      WriteChecked(Row("dynamic-bucket.max-buckets", OptionType::kInt, "-1", "write",
                       "Dynamic buckets: most buckets per partition (-1: unlimited); past it new "
                       "keys go to a random existing bucket."));
  max_buckets.min = -1;
  max_buckets.check_number = [](int64_t n) { return n != 0; };
  max_buckets.accepted = "-1 or a positive number";
  rows.push_back(std::move(max_buckets));
  for (const char* flink_only :
       {"dynamic-bucket.initial-buckets", "dynamic-bucket.assigner-parallelism"}) {
    OptionDef row = WithMin(Row(flink_only, OptionType::kInt, std::nullopt, "write",
                                "Dynamic buckets: Flink assigner subtasks; no effect on "
                                "freshet's single writer (one assigner)."),
                            1);
    row.default_note = "none";
    rows.push_back(std::move(row));
  }
  rows.push_back(Row("primary-key.nullable", OptionType::kBool, "false", "meta",
                     "Whether primary-key columns may hold nulls (else they are made NOT NULL)."));
  rows.push_back(Row("partition.default-name", OptionType::kString, "__DEFAULT_PARTITION__", "meta",
                     "Partition name of null, empty and blank partition values."));
  rows.push_back(Row("partition.legacy-name", OptionType::kBool, "true", "meta",
                     "Partition names from Java's toString (true) or from a cast to string."));
  rows.push_back(EnumRow(
      "merge-engine", {"deduplicate", "partial-update", "aggregation", "first-row"}, "deduplicate",
      "meta", "How the versions of one primary key merge (docs/merge-engines.md)."));
  // --- mergetree: merge engines (docs/merge-engines.md)
  // `def`: the default, or (no_default = true) what applies without one.
  auto merge = [&rows](std::string name, OptionType type, std::string def, std::string description,
                       bool no_default = false) {
    OptionDef row = Row(std::move(name), type, no_default ? std::nullopt : std::optional(def),
                        "mergetree", std::move(description));
    if (no_default) row.default_note = std::move(def);
    rows.push_back(std::move(row));
  };
  merge("ignore-delete", OptionType::kBool, "false", "Whether to ignore delete records.");
  for (const char* alias :
       {"deduplicate.ignore-delete", "first-row.ignore-delete", "partial-update.ignore-delete"}) {
    merge(alias, OptionType::kBool, "ignore-delete applies",
          "Alias of ignore-delete (Java's fallback key).", true);
  }
  merge("partial-update.remove-record-on-delete", OptionType::kBool, "false",
        "partial-update: a -D removes the whole row.");
  merge("partial-update.remove-record-on-sequence-group", OptionType::kString, "none",
        "partial-update: a -D of these sequence fields' groups removes the whole row.", true);
  merge("aggregation.remove-record-on-delete", OptionType::kBool, "false",
        "aggregation: a -D removes the whole row.");
  merge("fields.default-aggregate-function", OptionType::kString,
        "none: last_non_null_value (aggregation), non-null values win (partial-update)",
        "Aggregate function of columns without their own (aggregation, partial-update).", true);
  merge("fields.<name>.aggregate-function", OptionType::kString,
        "the value of fields.default-aggregate-function",
        "Aggregate function of a column (aggregation, partial-update sequence groups).", true);
  merge("fields.<name>.ignore-retract", OptionType::kBool, "false",
        "The column's aggregate function ignores -U/-D records.");
  merge("fields.<name>.sequence-group", OptionType::kString, "none",
        "partial-update: the columns <name> (comma separated sequence fields) order.", true);
  merge("fields.<name>.distinct", OptionType::kBool, "false",
        "collect and listagg keep each element once.");
  merge("fields.<name>.list-agg-delimiter", OptionType::kString, ",", "Delimiter of listagg.");
  merge("fields.<name>.nested-key", OptionType::kString, "none: nested_update appends rows",
        "nested_update / nested_partial_update: key fields of the nested rows.", true);
  rows.push_back(EnumRow("fields.<name>.nested-key-null-strategy", {"merge", "ignore", "error"},
                         "merge", "mergetree",
                         "nested_update / nested_partial_update: rows whose nested key holds a "
                         "null merge, are ignored, or are an error."));
  merge("fields.<name>.nested-sequence-field", OptionType::kString, "none: the later row wins",
        "nested_update: fields ordering the rows of one nested key.", true);
  merge("fields.<name>.count-limit", OptionType::kInt, "2147483647",
        "nested_update: most rows kept.");
  merge("fields.<name>.ts-field", OptionType::kString, "the last field of the value rows",
        "merge_map_with_keytime: the timestamp field of the value rows.", true);
  // --- mergetree: primary-key tables (docs/primary-key-tables.md)
  OptionDef sequence_field = Row("sequence.field", OptionType::kString, std::nullopt, "mergetree",
                                 "Comma-separated columns that order the versions of a key "
                                 "before _SEQUENCE_NUMBER.");
  sequence_field.default_note = "none: versions are ordered by _SEQUENCE_NUMBER";
  rows.push_back(std::move(sequence_field));
  rows.push_back(EnumRow("sequence.field.sort-order", {"ascending", "descending"}, "ascending",
                         "mergetree", "Order of sequence.field: the last version wins."));
  OptionDef row_kind_field = Row("rowkind.field", OptionType::kString, std::nullopt, "write",
                                 "A column holding each row's kind (+I, -U, +U, -D) when writing.");
  row_kind_field.default_note = "none: the _ROW_KIND column of a written batch, else +I";
  rows.push_back(std::move(row_kind_field));
  rows.push_back(EnumRow("changelog-producer", {"none", "input", "full-compaction", "lookup"},
                         "none", "write",
                         "What produces changelog files for streaming readers: none, the input "
                         "records, full compactions or lookups at compaction "
                         "(docs/streaming-reads.md)."));
  AddChangelogRows(&rows);
  rows.push_back(Row("deletion-vectors.enabled", OptionType::kBool, "false", "scan",
                     "Deletion vectors mark rows of compacted files as deleted; batch reads "
                     "then skip level-0 files."));
  rows.push_back(Row("deletion-vectors.bitmap64", OptionType::kBool, "false", "scan",
                     "Deletion vectors in the 64-bit roaring format."));
  OptionDef lookup_cache =
      Row("lookup.cache-max-memory-size", OptionType::kMemorySize, "256 mb", "write",
          "Memory of a compaction's cache of looked-up data files "
          "(deletion-vector tables, docs/compaction.md), and of the process-wide cache of "
          "decoded data files that Table::Lookup searches (docs/primary-key-tables.md).");
  lookup_cache.min = 1;
  rows.push_back(std::move(lookup_cache));
  OptionDef write_buffer = Row("write-buffer-size", OptionType::kMemorySize, "256 mb", "write",
                               "Memory of a primary-key writer's sort buffer before it flushes "
                               "a sorted run to a level-0 file.");
  write_buffer.min = 1;
  rows.push_back(std::move(write_buffer));
  rows.push_back(Row("write-buffer-spillable", OptionType::kBool, "true", "write",
                     "A full sort buffer spills sorted runs to local temporary files instead "
                     "of flushing a level-0 file."));
  // --- format: data files
  rows.push_back(EnumRow("file.format", {"parquet", "orc", "avro"}, "parquet", "format",
                         "Format of new data files."));
  rows.push_back(WriteChecked(
      EnumRow("file.compression",
              {"zstd", "snappy", "gzip", "deflate", "zlib", "lz4", "none", "uncompressed"}, "zstd",
              "format", "Compression codec of new data files.")));
  rows.push_back(Row("file.compression.zstd-level", OptionType::kInt, "1", "format",
                     "Zstandard level of new data and manifest files."));
  OptionDef checksums =
      WriteChecked(Row("parquet.page.write-checksum.enabled", OptionType::kBool, "true", "format",
                       "Write a CRC per Parquet page (verified on read)."));
  checksums.origin = "parquet";
  rows.push_back(std::move(checksums));
  OptionDef row_group =
      WithMin(WriteChecked(Row("parquet.block.size", OptionType::kMemorySize, "128 mb", "format",
                               "Arrow bytes a Parquet writer buffers before it closes a row group "
                               "(a primary-key writer: at most a quarter of write-buffer-size).")),
              1);
  row_group.origin = "parquet";
  rows.push_back(std::move(row_group));
  OptionDef parallel_columns =
      Row("parquet.write.parallel-columns", OptionType::kBool, "true", "format",
          "Encode and compress the columns of a Parquet row group in parallel, on a pool of one "
          "thread per core (the same bytes). Unset, append tables' writers take true; "
          "primary-key writers (bounded by write-buffer-size) and the real-time layer's flush "
          "(so that Writes keep their latency) take false.");
  parallel_columns.origin = "freshet";
  rows.push_back(std::move(parallel_columns));
  OptionDef stripe = WithMin(
      WriteChecked(Row("orc.stripe.size", OptionType::kMemorySize, "64 mb", "format",
                       "Bytes an ORC writer buffers before it closes a stripe (a primary-key "
                       "writer: at most a quarter of write-buffer-size).")),
      1);
  stripe.origin = "orc";
  rows.push_back(std::move(stripe));
  rows.push_back(
      WriteChecked(Row("metadata.stats-mode", OptionType::kStatsMode, "truncate(16)", "format",
                       "Value statistics kept per column of new data files.")));
  OptionDef field_stats =
      WriteChecked(Row("fields.<name>.stats-mode", OptionType::kStatsMode, std::nullopt, "format",
                       "Value statistics of one column of new data files."));
  field_stats.fallback_key = "metadata.stats-mode";
  field_stats.default_note = "the value of metadata.stats-mode";
  rows.push_back(std::move(field_stats));
  // --- file index (meta/fileindex/file_index.h)
  OptionDef bloom_columns = WriteChecked(
      Row("file-index.bloom-filter.columns", OptionType::kString, std::nullopt, "format",
          "Columns (comma-separated) whose values each new data "
          "file indexes in a bloom filter (Java's file index)."));
  bloom_columns.default_note = "none: no file index";
  rows.push_back(std::move(bloom_columns));
  rows.push_back(
      WriteChecked(Row("file-index.bloom-filter.<name>.fpp", OptionType::kString, "0.1", "format",
                       "False-positive probability of the column's bloom filter.")));
  rows.push_back(WithMin(
      WriteChecked(Row("file-index.bloom-filter.<name>.items", OptionType::kInt, "1000000",
                       "format", "Distinct values per data file the bloom filter is sized for.")),
      1));
  rows.push_back(WithMin(
      WriteChecked(Row("file-index.in-manifest-threshold", OptionType::kMemorySize, "500 b",
                       "format",
                       "A data file's index up to this size is inlined in its manifest entry; a "
                       "larger one is written beside the file as `<file>.index`.")),
      0));
  rows.push_back(Row("file-index.read.enabled", OptionType::kBool, "true", "scan",
                     "Skip data files whose index rules out an equality or IN predicate (and "
                     "lookup keys)."));
  // --- write: data files
  OptionDef target = Row("target-file-size", OptionType::kMemorySize, std::nullopt, "write",
                         "Size at which a writer rolls to a new data file.");
  target.min = 1;
  target.default_note = "128 mb for primary-key tables, 256 mb for append tables";
  rows.push_back(std::move(target));
  OptionDef prefix = WriteChecked(Row("data-file.prefix", OptionType::kString, "data-", "write",
                                      "Name prefix of new data files."));
  prefix.check_text = [](std::string_view text) {
    return text.find('/') == std::string_view::npos && text.find('\0') == std::string_view::npos;
  };
  prefix.accepted = "text without '/'";
  rows.push_back(std::move(prefix));
  // --- scan
  rows.push_back(WithMin(Row("source.split.target-size", OptionType::kMemorySize, "128 mb", "scan",
                             "A bucket's files are packed into splits of about this size."),
                         1));
  rows.push_back(
      WithMin(Row("source.split.open-file-cost", OptionType::kMemorySize, "4 mb", "scan",
                  "The least weight of a file when packing splits (many small files per split are "
                  "slow)."),
              0));
  OptionDef prefetch = WithMin(
      Row("read.prefetch.max-memory", OptionType::kMemorySize, "128 mb", "scan",
          "A read of several splits holding at least 16 MB of files reads them on worker threads "
          "(one per core, at most 8) ahead of its caller, returning the same batches in the same "
          "order; this bounds the bytes of batches held for splits the caller has not reached. "
          "0 reads every split on the caller's thread."),
      0);
  prefetch.origin = "freshet";
  rows.push_back(std::move(prefetch));
  // --- commit: manifests and snapshots
  rows.push_back(EnumRow("manifest.format", {"avro", "orc", "parquet"}, "avro", "commit",
                         "Format of manifest files (freshet commits Avro manifests only)."));
  rows.push_back(WriteChecked(EnumRow(
      "manifest.compression", {"zstd", "snappy", "deflate", "gzip", "none", "null", "uncompressed"},
      "zstd", "commit", "Compression codec of manifest files.")));
  rows.push_back(WithMin(Row("manifest.target-file-size", OptionType::kMemorySize, "8 mb", "commit",
                             "Manifests smaller than this are merged at commit."),
                         1));
  rows.push_back(WithMin(Row("manifest.merge-min-count", OptionType::kInt, "30", "commit",
                             "Least number of small manifests merged at a commit."),
                         2));
  rows.push_back(WithMin(Row("snapshot.num-retained.min", OptionType::kInt, "10", "commit",
                             "Least number of snapshots kept by expiration."),
                         1));
  rows.push_back(WithMin(Row("snapshot.num-retained.max", OptionType::kInt, "2147483647", "commit",
                             "Most snapshots kept by expiration."),
                         1));
  rows.push_back(Row("snapshot.time-retained", OptionType::kDuration, "1 h", "commit",
                     "Snapshots younger than this are kept (within the min and max)."));
  rows.push_back(WithMin(Row("snapshot.expire.limit", OptionType::kInt, "50", "commit",
                             "Most snapshots expired by one commit."),
                         1));
  // --- consumers of streaming reads (meta/snapshot/consumer_manager.h)
  auto no_default = [](OptionDef row, std::string note) {
    row.default_note = std::move(note);
    return row;
  };
  rows.push_back(
      no_default(Row("tag.default-time-retained", OptionType::kDuration, std::nullopt, "meta",
                     "The retention time recorded in a tag created without one (docs/tags.md)."),
                 "none: tags without a retention time"));
  rows.push_back(Row("tag.time-expire-enabled", OptionType::kBool, "true", "commit",
                     "Commits delete the tags whose retention time has passed (docs/tags.md)."));
  rows.push_back(no_default(
      Row("consumer-id", OptionType::kString, std::nullopt, "scan",
          "Streaming reads record their progress under this consumer id; expiration keeps the "
          "snapshots it has not read."),
      "none: no consumer"));
  rows.push_back(Row("consumer.ignore-progress", OptionType::kBool, "false", "scan",
                     "A streaming read with a consumer id starts by its scan mode, not from the "
                     "consumer's recorded progress."));
  rows.push_back(EnumRow("consumer.mode", {"exactly-once", "at-least-once"}, "exactly-once", "scan",
                         "How Flink checkpoints consumer progress; a freshet reader records it "
                         "once a snapshot's rows were all handed out, in both modes."));
  rows.push_back(
      no_default(Row("consumer.expiration-time", OptionType::kDuration, std::nullopt, "commit",
                     "Consumers not updated for this long are deleted at commit."),
                 "none: consumers never expire"));
  rows.push_back(Row("write-only", OptionType::kBool, "false", "commit",
                     "Writers neither compact nor expire snapshots."));
  rows.push_back(WithMin(Row("commit.max-retries", OptionType::kInt, "10", "commit",
                             "Retries of a commit that lost a race with another writer."),
                         0));
  // --- realtime (docs/realtime.md)
  auto realtime = [](OptionDef row) {
    row.origin = "freshet";
    return row;
  };
  rows.push_back(realtime(Row("realtime.enabled", OptionType::kBool, "false", "realtime",
                              "Writes go to in-memory MemIndexers, visible before commit.")));
  OptionDef indexer = realtime(Row("realtime.mem-indexer", OptionType::kString, "columnar",
                                   "realtime", "The MemIndexer plugin holding uncommitted rows."));
  indexer.check_text = [](std::string_view text) { return !text.empty(); };
  indexer.accepted = "the name of a registered MemIndexer plugin";
  rows.push_back(std::move(indexer));
  rows.push_back(realtime(
      WithMin(Row("realtime.memory.soft-limit", OptionType::kMemorySize, "256 mb", "realtime",
                  "Uncommitted rows above this ask the application to commit."),
              0)));
  rows.push_back(realtime(WithMin(Row("realtime.memory.hard-limit", OptionType::kMemorySize, "1 gb",
                                      "realtime", "Writes are refused (back-pressure) above this."),
                                  0)));
  // --- mergetree: compaction strategy of primary-key tables (docs/compaction.md)
  // `note`: what applies without a value, for the rows without a default.
  auto compaction = [&rows](std::string name, OptionType type, std::optional<std::string> def,
                            std::string description, int64_t min = INT64_MIN,
                            std::string note = "") -> OptionDef& {
    OptionDef row = WithMin(WriteChecked(Row(std::move(name), type, std::move(def), "mergetree",
                                             std::move(description))),
                            min);
    row.default_note = std::move(note);
    rows.push_back(std::move(row));
    return rows.back();
  };
  compaction("num-sorted-run.compaction-trigger", OptionType::kInt, "5",
             "Sorted runs (each level-0 file, each non-empty level above) that trigger a "
             "compaction.",
             1);
  compaction("num-sorted-run.stop-trigger", OptionType::kInt, std::nullopt,
             "Sorted runs above which writes wait for compaction.", 1,
             "num-sorted-run.compaction-trigger + 3 (at least the trigger)");
  compaction("num-levels", OptionType::kInt, std::nullopt,
             "Levels of a bucket's merge tree, 0 to num-levels - 1.", 2,
             "num-sorted-run.compaction-trigger + 1");
  compaction("compaction.max-size-amplification-percent", OptionType::kInt, "200",
             "Full compaction when the runs above the oldest exceed this percent of its size.", 0);
  compaction("compaction.size-ratio", OptionType::kInt, "1",
             "Percent by which the next sorted run may exceed the picked ones and still join.", 0);
  compaction("compaction.offpeak.start.hour", OptionType::kInt, "-1",
             "First off-peak hour of the local day (0 to 23); -1 disables off-peak.", -1)
      .max = 23;
  compaction("compaction.offpeak.end.hour", OptionType::kInt, "-1",
             "End (exclusive) of the off-peak hours (0 to 23); -1 disables off-peak.", -1)
      .max = 23;
  compaction("compaction.offpeak-ratio", OptionType::kInt, "0",
             "Added to compaction.size-ratio during off-peak hours.", 0);
  compaction("compaction.optimization-interval", OptionType::kDuration, std::nullopt,
             "Full compaction when the last one is older than this.", 0, "none");
  compaction("compaction.total-size-threshold", OptionType::kMemorySize, std::nullopt,
             "Full compaction whenever a bucket's files are smaller than this in total.", 0,
             "none");
  compaction("compaction.incremental-size-threshold", OptionType::kMemorySize, std::nullopt,
             "Full compaction when the files below the top level exceed this in total.", 0, "none");
  compaction("compaction.force-up-level-0", OptionType::kBool, "false",
             "Every compaction takes all level-0 files.");
  compaction("compaction.force-rewrite-all-files", OptionType::kBool, "false",
             "A full compaction rewrites top-level files too.");
  compaction("full-compaction.delta-commits", OptionType::kInt, std::nullopt,
             "Full compaction of the written buckets every this many commits (batch: each).",
             INT64_MIN, "none");
  OptionDef lookup_compact = WriteChecked(
      EnumRow("lookup-compact", {"RADICAL", "GENTLE"}, "RADICAL", "mergetree",
              "Lookup tables push level-0 files up at every compaction (RADICAL) or every "
              "lookup-compact.max-interval-th (GENTLE)."));
  rows.push_back(std::move(lookup_compact));
  compaction("lookup-compact.max-interval", OptionType::kInt, std::nullopt,
             "GENTLE lookup-compact: compactions between two that push level-0 files up.", 1,
             "2 x num-sorted-run.compaction-trigger (at least the trigger)");
  compaction("force-lookup", OptionType::kBool, "false",
             "Compact as lookup tables do (level-0 files pushed up at every compaction).");
  compaction("changelog-producer.lookup-wait", OptionType::kBool, "true",
             "Older name of lookup-wait (its value when lookup-wait is unset).");
  compaction("lookup-wait", OptionType::kBool, std::nullopt,
             "Lookup tables: a commit waits for the compaction that pushes its level-0 files up "
             "(and writes their lookup changelog).",
             INT64_MIN, "the value of changelog-producer.lookup-wait (true)")
      .fallback_key = "changelog-producer.lookup-wait";
  // --- write: compaction of append tables (docs/compaction.md, "Append tables")
  rows.push_back(WithMin(WriteChecked(Row("compaction.min.file-num", OptionType::kInt, "5", "write",
                                          "Files an append table's compaction takes at least.")),
                         1));
  rows.push_back(WithMin(
      WriteChecked(Row("compaction.file-num-limit", OptionType::kInt, "100000", "write",
                       "Small files one plan of an unaware-bucket append table considers.")),
      1));
  rows.push_back(WriteChecked(Row("commit.force-compact", OptionType::kBool, "false", "write",
                                  "Commits of append writers wait for their compaction.")));
  return rows;
}

std::vector<OptionRule> BuiltinRules() {
  std::vector<OptionRule> rules;
  rules.push_back(OptionRule{
      {"snapshot.num-retained.min", "snapshot.num-retained.max"},
      "commit",
      [](const Options& options) -> Status {
        FRESHET_ASSIGN_OR_RETURN(int32_t min, GetIntOption(options, "snapshot.num-retained.min"));
        FRESHET_ASSIGN_OR_RETURN(int32_t max, GetIntOption(options, "snapshot.num-retained.max"));
        if (max < min) {
          return Status::Invalid("option 'snapshot.num-retained.max' (", max,
                                 ") must be at least 'snapshot.num-retained.min' (", min, ")");
        }
        return Status::OK();
      }});
  rules.push_back(OptionRule{
      {"realtime.memory.soft-limit", "realtime.memory.hard-limit"},
      "realtime",
      [](const Options& options) -> Status {
        FRESHET_ASSIGN_OR_RETURN(int64_t soft,
                                 GetMemorySizeOption(options, "realtime.memory.soft-limit"));
        FRESHET_ASSIGN_OR_RETURN(int64_t hard,
                                 GetMemorySizeOption(options, "realtime.memory.hard-limit"));
        if (soft > hard) {
          return Status::Invalid("table option realtime.memory.soft-limit (", soft,
                                 " bytes) is above realtime.memory.hard-limit (", hard, " bytes)");
        }
        return Status::OK();
      }});
  return rules;
}

bool SameDefinition(const OptionDef& a, const OptionDef& b) {
  return a.name == b.name && a.type == b.type && a.default_value == b.default_value &&
         a.fallback_key == b.fallback_key && a.allowed == b.allowed && a.min == b.min &&
         a.max == b.max && a.check == b.check && a.owner == b.owner &&
         a.description == b.description;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Parsing rules

Result<int64_t> ParseMemorySize(std::string_view text) {
  FRESHET_ASSIGN_OR_RETURN(auto parts, SplitNumberAndUnit(text));
  const auto& [number, unit] = parts;
  if (unit.empty() || unit == "b" || unit == "bytes") return number;
  if (unit == "k" || unit == "kb" || unit == "kibibytes")
    return MultiplyChecked(number, 1LL << 10, text);
  if (unit == "m" || unit == "mb" || unit == "mebibytes")
    return MultiplyChecked(number, 1LL << 20, text);
  if (unit == "g" || unit == "gb" || unit == "gibibytes")
    return MultiplyChecked(number, 1LL << 30, text);
  if (unit == "t" || unit == "tb" || unit == "tebibytes")
    return MultiplyChecked(number, 1LL << 40, text);
  return Status::Invalid("'", text, "' has an unknown memory unit '", unit, "'");
}

Result<int64_t> ParseDurationMillis(std::string_view text) {
  FRESHET_ASSIGN_OR_RETURN(auto parts, SplitNumberAndUnit(text));
  const auto& [number, unit] = parts;
  if (unit.empty() || unit == "ms" || unit == "milli" || unit == "millis") return number;
  if (unit == "s" || unit == "sec" || unit == "secs" || unit == "second" || unit == "seconds") {
    return MultiplyChecked(number, 1000, text);
  }
  if (unit == "min" || unit == "m" || unit == "minute" || unit == "minutes") {
    return MultiplyChecked(number, 60'000, text);
  }
  if (unit == "h" || unit == "hour" || unit == "hours")
    return MultiplyChecked(number, 3'600'000, text);
  if (unit == "d" || unit == "day" || unit == "days")
    return MultiplyChecked(number, 86'400'000, text);
  return Status::Invalid("'", text, "' has an unknown time unit '", unit, "'");
}

Result<StatsModeValue> ParseStatsMode(std::string_view text) {
  using Kind = StatsModeValue::Kind;
  std::string mode = Lower(text);
  mode.erase(std::remove_if(mode.begin(), mode.end(), [](char c) { return c == ' '; }), mode.end());
  if (mode == "none") return StatsModeValue{Kind::kNone, 0};
  if (mode == "counts") return StatsModeValue{Kind::kCounts, 0};
  if (mode == "full") return StatsModeValue{Kind::kFull, 0};
  if (mode.starts_with("truncate(") && mode.ends_with(")")) {
    std::string digits = mode.substr(9, mode.size() - 10);
    if (!digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c); })) {
      int32_t length = std::stoi(digits);
      if (length > 0) return StatsModeValue{Kind::kTruncate, length};
    }
  }
  return Status::Invalid("invalid stats mode '", text,
                         "': expected none, counts, full or truncate(<positive length>)");
}

const char* OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "bool";
    case OptionType::kInt:
      return "int";
    case OptionType::kMemorySize:
      return "memory size";
    case OptionType::kDuration:
      return "duration";
    case OptionType::kEnum:
      return "enum";
    case OptionType::kString:
      return "string";
    case OptionType::kStatsMode:
      return "stats mode";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// OptionDef

bool OptionDef::is_pattern() const { return name.find(kPlaceholder) != std::string::npos; }

bool OptionDef::Matches(std::string_view key) const {
  size_t at = name.find(kPlaceholder);
  if (at == std::string::npos) return key == name;
  std::string_view prefix = std::string_view(name).substr(0, at);
  std::string_view suffix = std::string_view(name).substr(at + sizeof(kPlaceholder) - 1);
  return key.size() > prefix.size() + suffix.size() && key.starts_with(prefix) &&
         key.ends_with(suffix);
}

std::string OptionDef::AcceptedValues() const {
  if (!accepted.empty()) return accepted;
  auto range = [&](const std::string& what, const std::string& unit) {
    // Memory sizes and durations are never negative.
    bool unsigned_type = type == OptionType::kMemorySize || type == OptionType::kDuration;
    if (max == INT64_MAX && (min == INT64_MIN || (unsigned_type && min <= 0))) return what;
    if (max == INT64_MAX && min == 0) return "a non-negative " + what.substr(what.find(' ') + 1);
    if (max == INT64_MAX && min == 1) return "a positive " + what.substr(what.find(' ') + 1);
    if (min != INT64_MIN && max != INT64_MAX) {
      return what + " from " + std::to_string(min) + unit + " to " + std::to_string(max) + unit;
    }
    if (min != INT64_MIN) return what + " of at least " + std::to_string(min) + unit;
    if (max != INT64_MAX) return what + " of at most " + std::to_string(max) + unit;
    return what;
  };
  switch (type) {
    case OptionType::kBool:
      return "true or false";
    case OptionType::kInt:
      return range("an integer", "");
    case OptionType::kMemorySize:
      return range("a memory size such as '128 mb' (units b, kb, mb, gb, tb)", " bytes");
    case OptionType::kDuration:
      return range("a duration such as '1 h', '30 min', '10 s' or '500 ms'", " ms");
    case OptionType::kEnum:
      return Join(allowed);
    case OptionType::kString:
      return "any text";
    case OptionType::kStatsMode:
      return "none, counts, full or truncate(<positive length>)";
  }
  return "?";
}

Result<OptionValue> OptionDef::Parse(std::string_view key, std::string_view text) const {
  auto invalid = [&](const std::string& why) {
    return Status::Invalid("option '", key, "' has an invalid value '", text, "'",
                           why.empty() ? "" : " (" + why + ")",
                           "; accepted values: ", AcceptedValues());
  };
  OptionValue out;
  out.text = std::string(text);
  auto check_range = [&](int64_t n) -> Status {
    if (n < min || n > max || (check_number && !check_number(n))) return invalid("");
    out.number = n;
    return Status::OK();
  };
  switch (type) {
    case OptionType::kBool: {
      std::string lower = Lower(text);
      if (lower != "true" && lower != "false") return invalid("");
      out.number = lower == "true" ? 1 : 0;
      return out;
    }
    case OptionType::kInt: {
      std::string_view t = Trim(text);
      int32_t n = 0;
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
        return invalid("not a 32-bit integer");
      }
      FRESHET_RETURN_NOT_OK(check_range(n));
      return out;
    }
    case OptionType::kMemorySize:
    case OptionType::kDuration: {
      Result<int64_t> n =
          type == OptionType::kMemorySize ? ParseMemorySize(text) : ParseDurationMillis(text);
      if (!n.ok()) return invalid(n.status().message());
      FRESHET_RETURN_NOT_OK(check_range(*n));
      return out;
    }
    case OptionType::kEnum: {
      std::string lower = Lower(text);
      for (const std::string& value : allowed) {
        if (Lower(value) == lower) {
          out.text = value;
          return out;
        }
      }
      return invalid("");
    }
    case OptionType::kString:
      if (check_text && !check_text(text)) return invalid("");
      return out;
    case OptionType::kStatsMode: {
      Result<StatsModeValue> mode = ParseStatsMode(text);
      if (!mode.ok()) return invalid("");
      out.stats_mode = *mode;
      return out;
    }
  }
  return invalid("");
}

// ---------------------------------------------------------------------------------------------
// OptionRegistry

OptionRegistry::OptionRegistry() {
  for (OptionDef& row : BuiltinRows()) Add(std::make_shared<const OptionDef>(std::move(row)));
  rules_ = BuiltinRules();
}

void OptionRegistry::Add(std::shared_ptr<const OptionDef> row) {
  if (row->is_pattern()) {
    patterns_.push_back(row);
  } else {
    by_name_.emplace(row->name, row);  // the first row of a name is the one found
  }
  rows_.push_back(std::move(row));
}

OptionRegistry& OptionRegistry::Global() {
  // Never destroyed: plugins may register from static initializers and look up at exit.
  static OptionRegistry* registry = new OptionRegistry();
  return *registry;
}

std::shared_ptr<const OptionDef> OptionRegistry::Find(std::string_view key) const {
  std::lock_guard lock(mu_);
  if (auto named = by_name_.find(key); named != by_name_.end()) return named->second;
  for (const auto& row : patterns_) {
    if (row->Matches(key)) return row;
  }
  return nullptr;
}

std::vector<std::shared_ptr<const OptionDef>> OptionRegistry::Rows() const {
  std::lock_guard lock(mu_);
  return rows_;
}

std::vector<OptionRule> OptionRegistry::Rules() const {
  std::lock_guard lock(mu_);
  return rules_;
}

Status OptionRegistry::Register(OptionDef row) {
  if (row.name.empty()) return Status::Invalid("an option needs a name");
  if (row.owner.empty()) return Status::Invalid("option '", row.name, "' needs an owner");
  if (row.type == OptionType::kEnum && row.allowed.empty()) {
    return Status::Invalid("enum option '", row.name, "' needs its allowed values");
  }
  if (row.default_value) {
    Result<OptionValue> parsed = row.Parse(row.name, *row.default_value);
    if (!parsed.ok())
      return parsed.status().WithContext("the default of option '" + row.name + "'");
  }
  std::lock_guard lock(mu_);
  for (const auto& existing : rows_) {
    if (existing->name != row.name) continue;
    if (SameDefinition(*existing, row)) return Status::OK();
    return Status::AlreadyExists("option '", row.name, "' is declared already (owner ",
                                 existing->owner, ")");
  }
  Add(std::make_shared<const OptionDef>(std::move(row)));
  return Status::OK();
}

Status OptionRegistry::Validate(const Options& options, OptionCheck point,
                                std::string_view owner) const {
  for (const auto& [key, value] : options) {
    std::shared_ptr<const OptionDef> row = Find(key);
    if (row == nullptr || (!owner.empty() && row->owner != owner)) continue;
    if (row->check == OptionCheck::kWrite && point == OptionCheck::kOpen) continue;
    FRESHET_RETURN_NOT_OK(row->Parse(key, value).status());
  }
  for (const OptionRule& rule : Rules()) {
    if (!owner.empty() && rule.owner != owner) continue;
    bool any_set = std::any_of(rule.keys.begin(), rule.keys.end(), [&](const std::string& key) {
      return FindOption(options, key).has_value();
    });
    if (any_set) FRESHET_RETURN_NOT_OK(rule.check(options));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Typed reads

namespace {

// LookupOption with `key`'s row found already.
Result<std::optional<OptionValue>> LookupRow(const OptionDef& row, const Options& options,
                                             std::string_view key) {
  if (auto text = FindOption(options, key)) {
    FRESHET_ASSIGN_OR_RETURN(OptionValue value, row.Parse(key, *text));
    return std::optional<OptionValue>(std::move(value));
  }
  if (row.default_value) {
    FRESHET_ASSIGN_OR_RETURN(OptionValue value, row.Parse(key, *row.default_value));
    return std::optional<OptionValue>(std::move(value));
  }
  if (!row.fallback_key.empty()) return LookupOption(options, row.fallback_key);
  return std::optional<OptionValue>();
}

Result<OptionValue> Typed(const Options& options, std::string_view key,
                          std::initializer_list<OptionType> types) {
  std::shared_ptr<const OptionDef> row = OptionRegistry::Global().Find(key);
  if (row == nullptr) return Status::Internal("option '", key, "' is not in the option registry");
  if (std::find(types.begin(), types.end(), row->type) == types.end()) {
    return Status::Internal("option '", key, "' is of type ", OptionTypeName(row->type));
  }
  FRESHET_ASSIGN_OR_RETURN(std::optional<OptionValue> value, LookupRow(*row, options, key));
  if (!value) return Status::Internal("option '", key, "' is not set and has no default");
  return std::move(*value);
}

}  // namespace

Result<std::optional<OptionValue>> LookupOption(const Options& options, std::string_view key) {
  std::shared_ptr<const OptionDef> row = OptionRegistry::Global().Find(key);
  if (row == nullptr) return Status::Internal("option '", key, "' is not in the option registry");
  return LookupRow(*row, options, key);
}

Result<bool> GetBoolOption(const Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(OptionValue value, Typed(options, key, {OptionType::kBool}));
  return value.number != 0;
}

Result<int32_t> GetIntOption(const Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(OptionValue value, Typed(options, key, {OptionType::kInt}));
  return static_cast<int32_t>(value.number);
}

Result<int64_t> GetMemorySizeOption(const Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(OptionValue value, Typed(options, key, {OptionType::kMemorySize}));
  return value.number;
}

Result<int64_t> GetDurationOption(const Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(OptionValue value, Typed(options, key, {OptionType::kDuration}));
  return value.number;
}

Result<std::string> GetStringOption(const Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(OptionValue value,
                           Typed(options, key, {OptionType::kEnum, OptionType::kString}));
  return std::move(value.text);
}

Result<StatsModeValue> GetStatsModeOption(const Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(OptionValue value, Typed(options, key, {OptionType::kStatsMode}));
  return value.stats_mode;
}

}  // namespace freshet::meta
