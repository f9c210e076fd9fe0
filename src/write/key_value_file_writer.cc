#include "write/key_value_file_writer.h"

#include <arrow/api.h>

#include <algorithm>
#include <set>

#include "bridge/arrow_schema.h"
#include "bridge/arrow_value.h"
#include "meta/options/option_registry.h"
#include "meta/row/binary_row.h"

namespace freshet::write {

namespace {

bool IsSystemField(const std::string& name) {
  return name.rfind(mergetree::kKeyFieldPrefix, 0) == 0 ||
         name == mergetree::kSequenceNumberFieldName || name == mergetree::kValueKindFieldName;
}

// Java's StatsCollectorFactories.createStatsFactories(options, fileFields, keyNames).
Result<format::FormatWriterOptions> KeyValueWriterOptions(
    const std::vector<meta::DataField>& file_fields, const meta::TableSchema& schema) {
  FRESHET_ASSIGN_OR_RETURN(
      auto options, format::FormatWriterOptions::FromTableOptions(file_fields, schema.options()));
  // A primary-key writer's memory is bounded by write-buffer-size: columns encoded on other
  // threads hold their buffers and those threads' allocator caches at once (22 MiB of RSS over
  // the bound with a 32 MiB buffer). Unless the table asks for it, it encodes on its own thread.
  if (!schema.option("parquet.write.parallel-columns")) options.parquet_parallel_columns = false;
  std::set<std::string> key_names;
  for (const std::string& key : schema.TrimmedPrimaryKeys()) {
    key_names.insert(mergetree::kKeyFieldPrefix + key);
  }
  for (size_t i = 0; i < file_fields.size(); ++i) {
    const std::string& name = file_fields[i].name;
    if (schema.option("fields." + name + ".stats-mode")) continue;
    if (IsSystemField(name) || key_names.count(mergetree::kKeyFieldPrefix + name) > 0) {
      options.stats_modes[i] = format::StatsMode{format::StatsMode::Kind::kTruncate, 128};
    }
  }
  // Within a level-0 file every key is written once and every sequence number is distinct, so a
  // dictionary of a single-column key (in `_KEY_<k>` and its value twin) or of the sequence
  // number would only grow to the dictionary limit and be dropped.
  options.parquet_plain_columns.push_back(mergetree::kSequenceNumberFieldName);
  if (std::vector<std::string> keys = schema.TrimmedPrimaryKeys(); keys.size() == 1) {
    const std::string& key = keys[0];
    options.parquet_plain_columns.push_back(mergetree::kKeyFieldPrefix + key);
    options.parquet_plain_columns.push_back(key);
  }
  // A flush holds the other buckets' sort buffers and one open row group or stripe: a quarter of
  // write-buffer-size at most keeps the writer within twice that (docs/primary-key-tables.md).
  FRESHET_ASSIGN_OR_RETURN(int64_t write_buffer,
                           meta::GetMemorySizeOption(schema.options(), "write-buffer-size"));
  int64_t open_bytes = std::max<int64_t>(1, write_buffer / 8);
  options.parquet_row_group_bytes = std::min(options.parquet_row_group_bytes, open_bytes);
  options.orc_stripe_bytes = std::min(options.orc_stripe_bytes, open_bytes);
  return options;
}

// The stats of a file's columns as the format writer returned them (dense over all file
// columns), taken apart into key stats (all mode) and value stats (dense) as Java's
// KeyValueDataFileWriter does.
class StatsSplitter {
 public:
  static Result<StatsSplitter> Make(const std::vector<meta::DataField>& fields,
                                    const format::FormatWriteResult& result) {
    StatsSplitter s;
    s.fields_ = &fields;
    s.null_counts_ = result.stats.null_counts.value_or(std::vector<std::optional<int64_t>>{});
    FRESHET_ASSIGN_OR_RETURN(s.min_, meta::DeserializeBinaryRow(result.stats.min_values));
    FRESHET_ASSIGN_OR_RETURN(s.max_, meta::DeserializeBinaryRow(result.stats.max_values));
    for (size_t i = 0; i < fields.size(); ++i) {
      int position = static_cast<int>(i);
      if (result.stats_columns) {
        const auto& names = *result.stats_columns;
        auto it = std::find(names.begin(), names.end(), fields[i].name);
        position = it == names.end() ? -1 : static_cast<int>(it - names.begin());
      }
      s.position_.push_back(position);
    }
    return s;
  }

