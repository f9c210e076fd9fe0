#include "meta/options/core_options.h"

namespace freshet::meta {

namespace {

std::string MemoryText(int64_t bytes) {
  if (bytes > 0 && bytes % (1LL << 20) == 0) return std::to_string(bytes >> 20) + " mb";
  return std::to_string(bytes) + " b";
}

}  // namespace

Result<CoreOptions> CoreOptions::Make(const Options& options, bool has_primary_key,
                                      OptionCheck check) {
  FRESHET_RETURN_NOT_OK(OptionRegistry::Global().Validate(options, check));
  CoreOptions o;
  o.raw_ = options;
  o.has_primary_key_ = has_primary_key;
  // Options checked at every open: valid once Validate passed.
  FRESHET_ASSIGN_OR_RETURN(o.bucket_, GetIntOption(options, "bucket"));
  FRESHET_ASSIGN_OR_RETURN(o.file_format_, GetStringOption(options, "file.format"));
  FRESHET_ASSIGN_OR_RETURN(o.zstd_level_, GetIntOption(options, "file.compression.zstd-level"));
  FRESHET_ASSIGN_OR_RETURN(o.manifest_format_, GetStringOption(options, "manifest.format"));
  FRESHET_ASSIGN_OR_RETURN(auto target, LookupOption(options, "target-file-size"));
  // Java: 128 MB for primary-key tables, 256 MB for append tables.
  o.target_file_size_ = target ? target->number : has_primary_key ? (128LL << 20) : (256LL << 20);
  FRESHET_ASSIGN_OR_RETURN(o.manifest_target_file_size_,
                           GetMemorySizeOption(options, "manifest.target-file-size"));
  FRESHET_ASSIGN_OR_RETURN(o.manifest_merge_min_count_,
                           GetIntOption(options, "manifest.merge-min-count"));
  FRESHET_ASSIGN_OR_RETURN(o.partition_default_name_,
                           GetStringOption(options, "partition.default-name"));
  FRESHET_ASSIGN_OR_RETURN(o.partition_legacy_name_,
                           GetBoolOption(options, "partition.legacy-name"));
  FRESHET_ASSIGN_OR_RETURN(o.num_retained_min_, GetIntOption(options, "snapshot.num-retained.min"));
  FRESHET_ASSIGN_OR_RETURN(o.num_retained_max_, GetIntOption(options, "snapshot.num-retained.max"));
  FRESHET_ASSIGN_OR_RETURN(o.time_retained_ms_,
                           GetDurationOption(options, "snapshot.time-retained"));
  FRESHET_ASSIGN_OR_RETURN(o.expire_limit_, GetIntOption(options, "snapshot.expire.limit"));
  FRESHET_ASSIGN_OR_RETURN(o.write_only_, GetBoolOption(options, "write-only"));
  FRESHET_ASSIGN_OR_RETURN(o.commit_max_retries_, GetIntOption(options, "commit.max-retries"));
  FRESHET_ASSIGN_OR_RETURN(o.merge_engine_, GetStringOption(options, "merge-engine"));
  FRESHET_ASSIGN_OR_RETURN(o.split_target_size_,
                           GetMemorySizeOption(options, "source.split.target-size"));
  FRESHET_ASSIGN_OR_RETURN(o.split_open_file_cost_,
                           GetMemorySizeOption(options, "source.split.open-file-cost"));
  // Options only writers use: when the table is only opened, a value freshet cannot write (a
  // Java table's codec, say) leaves the default; writers open with kWrite and refuse it.
  auto writer_string = [&](const char* key, std::string* out) -> Status {
    Result<std::string> value = GetStringOption(options, key);
    if (value.ok()) {
      *out = std::move(*value);
    } else if (check == OptionCheck::kWrite) {
      return value.status();
    }
    return Status::OK();
  };
  FRESHET_RETURN_NOT_OK(writer_string("file.compression", &o.file_compression_));
  FRESHET_RETURN_NOT_OK(writer_string("manifest.compression", &o.manifest_compression_));
  FRESHET_RETURN_NOT_OK(writer_string("data-file.prefix", &o.data_file_prefix_));
  return o;
}

Options CoreOptions::Effective() const {
  Options out = raw_;
  for (const auto& row : OptionRegistry::Global().Rows()) {
    if (row->is_pattern() || FindOption(out, row->name)) continue;
    std::string value;
    if (row->name == "target-file-size") {
      value = MemoryText(target_file_size_) + " (default)";
    } else if (row->default_value) {
      value = *row->default_value + " (default)";
    } else if (!row->default_note.empty()) {
      value = row->default_note + " (default)";
    } else {
      value = "(not set)";
    }
    out.emplace_back(row->name, std::move(value));
  }
  return out;
}

}  // namespace freshet::meta
