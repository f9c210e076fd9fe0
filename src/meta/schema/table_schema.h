// TableSchema: the content of a table's `schema/schema-<N>` JSON file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "meta/types/data_type.h"

namespace freshet::meta {

// Table options in the order Java wrote them (Java keeps insertion order; so do we, so that a
// schema file round-trips byte for byte).
using Options = std::vector<std::pair<std::string, std::string>>;

// Value of `key` in `options`, if set.
std::optional<std::string> FindOption(const Options& options, std::string_view key);

// Reserved field names and ids (Java's SpecialFields).
inline constexpr int32_t kKeyFieldIdStart = 1073741823;  // Integer.MAX_VALUE / 2
inline constexpr char kKeyFieldPrefix[] = "_KEY_";
inline constexpr char kSequenceNumberField[] = "_SEQUENCE_NUMBER";
inline constexpr char kValueKindField[] = "_VALUE_KIND";
inline constexpr char kLevelField[] = "_LEVEL";
inline constexpr char kRowKindField[] = "rowkind";
inline constexpr char kRowIdField[] = "_ROW_ID";

// What a caller gives to create a new table (ids of `fields` are ignored and reassigned).
struct SchemaSpec {
  std::vector<DataField> fields;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  Options options;
  std::optional<std::string> comment;
};

class TableSchema {
 public:
  static constexpr int32_t kCurrentVersion = 3;

  // Parses a schema file's text. `source_path` only serves error messages.
  static Result<TableSchema> FromJson(std::string_view text, std::string_view source_path = "");

  // Creates schema `id` for a new table: assigns field ids from 0 as Java does, makes primary-key
  // columns NOT NULL (unless option primary-key.nullable=true) and validates the whole spec.
  static Result<TableSchema> Create(int64_t id, SchemaSpec spec, int64_t time_millis);

  // Java's pretty-printed file content (byte-identical to what Java writes).
  std::string ToJson() const;

  int32_t version() const { return version_; }
  int64_t id() const { return id_; }
  const std::vector<DataField>& fields() const { return fields_; }
  int32_t highest_field_id() const { return highest_field_id_; }
  const std::vector<std::string>& partition_keys() const { return partition_keys_; }
  const std::vector<std::string>& primary_keys() const { return primary_keys_; }
  const Options& options() const { return options_; }
  const std::optional<std::string>& comment() const { return comment_; }
  int64_t time_millis() const { return time_millis_; }

  std::optional<std::string> option(std::string_view key) const {
    return FindOption(options_, key);
  }
  // Option `bucket`, default -1 (validated to be an integer when the schema is built).
  int32_t bucket() const { return bucket_; }
  // Primary keys minus partition keys, in primary-key order.
  std::vector<std::string> TrimmedPrimaryKeys() const;
  // Option `bucket-key` (comma separated), else the trimmed primary keys.
  std::vector<std::string> BucketKeys() const;
  std::vector<DataField> PartitionFields() const;
  std::vector<DataField> FieldsByNames(const std::vector<std::string>& names) const;
  // Index of a top-level field, or -1.
  int FieldIndex(std::string_view name) const { return FindFieldByName(fields_, name); }

  // The same schema with other options (e.g. the settings of a table's changelog files);
  // errors name an invalid derived option.
  Result<TableSchema> WithOptions(Options options) const;

  // Highest id over all (nested) fields ignoring system ids (>= 1073741823); -1 without fields.
  static int32_t ComputeHighestFieldId(const std::vector<DataField>& fields);

  bool operator==(const TableSchema& other) const;

 private:
  TableSchema() = default;
  // Parses derived option values; errors name the option.
  Status InitDerived();
  // A schema read from a file is checked as a new one is (names, ids, keys, options).
  Status CheckLoaded(int64_t highest_field_id);

  int32_t version_ = kCurrentVersion;
  int64_t id_ = 0;
  std::vector<DataField> fields_;
  int32_t highest_field_id_ = -1;
  std::vector<std::string> partition_keys_;
  std::vector<std::string> primary_keys_;
  Options options_;
  std::optional<std::string> comment_;
  int64_t time_millis_ = 0;
  int32_t bucket_ = -1;
};

}  // namespace freshet::meta
