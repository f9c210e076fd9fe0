// Rows of the primary-key test tables ((dt, id) primary key, partition dt, columns name and v),
// written and read through the public API, and a model of what each merge engine makes of them.
// Shared by the write, compaction and stream tests.
#pragma once

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "freshet/row_kind.h"
#include "freshet/table.h"
#include "testing/reader_batches.h"

namespace freshet::testing::pk {

// One written row of the test tables: (dt, id) primary key, partition dt, columns name and v.
struct Row {
  std::string dt = "a";
  int64_t id = 0;
  std::optional<std::string> name;
  std::optional<int64_t> v;
  RowKind kind = RowKind::kInsert;
};

inline std::string Text(const Row& r) {
  return r.dt + "|" + std::to_string(r.id) + "|" + (r.name ? *r.name : "null") + "|" +
         (r.v ? std::to_string(*r.v) : "null");
}

// How the batch says the row kinds.
enum class KindColumn { kNone, kInt8, kUtf8 };

inline std::shared_ptr<arrow::RecordBatch> MakeBatch(const std::vector<Row>& rows,
                                                     KindColumn kinds) {
  arrow::StringBuilder dt, name, kind_text;
  arrow::Int64Builder id, v;
  arrow::Int8Builder kind_byte;
  for (const Row& r : rows) {
    EXPECT_TRUE(dt.Append(r.dt).ok());
    EXPECT_TRUE(id.Append(r.id).ok());
    EXPECT_TRUE((r.name ? name.Append(*r.name) : name.AppendNull()).ok());
    EXPECT_TRUE((r.v ? v.Append(*r.v) : v.AppendNull()).ok());
    EXPECT_TRUE(kind_text.Append(RowKindShortString(r.kind)).ok());
    EXPECT_TRUE(kind_byte.Append(static_cast<int8_t>(r.kind)).ok());
  }
  std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field("dt", arrow::utf8(), false), arrow::field("id", arrow::int64(), false),
      arrow::field("name", arrow::utf8()), arrow::field("v", arrow::int64())};
  std::vector<std::shared_ptr<arrow::Array>> columns = {*dt.Finish(), *id.Finish(), *name.Finish(),
                                                        *v.Finish()};
  if (kinds == KindColumn::kInt8) {
    fields.push_back(arrow::field(kRowKindColumn, arrow::int8()));
    columns.push_back(*kind_byte.Finish());
  } else if (kinds == KindColumn::kUtf8) {
    fields.push_back(arrow::field(kRowKindColumn, arrow::utf8()));
    columns.push_back(*kind_text.Finish());
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(rows.size()),
                                  columns);
}

inline std::string SchemaSpec(const std::map<std::string, std::string>& options) {
  std::string spec = R"({"fields": [{"name": "dt", "type": "STRING"},
      {"name": "id", "type": "BIGINT"}, {"name": "name", "type": "STRING"},
      {"name": "v", "type": "BIGINT"}], "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"],
      "options": {)";
  bool first = true;
  for (const auto& [key, value] : options) {
    spec += (first ? "" : ", ") + std::string("\"") + key + "\": \"" + value + "\"";
    first = false;
  }
  return spec + "}}";
}

inline Status WriteRows(TableWriter* writer, const std::shared_ptr<arrow::RecordBatch>& batch) {
  ArrowArray array;
  ArrowSchema schema;
  arrow::Status st = arrow::ExportRecordBatch(*batch, &array, &schema);
  if (!st.ok()) return Status::Invalid(st.ToString());
  return writer->Write(&array, &schema);
}

// The row kind of its short string ("+I", "-U", "+U", "-D").
inline RowKind KindOf(const std::string& text) {
  for (RowKind kind :
       {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete}) {
    if (text == RowKindShortString(kind)) return kind;
  }
  ADD_FAILURE() << "unknown row kind " << text;
  return RowKind::kInsert;
}

