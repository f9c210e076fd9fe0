#include "commit/tag_expiration.h"

#include "commit/snapshot_expiration.h"
#include "meta/options/option_registry.h"
#include "meta/snapshot/snapshot_manager.h"
#include "meta/snapshot/tag_manager.h"

namespace freshet::commit {

namespace {

Status DeleteTagAndItsFiles(const std::shared_ptr<io::FileIO>& file_io,
                            const std::string& table_path, const meta::TableSchema& schema,
                            const meta::Tag& tag) {
  const meta::TagManager tags(file_io, table_path);
  FRESHET_RETURN_NOT_OK(tags.Delete(tag.name));
  // The tag file goes first, as in Java: a failure below leaves files no tag references, which
  // remove-orphans removes, never a tag whose files are gone.
  SnapshotExpiration expiration(file_io, table_path, schema, ExpireConfig{});
  return expiration.DeleteFilesOfDeletedTag(tag.snapshot)
      .status()
      .WithContext("deleting the files of tag '" + tag.name + "'");
}

}  // namespace

Status DeleteTag(const std::shared_ptr<io::FileIO>& file_io, const std::string& table_path,
                 const meta::TableSchema& schema, const std::string& name) {
  FRESHET_ASSIGN_OR_RETURN(meta::Tag tag, meta::TagManager(file_io, table_path).GetOrError(name));
  return DeleteTagAndItsFiles(file_io, table_path, schema, tag);
}

Result<std::vector<std::string>> ExpireTags(const std::shared_ptr<io::FileIO>& file_io,
                                            const std::string& table_path,
                                            const meta::TableSchema& schema, int64_t now_millis) {
  std::vector<std::string> expired;
  FRESHET_ASSIGN_OR_RETURN(bool enabled,
                           meta::GetBoolOption(schema.options(), "tag.time-expire-enabled"));
  if (!enabled) return expired;
  const meta::TagManager manager(file_io, table_path);
  // One stat for the common table without tags: commits list no directory (they stay cheap at
  // any number of snapshots).
  FRESHET_ASSIGN_OR_RETURN(bool has_tags, file_io->Exists(manager.TagDirectory()));
  if (!has_tags) return expired;
  FRESHET_ASSIGN_OR_RETURN(auto tags, manager.List());
  for (const meta::Tag& tag : tags) {
    if (!tag.create_time_millis || !tag.time_retained_millis) continue;  // kept for ever
    if (now_millis <= *tag.create_time_millis + *tag.time_retained_millis) continue;
    FRESHET_RETURN_NOT_OK(DeleteTagAndItsFiles(file_io, table_path, schema, tag));
    expired.push_back(tag.name);
  }
  return expired;
}

}  // namespace freshet::commit
