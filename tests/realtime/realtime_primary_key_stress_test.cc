// Differential stress test of the real-time layer on primary-key tables (docs/realtime.md,
// "Primary-key tables"), per merge engine: 4 writer threads write small batches over an
// overlapping key space (every writer may touch every key of 2 partitions x 4 buckets, fixed or
// dynamic: assigned at Write), a committer commits every few milliseconds while the writer
// compacts in the background, and 4 reader threads do full union reads (committed files + memory)
// and, two of them, point lookups (Table::Lookup) of a few keys in between. Every query's result
// per key must equal the model's state at some point between the query's start and its end; a
// deleted key never comes back.
//
// Concurrent Writes race on the same keys, so the test cannot know their order. It records for
// every Write a "started" and a "finished" tick of one atomic clock, and for every query a tick
// before it is planned and one after; values identify the row that wrote them (name "r<row id>",
// v = row id), so every visible field names its row and Write. What a query must show follows
// from the Writes it is forced to hold and the ones it may hold:
//   * may hold: Writes started before the query's end;
//   * forced: Writes finished before the query's start (read-your-writes), every Write a row of
//     the result comes from (a query holds whole Writes) or that an earlier query (one that
//     ended before this one started) showed a row of (reads never go back), and every Write that
//     finished before one of those began (a query holding a Write holds every Write that
//     returned before it began: docs/realtime.md, "One Write, one unit").
// The order of two versions of a key is decidable where it is fixed: by `sequence.field` (v,
// drawn from one counter when the row is made, so unrelated to the order of the Writes), or, in
// write order, when one Write finished before the other began (or both are rows of one Write).
// Per engine:
//   * deduplicate (upserts and deletes; once with sequence.field = v, once in write order): the
//     visible row is a version no forced version is newer than; an absent key has no forced
//     version, or a delete (that may be held) no forced version is newer than. So a key deleted
//     by its newest forced version never comes back.
//   * partial-update (no sequence.field: write order; each row sets name, v or both): each
//     visible field comes from a version that may be held and no forced version that sets the
//     field comes after it; a null field has no forced version setting it.
//   * aggregation (v sum of 1 per row, name last_non_null_value): the count is between the forced
//     versions and the versions that may be held (no lost and no doubled rows); name as
//     partial-update; and all queries' cuts are prefixes of one order of the Writes, so any two
//     results are nested key by key.
//   * first-row (ignore-delete, retracts written and dropped): the visible row has no version
//     that was written before it, and every query (and the final read) shows the same row for a
//     key: the first one never changes.
// Every engine: no key is read twice, every value was written (to that key, by a Write started
// before the query's end), and a key with a forced version is present (deduplicate: unless a
// delete explains it as above). After all threads stop: a commit, then the union read checked the
// same way with every Write forced (the deterministic final state), equal to a committed-only read
// (first-row excepted: batch reads skip its level-0 files), and, after a full compaction, equal to
// it for every engine.
//
// Rows per engine: FRESHET_STRESS_ROWS (default 40,000). Seed: FRESHET_TEST_SEED.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "freshet/table.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::testing {
namespace {

using pk::KindColumn;
using pk::Row;

constexpr int kWriterThreads = 4;
constexpr int kReaderThreads = 4;
constexpr int64_t kIds = 200;                      // per partition
constexpr int kKeys = static_cast<int>(2 * kIds);  // partitions "a" and "b"
constexpr int kMaxBatchRows = 16;
constexpr size_t kMaxReportedErrors = 20;

int64_t StressRows() {
  const char* env = std::getenv("FRESHET_STRESS_ROWS");
  return env ? std::atoll(env) : 40000;
}

std::string KeyText(int key) {
  return std::string(key < kIds ? "a" : "b") + "|" + std::to_string(key % kIds);
}

bool IsRetract(RowKind kind) { return kind == RowKind::kUpdateBefore || kind == RowKind::kDelete; }

// How the versions of one key are ordered.
enum class Order {
  kSequenceField,  // sequence.field = v
  kWriteOrder,     // the order of the Writes (Paimon sequence numbers)
};

struct Case {
  std::string engine;
  Order order = Order::kWriteOrder;
  std::string plugin = "columnar";  // realtime.mem-indexer
  bool dynamic_buckets = false;     // `bucket` = -1: buckets assigned at Write, concurrently
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.engine << (c.order == Order::kSequenceField ? " with sequence.field" : "") << ", "
       << c.plugin << (c.dynamic_buckets ? ", dynamic buckets" : "");
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.engine +
                     (info.param.order == Order::kSequenceField ? "_sequence_field" : "") +
                     (info.param.plugin == "columnar" ? "" : "_" + info.param.plugin) +
                     (info.param.dynamic_buckets ? "_dynamic_buckets" : "");
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

struct WriteLog {
  int64_t started = 0;   // tick taken just before Write was called
  int64_t finished = 0;  // tick taken just after it returned
};

// One row written. `name` holds the row id its value "r<row id>" names (nullopt: null).
struct RowLog {
  bool written = false;
  int64_t write = -1;
  int32_t index = 0;  // in its batch
  int32_t key = 0;
  RowKind kind = RowKind::kInsert;
  std::optional<int64_t> name;
  std::optional<int64_t> v;
};

// What a read shows for one key.
struct Observation {
  bool present = false;
  std::optional<int64_t> name;  // the row id of the "r<row id>" value
  std::optional<int64_t> v;
};

struct QueryLog {
  int64_t start = 0;  // tick taken before NewReader
  int64_t end = 0;    // tick taken after NewReader returned (the reader pins its rows then)
  std::string where;  // e.g. "reader 2"
  std::vector<Observation> keys;
  // A point lookup: the keys it asked for (empty: a full read, every key).
  std::vector<char> queried;
  bool Queried(int key) const { return queried.empty() || queried[key]; }
};

// Every key of a read; an error for a key read twice or a value the test cannot have written.
std::string ReadObservations(TableReader& reader, std::vector<Observation>* out) {
  out->assign(kKeys, Observation{});
  ArrowSchema c_schema;
  Status st = reader.ExportArrowSchema(&c_schema);
  if (!st.ok()) return "schema: " + st.ToString();
  auto schema = arrow::ImportSchema(&c_schema);
  if (!schema.ok()) return "schema: " + schema.status().ToString();
  const int dt_col = (*schema)->GetFieldIndex("dt");
  const int id_col = (*schema)->GetFieldIndex("id");
  const int name_col = (*schema)->GetFieldIndex("name");
  const int v_col = (*schema)->GetFieldIndex("v");
  if (dt_col < 0 || id_col < 0 || name_col < 0 || v_col < 0) {
    return "unexpected read schema " + (*schema)->ToString();
  }
  while (true) {
    ArrowArray array;
    auto more = reader.Next(&array);
    if (!more.ok()) return "next: " + more.status().ToString();
    if (!*more) return "";
    auto batch = arrow::ImportRecordBatch(&array, *schema);
    if (!batch.ok()) return "import: " + batch.status().ToString();
    const auto& dt = static_cast<const arrow::StringArray&>(*(*batch)->column(dt_col));
    const auto& id = static_cast<const arrow::Int64Array&>(*(*batch)->column(id_col));
    const auto& name = static_cast<const arrow::StringArray&>(*(*batch)->column(name_col));
    const auto& v = static_cast<const arrow::Int64Array&>(*(*batch)->column(v_col));
    for (int64_t i = 0; i < (*batch)->num_rows(); ++i) {
      const std::string d = dt.GetString(i);
      if ((d != "a" && d != "b") || id.IsNull(i) || id.Value(i) < 0 || id.Value(i) >= kIds) {
        return "a row with a key never written: dt " + d + ", id " + id.ToString();
      }
      const int key = static_cast<int>((d == "b" ? kIds : 0) + id.Value(i));
      Observation& o = (*out)[key];
      if (o.present) return "key " + KeyText(key) + " read twice";
      o.present = true;
      if (name.IsValid(i)) {
        const std::string text = name.GetString(i);
        int64_t row = -1;
        auto [end, ec] = std::from_chars(text.data() + std::min<size_t>(1, text.size()),
                                         text.data() + text.size(), row);
        if (text.size() < 2 || text[0] != 'r' || ec != std::errc() ||
            end != text.data() + text.size()) {
          return "key " + KeyText(key) + ": name '" + text + "' never written";
        }
        o.name = row;
      }
      if (v.IsValid(i)) o.v = v.Value(i);
    }
  }
}

// Table::Lookup of `keys` (distinct): their observations in `q`, the others not queried.
std::string LookupObservations(const Table& table, const std::vector<int>& keys, QueryLog* q) {
  q->keys.assign(kKeys, Observation{});
  q->queried.assign(kKeys, 0);
  arrow::StringBuilder dt;
  arrow::Int64Builder id;
  for (int key : keys) {
    q->queried[key] = 1;
    if (!dt.Append(key < kIds ? "a" : "b").ok() || !id.Append(key % kIds).ok()) return "append";
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("dt", arrow::utf8()), arrow::field("id", arrow::int64())}),
      static_cast<int64_t>(keys.size()), {*dt.Finish(), *id.Finish()});
  auto result = pk::LookupBatch(table, batch);
  if (!result.ok()) return "lookup: " + result.status().ToString();
  const auto& found =
      static_cast<const arrow::BooleanArray&>(*(*result)->GetColumnByName(kLookupFoundColumn));
  const auto& name = static_cast<const arrow::StringArray&>(*(*result)->GetColumnByName("name"));
  const auto& v = static_cast<const arrow::Int64Array&>(*(*result)->GetColumnByName("v"));
  if ((*result)->num_rows() != static_cast<int64_t>(keys.size())) return "lookup: row count";
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto row = static_cast<int64_t>(i);
    if (!found.Value(row)) continue;
    Observation& o = q->keys[keys[i]];
    o.present = true;
    if (name.IsValid(row)) {
      const std::string text = name.GetString(row);
      if (text.size() < 2 || text[0] != 'r') return "lookup: name '" + text + "' never written";
      o.name = std::stoll(text.substr(1));
    }
    if (v.IsValid(row)) o.v = v.Value(row);
  }
  return "";
}