  // Stats of fields [begin, end): every one (`dense` false) or those collected, with their
  // names when some are left out.
  Result<meta::SimpleStats> Take(size_t begin, size_t end, bool dense,
                                 std::optional<std::vector<std::string>>* names) const {
    std::vector<meta::DataTypePtr> types;
    std::vector<meta::Value> mins, maxs;
    std::vector<std::optional<int64_t>> null_counts;
    std::vector<std::string> collected;
    for (size_t i = begin; i < end; ++i) {
      int position = position_[i];
      if (position < 0 && dense) continue;
      const meta::DataField& field = (*fields_)[i];
      meta::DataTypePtr type = field.type->WithNullable(true);
      meta::Value min, max;
      std::optional<int64_t> null_count;
      if (position >= 0) {
        FRESHET_ASSIGN_OR_RETURN(min, min_.GetValue(position, *type));
        FRESHET_ASSIGN_OR_RETURN(max, max_.GetValue(position, *type));
        if (static_cast<size_t>(position) < null_counts_.size()) {
          null_count = null_counts_[static_cast<size_t>(position)];
        }
      }
      types.push_back(std::move(type));
      mins.push_back(std::move(min));
      maxs.push_back(std::move(max));
      null_counts.push_back(null_count);
      collected.push_back(field.name);
    }
    meta::SimpleStats stats;
    FRESHET_ASSIGN_OR_RETURN(auto min_row, meta::BuildBinaryRow(types, mins));
    FRESHET_ASSIGN_OR_RETURN(auto max_row, meta::BuildBinaryRow(types, maxs));
    stats.min_values = meta::SerializeBinaryRow(min_row);
    stats.max_values = meta::SerializeBinaryRow(max_row);
    stats.null_counts = std::move(null_counts);
    if (names != nullptr && collected.size() != end - begin) *names = std::move(collected);
    return stats;
  }

