// freshet compact: one compaction pass over a primary-key table (Table::Compact), committed as a
// COMPACT snapshot; prints what it did.
#include <cinttypes>
#include <cstdio>

#include "cli/cli.h"
#include "freshet/table.h"

namespace freshet::cli {

namespace {

// "k1=v1,k2=v2" -> {k1: v1, k2: v2}.
Result<std::map<std::string, std::string>> ParsePartitionSpec(const std::string& text) {
  std::map<std::string, std::string> spec;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string pair = text.substr(start, end - start);
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("--partition expects key=value[,key=value...], not '", text, "'");
    }
    spec[pair.substr(0, eq)] = pair.substr(eq + 1);
    start = end + 1;
  }
  return spec;
}

Status Compact(const Args& args) {
  if (args.positionals().size() != 1) {
    return Status::Invalid("expected one table path; usage: ", UsageOf("compact"));
  }
  CompactOptions options;
  options.full = args.Has("full");
  for (const std::string& text : args.GetAll("partition")) {
    FRESHET_ASSIGN_OR_RETURN(auto spec, ParsePartitionSpec(text));
    options.partitions.push_back(std::move(spec));
  }
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(args.positionals()[0]));
  FRESHET_ASSIGN_OR_RETURN(CompactResult result, table->Compact(options));
  if (!result.snapshot_id) {
    std::printf("nothing to compact\n");
    return Status::OK();
  }
  std::printf("snapshot %" PRId64 " (COMPACT): %" PRId64 " bucket(s), %" PRId64
              " file(s) replaced by %" PRId64 "%s\n",
              *result.snapshot_id, result.buckets, result.files_before, result.files_after,
              result.conflicts > 0 ? " (planned again after a concurrent commit)" : "");
  return Status::OK();
}

}  // namespace

int RunCompact(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {"full"}, {"partition"});
  if (!args.ok()) return Fail("compact", args.status());
  Status st = Compact(*args);
  return st.ok() ? 0 : Fail("compact", st);
}

}  // namespace freshet::cli
