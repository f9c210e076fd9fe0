#include "mergetree/primary_key_support.h"

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

// Options whose write side comes with later work: refused rather than ignored.
Status CheckWriteSupported(const meta::TableSchema& schema) {
  FRESHET_ASSIGN_OR_RETURN(int32_t bucket, meta::GetIntOption(schema.options(), "bucket"));
  if (bucket < 1) {
    return Status::NotImplemented(
        "option 'bucket' = ", bucket, " (", bucket == -1 ? "dynamic" : "postponed",
        " bucket mode) on a primary-key table: freshet writes primary-key tables with a fixed "
        "number of buckets; set 'bucket' to a positive number");
  }
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(schema.options(), "changelog-producer"));
  if (producer != "none") {
    return Status::NotImplemented("option 'changelog-producer' = '", producer,
                                  "': freshet writes primary-key tables without a changelog "
                                  "producer (none) for now");
  }
  return Status::OK();
}

}  // namespace

Status CheckPrimaryKeyTable(const meta::TableSchema& schema, PrimaryKeyUse use) {
  if (schema.primary_keys().empty()) return Status::OK();
  FRESHET_RETURN_NOT_OK(CheckColumnsExist(schema));
  FRESHET_ASSIGN_OR_RETURN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
  FRESHET_RETURN_NOT_OK(MakeMergeFunction(schema, layout).status());
  if (use != PrimaryKeyUse::kRead) FRESHET_RETURN_NOT_OK(CheckWriteSupported(schema));
  return Status::OK();
}

}  // namespace freshet::mergetree
