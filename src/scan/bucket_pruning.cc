#include "scan/bucket_pruning.h"

#include <algorithm>

#include "meta/bucket/bucket_function.h"
#include "meta/row/value_compare.h"

namespace freshet::scan {

namespace {

// The leaves of a chain of ANDs (a predicate that is not an AND is its own only leaf).
void AndLeaves(const Predicate& predicate, std::vector<const Predicate*>* out) {
  if (predicate.kind == Expr::Kind::kAnd && !predicate.IsLeaf()) {
    for (const Predicate& child : predicate.children) AndLeaves(child, out);
    return;
  }
  out->push_back(&predicate);
}

bool Contains(const std::vector<meta::Value>& values, const meta::Value& v) {
  return std::any_of(values.begin(), values.end(),
                     [&](const meta::Value& w) { return meta::CompareValues(v, w) == 0; });
}

// The values a leaf allows for its column, or nullopt when it is not an equality.
std::optional<std::vector<meta::Value>> AllowedValues(const Predicate& leaf) {
  const bool equality = leaf.kind == Expr::Kind::kIn ||
                        (leaf.kind == Expr::Kind::kCompare && leaf.op == CompareOp::kEq);
  if (!equality) return std::nullopt;
  std::vector<meta::Value> values;
  for (const meta::Value& v : leaf.literals) {
    if (!v.is_null() && !Contains(values, v)) values.push_back(v);  // `= NULL` is never TRUE
  }
  return values;
}

}  // namespace

std::optional<BucketSelection> BucketSelection::Make(const Predicate& predicate,
                                                     const meta::TableSchema& schema) {
  if (schema.bucket() <= 0) return std::nullopt;
  if (auto function = schema.option("bucket-function.type");
      function && *function != "default" && *function != "DEFAULT") {
    return std::nullopt;
  }
  std::vector<const Predicate*> leaves;
  AndLeaves(predicate, &leaves);
  std::vector<meta::DataField> key_fields;
  std::vector<std::vector<meta::Value>> allowed;
  for (const std::string& name : schema.BucketKeys()) {
    const meta::DataField& field = schema.fields()[static_cast<size_t>(schema.FieldIndex(name))];
    std::optional<std::vector<meta::Value>> values;
    for (const Predicate* leaf : leaves) {
      if (!leaf->IsLeaf() || leaf->field.id != field.id) continue;
      auto these = AllowedValues(*leaf);
      if (!these) continue;
      if (!values) {
        values = std::move(these);
        continue;
      }
      std::erase_if(*values, [&](const meta::Value& v) { return !Contains(*these, v); });
    }
    if (!values) return std::nullopt;
    key_fields.push_back(field);
    allowed.push_back(std::move(*values));
  }
  if (key_fields.empty()) return std::nullopt;
  size_t combinations = 1;
  for (const auto& values : allowed) {
    combinations *= values.size();
    if (combinations > kMaxRows) return std::nullopt;
  }
  BucketSelection selection;
  // Every combination of the allowed values, as bucket-key rows (none: nothing can match).
  std::vector<size_t> at(allowed.size(), 0);
  for (size_t n = 0; n < combinations; ++n) {
    std::vector<meta::Value> row;
    for (size_t k = 0; k < allowed.size(); ++k) row.push_back(allowed[k][at[k]]);
    auto built = meta::BuildBucketKeyRow(key_fields, row);
    if (!built.ok()) return std::nullopt;
    selection.rows_.push_back(std::move(*built));
    for (size_t k = allowed.size(); k-- > 0;) {
      if (++at[k] < allowed[k].size()) break;
      at[k] = 0;
    }
  }
  return selection;
}

bool BucketSelection::SelectsOther(int32_t bucket, int32_t total_buckets) {
  if (total_buckets <= 0) return true;
  if (total_buckets != last_total_) {
    auto it = by_total_.find(total_buckets);
    if (it == by_total_.end()) {
      std::set<int32_t> buckets;
      for (const meta::BinaryRow& row : rows_) {
        buckets.insert(meta::BucketFromHash(meta::HashBinaryRow(row), total_buckets));
      }
      it = by_total_.emplace(total_buckets, std::move(buckets)).first;
    }
    last_total_ = total_buckets;
    last_ = &it->second;
    last_single_ = last_->size() == 1 ? *last_->begin() : -1;
  }
  // At most kMaxRows buckets, usually one.
  if (last_single_ >= 0) return bucket == last_single_;
  return last_->count(bucket) > 0;
}

}  // namespace freshet::scan