// Every row a reader (TableReader or TableStreamReader) hands out, in read order. The columns
// are dt, id, name, v, after a leading `_ROW_KIND` text column when the read has one.
template <typename Reader>
std::vector<Row> DrainRows(Reader& reader) {
  std::vector<Row> rows;
  ForEachBatch(reader, [&](const arrow::RecordBatch& batch) {
    const int first = batch.schema()->field(0)->name() == "_ROW_KIND" ? 1 : 0;
    const auto& dt = static_cast<const arrow::StringArray&>(*batch.column(first));
    const auto& id = static_cast<const arrow::Int64Array&>(*batch.column(first + 1));
    const auto& name = static_cast<const arrow::StringArray&>(*batch.column(first + 2));
    const auto& v = static_cast<const arrow::Int64Array&>(*batch.column(first + 3));
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      Row r{dt.GetString(i), id.Value(i), std::nullopt, std::nullopt, RowKind::kInsert};
      if (name.IsValid(i)) r.name = name.GetString(i);
      if (v.IsValid(i)) r.v = v.Value(i);
      if (first == 1) {
        r.kind = KindOf(static_cast<const arrow::StringArray&>(*batch.column(0)).GetString(i));
      }
      rows.push_back(std::move(r));
    }
  });
  return rows;
}

// The rows as Text(), sorted.
inline std::vector<std::string> SortedTexts(const std::vector<Row>& rows) {
  std::vector<std::string> texts;
  for (const Row& r : rows) texts.push_back(Text(r));
  std::sort(texts.begin(), texts.end());
  return texts;
}

// Every row of the table (at `snapshot`, else the latest), as Text(), sorted.
inline std::vector<std::string> ReadAll(const Table& table, std::optional<int64_t> snapshot = {}) {
  ReadOptions options;
  options.snapshot_id = snapshot;
  auto reader = table.NewReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  return SortedTexts(DrainRows(**reader));
}

// Table::Lookup of a batch of key columns, through the C Data Interface as a user calls it.
inline Result<std::shared_ptr<arrow::RecordBatch>> LookupBatch(
    const Table& table, const std::shared_ptr<arrow::RecordBatch>& keys,
    const LookupOptions& options = {}) {
  ArrowArray in, out;
  ArrowSchema in_schema, out_schema;
  if (!arrow::ExportRecordBatch(*keys, &in, &in_schema).ok()) return Status::Internal("export");
  Status st = table.Lookup(&in, &in_schema, &out, &out_schema, options);
  in.release(&in);
  in_schema.release(&in_schema);
  FRESHET_RETURN_NOT_OK(st);
  auto result = arrow::ImportRecordBatch(&out, &out_schema);
  if (!result.ok()) return Status::Internal(result.status().ToString());
  return *result;
}

// Table::Lookup of (dt, id) keys: per key, Text() of its row, or "missing".
inline std::vector<std::string> LookupTexts(
    const Table& table, const std::vector<std::pair<std::string, int64_t>>& keys,
    const LookupOptions& options = {}) {
  arrow::StringBuilder dt;
  arrow::Int64Builder id;
  for (const auto& [d, i] : keys) {
    EXPECT_TRUE(dt.Append(d).ok());
    EXPECT_TRUE(id.Append(i).ok());
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("dt", arrow::utf8())}),
      static_cast<int64_t>(keys.size()), {*id.Finish(), *dt.Finish()});
  auto looked_up = LookupBatch(table, batch, options);
  EXPECT_TRUE(looked_up.ok()) << looked_up.status().ToString();
  if (!looked_up.ok()) return {};
  const auto& result = *looked_up;
  EXPECT_EQ(result->num_rows(), static_cast<int64_t>(keys.size()));
  const auto& found =
      static_cast<const arrow::BooleanArray&>(*result->GetColumnByName(kLookupFoundColumn));
  std::vector<std::string> texts;
  for (int64_t i = 0; i < result->num_rows(); ++i) {
    if (!found.Value(i)) {
      texts.push_back("missing");
      continue;
    }
    const auto& d = static_cast<const arrow::StringArray&>(*result->GetColumnByName("dt"));
    const auto& k = static_cast<const arrow::Int64Array&>(*result->GetColumnByName("id"));
    const auto& name = static_cast<const arrow::StringArray&>(*result->GetColumnByName("name"));
    const auto& v = static_cast<const arrow::Int64Array&>(*result->GetColumnByName("v"));
    Row r{d.GetString(i), k.Value(i), std::nullopt, std::nullopt, RowKind::kInsert};
    if (name.IsValid(i)) r.name = name.GetString(i);
    if (v.IsValid(i)) r.v = v.Value(i);
    texts.push_back(Text(r));
  }
  return texts;
}

