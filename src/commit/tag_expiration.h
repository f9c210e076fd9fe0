// Tag deletion and expiration with Java Paimon's file cleanup (TagManager.deleteTag with
// TagDeletion, TagTimeExpire): a tag whose snapshot expired from snapshot/ takes the files only
// it held with it. docs/tags.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/schema/table_schema.h"

namespace freshet::commit {

// Deletes tag `name` (NotFound when there is none). When its snapshot has expired, the files only
// that snapshot referenced go too, unless a snapshot or another tag still needs them.
Status DeleteTag(const std::shared_ptr<io::FileIO>& file_io, const std::string& table_path,
                 const meta::TableSchema& schema, const std::string& name);

// Java's TagTimeExpire, run after each commit unless `tag.time-expire-enabled` is false: deletes
// (as DeleteTag) every tag created with a retention time that has passed at `now_millis`.
// Returns the names of the tags deleted.
Result<std::vector<std::string>> ExpireTags(const std::shared_ptr<io::FileIO>& file_io,
                                            const std::string& table_path,
                                            const meta::TableSchema& schema, int64_t now_millis);

}  // namespace freshet::commit