// Checks queries against the Writes (see the top of the file). Queries must be handed over in
// order of their start tick.
class Checker {
 public:
  Checker(Case c, std::vector<WriteLog> writes, std::vector<RowLog> rows)
      : case_(std::move(c)),
        writes_(std::move(writes)),
        rows_(std::move(rows)),
        rows_of_key_(kKeys),
        cumulative_(writes_.size(), 0),
        own_(writes_.size(), -1),
        first_row_(kKeys, -1) {
    for (int64_t r = 0; r < static_cast<int64_t>(rows_.size()); ++r) {
      const RowLog& row = rows_[r];
      // ignore-delete drops the retracts of first-row tables at Write.
      if (!row.written || (case_.engine == "first-row" && IsRetract(row.kind))) continue;
      rows_of_key_[row.key].push_back(r);
    }
  }

  // Every Write a query that ended before `start` showed a row of is forced in later queries
  // (reads never go back): call with each such query's index before checking those after it.
  void FoldEarlier(int64_t query) {
    for (int64_t w : observed_[query]) {
      cumulative_[w] = 1;
      cumulative_started_ = std::max(cumulative_started_, writes_[w].started);
    }
  }

  // Checks one query; returns its errors. `query` numbers the queries checked, from 0.
  std::vector<std::string> Check(int64_t query, const QueryLog& q) {
    std::vector<std::string> errors;
    auto error = [&](int key, const std::string& what) {
      errors.push_back(q.where + " (ticks " + std::to_string(q.start) + ".." +
                       std::to_string(q.end) + "), key " + KeyText(key) + ": " + what);
    };
    // Pass 1: the rows the result names, and so the Writes it holds.
    std::vector<std::optional<int64_t>> name_row(kKeys), v_row(kKeys);
    std::vector<int64_t> observed;
    auto identify = [&](int key, int64_t row, const char* field) -> std::optional<int64_t> {
      if (row < 0 || row >= static_cast<int64_t>(rows_.size()) || !rows_[row].written ||
          rows_[row].key != key) {
        error(key, std::string(field) + " names row " + std::to_string(row) +
                       ", which was never written to this key");
        return std::nullopt;
      }
      observed.push_back(rows_[row].write);
      return row;
    };
    for (int key = 0; key < kKeys; ++key) {
      const Observation& o = q.keys[key];
      if (!o.present) continue;
      if (case_.engine == "deduplicate" || case_.engine == "first-row") {
        if (!o.v) {
          error(key, "null v");
          continue;
        }
        v_row[key] = identify(key, *o.v, "v");
        if (!v_row[key]) continue;
        const RowLog& r = rows_[*v_row[key]];
        if (IsRetract(r.kind)) error(key, "shows the values of a retract row " + Describe(*o.v));
        if (o.name != r.name) error(key, "name and v come from different rows " + Show(o));
      } else if (case_.engine == "partial-update") {
        if (!o.name && !o.v) error(key, "present with neither field set (every row sets one)");
        if (o.name) name_row[key] = identify(key, *o.name, "name");
        if (o.v) v_row[key] = identify(key, *o.v, "v");
        if (name_row[key] && !rows_[*name_row[key]].name) error(key, "name of a row without one");
        if (v_row[key] && !rows_[*v_row[key]].v) error(key, "v of a row without one");
      } else {  // aggregation
        if (o.name) {
          name_row[key] = identify(key, *o.name, "name");
          if (name_row[key] && !rows_[*name_row[key]].name) error(key, "name of a row without one");
        }
      }
    }
    for (int64_t w : observed) own_[w] = query;
    observed_.push_back(observed);
    // Forced: finished before `forced_tick`, or shown (by this query or an earlier one).
    int64_t forced_tick = std::max(q.start, cumulative_started_);
    for (int64_t w : observed) forced_tick = std::max(forced_tick, writes_[w].started);
    auto forced = [&](int64_t row) {
      const int64_t w = rows_[row].write;
      return writes_[w].finished < forced_tick || cumulative_[w] || own_[w] == query;
    };
    auto may_hold = [&](int64_t row) { return writes_[rows_[row].write].started < q.end; };

    // Pass 2: per key.
    for (int key = 0; key < kKeys; ++key) {
      if (!q.Queried(key)) continue;
      const Observation& o = q.keys[key];
      const std::vector<int64_t>& versions = rows_of_key_[key];
      std::optional<int64_t> some_forced;
      for (int64_t r : versions) {
        if (forced(r)) {
          some_forced = r;
          break;
        }
      }
      if (!o.present) {
        if (!some_forced) continue;
        if (case_.engine == "deduplicate") {
          // Absent: some delete that may be held is newer than every forced version (and than
          // every version it forces itself).
          bool explained = false;
          for (int64_t d : versions) {
            if (!IsRetract(rows_[d].kind) || !may_hold(d)) continue;
            const int64_t dw = rows_[d].write;
            bool newer = false;
            for (int64_t r : versions) {
              const int64_t rw = rows_[r].write;
              if ((forced(r) || rw == dw || writes_[rw].finished < writes_[dw].started) &&
                  After(d, r)) {
                newer = true;
                break;
              }
            }
            if (!newer) {
              explained = true;
              break;
            }
          }
          if (!explained) {
            error(key, "absent, but no delete that the query may hold is newer than every " +
                           std::string("version it must hold, e.g. ") + Describe(*some_forced) +
                           NewestForced(versions, forced));
          }
        } else {
          error(key, "absent, but the query must hold version " + Describe(*some_forced));
        }
        continue;
      }
      // Present.
      if (case_.engine == "deduplicate") {
        if (!v_row[key]) continue;
        const int64_t shown = *v_row[key];
        if (!may_hold(shown)) error(key, "shows a row written after the query: " + Describe(shown));
        for (int64_t r : versions) {
          if (forced(r) && After(shown, r)) {
            error(key, "shows " + Describe(shown) + " but must hold the newer " + Describe(r));
            break;
          }
        }
      } else if (case_.engine == "first-row") {
        if (!v_row[key]) continue;
        const int64_t shown = *v_row[key];
        if (!may_hold(shown)) error(key, "shows a row written after the query: " + Describe(shown));
        for (int64_t r : versions) {
          if (Precedes(r, shown)) {
            error(key, "shows " + Describe(shown) + ", but " + Describe(r) + " was written before");
            break;
          }
        }
        if (first_row_[key] < 0) first_row_[key] = shown;
        if (first_row_[key] != shown) {
          error(key, "shows " + Describe(shown) + ", another query showed " +
                         Describe(first_row_[key]) + ": the first row changed");
        }
      } else {
        if (case_.engine == "partial-update") {
          CheckField(key, o.name, name_row[key], versions, &RowLog::name, "name", forced, may_hold,
                     error);
          CheckField(key, o.v, v_row[key], versions, &RowLog::v, "v", forced, may_hold, error);
        } else {  // aggregation
          CheckField(key, o.name, name_row[key], versions, &RowLog::name, "name", forced, may_hold,
                     error);
          int64_t at_least = 0, at_most = 0;
          for (int64_t r : versions) {
            at_least += forced(r);
            at_most += may_hold(r);
          }
          if (!o.v || *o.v < std::max<int64_t>(at_least, 1) || *o.v > at_most) {
            error(key, "sum " + (o.v ? std::to_string(*o.v) : std::string("null")) +
                           ", expected between " + std::to_string(at_least) + " (versions held) " +
                           "and " + std::to_string(at_most) + " (versions written or being " +
                           "written)");
          }
        }
      }
    }
    return errors;
  }

