// Table::RemoveOrphanFiles: the public face of commit/orphan_files.h.
#include <chrono>

#include "commit/orphan_files.h"
#include "freshet/table.h"
#include "meta/schema/table_schema.h"

namespace freshet {

Result<OrphanFilesResult> Table::RemoveOrphanFiles(const RemoveOrphanFilesOptions& options) const {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  constexpr int64_t kDayMillis = 24LL * 3600 * 1000;
  commit::OrphanCleanOptions clean;
  clean.older_than_millis = options.older_than_millis.value_or(now - kDayMillis);
  clean.dry_run = options.dry_run;
  if (clean.older_than_millis >= now) {
    // As Java: files being written now are not referenced yet.
    return Status::Invalid("the orphan cut-off time must be before now: files written now may ",
                           "be about to be committed");
  }
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema,
                           meta::TableSchema::FromJson(SchemaJson(), path()));
  FRESHET_ASSIGN_OR_RETURN(commit::OrphanCleanResult done,
                           commit::RemoveOrphanFiles(io::LocalFileIO(), path(), schema, clean));
  OrphanFilesResult result;
  result.total_bytes = done.total_bytes;
  for (commit::OrphanFile& f : done.files) {
    result.files.push_back({std::move(f.path), f.size, f.modification_time_ms});
  }
  return result;
}

}  // namespace freshet
