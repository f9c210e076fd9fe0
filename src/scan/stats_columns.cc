#include "scan/stats_columns.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>

#include "common/lru_cache.h"
#include "meta/row/binary_row.h"
#include "scan/live_keys.h"

namespace freshet::scan {

namespace {

// Statistics that could not be decoded: the entry's test falls back to EvaluateFileStats, which
// reports the error where the file is tested at all (as without columns).
constexpr auto kUndecodable = static_cast<FileColumnStats::Kind>(3);
// An outcome set no evaluation produces (every leaf has at least one outcome, and AND, OR and NOT
// of non-empty sets are non-empty, of an empty one empty): "test this file directly".
constexpr Outcomes kAskTheFile = 0;

bool IsIntegral(const meta::DataType& type) {
  switch (type.root()) {
    case meta::TypeRoot::kTinyInt:
    case meta::TypeRoot::kSmallInt:
    case meta::TypeRoot::kInt:
    case meta::TypeRoot::kBigInt:
    case meta::TypeRoot::kDate:
    case meta::TypeRoot::kTime:
      return true;
    default:
      return false;
  }
}

std::optional<int64_t> AsInt64(const meta::Value& value) {
  if (auto v = value.get_if<int8_t>()) return *v;
  if (auto v = value.get_if<int16_t>()) return *v;
  if (auto v = value.get_if<int32_t>()) return *v;
  if (auto v = value.get_if<int64_t>()) return *v;
  return std::nullopt;
}

// The statistics of `field` in entry `entry`'s file, stored at `i` of `column`.
// Statistics that cannot be decoded mark the entry kUndecodable (its file is then tested the
// old way, which reports the error).
void DecodeEntry(const meta::DataField& field, const meta::ManifestEntry& entry,
                 const meta::TableSchema& file_schema, size_t i, StatsColumn* column) {
  const meta::SimpleStats& stats = entry.file.value_stats;
  auto min_row = meta::DeserializeBinaryRow(stats.min_values);
  auto max_row = meta::DeserializeBinaryRow(stats.max_values);
  if (!min_row.ok() || !max_row.ok()) {
    column->kinds[i] = kUndecodable;
    return;
  }
  Result<FileColumnStats> found =
      FindFileColumnStats(field, entry.file, file_schema, *min_row, *max_row);
  if (!found.ok()) {
    column->kinds[i] = kUndecodable;
    return;
  }
  column->kinds[i] = found->kind;
  if (found->kind != FileColumnStats::Kind::kKnown) return;
  ColumnStats& s = found->stats;
  if (!column->integral) {
    column->stats[i] = std::move(s);
    return;
  }
  // The shape StatsLeafOutcomes derives from null count, row count and bounds.
  uint8_t shape = 0;
  if (!s.null_count || *s.null_count > 0) shape |= StatsColumn::kHasNull;
  if (!s.null_count || *s.null_count < s.row_count) shape |= StatsColumn::kHasNonNull;
  if (!s.min.is_null() && !s.max.is_null()) {
    auto min = AsInt64(s.min), max = AsInt64(s.max);
    if (!min || !max) {
      column->kinds[i] = kUndecodable;
      return;
    }
    column->min[i] = *min;
    column->max[i] = *max;
    shape |= StatsColumn::kBounded;
  }
  column->shapes[i] = shape;
}

void CopyEntry(const StatsColumn& from, size_t j, size_t i, StatsColumn* to) {
  to->kinds[i] = from.kinds[j];
  if (to->integral) {
    to->shapes[i] = from.shapes[j];
    to->min[i] = from.min[j];
    to->max[i] = from.max[j];
  } else {
    to->stats[i] = from.stats[j];
  }
}

// StatsLeafOutcomes of a comparison with `v` over the bounds [min, max] of a file with non-null
// values (`null_bit`: kNull if it has nulls too). One instance per operator, so that a loop over
// many files does not switch on it per file.
template <CompareOp kOp>
Outcomes CompareBounds(int64_t min, int64_t max, int64_t v, Outcomes null_bit) {
  bool can_true = false, can_false = true;
  if constexpr (kOp == CompareOp::kEq) {
    can_true = min <= v && v <= max;
  } else if constexpr (kOp == CompareOp::kNe) {
    can_true = !(min == v && max == v);
  } else if constexpr (kOp == CompareOp::kLt) {
    can_true = min < v;
    can_false = max >= v;
  } else if constexpr (kOp == CompareOp::kLe) {
    can_true = min <= v;
    can_false = max > v;
  } else if constexpr (kOp == CompareOp::kGt) {
    can_true = max > v;
    can_false = min <= v;
  } else {
    static_assert(kOp == CompareOp::kGe);
    can_true = max >= v;
    can_false = min < v;
  }
  return static_cast<Outcomes>((can_true ? kTrue : 0) | (can_false ? kFalse : 0) | null_bit);
}

// Calls `f` with the CompareBounds instance of `op`.
template <typename F>
decltype(auto) WithCompareBounds(CompareOp op, F&& f) {
  switch (op) {
    case CompareOp::kEq:
      return f(CompareBounds<CompareOp::kEq>);
    case CompareOp::kNe:
      return f(CompareBounds<CompareOp::kNe>);
    case CompareOp::kLt:
      return f(CompareBounds<CompareOp::kLt>);
    case CompareOp::kLe:
      return f(CompareBounds<CompareOp::kLe>);
    case CompareOp::kGt:
      return f(CompareBounds<CompareOp::kGt>);
    case CompareOp::kGe:
      break;
  }
  return f(CompareBounds<CompareOp::kGe>);
}

std::atomic<int64_t> decoded_entries{0};

LruCache<std::shared_ptr<const StatsColumn>>& CachedColumns() {
  static LruCache<std::shared_ptr<const StatsColumn>> columns;
  return columns;
}

// The cache's key of a column: the table, then the field's id and type (a column whose type
// changed is another column).
std::string ColumnKey(const std::string& table_path, const meta::DataField& field) {
  return table_path + '\n' + std::to_string(field.id) + '\n' + field.type->ToString();
}

// The column of `field` over `live`, from `previous` where it has the entries, and cached.
Result<std::shared_ptr<const StatsColumn>> BuildAndCache(const std::string& key,
                                                         const meta::DataField& field,
                                                         const meta::LiveEntries& live,
                                                         const StatsColumn* previous,
                                                         const StatsColumn::SchemaOf& schema_of) {
  FRESHET_ASSIGN_OR_RETURN(StatsColumn built, StatsColumn::Build(field, live, previous, schema_of));
  auto column = std::make_shared<const StatsColumn>(std::move(built));
  const int64_t cost = static_cast<int64_t>(live->size()) * (column->integral ? 1 : 4);
  CachedColumns().Put(key, column, cost + 1, StatsColumns::kCacheBudget);
  return column;
}

// Shape bits of an entry with plain bounds: some value not NULL, min and max known.
constexpr uint8_t kPlain = StatsColumn::kHasNonNull | StatsColumn::kBounded;

// The block summaries of an integral column (StatsColumn::block_min and the others).
void SummarizeBlocks(StatsColumn* column) {
  const size_t n = column->kinds.size();
  const size_t blocks = (n + StatsColumn::kBlockEntries - 1) / StatsColumn::kBlockEntries;
  column->block_min.assign(blocks, INT64_MAX);
  column->block_max.assign(blocks, INT64_MIN);
  column->irregular.clear();
  for (size_t i = 0; i < n; ++i) {
    const size_t b = i / StatsColumn::kBlockEntries;
    if (column->kinds[i] != FileColumnStats::Kind::kKnown ||
        (column->shapes[i] & kPlain) != kPlain) {
      column->irregular.push_back(static_cast<uint32_t>(i));
      continue;
    }
    column->block_min[b] = std::min(column->block_min[b], column->min[i]);
    column->block_max[b] = std::max(column->block_max[b], column->max[i]);
  }
}

}  // namespace

Result<StatsColumn> StatsColumn::Build(const meta::DataField& field, const meta::LiveEntries& live,
                                       const StatsColumn* previous, const SchemaOf& schema_of) {
  StatsColumn column;
  column.field = field;
  column.live = live;
  column.integral = IsIntegral(*field.type);
  const size_t n = live->size();
  column.kinds.assign(n, FileColumnStats::Kind::kUnknown);
  if (column.integral) {
    column.shapes.assign(n, 0);
    column.min.assign(n, 0);
    column.max.assign(n, 0);
  } else {
    column.stats.resize(n);
  }
  if (previous && previous->integral != column.integral) previous = nullptr;
  int64_t last_schema_id = -1;  // files share a few schemas
  const meta::TableSchema* schema = nullptr;
  int64_t decoded = 0;
  Status status;
  PairWithPrevious(
      live, previous ? &previous->live : nullptr,
      [&](size_t i, size_t j) { CopyEntry(*previous, j, i, &column); },
      [&](size_t i) {
        if (!status.ok()) return;
        const meta::ManifestEntry& entry = *(*live)[i];
        if (entry.file.schema_id != last_schema_id || !schema) {
          auto found = schema_of(entry.file.schema_id);
          if (!found.ok()) {
            status = found.status();
            return;
          }
          schema = *found;
          last_schema_id = entry.file.schema_id;
        }
        DecodeEntry(field, entry, *schema, i, &column);
        ++decoded;
      });
  FRESHET_RETURN_NOT_OK(status);
  decoded_entries.fetch_add(decoded, std::memory_order_relaxed);
  if (column.integral) SummarizeBlocks(&column);
  return column;
}

int64_t StatsColumn::DecodedEntries() { return decoded_entries.load(std::memory_order_relaxed); }

Result<std::optional<StatsColumns>> StatsColumns::Make(const std::string& table_path,
                                                       const Predicate& predicate,
                                                       const meta::LiveEntries& live,
                                                       const StatsColumn::SchemaOf& schema_of) {
  if (live->size() > kMaxEntries) return std::optional<StatsColumns>();
  StatsColumns columns;
  columns.entries_ = live->size();
  FRESHET_RETURN_NOT_OK(columns.AddNode(table_path, predicate, live, schema_of).status());
  if (!columns.literals_fit_) return std::optional<StatsColumns>();
  return std::optional<StatsColumns>(std::move(columns));
}

Status StatsColumns::CarryCached(const std::string& table_path, const meta::LiveEntries& live,
                                 const StatsColumn::SchemaOf& schema_of) {
  if (live->size() > kMaxEntries) return Status::OK();
  for (const auto& [key, column] : CachedColumns().WithKeyPrefix(table_path + '\n')) {
    // Another table whose path extends this one's shares the prefix, not the rest of the key.
    if (column->live == live || key != ColumnKey(table_path, column->field)) continue;
    FRESHET_RETURN_NOT_OK(
        BuildAndCache(key, column->field, live, column.get(), schema_of).status());
  }
  return Status::OK();
}

Result<uint32_t> StatsColumns::AddNode(const std::string& table_path, const Predicate& p,
                                       const meta::LiveEntries& live,
                                       const StatsColumn::SchemaOf& schema_of) {
  const auto index = static_cast<uint32_t>(nodes_.size());
  nodes_.emplace_back();
  nodes_[index].kind = p.kind;
  if (!p.IsLeaf()) {
    for (const Predicate& child : p.children) {
      FRESHET_ASSIGN_OR_RETURN(uint32_t c, AddNode(table_path, child, live, schema_of));
      nodes_[index].children.push_back(c);
    }
    return index;
  }
  Node& node = nodes_[index];
  node.leaf = &p;
  node.null_outcome = p.EvaluateLeaf(meta::Value::Null());
  const std::string key = ColumnKey(table_path, p.field);
  std::optional<std::shared_ptr<const StatsColumn>> cached = CachedColumns().Get(key);
  if (cached && (*cached)->live == live) {
    node.column = *cached;
  } else {
    FRESHET_ASSIGN_OR_RETURN(
        node.column,
        BuildAndCache(key, p.field, live, cached ? cached->get() : nullptr, schema_of));
  }
  if (node.column->integral) {
    for (const meta::Value& literal : p.literals) {
      if (literal.is_null()) {
        node.null_literal = true;
      } else if (auto v = AsInt64(literal)) {
        node.int_literals.push_back(*v);
      } else {
        literals_fit_ = false;
      }
    }
  }
  return index;
}

Outcomes StatsColumns::EvaluateNode(uint32_t index, size_t i) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      const bool is_and = node.kind == Expr::Kind::kAnd;
      Outcomes acc = EvaluateNode(node.children[0], i);
      for (size_t c = 1; c < node.children.size(); ++c) {
        acc = CombineSets(acc, EvaluateNode(node.children[c], i), is_and);
      }
      return acc;
    }
    case Expr::Kind::kNot:
      return Not3(EvaluateNode(node.children[0], i));
    default:
      break;
  }
  return EvaluateLeaf(node, i);
}