  // A row as the messages show it.
  std::string Describe(int64_t row) const {
    const RowLog& r = rows_[row];
    const WriteLog& w = writes_[r.write];
    return "row " + std::to_string(row) + " (" + std::string(RowKindShortString(r.kind)) +
           ", name " + (r.name ? "r" + std::to_string(*r.name) : std::string("null")) + ", v " +
           (r.v ? std::to_string(*r.v) : std::string("null")) + ", row " + std::to_string(r.index) +
           " of write " + std::to_string(r.write) + ", ticks " + std::to_string(w.started) + ".." +
           std::to_string(w.finished) + ")";
  }

  const std::vector<int64_t>& RowsOfKey(int key) const { return rows_of_key_[key]; }

 private:
  static std::string Show(const Observation& o) {
    return "(name " + (o.name ? "r" + std::to_string(*o.name) : std::string("null")) + ", v " +
           (o.v ? std::to_string(*o.v) : std::string("null")) + ")";
  }

  // `a` was written before `b` for certain: its Write finished before b's began, or both are
  // rows of one Write and `a` comes first.
  bool Precedes(int64_t a, int64_t b) const {
    const RowLog& x = rows_[a];
    const RowLog& y = rows_[b];
    if (x.write == y.write) return x.index < y.index;
    return writes_[x.write].finished < writes_[y.write].started;
  }

