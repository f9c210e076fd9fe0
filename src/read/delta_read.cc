#include "read/delta_read.h"

#include <arrow/api.h>

#include <optional>

#include "common/arrow_status.h"
#include "mergetree/interval_partition.h"
#include "mergetree/key_value.h"
#include "mergetree/sort_merge_reader.h"
#include "read/data_file_reader.h"
#include "read/predicate_filter.h"

namespace freshet::read {

namespace {

class KindedSplitsReader : public format::ChainedBatchReader {
 public:
  KindedSplitsReader(const KindedTableRead* read, std::vector<scan::DataSplit> splits, bool merge)
      : read_(read),
        files_(read->file_io(), &read->paths(), read->table_read().schema_id(),
               read->table_read().options().batch_size),
        splits_(std::move(splits)),
        merge_(merge) {
    const auto& fields = read->table_read().read_fields();
    fields_with_kind_ = fields;
    fields_with_kind_.push_back(mergetree::ValueKindField());
    auto output = read->output_schema()->fields();
    output.push_back(arrow::field(mergetree::kValueKindFieldName, arrow::int8(), false));
    schema_ = arrow::schema(std::move(output));
  }

 private:
  Result<std::unique_ptr<format::BatchReader>> OpenNext() override {
    static const std::vector<meta::DataField> kSystemFields = {mergetree::SequenceNumberField(),
                                                               mergetree::ValueKindField()};
    const PrimaryKeyReadPlan* plan = read_->kind_plan();
    while (split_ < splits_.size()) {
      const scan::DataSplit& split = splits_[split_];
      if (plan != nullptr && merge_) {
        // The split's sections in key order, each merged as TableRead merges them (retracts
        // kept here, dropped in Transform, where the merged kind stays beside the read fields).
        if (!sections_) {
          FRESHET_ASSIGN_OR_RETURN(sections_,
                                   mergetree::PartitionIntoSections(split.files, plan->key_types));
          section_ = 0;
        }
        if (section_ < sections_->size()) {
          FRESHET_ASSIGN_OR_RETURN(auto merged,
                                   ReadSection(*plan, &files_, split, (*sections_)[section_++],
                                               read_->table_read().options().batch_size));
          return mergetree::AsArrowBatches(std::move(merged));
        }
        sections_.reset();
        ++split_;
        continue;
      }
      if (file_ < split.files.size()) {
        size_t index = file_++;
        if (plan != nullptr) return files_.Open(split, index, fields_with_kind_, kSystemFields);
        return files_.Open(split, index, read_->table_read().read_fields());
      }
      ++split_;
      file_ = 0;
    }
    return std::unique_ptr<format::BatchReader>();
  }

  // Batches arrive as the read fields (then the kind, for primary-key tables): append tables
  // get +I, then rows are filtered and the columns read only for the filter dropped.
  Result<std::shared_ptr<arrow::RecordBatch>> Transform(
      std::shared_ptr<arrow::RecordBatch> batch) override {
    const TableRead& read = read_->table_read();
    if (const PrimaryKeyReadPlan* plan = read_->kind_plan(); plan != nullptr && merge_) {
      // A merged record in the merge layout: the live ones, read fields then the merged kind.
      const int kind_column = plan->layout.kind_column();
      FRESHET_ASSIGN_OR_RETURN(batch, WithoutRetracts(batch, kind_column));
      std::vector<std::shared_ptr<arrow::Array>> columns(
          batch->columns().begin(), batch->columns().begin() + plan->num_read_fields);
      std::vector<std::shared_ptr<arrow::Field>> fields(
          batch->schema()->fields().begin(),
          batch->schema()->fields().begin() + plan->num_read_fields);
      columns.push_back(batch->column(kind_column));
      fields.push_back(batch->schema()->field(kind_column));
      batch = arrow::RecordBatch::Make(arrow::schema(std::move(fields)), batch->num_rows(),
                                       std::move(columns));
    } else if (read_->kind_plan() == nullptr) {
      FRESHET_ASSIGN_OR_RETURN_ARROW(
          auto inserts, arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), batch->num_rows()));
      FRESHET_ASSIGN_OR_RETURN_ARROW(
          batch, batch->AddColumn(
                     batch->num_columns(),
                     arrow::field(mergetree::kValueKindFieldName, arrow::int8(), false), inserts));
    }
    if (read.options().predicate) {
      FRESHET_ASSIGN_OR_RETURN(batch,
                               FilterBatch(*read.options().predicate, batch, read.read_fields()));
    }
    const int outputs = read.output_schema()->num_fields();
    std::vector<std::shared_ptr<arrow::Array>> columns(batch->columns().begin(),
                                                       batch->columns().begin() + outputs);
    columns.push_back(batch->column(batch->num_columns() - 1));
    return arrow::RecordBatch::Make(schema_, batch->num_rows(), std::move(columns));
  }

  const KindedTableRead* read_;
  DataFileOpener files_;
  std::vector<scan::DataSplit> splits_;
  const bool merge_;
  std::vector<meta::DataField> fields_with_kind_;
  std::shared_ptr<arrow::Schema> schema_;
  size_t split_ = 0;
  size_t file_ = 0;
  std::optional<std::vector<mergetree::Section>> sections_;  // of the split being merged
  size_t section_ = 0;
};

}  // namespace

KindedTableRead::KindedTableRead(std::shared_ptr<io::FileIO> file_io, TableRead read,
                                 meta::DataFilePaths paths)
    : file_io_(std::move(file_io)), read_(std::move(read)), paths_(std::move(paths)) {}

Result<std::shared_ptr<const KindedTableRead>> KindedTableRead::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
    ReadOptions options) {
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  FRESHET_ASSIGN_OR_RETURN(TableRead read,
                           TableRead::Make(file_io, table_path, schema, std::move(options)));
  return std::make_shared<const KindedTableRead>(std::move(file_io), std::move(read),
                                                 std::move(paths));
}

Result<std::unique_ptr<format::BatchReader>> KindedTableRead::CreateReader(
    std::vector<scan::DataSplit> splits, bool merge) const {
  return std::unique_ptr<format::BatchReader>(
      new KindedSplitsReader(this, std::move(splits), merge));
}

}  // namespace freshet::read