Outcomes StatsColumns::EvaluateLeaf(const Node& node, size_t i) const {
  const StatsColumn& column = *node.column;
  switch (column.kinds[i]) {
    case FileColumnStats::Kind::kAbsent:
      return node.null_outcome;
    case FileColumnStats::Kind::kUnknown:
      return kAnyOutcome;
    case FileColumnStats::Kind::kKnown:
      break;
    default:
      return kAskTheFile;
  }
  if (!column.integral) return EvaluateLeafStats(*node.leaf, column.stats[i]);
  return EvaluateIntegralLeaf(node, i);
}

// StatsLeafOutcomes (predicate.cc) over int64 bounds.
Outcomes StatsColumns::EvaluateIntegralLeaf(const Node& node, size_t i) const {
  const StatsColumn& column = *node.column;
  const uint8_t shape = column.shapes[i];
  const bool has_null = shape & StatsColumn::kHasNull;
  if (!(shape & StatsColumn::kHasNonNull)) return node.null_outcome;
  const Predicate& leaf = *node.leaf;
  if (leaf.kind == Expr::Kind::kIsNull || leaf.kind == Expr::Kind::kIsNotNull) {
    return static_cast<Outcomes>((has_null ? node.null_outcome : 0) | Not3(node.null_outcome));
  }
  const Outcomes null_bit = has_null ? kNull : 0;
  const bool bounded = shape & StatsColumn::kBounded;
  const int64_t min = column.min[i], max = column.max[i];
  if (leaf.kind == Expr::Kind::kIn) {
    bool can_true = !bounded;
    for (int64_t v : node.int_literals) can_true = can_true || (min <= v && v <= max);
    return static_cast<Outcomes>((can_true ? kTrue : 0) | (node.null_literal ? kNull : kFalse) |
                                 null_bit);
  }
  if (node.null_literal) return kNull;
  if (!bounded) return static_cast<Outcomes>(kTrue | kFalse | null_bit);
  const int64_t v = node.int_literals[0];
  return WithCompareBounds(leaf.op, [&](auto compare) { return compare(min, max, v, null_bit); });
}

