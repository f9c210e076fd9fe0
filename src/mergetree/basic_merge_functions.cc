// The deduplicate and first-row merge engines: each keeps one version of a key as it is.
#include "mergetree/merge_function.h"

namespace freshet::mergetree {

namespace {

// deduplicate: the newest version wins, a delete included (readers then drop the key). With
// ignore-delete, retract versions are skipped as if never written.
class DeduplicateFunction : public MergeFunction {
 public:
  explicit DeduplicateFunction(bool ignore_delete) : ignore_delete_(ignore_delete) {}

  void Reset() override { latest_.reset(); }
  Status Add(const KeyValueRef& kv) override {
    if (!(ignore_delete_ && IsRetract(kv.kind()))) latest_ = kv;
    return Status::OK();
  }
  Status Finish(MergedRowSink* sink) override {
    if (!latest_) return Status::OK();
    return sink->AppendRow(*latest_, latest_->kind());
  }
  bool KeepsNewestVersion() const override { return !ignore_delete_; }

 private:
  const bool ignore_delete_;
  std::optional<KeyValueRef> latest_;
};

// first-row: the oldest version wins. A retract cannot undo a first row (it would need the
// versions before it), so it is an error unless ignore-delete skips it, as in Java.
class FirstRowFunction : public MergeFunction {
 public:
  explicit FirstRowFunction(bool ignore_delete) : ignore_delete_(ignore_delete) {}

  void Reset() override { first_.reset(); }
  Status Add(const KeyValueRef& kv) override {
    if (IsRetract(kv.kind())) {
      if (ignore_delete_) return Status::OK();
      return Status::Invalid(
          "merge-engine 'first-row' cannot apply a ", RowKindShortString(kv.kind()),
          " record (sequence number ", kv.sequence(),
          "); set 'ignore-delete' = 'true' to ignore DELETE and UPDATE_BEFORE records");
    }
    if (!first_) first_ = kv;
    return Status::OK();
  }
  Status Finish(MergedRowSink* sink) override {
    if (!first_) return Status::OK();
    return sink->AppendRow(*first_, first_->kind());
  }

 private:
  const bool ignore_delete_;
  std::optional<KeyValueRef> first_;
};

}  // namespace

Result<std::unique_ptr<MergeFunction>> MakeDeduplicateFunction(const meta::TableSchema& schema,
                                                               const MergeLayout&) {
  FRESHET_ASSIGN_OR_RETURN(bool ignore_delete, IgnoreDelete(schema));
  return std::unique_ptr<MergeFunction>(new DeduplicateFunction(ignore_delete));
}

Result<std::unique_ptr<MergeFunction>> MakeFirstRowFunction(const meta::TableSchema& schema,
                                                            const MergeLayout&) {
  FRESHET_ASSIGN_OR_RETURN(bool ignore_delete, IgnoreDelete(schema));
  return std::unique_ptr<MergeFunction>(new FirstRowFunction(ignore_delete));
}

}  // namespace freshet::mergetree
