// freshet tag: creates, deletes and lists the tags of a table (Table::CreateTag, DeleteTag,
// Tags; docs/tags.md).
#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "freshet/table.h"

namespace freshet::cli {

namespace {

Status ExpectPositionals(const Args& args, size_t count) {
  if (args.positionals().size() != count) {
    return Status::Invalid("expected ", count == 2 ? "a table path" : "a table path and a tag name",
                           "; usage: ", UsageOf("tag"));
  }
  return Status::OK();
}

Status CreateTag(const Args& args) {
  FRESHET_RETURN_NOT_OK(ExpectPositionals(args, 3));
  std::optional<int64_t> snapshot_id;
  if (args.Has("snapshot")) {
    FRESHET_ASSIGN_OR_RETURN(snapshot_id, args.GetInt("snapshot", 0));
  }
  const std::string& name = args.positionals()[2];
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(args.positionals()[1]));
  FRESHET_RETURN_NOT_OK(
      table->CreateTag(name, snapshot_id, args.Get("time-retained").value_or("")));
  FRESHET_ASSIGN_OR_RETURN(auto tags, table->Tags());
  for (const TagInfo& tag : tags) {
    if (tag.name == name) {
      std::printf("tag '%s' names snapshot %" PRId64 "\n", name.c_str(), tag.snapshot.id);
    }
  }
  return Status::OK();
}

Status DeleteTag(const Args& args) {
  FRESHET_RETURN_NOT_OK(ExpectPositionals(args, 3));
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(args.positionals()[1]));
  FRESHET_RETURN_NOT_OK(table->DeleteTag(args.positionals()[2]));
  std::printf("deleted tag '%s'\n", args.positionals()[2].c_str());
  return Status::OK();
}

Status ListTags(const Args& args) {
  FRESHET_RETURN_NOT_OK(ExpectPositionals(args, 2));
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(args.positionals()[1]));
  FRESHET_ASSIGN_OR_RETURN(auto tags, table->Tags());
  if (args.Has("json")) {
    auto out = nlohmann::ordered_json::array();
    for (const TagInfo& tag : tags) {
      nlohmann::ordered_json row{{"name", tag.name},
                                 {"snapshotId", tag.snapshot.id},
                                 {"commitKind", tag.snapshot.commit_kind},
                                 {"timeMillis", tag.snapshot.time_millis},
                                 {"totalRecordCount", tag.snapshot.total_record_count}};
      if (tag.create_time) row["tagCreateTime"] = *tag.create_time;
      if (tag.time_retained) row["tagTimeRetained"] = *tag.time_retained;
      out.push_back(std::move(row));
    }
    // Invalid UTF-8 in a name is replaced, so the output always parses.
    std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return Status::OK();
  }
  for (const TagInfo& tag : tags) {
    std::printf("%s\tsnapshot %" PRId64 "\t%s\t%" PRId64 " rows%s%s\n", tag.name.c_str(),
                tag.snapshot.id, tag.snapshot.commit_kind.c_str(), tag.snapshot.total_record_count,
                tag.time_retained ? "\tretained " : "",
                tag.time_retained ? (*tag.time_retained + " s").c_str() : "");
  }
  return Status::OK();
}

Status Tag(const Args& args) {
  const std::string action = args.positionals().empty() ? "" : args.positionals()[0];
  if (action == "create") return CreateTag(args);
  if (action == "delete") return DeleteTag(args);
  if (action == "list") return ListTags(args);
  return Status::Invalid("expected create, delete or list; usage: ", UsageOf("tag"));
}

}  // namespace

int RunTag(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {"json"}, {"snapshot", "time-retained"});
  if (!args.ok()) return Fail("tag", args.status());
  Status st = Tag(*args);
  return st.ok() ? 0 : Fail("tag", st);
}

}  // namespace freshet::cli
