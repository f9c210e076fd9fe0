#include "cli/cli.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>

namespace freshet::cli {

Result<Args> Args::Parse(const std::vector<std::string>& argv,
                         const std::vector<std::string>& flags,
                         const std::vector<std::string>& options) {
  Args args;
  auto contains = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--" || arg == "-") {
      args.positionals_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (contains(flags, name)) {
      if (inline_value) return Status::Invalid("option --", name, " takes no value");
      args.values_.emplace(name, "");
    } else if (contains(options, name)) {
      if (!inline_value && i + 1 >= argv.size()) {
        return Status::Invalid("option --", name, " needs a value");
      }
      args.values_.emplace(name, inline_value ? *inline_value : argv[++i]);
    } else {
      return Status::Invalid("unknown option --", name);
    }
  }
  return args;
}

std::optional<std::string> Args::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  std::vector<std::string> out;
  auto [begin, end] = values_.equal_range(name);
  for (auto it = begin; it != end; ++it) out.push_back(it->second);
  return out;
}

Result<int64_t> Args::GetInt(const std::string& name, int64_t default_value) const {
  auto value = Get(name);
  if (!value) return default_value;
  int64_t out = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), out);
  if (ec != std::errc() || end != value->data() + value->size()) {
    return Status::Invalid("option --", name, " must be an integer, not '", *value, "'");
  }
  return out;
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Result<int64_t> SchemaIdOfTag(const Table& table, const std::string& name) {
  FRESHET_ASSIGN_OR_RETURN(auto tags, table.Tags());
  for (const TagInfo& tag : tags) {
    if (tag.name == name) return tag.snapshot.schema_id;
  }
  return Status::NotFound("table '", table.path(), "' has no tag '", name, "'");
}

const char* UsageOf(std::string_view command) {
  for (const auto& c : Commands()) {
    if (c.name == command) return c.usage;
  }
  return "";
}

int Fail(const char* command, const Status& status) {
  std::fprintf(stderr, "freshet %s: %s\n", command, status.ToString().c_str());
  return 1;
}

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"demo", "stream events into a real-time table in a local warehouse: queryable before commit",
       "freshet demo [--warehouse DIR] [--seconds N]", RunDemo},
      {"create", "create a table",
       "freshet create <table-path> --schema <file.json|inline> [--partition a,b] "
       "[--primary-key k1,k2 --option bucket=N] [--option k=v ...] [--if-not-exists]",
       RunCreate},
      {"write",
       "write JSON-lines or CSV rows (one commit, or every N rows); a _ROW_KIND key or column "
       "(+I default, -U, +U, -D) upserts and deletes rows of primary-key tables",
       "freshet write <table-path> --input <file.jsonl|file.csv|-> [--input-format jsonl|csv] "
       "[--batch-rows N] [--commit-every N] [--overwrite]",
       RunWrite},
      {"read",
       "print the rows of a snapshot, what a streaming read emits for one (--delta), the changes "
       "of a range (--incremental-between), or rows as snapshots land (--follow)",
       "freshet read <table-path> [--snapshot N | --tag NAME] [--select a,b] [--where EXPR] "
       "[--limit N] "
       "[--format jsonl|csv|table] [--with-row-kind] [--delta N | --incremental-between A,B | "
       "--incremental-between-timestamp T1,T2 | "
       "--follow [--scan-mode MODE] [--consumer-id ID]]",
       RunRead},
      {"get",
       "look rows of a primary-key table up by key (rows in memory count with realtime.enabled): "
       "one JSON line per key, null when the key has no row",
       "freshet get <table-path> --key '{\"k\": 42}' [--key ...] [--keys-file <file.jsonl|->] "
       "[--select a,b]",
       RunGet},
      {"compact",
       "compact a primary-key table: what its compaction strategy picks, or --full every file "
       "into the highest level; commits a COMPACT snapshot",
       "freshet compact <table-path> [--full] [--partition k=v[,k=v...] ...]", RunCompact},
      {"remove-orphans",
       "remove the files no snapshot, tag or changelog references, older than --older-than "
       "(default 1 day); --dry-run lists them",
       "freshet remove-orphans <table-path> [--older-than DURATION|TIMESTAMP] [--dry-run]",
       RunRemoveOrphans},
      {"tag",
       "create, delete or list tags: names for snapshots that stay readable after they expire "
       "(read --tag NAME)",
       "freshet tag create <table-path> <name> [--snapshot N] [--time-retained DURATION] | "
       "freshet tag delete <table-path> <name> | freshet tag list <table-path> [--json]",
       RunTag},
      {"inspect",
       "show a table's schema, options, snapshot history and the latest snapshot's data files",
       "freshet inspect <table-path> [--json] [--snapshot N | --all-files]", RunInspect},
  };
  return commands;
}

}  // namespace freshet::cli