void StatsColumns::EvaluateAll() { EvaluateNodeAll(0, &all_); }

void StatsColumns::EvaluateNodeAll(uint32_t index, std::vector<Outcomes>* out) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      const bool is_and = node.kind == Expr::Kind::kAnd;
      EvaluateNodeAll(node.children[0], out);
      std::vector<Outcomes> other;
      for (size_t c = 1; c < node.children.size(); ++c) {
        EvaluateNodeAll(node.children[c], &other);
        for (size_t i = 0; i < entries_; ++i) (*out)[i] = CombineSets((*out)[i], other[i], is_and);
      }
      return;
    }
    case Expr::Kind::kNot:
      EvaluateNodeAll(node.children[0], out);
      for (Outcomes& o : *out) o = Not3(o);
      return;
    default:
      EvaluateLeafAll(node, out);
      return;
  }
}

void StatsColumns::EvaluateLeafAll(const Node& node, std::vector<Outcomes>* out) const {
  out->resize(entries_);
  const StatsColumn& column = *node.column;
  const Predicate& leaf = *node.leaf;
  if (!column.integral || leaf.kind != Expr::Kind::kCompare || node.null_literal) {
    for (size_t i = 0; i < entries_; ++i) (*out)[i] = EvaluateLeaf(node, i);
    return;
  }
  // The common leaf (an integer column against one literal) over the arrays; entries whose
  // statistics are not plain bounds take the general path.
  // The arrays are read through local pointers: the byte stores into `out` could alias any
  // member, which would otherwise be loaded again for every entry.
  const int64_t v = node.int_literals[0];
  const size_t n = entries_;
  const FileColumnStats::Kind* kinds = column.kinds.data();
  const uint8_t* shapes = column.shapes.data();
  const int64_t* mins = column.min.data();
  const int64_t* maxs = column.max.data();
  Outcomes* outcomes = out->data();
  WithCompareBounds(leaf.op, [&](auto compare) {
    for (size_t i = 0; i < n; ++i) {
      const uint8_t shape = shapes[i];
      if (kinds[i] != FileColumnStats::Kind::kKnown || (shape & kPlain) != kPlain) {
        outcomes[i] = EvaluateLeaf(node, i);
        continue;
      }
      const Outcomes null_bit = (shape & StatsColumn::kHasNull) ? kNull : 0;
      outcomes[i] = compare(mins[i], maxs[i], v, null_bit);
    }
  });
}

