// Table::Lookup: point lookups of primary-key tables through the merge-on-read path (and the
// real-time union when the table has it), restricted to the keys' partition-buckets.
#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "bridge/arrow_value.h"
#include "common/arrow_status.h"
#include "meta/options/option_registry.h"
#include "meta/row/binary_row.h"
#include "meta/row/value_compare.h"
#include "read/table_read.h"
#include "realtime/realtime_scan.h"
#include "scan/predicate.h"
#include "scan/table_scan.h"
#include "table/table_impl.h"
#include "write/row_keys.h"

namespace freshet {

namespace {

using KeyTuple = std::vector<meta::Value>;

struct KeyTupleLess {
  bool operator()(const KeyTuple& a, const KeyTuple& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      int c = meta::CompareValues(a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return false;
  }
};

// The lookup keys: each primary-key column (table order) and each row's key values.
struct Keys {
  std::vector<int> table_columns;  // table index of each primary-key column
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  std::vector<KeyTuple> tuples;  // one per input row
};

Result<Keys> ReadKeys(const arrow::RecordBatch& batch, const meta::TableSchema& schema,
                      const arrow::Schema& table_arrow) {
  Keys keys;
  for (const std::string& name : schema.primary_keys()) {
    int index = schema.FieldIndex(name);
    auto column = batch.GetColumnByName(name);
    if (column == nullptr) {
      return Status::Invalid("Lookup: the keys have no column '", name,
                             "' (a primary-key column; the keys have ", batch.schema()->ToString(),
                             ")");
    }
    const auto& want = table_arrow.field(index)->type();
    if (!column->type()->Equals(*want, false)) {
      return Status::Invalid("Lookup: key column '", name, "' is ", column->type()->ToString(),
                             ", the table's is ", want->ToString());
    }
    if (column->null_count() > 0) {
      int64_t row = 0;
      while (column->IsValid(row)) ++row;
      return Status::Invalid("Lookup: key column '", name, "' is null in row ", row,
                             "; primary keys are never null");
    }
    keys.table_columns.push_back(index);
    keys.arrays.push_back(std::move(column));
  }
  keys.tuples.resize(static_cast<size_t>(batch.num_rows()));
  for (size_t c = 0; c < keys.arrays.size(); ++c) {
    const meta::DataType& type = *schema.fields()[static_cast<size_t>(keys.table_columns[c])].type;
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      FRESHET_ASSIGN_OR_RETURN(meta::Value value, bridge::ArrowValueAt(*keys.arrays[c], row, type));
      keys.tuples[static_cast<size_t>(row)].push_back(std::move(value));
    }
  }
  return keys;
}

// The keys' trimmed primary key (what data files are sorted by): files yield only their rows,
// found in decoded files cached across lookups (read/key_selection.h).
Result<std::shared_ptr<const read::KeySelection>> SelectionOf(const Keys& keys,
                                                              const meta::TableSchema& schema) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (const std::string& name : schema.TrimmedPrimaryKeys()) {
    auto at = std::find(schema.primary_keys().begin(), schema.primary_keys().end(), name);
    const auto& column = keys.arrays[static_cast<size_t>(at - schema.primary_keys().begin())];
    fields.push_back(arrow::field(name, column->type()));
    arrays.push_back(column);
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema(std::move(fields)),
                                        static_cast<int64_t>(keys.tuples.size()), arrays);
  FRESHET_ASSIGN_OR_RETURN(
      int64_t budget, meta::GetMemorySizeOption(schema.options(), "lookup.cache-max-memory-size"));
  return read::KeySelection::Make(batch, budget);
}

// The partition-buckets of the keys ((serialized partition, bucket); bucket -1: every bucket of
// the partition, for dynamic-bucket tables, whose buckets come from the hash index).
Result<std::set<std::pair<std::string, int32_t>>> KeyPartitionBuckets(
    const Keys& keys, int64_t num_rows, const meta::TableSchema& schema,
    const std::shared_ptr<arrow::Schema>& table_arrow) {
  // A batch of the table's columns: the keys, nulls elsewhere (routing reads only key columns).
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < table_arrow->num_fields(); ++i) {
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto nulls,
                                   arrow::MakeArrayOfNull(table_arrow->field(i)->type(), num_rows));
    columns.push_back(std::move(nulls));
  }
  for (size_t c = 0; c < keys.arrays.size(); ++c) {
    columns[static_cast<size_t>(keys.table_columns[c])] = keys.arrays[c];
  }
  auto rows = arrow::RecordBatch::Make(table_arrow, num_rows, std::move(columns));
  const bool dynamic = schema.bucket() < 0;
  FRESHET_ASSIGN_OR_RETURN(auto extractor, write::RowKeyExtractor::Make(schema, dynamic));
  FRESHET_ASSIGN_OR_RETURN(write::RowKeys routed, extractor.Extract(*rows));
  std::set<std::pair<std::string, int32_t>> out;
  for (size_t row = 0; row < routed.partition_of_row.size(); ++row) {
    const auto& partition = routed.partitions[static_cast<size_t>(routed.partition_of_row[row])];
    out.emplace(meta::SerializeBinaryRow(partition), dynamic ? -1 : routed.bucket_of_row[row]);
  }
  return out;
}

