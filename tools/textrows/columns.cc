#include "textrows/columns.h"

#include "meta/schema/table_schema.h"

namespace freshet::textrows {

Result<Columns> Columns::Of(const Table& table) {
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema,
                           meta::TableSchema::FromJson(table.SchemaJson(), table.path()));
  return Columns(schema.fields());
}

Result<Columns> Columns::Of(const Table& table, int64_t schema_id) {
  FRESHET_ASSIGN_OR_RETURN(std::string json, table.SchemaJson(schema_id));
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema,
                           meta::TableSchema::FromJson(json, table.path()));
  return Columns(schema.fields());
}

Columns Columns::Select(const std::vector<std::string>& names) const {
  if (names.empty()) return *this;
  std::vector<meta::DataField> selected;
  for (const std::string& name : names) {
    int index = meta::FindFieldByName(fields_, name);
    if (index >= 0) selected.push_back(fields_[static_cast<size_t>(index)]);
  }
  return Columns(std::move(selected));
}

std::vector<std::string> Columns::names() const {
  std::vector<std::string> out;
  out.reserve(fields_.size());
  for (const meta::DataField& field : fields_) out.push_back(field.name);
  return out;
}

}  // namespace freshet::textrows