// What each merge engine makes of a key's rows, in write order.
class Model {
 public:
  explicit Model(std::string engine) : engine_(std::move(engine)) {}

  void Apply(const Row& r) {
    auto key = std::make_pair(r.dt, r.id);
    auto it = rows_.find(key);
    bool retract = r.kind == RowKind::kUpdateBefore || r.kind == RowKind::kDelete;
    if (engine_ == "deduplicate") {
      if (retract) {
        rows_.erase(key);
      } else {
        rows_[key] = r;
      }
    } else if (engine_ == "first-row") {
      if (!retract && it == rows_.end()) rows_[key] = r;  // ignore-delete drops retracts
    } else if (engine_ == "partial-update") {
      if (it == rows_.end()) {
        rows_[key] = r;
      } else {
        if (r.name) it->second.name = r.name;
        if (r.v) it->second.v = r.v;
      }
    } else {  // aggregation: v sum, name last_non_null_value
      if (it == rows_.end()) {
        rows_[key] = r;
      } else {
        if (r.name) it->second.name = r.name;
        if (r.v) it->second.v = it->second.v.value_or(0) + *r.v;
      }
    }
  }

  // What a batch read returns. first-row tables hide level-0 files from batch reads, as Java
  // does (CoreOptions.batchScanSkipLevel0): what was written shows once it is compacted, i.e.
  // when `compacted` says every row is above level 0.
  std::vector<std::string> Rows(bool compacted = false) const {
    if (engine_ == "first-row" && !compacted) return {};
    std::vector<std::string> out;
    for (const auto& [key, r] : rows_) out.push_back(Text(r));
    std::sort(out.begin(), out.end());
    return out;
  }

  // Text() of the key's merged row, or "missing" (as LookupTexts says it).
  std::string Lookup(const std::string& dt, int64_t id) const {
    auto it = rows_.find({dt, id});
    return it == rows_.end() ? "missing" : Text(it->second);
  }

 private:
  std::string engine_;
  std::map<std::pair<std::string, int64_t>, Row> rows_;
};

inline std::map<std::string, std::string> EngineOptions(const std::string& engine) {
  if (engine == "first-row") return {{"merge-engine", engine}, {"ignore-delete", "true"}};
  if (engine == "aggregation") {
    return {{"merge-engine", engine}, {"fields.v.aggregate-function", "sum"}};
  }
  return {{"merge-engine", engine}};
}

// The kinds each engine's random rows may have.
inline std::vector<RowKind> EngineKinds(const std::string& engine) {
  if (engine == "deduplicate" || engine == "first-row") {
    return {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete};
  }
  return {RowKind::kInsert, RowKind::kUpdateAfter};
}

// 1 to `max_rows` random rows in partitions "a" and "b" over `keys` ids (names and values null a
// quarter of the time), kinds drawn from `kinds`, applied to `model`.
inline std::vector<Row> RandomRows(std::mt19937_64& rng, const std::vector<RowKind>& kinds,
                                   uint64_t max_rows, uint64_t keys, Model* model) {
  std::vector<Row> rows(1 + rng() % max_rows);
  for (Row& r : rows) {
    r.dt = std::string(1, static_cast<char>('a' + rng() % 2));
    r.id = static_cast<int64_t>(rng() % keys);
    if (rng() % 4 != 0) r.name = "n" + std::to_string(rng() % 1000);
    if (rng() % 4 != 0) r.v = static_cast<int64_t>(rng() % 100);
    r.kind = kinds[rng() % kinds.size()];
    model->Apply(r);
  }
  return rows;
}

}  // namespace freshet::testing::pk
