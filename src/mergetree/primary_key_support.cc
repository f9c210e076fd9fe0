#include "mergetree/primary_key_support.h"

#include <algorithm>

#include "mergetree/merge_function.h"
#include "meta/options/option_registry.h"

namespace freshet::mergetree {

namespace {

Status CheckColumnsExist(const meta::TableSchema& schema) {
  for (const std::string& name : SequenceFieldNames(schema)) {
    if (schema.FieldIndex(name) < 0) {
      return Status::Invalid("option 'sequence.field' names column '", name,
                             "', which the table does not have");
    }
  }
  FRESHET_ASSIGN_OR_RETURN(auto row_kind_field,
                           meta::LookupOption(schema.options(), "rowkind.field"));
  if (row_kind_field) {
    int index = schema.FieldIndex(row_kind_field->text);
    if (index < 0) {
      return Status::Invalid("option 'rowkind.field' names column '", row_kind_field->text,
                             "', which the table does not have");
    }
    meta::TypeRoot root = schema.fields()[static_cast<size_t>(index)].type->root();
    if (root != meta::TypeRoot::kVarChar && root != meta::TypeRoot::kChar) {
      return Status::Invalid("option 'rowkind.field' names column '", row_kind_field->text,
                             "', which is not a string column (it holds +I, -U, +U or -D)");
    }
  }
  return Status::OK();
}

// Dynamic buckets whose primary key lacks a partition key: a key may move between partitions,
// which Java handles with a global index of every key (GlobalIndexAssigner, KEY_DYNAMIC mode).
Status CheckNotCrossPartition(const meta::TableSchema& schema) {
  const auto& keys = schema.primary_keys();
  for (const std::string& partition_key : schema.partition_keys()) {
    if (std::find(keys.begin(), keys.end(), partition_key) == keys.end()) {
      return Status::NotImplemented(
          "cross-partition upsert: option 'bucket' = -1 on a primary-key table whose primary key "
          "does not contain partition key '",
          partition_key,
          "' (Java's KEY_DYNAMIC mode, a global index of every key) is not supported; add the "
          "partition keys to the primary key or set 'bucket' to a positive number");
    }
  }
  return Status::OK();
}

// Options whose write side comes with later work: refused rather than ignored.
Status CheckWriteSupported(const meta::TableSchema& schema, PrimaryKeyUse use) {
  FRESHET_ASSIGN_OR_RETURN(int32_t bucket, meta::GetIntOption(schema.options(), "bucket"));
  if (bucket == -2) {
    return Status::NotImplemented(
        "option 'bucket' = -2 (postponed bucket mode) on a primary-key table: freshet writes "
        "primary-key tables with fixed or dynamic buckets; set 'bucket' to -1 or a positive "
        "number");
  }
  if (bucket == -1) FRESHET_RETURN_NOT_OK(CheckNotCrossPartition(schema));
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(schema.options(), "changelog-producer"));
  FRESHET_ASSIGN_OR_RETURN(std::string engine,
                           meta::GetStringOption(schema.options(), "merge-engine"));
  if (engine == "first-row" && (producer == "input" || producer == "full-compaction")) {
    // Java's schema validation: first-row tables produce their changelog by lookup only.
    return Status::Invalid("option 'changelog-producer' = '", producer,
                           "' with merge-engine first-row: only none and lookup are allowed");
  }
  return Status::OK();
}

}  // namespace

Status CheckPrimaryKeyTable(const meta::TableSchema& schema, PrimaryKeyUse use) {
  if (schema.primary_keys().empty()) return Status::OK();
  FRESHET_RETURN_NOT_OK(CheckColumnsExist(schema));
  FRESHET_ASSIGN_OR_RETURN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
  FRESHET_RETURN_NOT_OK(MakeMergeFunction(schema, layout).status());
  if (use != PrimaryKeyUse::kRead) FRESHET_RETURN_NOT_OK(CheckWriteSupported(schema, use));
  return Status::OK();
}

Result<bool> NeedsLookup(const meta::Options& options) {
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(options, "changelog-producer"));
  FRESHET_ASSIGN_OR_RETURN(std::string engine, meta::GetStringOption(options, "merge-engine"));
  FRESHET_ASSIGN_OR_RETURN(bool deletion_vectors,
                           meta::GetBoolOption(options, "deletion-vectors.enabled"));
  FRESHET_ASSIGN_OR_RETURN(bool force_lookup, meta::GetBoolOption(options, "force-lookup"));
  return engine == "first-row" || producer == "lookup" || deletion_vectors || force_lookup;
}

Result<bool> MergesWithLookupLevels(const meta::TableSchema& schema) {
  if (schema.primary_keys().empty()) return false;
  FRESHET_ASSIGN_OR_RETURN(std::string engine,
                           meta::GetStringOption(schema.options(), "merge-engine"));
  if (engine == "first-row") return false;
  return NeedsLookup(schema.options());
}

}  // namespace freshet::mergetree
