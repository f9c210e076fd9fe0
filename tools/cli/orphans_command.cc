// freshet remove-orphans: removes (or, with --dry-run, lists) the files of a table that no
// snapshot, tag or changelog references and that are older than --older-than (Table::
// RemoveOrphanFiles); prints each path relative to the table and a summary line.
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

#include "cli/cli.h"
#include "freshet/table.h"

namespace freshet::cli {

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "90s", "30 min", "1 h", "2 days": a number and a unit (ms, s, min, h, d and their long
// forms), as Paimon's duration options are written. nullopt when `text` is not one.
std::optional<int64_t> ParseDurationMillis(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 15) return std::nullopt;
  int64_t n = std::stoll(text.substr(0, i));
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  struct Unit {
    const char* names[4];
    int64_t millis;
  };
  static const Unit kUnits[] = {
      {{"ms", "milli", "millis", "milliseconds"}, 1}, {{"s", "sec", "second", "seconds"}, 1000},
      {{"min", "m", "minute", "minutes"}, 60 * 1000}, {{"h", "hour", "hours", "hr"}, 3600 * 1000},
      {{"d", "day", "days", ""}, 24LL * 3600 * 1000},
  };
  for (const Unit& u : kUnits) {
    for (const char* name : u.names) {
      if (*name != '\0' && unit == name) return n * u.millis;
    }
  }
  return std::nullopt;
}

// "2026-12-01 10:00:00[.123]", "2026-12-01T10:00:00" or "2026-12-01", in the local time zone as
// Java's procedure reads its olderThan argument.
std::optional<int64_t> ParseLocalTimestampMillis(const std::string& text) {
  std::tm tm{};
  int millis = 0;
  char sep = ' ';
  int consumed = 0;
  int fields =
      std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &consumed);
  if (fields != 3) return std::nullopt;
  std::string rest = text.substr(static_cast<size_t>(consumed));
  if (!rest.empty()) {
    int used = 0;
    if (std::sscanf(rest.c_str(), "%c%2d:%2d:%2d%n", &sep, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
                    &used) != 4 ||
        (sep != ' ' && sep != 'T')) {
      return std::nullopt;
    }
    rest = rest.substr(static_cast<size_t>(used));
    if (!rest.empty()) {
      if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) return std::nullopt;
      std::string digits = rest.substr(1);
      for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      }
      digits.resize(3, '0');
      millis = std::stoi(digits.substr(0, 3));
    }
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  std::time_t seconds = std::mktime(&tm);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(seconds) * 1000 + millis;
}

Status RemoveOrphans(const Args& args) {
  if (args.positionals().size() != 1) {
    return Status::Invalid("expected one table path; usage: ", UsageOf("remove-orphans"));
  }
  RemoveOrphanFilesOptions options;
  options.dry_run = args.Has("dry-run");
  if (auto older_than = args.Get("older-than")) {
    if (auto duration = ParseDurationMillis(*older_than)) {
      options.older_than_millis = NowMillis() - *duration;
    } else if (auto timestamp = ParseLocalTimestampMillis(*older_than)) {
      options.older_than_millis = *timestamp;
    } else {
      return Status::Invalid("--older-than expects a duration (e.g. 1h, 30 min, 2 d) or a local ",
                             "timestamp (yyyy-MM-dd HH:mm:ss), not '", *older_than, "'");
    }
  }
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(args.positionals()[0]));
  FRESHET_ASSIGN_OR_RETURN(OrphanFilesResult result, table->RemoveOrphanFiles(options));
  for (const auto& f : result.files) std::printf("%s\n", f.path.c_str());
  std::printf("%s %zu orphan file(s), %" PRId64 " bytes\n",
              options.dry_run ? "would remove" : "removed", result.files.size(),
              result.total_bytes);
  return Status::OK();
}

}  // namespace

int RunRemoveOrphans(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {"dry-run"}, {"older-than"});
  if (!args.ok()) return Fail("remove-orphans", args.status());
  Status st = RemoveOrphans(*args);
  return st.ok() ? 0 : Fail("remove-orphans", st);
}

}  // namespace freshet::cli
