#include "write/changelog_files.h"

#include <string>
#include <utility>

#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"

namespace freshet::write {

Result<ChangelogProducer> GetChangelogProducer(const meta::TableSchema& schema) {
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(schema.options(), "changelog-producer"));
  if (producer == "input") return ChangelogProducer::kInput;
  if (producer == "full-compaction") return ChangelogProducer::kFullCompaction;
  if (producer == "lookup") return ChangelogProducer::kLookup;
  return ChangelogProducer::kNone;
}

Result<meta::TableSchema> ChangelogFileSchema(const meta::TableSchema& schema) {
  // Each changelog option, resolved (its own value, else its data-file twin's), replaces the
  // data-file option the writers read.
  const std::pair<const char*, const char*> replaced[] = {
      {"changelog-file.format", "file.format"},
      {"changelog-file.compression", "file.compression"},
      {"changelog-file.prefix", "data-file.prefix"},
  };
  meta::Options options;
  for (const auto& [key, value] : schema.options()) {
    bool is_replaced = key == "metadata.stats-mode";
    for (const auto& [from, to] : replaced) is_replaced |= key == to;
    if (!is_replaced) options.emplace_back(key, value);
  }
  for (const auto& [from, to] : replaced) {
    FRESHET_ASSIGN_OR_RETURN(std::string value, meta::GetStringOption(schema.options(), from));
    options.emplace_back(to, std::move(value));
  }
  if (auto mode = schema.option("changelog-file.stats-mode")) {
    options.emplace_back("metadata.stats-mode", *mode);
  } else if (auto data_mode = schema.option("metadata.stats-mode")) {
    options.emplace_back("metadata.stats-mode", *data_mode);
  }
  return schema.WithOptions(std::move(options));
}

Result<KeyValueFileFormat> MakeChangelogFileFormat(std::shared_ptr<io::FileIO> file_io,
                                                   const meta::TableSchema& schema,
                                                   const mergetree::MergeLayout* layout) {
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema changelog_schema, ChangelogFileSchema(schema));
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(changelog_schema.options(), true));
  return KeyValueFileFormat::Make(std::move(file_io), changelog_schema, options, layout);
}

}  // namespace freshet::write