bool Wanted(const std::set<std::pair<std::string, int32_t>>& wanted, const std::string& partition,
            int32_t bucket) {
  return wanted.count({partition, bucket}) > 0 || wanted.count({partition, -1}) > 0;
}

// AND over the key columns of `column IN (the keys' values)`: prunes partitions and files by
// statistics (key columns only, which is safe before the merge).
std::shared_ptr<const scan::Predicate> KeyPruning(const Keys& keys,
                                                  const meta::TableSchema& schema) {
  scan::Predicate all;
  all.kind = scan::Expr::Kind::kAnd;
  for (size_t c = 0; c < keys.table_columns.size(); ++c) {
    scan::Predicate leaf;
    leaf.kind = scan::Expr::Kind::kIn;
    leaf.field = schema.fields()[static_cast<size_t>(keys.table_columns[c])];
    const auto& partition_keys = schema.partition_keys();
    for (size_t p = 0; p < partition_keys.size(); ++p) {
      if (partition_keys[p] == leaf.field.name) leaf.partition_index = static_cast<int32_t>(p);
    }
    std::set<KeyTuple, KeyTupleLess> distinct;
    for (const KeyTuple& tuple : keys.tuples) {
      if (distinct.insert(KeyTuple{tuple[c]}).second) leaf.literals.push_back(tuple[c]);
    }
    all.children.push_back(std::move(leaf));
  }
  if (all.children.size() == 1) {
    return std::make_shared<const scan::Predicate>(std::move(all.children[0]));
  }
  return std::make_shared<const scan::Predicate>(std::move(all));
}

// One matched row: the batch it is in and its index.
struct Found {
  int batch = -1;
  int64_t row = 0;
};

Status BuildOutput(const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                   const std::vector<Found>& found, const arrow::Schema& projected, ArrowArray* out,
                   ArrowSchema* out_schema) {
  const auto rows = static_cast<int64_t>(found.size());
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < projected.num_fields(); ++c) {
    std::unique_ptr<arrow::ArrayBuilder> builder;
    FRESHET_RETURN_NOT_OK_ARROW(
        arrow::MakeBuilder(arrow::default_memory_pool(), projected.field(c)->type(), &builder));
    FRESHET_RETURN_NOT_OK_ARROW(builder->Reserve(rows));
    for (const Found& f : found) {
      if (f.batch < 0) {
        FRESHET_RETURN_NOT_OK_ARROW(builder->AppendNull());
      } else {
        const arrow::Array& source = *batches[static_cast<size_t>(f.batch)]->column(c);
        FRESHET_RETURN_NOT_OK_ARROW(
            builder->AppendArraySlice(arrow::ArraySpan(*source.data()), f.row, 1));
      }
    }
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto column, builder->Finish());
    columns.push_back(std::move(column));
  }
  arrow::BooleanBuilder flags;
  FRESHET_RETURN_NOT_OK_ARROW(flags.Reserve(rows));
  for (const Found& f : found) flags.UnsafeAppend(f.batch >= 0);
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto flag_column, flags.Finish());
  columns.push_back(std::move(flag_column));
  arrow::FieldVector fields = projected.fields();
  fields.push_back(arrow::field(kLookupFoundColumn, arrow::boolean(), false));
  auto batch = arrow::RecordBatch::Make(arrow::schema(std::move(fields)), rows, std::move(columns));
  return FromArrowStatus(arrow::ExportRecordBatch(*batch, out, out_schema));
}

}  // namespace

