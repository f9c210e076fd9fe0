#include "meta/options/core_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

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

Result<int32_t> ParseInt(std::string_view key, const std::string& value) {
  int32_t out = 0;
  std::string_view t = Trim(value);
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec != std::errc() || end != t.data() + t.size()) {
    return Status::Invalid("option '", key, "' must be an integer, not '", value, "'");
  }
  return out;
}

Result<bool> ParseBool(std::string_view key, const std::string& value) {
  std::string v = Lower(Trim(value));
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::Invalid("option '", key, "' must be true or false, not '", value, "'");
}

}  // namespace

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

Result<CoreOptions> CoreOptions::Make(const Options& options, bool has_primary_key) {
  CoreOptions o;
  o.raw_ = options;
  // Java: 128 MB for primary-key tables, 256 MB for append tables.
  o.target_file_size_ = has_primary_key ? (128LL << 20) : (256LL << 20);
  for (const auto& option : options) {
    // Named references, not a structured binding: lambdas may not capture bindings before C++20
    // in every compiler (clang 14, used for the fuzz build).
    const std::string& key = option.first;
    const std::string& value = option.second;
    Status st;
    auto set_int = [&](int32_t* out) {
      Result<int32_t> v = ParseInt(key, value);
      if (v.ok()) *out = *v;
      return v.status().ok() ? Status::OK() : v.status();
    };
    auto set_size = [&](int64_t* out) {
      Result<int64_t> v = ParseMemorySize(value);
      if (!v.ok()) return v.status().WithContext("option '" + key + "'");
      *out = *v;
      return Status::OK();
    };
    if (key == "bucket") {
      st = set_int(&o.bucket_);
      if (st.ok() && (o.bucket_ == 0 || o.bucket_ < -2)) {
        st = Status::Invalid("option 'bucket' must be -2, -1 or a positive number, not ", value);
      }
    } else if (key == "file.format") {
      o.file_format_ = Lower(Trim(value));
    } else if (key == "file.compression") {
      o.file_compression_ = Lower(Trim(value));
    } else if (key == "file.compression.zstd-level") {
      st = set_int(&o.zstd_level_);
    } else if (key == "manifest.format") {
      o.manifest_format_ = Lower(Trim(value));
    } else if (key == "manifest.compression") {
      o.manifest_compression_ = Lower(Trim(value));
    } else if (key == "target-file-size") {
      st = set_size(&o.target_file_size_);
    } else if (key == "manifest.target-file-size") {
      st = set_size(&o.manifest_target_file_size_);
    } else if (key == "manifest.merge-min-count") {
      st = set_int(&o.manifest_merge_min_count_);
      if (st.ok() && o.manifest_merge_min_count_ < 2) {
        st = Status::Invalid("option 'manifest.merge-min-count' must be at least 2, not ", value);
      }
    } else if (key == "partition.default-name") {
      o.partition_default_name_ = value;
    } else if (key == "partition.legacy-name") {
      Result<bool> v = ParseBool(key, value);
      st = v.status();
      if (v.ok()) o.partition_legacy_name_ = *v;
    } else if (key == "data-file.prefix") {
      o.data_file_prefix_ = value;
    } else if (key == "snapshot.num-retained.min") {
      st = set_int(&o.num_retained_min_);
    } else if (key == "snapshot.num-retained.max") {
      st = set_int(&o.num_retained_max_);
    } else if (key == "snapshot.time-retained") {
      Result<int64_t> v = ParseDurationMillis(value);
      st = v.ok() ? Status::OK() : v.status().WithContext("option '" + key + "'");
      if (v.ok()) o.time_retained_ms_ = *v;
    } else if (key == "snapshot.expire.limit") {
      st = set_int(&o.expire_limit_);
    } else if (key == "write-only") {
      Result<bool> v = ParseBool(key, value);
      st = v.status();
      if (v.ok()) o.write_only_ = *v;
    } else if (key == "commit.max-retries") {
      st = set_int(&o.commit_max_retries_);
    } else if (key == "merge-engine") {
      o.merge_engine_ = Lower(Trim(value));
    }
    FRESHET_RETURN_NOT_OK(st);
  }
  if (o.num_retained_min_ < 1 || o.num_retained_max_ < o.num_retained_min_ || o.expire_limit_ < 1) {
    return Status::Invalid(
        "snapshot retention needs snapshot.num-retained.min >= 1, snapshot.num-retained.max >= "
        "min and snapshot.expire.limit >= 1 (got ",
        o.num_retained_min_, ", ", o.num_retained_max_, ", ", o.expire_limit_, ")");
  }
  for (const char* format : {o.file_format_.c_str(), o.manifest_format_.c_str()}) {
    std::string_view f(format);
    if (f != "parquet" && f != "orc" && f != "avro") {
      return Status::Invalid("unsupported file format '", f, "' (expected parquet, orc or avro)");
    }
  }
  return o;
}

Options CoreOptions::Effective() const {
  Options out = raw_;
  auto add_default = [&](const std::string& key, const std::string& value) {
    if (!FindOption(out, key)) out.emplace_back(key, value + " (default)");
  };
  add_default("bucket", std::to_string(bucket_));
  add_default("file.format", file_format_);
  add_default("file.compression", file_compression_);
  add_default("manifest.compression", manifest_compression_);
  add_default("target-file-size", std::to_string(target_file_size_ >> 20) + " mb");
  return out;
}

}  // namespace freshet::meta