 private:
  const std::vector<meta::DataField>* fields_ = nullptr;
  std::vector<int> position_;  // of each file column in the stats rows, -1 when left out
  meta::BinaryRow min_, max_;
  std::vector<std::optional<int64_t>> null_counts_;
};

}  // namespace

Result<KeyValueFileFormat> KeyValueFileFormat::Make(std::shared_ptr<io::FileIO> file_io,
                                                    const meta::TableSchema& schema,
                                                    const meta::CoreOptions& options,
                                                    const mergetree::MergeLayout* layout) {
  if (layout->num_value_fields() != static_cast<int>(schema.fields().size())) {
    return Status::Internal("a key-value file layout needs every table field");
  }
  KeyValueFileFormat out;
  out.layout_ = layout;
  out.schema_id_ = schema.id();
  out.file_fields_ = mergetree::KeyValueFileFields(schema);
  FRESHET_ASSIGN_OR_RETURN(out.file_schema_, bridge::ToArrowSchema(out.file_fields_));
  for (int column : layout->key_columns()) {
    out.key_types_.push_back(layout->value_fields()[static_cast<size_t>(column)].type);
  }
  DataFileSettings& settings = out.settings_;
  settings.file_io = std::move(file_io);
  FRESHET_ASSIGN_OR_RETURN(settings.writer_options,
                           KeyValueWriterOptions(out.file_fields_, schema));
  FRESHET_ASSIGN_OR_RETURN(settings.format, format::ParseFileFormat(options.file_format()));
  settings.target_file_size = options.target_file_size();
  settings.file_prefix = options.data_file_prefix();
  FRESHET_RETURN_NOT_OK(SetFileIndexSettings(schema, &settings));
  return out;
}

std::shared_ptr<arrow::RecordBatch> KeyValueFileFormat::ToFileBatch(
    const mergetree::MergeBatch& batch) const {
  const auto& columns = batch.batch()->columns();
  std::vector<std::shared_ptr<arrow::Array>> file_columns;
  for (int key : layout_->key_columns()) file_columns.push_back(columns[static_cast<size_t>(key)]);
  file_columns.push_back(columns[static_cast<size_t>(layout_->sequence_column())]);
  file_columns.push_back(columns[static_cast<size_t>(layout_->kind_column())]);
  file_columns.insert(file_columns.end(), columns.begin(),
                      columns.begin() + layout_->num_value_fields());
  return arrow::RecordBatch::Make(file_schema_, batch.num_rows(), std::move(file_columns));
}

Result<std::string> KeyValueFileFormat::KeyOf(const mergetree::MergeBatch& batch,
                                              int64_t row) const {
  std::vector<meta::Value> values;
  for (size_t i = 0; i < key_types_.size(); ++i) {
    int column = layout_->key_columns()[i];
    FRESHET_ASSIGN_OR_RETURN(auto value,
                             bridge::ArrowValueAt(batch.column(column), row, *key_types_[i]));
    values.push_back(std::move(value));
  }
  FRESHET_ASSIGN_OR_RETURN(auto key, meta::BuildBinaryRow(key_types_, values));
  return meta::SerializeBinaryRow(key);
}

Result<meta::DataFileMeta> KeyValueFileFormat::ToFileMeta(ClosedFile closed, const Records& records,
                                                          int32_t level,
                                                          meta::FileSource source) const {
  FRESHET_ASSIGN_OR_RETURN(auto stats, StatsSplitter::Make(file_fields_, closed.result));
  size_t num_keys = key_types_.size();
  meta::DataFileMeta file;
  file.file_name = std::move(closed.name);
  file.file_size = closed.result.file_size;
  file.row_count = closed.result.row_count;
  file.min_key = records.min_key;
  file.max_key = records.max_key;
  FRESHET_ASSIGN_OR_RETURN(file.key_stats, stats.Take(0, num_keys, false, nullptr));
  FRESHET_ASSIGN_OR_RETURN(file.value_stats, stats.Take(num_keys + 2, file_fields_.size(), true,
                                                        &file.value_stats_cols));
  file.min_sequence_number = records.min_sequence;
  file.max_sequence_number = records.max_sequence;
  file.schema_id = schema_id_;
  file.level = level;
  file.creation_time_millis = FileCreationTimeMillis();
  file.delete_row_count = records.retracts;
  file.file_source = static_cast<int32_t>(source);
  AttachFileIndex(&closed, &file);
  return file;
}

KeyValueFileWriter::KeyValueFileWriter(const KeyValueFileFormat* format, std::string directory,
                                       int32_t level, meta::FileSource source)
    : format_(format),
      level_(level),
      source_(source),
      files_(&format->settings(), std::move(directory), format->file_fields()) {}

Status KeyValueFileWriter::Write(const mergetree::MergeBatch& batch) {
  if (batch.num_rows() == 0) return Status::OK();
  if (!files_.open_path()) {
    FRESHET_ASSIGN_OR_RETURN(records_.min_key, format_->KeyOf(batch, 0));
  }
  FRESHET_ASSIGN_OR_RETURN(records_.max_key, format_->KeyOf(batch, batch.num_rows() - 1));
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    records_.min_sequence = std::min(records_.min_sequence, batch.sequence(row));
    records_.max_sequence = std::max(records_.max_sequence, batch.sequence(row));
    if (mergetree::IsRetract(batch.kind(row))) ++records_.retracts;
  }
  FRESHET_ASSIGN_OR_RETURN(auto closed, files_.Write(*format_->ToFileBatch(batch)));
  if (closed) return AddFile(std::move(*closed));
  return Status::OK();
}

Status KeyValueFileWriter::Close() {
  FRESHET_ASSIGN_OR_RETURN(auto closed, files_.Close());
  if (closed) return AddFile(std::move(*closed));
  return Status::OK();
}

Status KeyValueFileWriter::AddFile(ClosedFile closed) {
  FRESHET_ASSIGN_OR_RETURN(auto file,
                           format_->ToFileMeta(std::move(closed), records_, level_, source_));
  done_.push_back(std::move(file));
  records_ = KeyValueFileFormat::Records{};
  return Status::OK();
}

std::vector<meta::DataFileMeta> KeyValueFileWriter::TakeFiles() {
  std::vector<meta::DataFileMeta> out = std::move(done_);
  done_.clear();
  return out;
}

std::vector<std::string> KeyValueFileWriter::DropFilesSince(size_t mark) {
  std::vector<std::string> paths;
  for (size_t i = mark; i < done_.size(); ++i) {
    for (std::string& path : files_.PathsOf(done_[i])) paths.push_back(std::move(path));
  }
  if (auto open = files_.open_path()) paths.push_back(*open);
  done_.resize(std::min(mark, done_.size()));
  files_.DropOpenFile();
  records_ = KeyValueFileFormat::Records{};
  return paths;
}

}  // namespace freshet::write