Status Table::Lookup(const ArrowArray* keys_array, const ArrowSchema* keys_schema, ArrowArray* out,
                     ArrowSchema* out_schema, const LookupOptions& options) const {
  const meta::TableSchema& schema = *impl_->schema;
  if (schema.primary_keys().empty()) {
    return Status::Invalid("Lookup: table '", impl_->path, "' has no primary key");
  }
  FRESHET_ASSIGN_OR_RETURN(auto batch, ImportBorrowed(keys_array, keys_schema, "Lookup"));
  FRESHET_ASSIGN_OR_RETURN(Keys keys, ReadKeys(*batch, schema, *impl_->arrow_schema));
  FRESHET_ASSIGN_OR_RETURN(
      auto wanted, KeyPartitionBuckets(keys, batch->num_rows(), schema, impl_->arrow_schema));

  // Read the requested columns, then the key columns the match needs.
  read::ReadOptions read_options;
  read_options.projection = options.columns;
  if (read_options.projection.empty()) {
    for (const auto& field : schema.fields()) read_options.projection.push_back(field.name);
  }
  const size_t requested = read_options.projection.size();
  std::vector<int> key_positions;  // of each key column in the read batches
  for (const std::string& name : schema.primary_keys()) {
    auto at = std::find(read_options.projection.begin(), read_options.projection.end(), name);
    key_positions.push_back(static_cast<int>(at - read_options.projection.begin()));
    if (at == read_options.projection.end()) read_options.projection.push_back(name);
  }
  scan::ScanOptions scan_options;
  scan_options.predicate = KeyPruning(keys, schema);
  scan_options.bucket_filter = [&wanted](const std::string& partition, int32_t bucket) {
    return Wanted(wanted, partition, bucket);
  };
  // A few keys also filter rows: memory rows before the merge (a key-only predicate), merged
  // rows after it. Many keys are only matched below (the predicate tests its values one by one).
  constexpr size_t kFilterKeys = 64;
  if (keys.tuples.size() <= kFilterKeys) read_options.predicate = scan_options.predicate;
  FRESHET_ASSIGN_OR_RETURN(read_options.key_selection, SelectionOf(keys, schema));
  FRESHET_ASSIGN_OR_RETURN(auto read, impl_->MakeRead(schema, read_options));

  std::unique_ptr<read::BatchReader> reader;
  std::optional<realtime::RealtimeScanPlan> realtime_plan;  // pins memory while reading
  if (impl_->realtime && options.include_uncommitted) {
    FRESHET_ASSIGN_OR_RETURN(realtime_plan,
                             realtime::PlanRealtimeScan(impl_->realtime, scan_options));
    std::vector<const realtime::RealtimeSplit*> splits;
    for (const auto& split : realtime_plan->splits) {
      if (Wanted(wanted, split.pb.partition, split.pb.bucket)) splits.push_back(&split);
    }
    FRESHET_ASSIGN_OR_RETURN(reader, realtime::CreateRealtimeReader(read, *realtime_plan, splits));
  } else {
    scan::TableScan scan(impl_->file_io, impl_->path);
    FRESHET_ASSIGN_OR_RETURN(scan::ScanPlan plan, scan.Plan(scan_options));
    std::vector<scan::DataSplit> splits;
    for (auto& split : plan.splits) {
      if (Wanted(wanted, split.partition, split.bucket)) splits.push_back(std::move(split));
    }
    FRESHET_ASSIGN_OR_RETURN(reader, read.CreateReader(std::move(splits)));
  }

  // Match the merged rows to the keys.
  std::map<KeyTuple, std::vector<size_t>, KeyTupleLess> positions;
  for (size_t i = 0; i < keys.tuples.size(); ++i) positions[keys.tuples[i]].push_back(i);
  std::vector<Found> found(keys.tuples.size());
  std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto next, reader->Next());
    if (!next) break;
    bool matched = false;
    for (int64_t row = 0; row < next->num_rows(); ++row) {
      KeyTuple tuple;
      for (size_t c = 0; c < key_positions.size(); ++c) {
        const meta::DataType& type =
            *schema.fields()[static_cast<size_t>(keys.table_columns[c])].type;
        FRESHET_ASSIGN_OR_RETURN(meta::Value value,
                                 bridge::ArrowValueAt(*next->column(key_positions[c]), row, type));
        tuple.push_back(std::move(value));
      }
      auto it = positions.find(tuple);
      if (it == positions.end()) continue;
      for (size_t i : it->second) found[i] = Found{static_cast<int>(kept.size()), row};
      matched = true;
    }
    if (matched) kept.push_back(std::move(next));
  }
  const arrow::FieldVector& read_fields = read.output_schema()->fields();
  arrow::Schema projected(arrow::FieldVector(
      read_fields.begin(), read_fields.begin() + static_cast<std::ptrdiff_t>(requested)));
  return BuildOutput(kept, found, projected, out, out_schema);
}

}  // namespace freshet