  // `later` is merged after `row` for certain.
  bool After(int64_t row, int64_t later) const {
    if (case_.order == Order::kSequenceField) return *rows_[later].v > *rows_[row].v;
    return Precedes(row, later);
  }

  template <typename Forced>
  std::string NewestForced(const std::vector<int64_t>& versions, const Forced& forced) const {
    if (case_.order != Order::kSequenceField) return "";
    std::optional<int64_t> newest;
    for (int64_t r : versions) {
      if (forced(r) && (!newest || *rows_[r].v > *rows_[*newest].v)) newest = r;
    }
    return newest ? "; the newest version it must hold is " + Describe(*newest) : "";
  }

  // A column the newest version setting it decides (partial-update, last_non_null_value).
  template <typename Forced, typename MayHold, typename Error>
  void CheckField(int key, const std::optional<int64_t>& value, const std::optional<int64_t>& row,
                  const std::vector<int64_t>& versions, std::optional<int64_t> RowLog::*field,
                  const char* field_name, const Forced& forced, const MayHold& may_hold,
                  const Error& error) const {
    if (!value) {
      for (int64_t r : versions) {
        if ((rows_[r].*field).has_value() && forced(r)) {
          error(key, std::string(field_name) + " is null, but the query must hold " + Describe(r) +
                         ", which sets it");
          return;
        }
      }
      return;
    }
    if (!row) return;  // reported when identifying it
    if (!may_hold(*row)) {
      error(key,
            std::string(field_name) + " from a row written after the query: " + Describe(*row));
    }
    for (int64_t r : versions) {
      if ((rows_[r].*field).has_value() && forced(r) && After(*row, r)) {
        error(key, std::string(field_name) + " from " + Describe(*row) +
                       ", but the query must hold the later " + Describe(r));
        return;
      }
    }
  }