const StatsColumns::Node* StatsColumns::RangeLeaf(const Node& node) const {
  if (node.leaf == nullptr || node.leaf->kind != Expr::Kind::kCompare || node.null_literal ||
      !node.column->integral || node.int_literals.size() != 1 || node.leaf->op == CompareOp::kNe) {
    return nullptr;
  }
  return &node;
}

std::optional<StatsColumns::EntryRanges> StatsColumns::CandidateRanges() const {
  // An AND cannot be TRUE where one of its children cannot.
  const Node* leaf = RangeLeaf(nodes_[0]);
  if (nodes_[0].kind == Expr::Kind::kAnd) {
    for (uint32_t child : nodes_[0].children) {
      if ((leaf = RangeLeaf(nodes_[child]))) break;
    }
  }
  if (leaf == nullptr) return std::nullopt;
  const StatsColumn& column = *leaf->column;
  const CompareOp op = leaf->leaf->op;
  const int64_t v = leaf->int_literals[0];
  EntryRanges ranges;
  auto add = [&ranges](uint32_t begin, uint32_t end) {
    if (!ranges.empty() && ranges.back().second == begin) {
      ranges.back().second = end;
    } else {
      ranges.emplace_back(begin, end);
    }
  };
  auto irregular = column.irregular.begin();
  const size_t blocks = column.block_min.size();
  // A block's least min and greatest max in the per-file comparison: no file of the block can
  // make the comparison TRUE where the block's bounds cannot.
  WithCompareBounds(op, [&](auto compare) {
    for (size_t b = 0; b < blocks; ++b) {
      const auto begin = static_cast<uint32_t>(b * StatsColumn::kBlockEntries);
      const auto end =
          static_cast<uint32_t>(std::min(entries_, (b + 1) * StatsColumn::kBlockEntries));
      if (compare(column.block_min[b], column.block_max[b], v, 0) & kTrue) {
        add(begin, end);
        while (irregular != column.irregular.end() && *irregular < end) ++irregular;
        continue;
      }
      for (; irregular != column.irregular.end() && *irregular < end; ++irregular) {
        add(*irregular, *irregular + 1);
      }
    }
  });
  return ranges;
}

}  // namespace freshet::scan
