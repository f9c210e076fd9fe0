// Helpers shared by the data-file tests.
#pragma once

#include <arrow/api.h>

#include <memory>
#include <string>
#include <vector>

#include "format/format_reader.h"
#include "format/format_writer.h"
#include "io/file_io.h"
#include "meta/types/data_type.h"
#include "testing/test_util.h"
#include "textrows/json_rows.h"

namespace freshet::format::testing {

inline meta::DataField Field(int32_t id, std::string name, meta::DataTypePtr type) {
  return meta::DataField{id, std::move(name), std::move(type), std::nullopt, std::nullopt};
}

// Fields numbered 0, 1, 2... in the order given.
inline std::vector<meta::DataField> MakeFields(
    const std::vector<std::pair<std::string, meta::DataTypePtr>>& columns) {
  std::vector<meta::DataField> fields;
  for (const auto& [name, type] : columns) {
    fields.push_back(meta::DataField{static_cast<int32_t>(fields.size()), name, type, {}, {}});
  }
  return fields;
}

inline meta::DataTypePtr Must(Result<meta::DataTypePtr> type) {
  return std::move(type).ValueOrDie();
}

inline std::shared_ptr<arrow::RecordBatch> ParseRows(const std::string& jsonl,
                                                     const std::vector<meta::DataField>& fields) {
  auto parsed = textrows::ParseJsonRows(jsonl, fields);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? parsed->batch : nullptr;
}

// Writes `batches` to `path` and returns what Finish() reported.
inline Result<FormatWriteResult> WriteFile(
    FileFormat format, const std::string& path, const std::vector<meta::DataField>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    FormatWriterOptions options = {}) {
  FRESHET_ASSIGN_OR_RETURN(auto out, io::LocalFileIO()->OpenForWrite(path));
  FRESHET_ASSIGN_OR_RETURN(auto writer,
                           FormatWriter::Open(format, std::move(out), schema, std::move(options)));
  for (const auto& batch : batches) FRESHET_RETURN_NOT_OK(writer->Write(*batch));
  return writer->Finish();
}

// Reads the whole file at `path` in `read_schema` into one batch.
inline Result<std::shared_ptr<arrow::RecordBatch>> ReadFile(
    const std::string& path, const std::vector<meta::DataField>& read_schema,
    FormatReaderOptions options = {}, int64_t size = -1) {
  auto file_io = io::LocalFileIO();
  if (size < 0) {
    FRESHET_ASSIGN_OR_RETURN(auto info, file_io->GetFileInfo(path));
    size = info.size;
  }
  FRESHET_ASSIGN_OR_RETURN(auto reader,
                           FormatReader::Open(*file_io, path, size, read_schema, options));
  FRESHET_ASSIGN_OR_RETURN(auto batches, ReadAllBatches(reader.get()));
  auto table = arrow::Table::FromRecordBatches(reader->output_schema(), batches);
  if (!table.ok()) return Status::Internal(table.status().ToString());
  auto combined = (*table)->CombineChunksToBatch();
  if (!combined.ok()) return Status::Internal(combined.status().ToString());
  return *combined;
}

// JSON lines of `batch`, for readable comparisons.
inline std::string Json(const arrow::RecordBatch& batch,
                        const std::vector<meta::DataField>& fields) {
  auto text = textrows::FormatJsonRows(batch, fields);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

}  // namespace freshet::format::testing
