// OptionRegistry: the one table of the table options freshet reads (docs/options.md).
//
// Every option a layer reads is a row here: its name (or a pattern such as
// `fields.<name>.stats-mode`), its type, its default (Java Paimon's where Java has the key), its
// validation, the layer that owns it and a one-line description. Layers read typed values with
// the Get* functions below, so that each key is parsed under one rule; an invalid value is an
// error naming the option and the values it accepts.
//
// The built-in rows live in option_registry.cc. Plugins (MemIndexer plugins of the real-time
// layer) add theirs at run time with Register(). Keys without a row are not freshet's: they are
// kept as given and never refused.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "freshet/result.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

// Java's MemorySize syntax: "128 mb", "64kb", "1073741824" (bytes), units b/kb/mb/gb/tb.
Result<int64_t> ParseMemorySize(std::string_view text);
// Java's Duration syntax: "1 h", "30 min", "10 s", "500 ms", "2 d"; a bare number is ms.
Result<int64_t> ParseDurationMillis(std::string_view text);

// A statistics mode (`metadata.stats-mode`, `fields.<name>.stats-mode`): none, counts, full or
// truncate(<positive length>), case-insensitive, blanks ignored.
struct StatsModeValue {
  enum class Kind : uint8_t { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int32_t length = 16;  // for kTruncate
};
Result<StatsModeValue> ParseStatsMode(std::string_view text);

enum class OptionType : uint8_t {
  kBool,        // true / false, case-insensitive
  kInt,         // 32-bit integer
  kMemorySize,  // ParseMemorySize, in bytes
  kDuration,    // ParseDurationMillis, in milliseconds
  kEnum,        // one of `allowed`, case-insensitive; read back in the row's spelling
  kString,      // any text (optionally checked by `check_text`)
  kStatsMode,   // ParseStatsMode
};
const char* OptionTypeName(OptionType type);

// When an invalid value is refused. Every option is checked when a table is created.
enum class OptionCheck : uint8_t {
  kOpen,   // ... and whenever the table is opened, for reading too
  kWrite,  // ... and when the table is opened for writing (values only writers use: a table
           // Java wrote with a codec freshet cannot write stays readable)
};

// A parsed value.
struct OptionValue {
  std::string text;    // kEnum: the allowed spelling; kString: as given; others: as given
  int64_t number = 0;  // kBool: 0/1; kInt; kMemorySize: bytes; kDuration: milliseconds
  StatsModeValue stats_mode;
};

struct OptionDef {
  // The key, or a pattern with one `<name>` placeholder standing for a non-empty column name.
  std::string name;
  OptionType type = OptionType::kString;
  // The default as text (parsed under the row's rule); nullopt when the option has none.
  std::optional<std::string> default_value;
  // When unset and without default, the value of this other key (`fields.<name>.stats-mode` falls
  // back to `metadata.stats-mode`).
  std::string fallback_key;
  // What the default is when it is not a constant (docs and Effective()).
  std::string default_note;
  std::vector<std::string> allowed;  // kEnum
  // kInt, kMemorySize, kDuration: the accepted range, and optionally a finer check.
  int64_t min = INT64_MIN;
  int64_t max = INT64_MAX;
  std::function<bool(int64_t)> check_number;
  // kString: a check of the text.
  std::function<bool(std::string_view)> check_text;
  // What is accepted, when the type and range do not say it all ("-2, -1 or a positive number").
  std::string accepted;
  OptionCheck check = OptionCheck::kOpen;
  std::string owner;  // the layer that reads it: "meta", "format", "write", "realtime", ...
  std::string origin = "paimon";  // where the key comes from: "paimon", "parquet", "freshet"
  std::string description;

  bool is_pattern() const;
  // Whether `key` is this row's name, or matches its pattern.
  bool Matches(std::string_view key) const;
  // "true or false", "one of zstd, snappy, ...", "an integer from 1 to 2147483647", ...
  std::string AcceptedValues() const;
  // Parses `text` under this row's rule; the error names `key` and the accepted values.
  Result<OptionValue> Parse(std::string_view key, std::string_view text) const;
};

// A rule over several options (`snapshot.num-retained.min` <= `snapshot.num-retained.max`).
struct OptionRule {
  std::vector<std::string> keys;
  std::string owner;
  std::function<Status(const Options&)> check;
};

class OptionRegistry {
 public:
  // The process-wide registry, with the built-in rows.
  static OptionRegistry& Global();

  // The row of `key`: its exact name first, then the patterns; nullptr when freshet does not
  // know the key.
  std::shared_ptr<const OptionDef> Find(std::string_view key) const;
  // Every row: the built-in ones in their order, then the registered ones.
  std::vector<std::shared_ptr<const OptionDef>> Rows() const;
  std::vector<OptionRule> Rules() const;

  // Adds a row (plugins). AlreadyExists when a row of that name exists with another definition;
  // registering the same definition again is OK.
  Status Register(OptionDef row);

  // Parses every option of `options` that has a row, then checks the rules. `point` says which
  // rows are checked: kOpen only the kOpen rows, kWrite all of them. A non-empty `owner` limits
  // the check to that owner's rows and rules.
  Status Validate(const Options& options, OptionCheck point, std::string_view owner = "") const;

 private:
  OptionRegistry();

  // Under mu_: appends `row` to rows_ and to the index Find looks in.
  void Add(std::shared_ptr<const OptionDef> row);

  // Heterogeneous lookup: Find takes a string_view without making a string.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>()(name); }
  };

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const OptionDef>> rows_;
  // rows_ by name (exact names) and the rows whose names are patterns, in registration order.
  std::unordered_map<std::string, std::shared_ptr<const OptionDef>, NameHash, std::equal_to<>>
      by_name_;
  std::vector<std::shared_ptr<const OptionDef>> patterns_;
  std::vector<OptionRule> rules_;
};

// Typed reads through the registry: the value set in `options`, else the row's default (else
// its fallback key's value). Errors name the option and the values it accepts. Reading a key the
// registry does not know, with the wrong type, or without a value or default is Internal (a bug).
Result<std::optional<OptionValue>> LookupOption(const Options& options, std::string_view key);
Result<bool> GetBoolOption(const Options& options, std::string_view key);
Result<int32_t> GetIntOption(const Options& options, std::string_view key);
Result<int64_t> GetMemorySizeOption(const Options& options, std::string_view key);
Result<int64_t> GetDurationOption(const Options& options, std::string_view key);
// kEnum (in the row's spelling) or kString (as given).
Result<std::string> GetStringOption(const Options& options, std::string_view key);
Result<StatsModeValue> GetStatsModeOption(const Options& options, std::string_view key);

}  // namespace freshet::meta