  Case case_;
  std::vector<WriteLog> writes_;
  std::vector<RowLog> rows_;
  std::vector<std::vector<int64_t>> rows_of_key_;
  std::vector<char> cumulative_;  // per Write: shown by a query folded in
  int64_t cumulative_started_ = -1;
  std::vector<int64_t> own_;  // per Write: the last query that showed it
  std::vector<std::vector<int64_t>> observed_;
  std::vector<int64_t> first_row_;  // first-row: the row every query shows, per key
};

// A row of the engine's workload; `row` is its id, drawn from one counter across all writers.
Row MakeRow(const Case& c, std::mt19937_64& rng, int64_t row, int key, RowLog* log) {
  Row r;
  r.dt = key < kIds ? "a" : "b";
  r.id = key % kIds;
  std::optional<int64_t> name = row, v = row;
  const uint64_t dice = rng() % 10;
  r.kind = dice < 5 ? RowKind::kInsert : RowKind::kUpdateAfter;
  if (c.engine == "deduplicate") {
    if (dice >= 7) r.kind = dice == 9 ? RowKind::kUpdateBefore : RowKind::kDelete;
  } else if (c.engine == "first-row") {
    if (dice == 9) r.kind = rng() % 2 ? RowKind::kUpdateBefore : RowKind::kDelete;
  } else if (c.engine == "partial-update") {
    const uint64_t which = rng() % 3;
    if (which == 0 && c.order != Order::kSequenceField) v.reset();
    if (which == 1) name.reset();
  } else {  // aggregation
    v = 1;
    if (rng() % 2) name.reset();
  }
  if (name) r.name = "r" + std::to_string(*name);
  r.v = v;
  log->written = false;
  log->key = key;
  log->kind = r.kind;
  log->name = name;
  log->v = v;
  return r;
}

class RealtimePrimaryKeyStressTest : public ::testing::TestWithParam<Case> {};

