// Shared helpers of the real-time tests: event tables (k INT, seq BIGINT, dt STRING) written and
// read through the public API.
#pragma once

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "freshet/realtime/mem_indexer.h"
#include "freshet/realtime/realtime_context.h"
#include "freshet/table.h"
#include "testing/test_util.h"

namespace freshet::testing {

// An append table of events; `options` is a JSON object body such as R"("bucket": "4")".
inline std::string EventTableSpec(const std::string& options, bool partitioned = false) {
  return std::string(R"({"fields": [{"name": "k", "type": "INT"},)") +
         R"({"name": "seq", "type": "BIGINT"}, {"name": "dt", "type": "STRING"}])" +
         (partitioned ? R"(, "partitionKeys": ["dt"])" : "") + R"(, "options": {)" + options + "}}";
}

inline std::shared_ptr<arrow::Schema> EventSchema() {
  return arrow::schema({arrow::field("k", arrow::int32()), arrow::field("seq", arrow::int64()),
                        arrow::field("dt", arrow::utf8())});
}

struct Event {
  int32_t k = 0;
  int64_t seq = 0;
  std::string dt = "2026-11-30";
  auto operator<=>(const Event&) const = default;
};

inline std::shared_ptr<arrow::RecordBatch> EventBatch(const std::vector<Event>& events) {
  arrow::Int32Builder k;
  arrow::Int64Builder seq;
  arrow::StringBuilder dt;
  for (const Event& e : events) {
    EXPECT_TRUE(k.Append(e.k).ok());
    EXPECT_TRUE(seq.Append(e.seq).ok());
    EXPECT_TRUE(dt.Append(e.dt).ok());
  }
  return arrow::RecordBatch::Make(EventSchema(), static_cast<int64_t>(events.size()),
                                  {*k.Finish(), *seq.Finish(), *dt.Finish()});
}

// Events {k, seq = first..first+n-1, dt}.
inline std::vector<Event> Events(int32_t k, int64_t first, int64_t n,
                                 const std::string& dt = "2026-11-30") {
  std::vector<Event> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(Event{k, first + i, dt});
  return out;
}

inline Status WriteEvents(TableWriter& writer, const std::vector<Event>& events,
                          const std::vector<int64_t>& offsets = {}) {
  ArrowArray array;
  ArrowSchema schema;
  auto batch = EventBatch(events);
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) {
    return Status::Internal("export failed");
  }
  if (offsets.empty()) return writer.Write(&array, &schema);
  return writer.WriteWithOffsets(&array, &schema, offsets.data());
}

// Every event a reader returns (columns k, seq and, when projected, dt), sorted.
inline Result<std::vector<Event>> ReadEvents(TableReader& reader) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader.ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  std::vector<Event> out;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&array));
    if (!more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    auto k = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("k"));
    auto seq = std::static_pointer_cast<arrow::Int64Array>(batch->GetColumnByName("seq"));
    auto dt = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("dt"));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out.push_back(Event{k->Value(i), seq->Value(i), dt ? std::string(dt->GetView(i)) : ""});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline Result<std::vector<Event>> ReadEvents(const Table& table, ReadOptions options = {}) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, table.NewReader(options));
  return ReadEvents(*reader);
}

inline std::vector<Event> Sorted(std::vector<Event> events) {
  std::sort(events.begin(), events.end());
  return events;
}

inline std::vector<Event> Concat(std::vector<Event> a, const std::vector<Event>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return Sorted(std::move(a));
}

// Committed progress by bucket (unpartitioned tables) or by "dt/bucket".
inline std::map<std::string, int64_t> ProgressByBucket(const realtime::RealtimeContext& context) {
  std::map<std::string, int64_t> out;
  for (const auto& p : context.CommittedProgress()) {
    std::string key;
    for (const auto& [column, value] : p.partition) key += value + "/";
    out[key + std::to_string(p.bucket)] = p.end;
  }
  return out;
}

// A MemIndexer that forwards everything to a columnar one; tests override the step they probe.
class ForwardingMemIndexer : public realtime::MemIndexer {
 public:
  explicit ForwardingMemIndexer(std::unique_ptr<realtime::MemIndexer> inner)
      : inner_(std::move(inner)) {}
  // The columnar indexer for `options`, wrapped in a T (constructed from the inner indexer and
  // `args`).
  template <typename T, typename... Args>
  static Result<std::unique_ptr<realtime::MemIndexer>> WrapColumnar(
      const realtime::MemIndexerOptions& options, Args&&... args) {
    FRESHET_ASSIGN_OR_RETURN(auto columnar, realtime::FindMemIndexerFactory("columnar"));
    FRESHET_ASSIGN_OR_RETURN(auto inner, columnar->Create(options));
    return std::unique_ptr<realtime::MemIndexer>(
        new T(std::move(inner), std::forward<Args>(args)...));
  }

  Status Write(const realtime::RowBatch& batch) override { return inner_->Write(batch); }
  Result<std::shared_ptr<realtime::SealedSegment>> SealForCommit() override {
    return inner_->SealForCommit();
  }
  Result<realtime::RowBatchReaders> CreateCommitReaders(
      const std::shared_ptr<realtime::SealedSegment>& segment) override {
    return inner_->CreateCommitReaders(segment);
  }
  std::shared_ptr<const realtime::ReadView> AcquireReadView() override {
    return inner_->AcquireReadView();
  }
  Result<realtime::RowBatchReaders> CreateQueryReaders(
      const std::shared_ptr<const realtime::ReadView>& view,
      const realtime::QuerySpec& spec) override {
    return inner_->CreateQueryReaders(view, spec);
  }
  void Reclaim(int64_t end) override { inner_->Reclaim(end); }
  realtime::MemoryUsage Usage() const override { return inner_->Usage(); }

 protected:
  realtime::MemIndexer& inner() { return *inner_; }

 private:
  std::unique_ptr<realtime::MemIndexer> inner_;
};

}  // namespace freshet::testing
