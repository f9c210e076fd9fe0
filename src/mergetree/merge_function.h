// MergeFunction: what a primary-key table's merge engine does with the versions of one key.
//
// A merge (read, write-buffer flush, compaction) feeds a key's versions to the function in merge
// order (key, then `sequence.field`, then _SEQUENCE_NUMBER: oldest first), then asks for the
// merged record. As Java's ReducerMergeFunctionWrapper does, a key with a single version never
// reaches the function: it is passed on as it is, with its own row kind. Readers drop merged
// records whose kind retracts (-U, -D); writers keep them.
//
// Engines (merge-engine): deduplicate, first-row (mergetree/basic_merge_functions.cc),
// partial-update (mergetree/partial_update_merge_function.cc), aggregation
// (mergetree/aggregate/). Each engine validates its table options when it is made, so making the
// function of a table is how create and write refuse options freshet cannot honour.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <vector>

#include "freshet/result.h"
#include "mergetree/key_value.h"
#include "meta/schema/table_schema.h"

namespace freshet::mergetree {

// One field of a merged record: an element of a version (batch != nullptr), a computed value
// (scalar != nullptr, of the field's Arrow type), or SQL NULL (neither).
struct FieldValue {
  const MergeBatch* batch = nullptr;
  int64_t row = 0;
  std::shared_ptr<arrow::Scalar> scalar;

  static FieldValue From(const KeyValueRef& ref) { return FieldValue{ref.batch, ref.row, {}}; }
  static FieldValue Null() { return FieldValue{}; }
  static FieldValue Of(std::shared_ptr<arrow::Scalar> value) {
    return FieldValue{nullptr, 0, std::move(value)};
  }
};

// Receives merged records.
class MergedRowSink {
 public:
  virtual ~MergedRowSink() = default;
  // The merged record is version `source` as it is (value fields and sequence number) with
  // `kind`.
  virtual Status AppendRow(const KeyValueRef& source, RowKind kind) = 0;
  // The merged record built field by field: `fields` holds one entry per value field of the
  // layout, in layout order (the field's own column for a version's element).
  virtual Status AppendFields(const std::vector<FieldValue>& fields, int64_t sequence,
                              RowKind kind) = 0;
};

class MergeFunction {
 public:
  virtual ~MergeFunction() = default;
  // Starts a new key.
  virtual void Reset() = 0;
  // The next version of the current key, in merge order. The referenced batch stays alive until
  // Finish() has returned.
  virtual Status Add(const KeyValueRef& kv) = 0;
  // Emits the key's merged record into `sink`, or nothing when the versions leave no record.
  virtual Status Finish(MergedRowSink* sink) = 0;
  // Whether the merged record is always the newest version as it is (deduplicate without
  // ignore-delete): a sorted run can then drop the older versions itself, without a merge.
  virtual bool KeepsNewestVersion() const { return false; }
};

// The table's `sequence.field` columns, in option order (empty when unset).
std::vector<std::string> SequenceFieldNames(const meta::TableSchema& schema);
// `ignore-delete`, or its per-engine aliases (`deduplicate.ignore-delete`, ...).
Result<bool> IgnoreDelete(const meta::TableSchema& schema);

// The value fields a merge of `schema` needs to deliver `wanted` (fields of `schema`): the
// wanted fields, then the trimmed primary key and `sequence.field` columns when missing; every
// field for partial-update and aggregation (their results depend on all columns).
std::vector<meta::DataField> MergeValueFields(const meta::TableSchema& schema,
                                              const std::vector<meta::DataField>& wanted);

// The layout of MergeValueFields(schema, wanted).
Result<MergeLayout> MakeMergeLayout(const meta::TableSchema& schema,
                                    const std::vector<meta::DataField>& wanted);

// The merge function of `schema`'s `merge-engine`, over `layout`. Invalid (naming the option)
// for options the engine cannot honour; NotImplemented for an engine freshet does not know.
Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const meta::TableSchema& schema,
                                                         const MergeLayout& layout);

// The engines, for MakeMergeFunction.
Result<std::unique_ptr<MergeFunction>> MakeDeduplicateFunction(const meta::TableSchema& schema,
                                                               const MergeLayout& layout);
Result<std::unique_ptr<MergeFunction>> MakeFirstRowFunction(const meta::TableSchema& schema,
                                                            const MergeLayout& layout);
Result<std::unique_ptr<MergeFunction>> MakePartialUpdateFunction(const meta::TableSchema& schema,
                                                                 const MergeLayout& layout);
Result<std::unique_ptr<MergeFunction>> MakeAggregationFunction(const meta::TableSchema& schema,
                                                               const MergeLayout& layout);

}  // namespace freshet::mergetree