TEST_P(RealtimePrimaryKeyStressTest, QueriesSeeAStateBetweenTheirStartAndEnd) {
  const Case& c = GetParam();
  const uint64_t seed = TestSeed();
  SCOPED_TRACE("FRESHET_TEST_SEED=" + std::to_string(seed));
  const int64_t total_rows = StressRows();
  const auto begun = std::chrono::steady_clock::now();
  TempDir dir;
  auto options = pk::EngineOptions(c.engine);
  options["bucket"] = "4";
  if (c.dynamic_buckets) {
    options["bucket"] = "-1";
    options["dynamic-bucket.target-row-num"] = std::to_string(kIds / 4);
  }
  options["realtime.enabled"] = "true";
  options["num-sorted-run.compaction-trigger"] = "3";
  if (c.order == Order::kSequenceField) options["sequence.field"] = "v";
  options["realtime.mem-indexer"] = c.plugin;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), pk::SchemaSpec(options)));
  // A second Table of the path shares the real-time context (docs/realtime.md).
  ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(dir.Sub("t")));
  // Writer threads 0 and 1 share a writer; 2 has its own, 3 its own on the other Table.
  ASSERT_OK_AND_ASSIGN(auto shared_writer, table->NewWriter());
  ASSERT_OK_AND_ASSIGN(auto own_writer, table->NewWriter());
  ASSERT_OK_AND_ASSIGN(auto other_writer, reopened->NewWriter());
  ASSERT_OK_AND_ASSIGN(auto commit_writer, table->NewWriter());
  TableWriter* writer_of[kWriterThreads] = {shared_writer.get(), shared_writer.get(),
                                            own_writer.get(), other_writer.get()};

  std::atomic<int64_t> clock{0}, next_row{0}, next_write{0};
  std::atomic<int> writers_left{kWriterThreads};
  std::atomic<bool> failed{false};
  std::atomic<int64_t> commits{0}, commit_micros{0}, lookups{0};
  std::mutex failure_mutex;
  std::string failure;
  auto fail = [&](const std::string& why) {
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (!failed.exchange(true)) failure = why;
  };
  std::vector<std::vector<std::pair<int64_t, WriteLog>>> write_logs(kWriterThreads);
  std::vector<std::vector<std::pair<int64_t, RowLog>>> row_logs(kWriterThreads);
  std::vector<std::vector<QueryLog>> query_logs(kReaderThreads);

  std::vector<std::thread> threads;
  for (int t = 0; t < kWriterThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed * 31 + static_cast<uint64_t>(t));
      int64_t left = total_rows / kWriterThreads;
      while (!failed && left > 0) {
        const int64_t n = std::min<int64_t>(left, 1 + static_cast<int64_t>(rng() % kMaxBatchRows));
        std::vector<Row> rows;
        const size_t first_log = row_logs[t].size();
        for (int64_t i = 0; i < n; ++i) {
          const int key = static_cast<int>(rng() % kKeys);
          RowLog log;
          const int64_t id = next_row.fetch_add(1);
          rows.push_back(MakeRow(c, rng, id, key, &log));
          log.index = static_cast<int32_t>(i);
          row_logs[t].emplace_back(id, log);
        }
        auto batch = pk::MakeBatch(rows, KindColumn::kInt8);
        ArrowArray array;
        ArrowSchema schema;
        arrow::Status exported = arrow::ExportRecordBatch(*batch, &array, &schema);
        if (!exported.ok()) return fail("export: " + exported.ToString());
        const int64_t write = next_write.fetch_add(1);
        WriteLog log;
        log.started = clock.fetch_add(1);
        Status st = writer_of[t]->Write(&array, &schema);
        log.finished = clock.fetch_add(1);
        if (!st.ok()) return fail("write " + std::to_string(write) + ": " + st.ToString());
        write_logs[t].emplace_back(write, log);
        for (size_t i = first_log; i < row_logs[t].size(); ++i) {
          row_logs[t][i].second.written = true;
          row_logs[t][i].second.write = write;
        }
        left -= n;
        // Paced so that the run spans many commits and queries instead of racing past them.
        std::this_thread::sleep_for(std::chrono::microseconds(300 + rng() % 1700));
      }
      --writers_left;
    });
  }
  threads.emplace_back([&] {
    std::mt19937_64 rng(seed * 31 + 100);
    while (!failed) {
      const bool last = writers_left == 0;
      const auto started = std::chrono::steady_clock::now();
      auto committed = commit_writer->Commit();
      commit_micros += std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
      if (!committed.ok()) return fail("commit: " + committed.status().ToString());
      if (*committed) ++commits;
      if (last) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2 + rng() % 5));
    }
  });
  for (int t = 0; t < kReaderThreads; ++t) {
    threads.emplace_back([&, t] {
      const Table& from = t % 2 == 0 ? *table : *reopened;
      std::mt19937_64 rng(seed * 31 + 200 + static_cast<uint64_t>(t));
      while (!failed && writers_left > 0) {
        QueryLog q;
        q.where = "reader " + std::to_string(t) + " query " + std::to_string(query_logs[t].size());
        // Readers 1 and 3 do point lookups of a few keys between their full reads.
        if (t % 2 == 1 && query_logs[t].size() % 2 == 1) {
          std::set<int> keys;
          const size_t count = 1 + rng() % 16;
          while (keys.size() < count) keys.insert(static_cast<int>(rng() % kKeys));
          q.where += " (a lookup)";
          q.start = clock.fetch_add(1);
          std::string error = LookupObservations(from, {keys.begin(), keys.end()}, &q);
          q.end = clock.fetch_add(1);
          if (!error.empty()) return fail(q.where + ": " + error);
          lookups += 1;
          query_logs[t].push_back(std::move(q));
          continue;
        }
        q.start = clock.fetch_add(1);
        auto reader = from.NewReader();
        q.end = clock.fetch_add(1);
        if (!reader.ok()) return fail(q.where + ": plan: " + reader.status().ToString());
        std::string error = ReadObservations(**reader, &q.keys);
        if (!error.empty()) return fail(q.where + ": " + error);
        query_logs[t].push_back(std::move(q));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_FALSE(failed) << failure;
  const double run_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();

  // Every thread is done: commit what is left (waiting for the background compactions).
  CommitOptions wait;
  wait.wait_compaction = true;
  auto last_commit = commit_writer->Commit(wait);
  ASSERT_TRUE(last_commit.ok()) << last_commit.status().ToString();

  // The final union read: every Write finished before it began.
  QueryLog final_read;
  final_read.where = "the final read";
  final_read.start = clock.fetch_add(1);
  {
    auto reader = table->NewReader();
    final_read.end = clock.fetch_add(1);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    std::string error = ReadObservations(**reader, &final_read.keys);
    ASSERT_EQ(error, "");
  }

  // The logs, by Write and row id.
  std::vector<WriteLog> writes(static_cast<size_t>(next_write.load()));
  std::vector<RowLog> rows(static_cast<size_t>(next_row.load()));
  for (const auto& logs : write_logs) {
    for (const auto& [id, log] : logs) writes[id] = log;
  }
  for (const auto& logs : row_logs) {
    for (const auto& [id, log] : logs) rows[id] = log;
  }
  for (const RowLog& r : rows) ASSERT_TRUE(r.written);

  std::vector<QueryLog> queries;
  for (auto& logs : query_logs) {
    for (QueryLog& q : logs) queries.push_back(std::move(q));
  }
  const int64_t concurrent_queries = static_cast<int64_t>(queries.size());
  queries.push_back(final_read);
  std::sort(queries.begin(), queries.end(),
            [](const QueryLog& a, const QueryLog& b) { return a.start < b.start; });
  std::vector<int64_t> by_end(queries.size());
  for (size_t i = 0; i < by_end.size(); ++i) by_end[i] = static_cast<int64_t>(i);
  std::sort(by_end.begin(), by_end.end(),
            [&](int64_t a, int64_t b) { return queries[a].end < queries[b].end; });

  Checker checker(c, writes, rows);
  std::vector<std::string> errors;
  size_t folded = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    // Queries that ended before this one started have smaller start ticks: checked already.
    while (folded < by_end.size() && queries[by_end[folded]].end < queries[i].start) {
      checker.FoldEarlier(by_end[folded++]);
    }
    auto found = checker.Check(static_cast<int64_t>(i), queries[i]);
    errors.insert(errors.end(), found.begin(), found.end());
  }

  // aggregation: every cut is a prefix of one order of the Writes, so the sums of any two
  // queries are nested key by key.
  if (c.engine == "aggregation") {
    auto sum = [](const QueryLog& q, int key) { return q.keys[key].v.value_or(0); };
    std::vector<std::pair<int64_t, size_t>> totals;
    for (size_t i = 0; i < queries.size(); ++i) {
      if (!queries[i].queried.empty()) continue;  // lookups: a few keys, no total to order by
      int64_t total = 0;
      for (int key = 0; key < kKeys; ++key) total += sum(queries[i], key);
      totals.emplace_back(total, i);
    }
    std::sort(totals.begin(), totals.end());
    for (size_t i = 1; i < totals.size(); ++i) {
      const QueryLog& a = queries[totals[i - 1].second];
      const QueryLog& b = queries[totals[i].second];
      for (int key = 0; key < kKeys; ++key) {
        if (sum(a, key) > sum(b, key)) {
          errors.push_back("the cuts of " + a.where + " and " + b.where +
                           " are not nested: in total " + std::to_string(totals[i - 1].first) +
                           " <= " + std::to_string(totals[i].first) + " rows, but key " +
                           KeyText(key) + " has " + std::to_string(sum(a, key)) + " > " +
                           std::to_string(sum(b, key)));
          break;
        }
      }
    }
  }

  if (!errors.empty()) {
    std::string message = std::to_string(errors.size()) + " violations (" + c.engine + "):\n";
    for (size_t i = 0; i < errors.size() && i < kMaxReportedErrors; ++i) {
      message += "  " + errors[i] + "\n";
    }
    ADD_FAILURE() << message;
  }

  // The deterministic final state, where the engine has one.
  ASSERT_OK_AND_ASSIGN(auto final_reader, table->NewReader());
  const std::vector<std::string> final_rows = pk::SortedTexts(pk::DrainRows(*final_reader));
  if (c.engine == "deduplicate" && c.order == Order::kSequenceField) {
    std::vector<std::string> expected;
    for (int key = 0; key < kKeys; ++key) {
      std::optional<int64_t> newest;
      for (int64_t r : checker.RowsOfKey(key)) {
        if (!newest || *rows[r].v > *rows[*newest].v) newest = r;
      }
      if (!newest || IsRetract(rows[*newest].kind)) continue;
      expected.push_back(pk::Text(Row{key < kIds ? "a" : "b", key % kIds,
                                      "r" + std::to_string(*newest), *rows[*newest].v}));
    }
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(final_rows, expected) << "the final union read";
  } else if (c.engine == "aggregation") {
    std::vector<int64_t> counts(kKeys, 0);
    for (const RowLog& r : rows) ++counts[r.key];
    for (int key = 0; key < kKeys; ++key) {
      EXPECT_EQ(final_read.keys[key].v.value_or(0), counts[key]) << "key " << KeyText(key);
    }
  }

  ReadOptions committed_only;
  committed_only.include_uncommitted = false;
  if (c.engine != "first-row") {
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader(committed_only));
    EXPECT_EQ(pk::SortedTexts(pk::DrainRows(*reader)), final_rows)
        << "a committed-only read against the union read";
  }
  ASSERT_OK_AND_ASSIGN(auto snapshots, table->Snapshots());
  int64_t compactions = 0;
  for (const SnapshotInfo& snapshot : snapshots) compactions += snapshot.commit_kind == "COMPACT";
  EXPECT_GT(compactions, 0) << "no background compaction in " << snapshots.size() << " snapshots";
  ASSERT_OK_AND_ASSIGN(auto compacted, table->Compact(CompactOptions{true, {}}));
  {
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader(committed_only));
    EXPECT_EQ(pk::SortedTexts(pk::DrainRows(*reader)), final_rows)
        << "a committed-only read after a full compaction against the union read";
  }
  EXPECT_EQ(pk::ReadAll(*table), final_rows) << "the union read after a full compaction";
  EXPECT_GT(concurrent_queries, 0);
  EXPECT_GT(lookups.load(), 0);
  EXPECT_GT(commits.load(), 1);

  int64_t present = 0;
  for (const Observation& o : final_read.keys) present += o.present;
  std::cout << "[ INFO     ] " << c.engine
            << (c.order == Order::kSequenceField ? " (sequence.field)" : "") << ": " << rows.size()
            << " rows in " << writes.size() << " writes, " << concurrent_queries << " queries ("
            << lookups << " lookups), " << commits << " commits (" << commit_micros / 1000
            << " ms), " << snapshots.size() << " snapshots, " << compactions << " COMPACT, "
            << present << " keys at the end, " << run_seconds
            << " s under load; a full compaction after: " << compacted.files_before << " files to "
            << compacted.files_after << std::endl;
}

INSTANTIATE_TEST_SUITE_P(
    Engines, RealtimePrimaryKeyStressTest,
    ::testing::Values(Case{"deduplicate", Order::kSequenceField}, Case{"deduplicate"},
                      Case{"partial-update"}, Case{"aggregation"}, Case{"first-row"},
                      Case{"deduplicate", Order::kWriteOrder, "indexed"},
                      Case{"partial-update", Order::kWriteOrder, "indexed"},
                      Case{"deduplicate", Order::kWriteOrder, "columnar", true},
                      Case{"aggregation", Order::kWriteOrder, "indexed", true}),
    CaseName);

}  // namespace
}  // namespace freshet::testing
