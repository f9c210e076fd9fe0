// The freshet command-line tool: one Command per verb, a small argument parser, and the output
// conventions (errors as one line on stderr, non-zero exit).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "freshet/table.h"

namespace freshet::cli {

// Parsed arguments: positionals in order, `--name value` options, and `--flag` switches.
class Args {
 public:
  // `flags` lists the options that take no value.
  static Result<Args> Parse(const std::vector<std::string>& argv,
                            const std::vector<std::string>& flags,
                            const std::vector<std::string>& options);

  const std::vector<std::string>& positionals() const { return positionals_; }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
  Result<int64_t> GetInt(const std::string& name, int64_t default_value) const;

 private:
  std::vector<std::string> positionals_;
  std::multimap<std::string, std::string> values_;
};

struct Command {
  const char* name;
  const char* summary;
  const char* usage;
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& Commands();
// The usage line of `command`.
const char* UsageOf(std::string_view command);

// The schema id of a tag's snapshot (which may have expired from snapshot/).
Result<int64_t> SchemaIdOfTag(const Table& table, const std::string& name);

// "a,b,,c" -> {"a", "b", "c"}: the items of a comma-separated option value, empty ones dropped.
std::vector<std::string> SplitComma(const std::string& text);

// Prints "freshet <command>: <message>" on stderr and returns the exit code for errors.
int Fail(const char* command, const Status& status);

int RunInspect(const std::vector<std::string>& args);
int RunCreate(const std::vector<std::string>& args);
int RunWrite(const std::vector<std::string>& args);
int RunRead(const std::vector<std::string>& args);
int RunDemo(const std::vector<std::string>& args);
int RunCompact(const std::vector<std::string>& args);
int RunGet(const std::vector<std::string>& args);
int RunRemoveOrphans(const std::vector<std::string>& args);
int RunTag(const std::vector<std::string>& args);

}  // namespace freshet::cli
