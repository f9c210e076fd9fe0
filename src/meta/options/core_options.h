// CoreOptions: typed access to table options with Java Paimon's defaults, a facade over the
// option registry (meta/options/option_registry.h, docs/options.md), which parses every key.
#pragma once

#include <cstdint>
#include <string>

#include "freshet/result.h"
#include "meta/options/option_registry.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

class CoreOptions {
 public:
  // Validates every option the registry knows and reads the ones below; an invalid value is an
  // error naming the option and its accepted values. `check` is kWrite (the default) when a
  // table is created or opened for writing, kOpen when it is only opened: then values only
  // writers use (e.g. a codec freshet cannot write) are not refused, and their getters return
  // the defaults.
  static Result<CoreOptions> Make(const Options& options, bool has_primary_key,
                                  OptionCheck check = OptionCheck::kWrite);

  int32_t bucket() const { return bucket_; }
  const std::string& file_format() const { return file_format_; }
  const std::string& file_compression() const { return file_compression_; }
  int32_t file_compression_zstd_level() const { return zstd_level_; }
  const std::string& manifest_format() const { return manifest_format_; }
  const std::string& manifest_compression() const { return manifest_compression_; }
  int64_t target_file_size() const { return target_file_size_; }
  int64_t manifest_target_file_size() const { return manifest_target_file_size_; }
  // Java's `manifest.merge-min-count`: at least this many small manifests are merged at commit.
  int32_t manifest_merge_min_count() const { return manifest_merge_min_count_; }
  const std::string& partition_default_name() const { return partition_default_name_; }
  bool partition_legacy_name() const { return partition_legacy_name_; }
  const std::string& data_file_prefix() const { return data_file_prefix_; }
  int32_t snapshot_num_retained_min() const { return num_retained_min_; }
  int32_t snapshot_num_retained_max() const { return num_retained_max_; }
  int64_t snapshot_time_retained_ms() const { return time_retained_ms_; }
  int32_t snapshot_expire_limit() const { return expire_limit_; }
  // Java's `write-only`: writers neither compact nor expire snapshots.
  bool write_only() const { return write_only_; }
  int32_t commit_max_retries() const { return commit_max_retries_; }
  const std::string& merge_engine() const { return merge_engine_; }
  // Java's `source.split.target-size` / `source.split.open-file-cost`: scans pack a bucket's
  // files into splits of at most the target, each file weighing at least the open cost.
  int64_t source_split_target_size() const { return split_target_size_; }
  int64_t source_split_open_file_cost() const { return split_open_file_cost_; }

  // Every option of the registry with its effective value, then the keys the registry does not
  // know, as given (for `freshet inspect`). Options the table sets come first, in the table's
  // order, with their values as given; then every other registry key (patterns such as
  // fields.<name>.stats-mode excepted) with its default followed by " (default)"; a key without
  // a default shows what applies instead ("the primary keys minus the partition keys (default)")
  // or "(not set)".
  Options Effective() const;

 private:
  Options raw_;  // as given, for Effective()
  bool has_primary_key_ = false;
  int32_t bucket_ = -1;
  std::string file_format_ = "parquet";
  std::string file_compression_ = "zstd";
  int32_t zstd_level_ = 1;
  std::string manifest_format_ = "avro";
  std::string manifest_compression_ = "zstd";
  int64_t target_file_size_ = 0;
  int64_t manifest_target_file_size_ = 8LL << 20;
  int32_t manifest_merge_min_count_ = 30;
  std::string partition_default_name_ = "__DEFAULT_PARTITION__";
  bool partition_legacy_name_ = true;
  std::string data_file_prefix_ = "data-";
  int32_t num_retained_min_ = 10;
  int32_t num_retained_max_ = 2147483647;
  int64_t time_retained_ms_ = 3600LL * 1000;
  int32_t expire_limit_ = 50;
  bool write_only_ = false;
  int32_t commit_max_retries_ = 10;
  std::string merge_engine_ = "deduplicate";
  int64_t split_target_size_ = 128LL << 20;
  int64_t split_open_file_cost_ = 4LL << 20;
};

}  // namespace freshet::meta
