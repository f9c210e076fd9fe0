// What the CLI tests share: running the `freshet` binary as a user would, and the table they
// usually start from (one BIGINT column, made with `freshet create`, rows added with
// `freshet write`).
#pragma once

#include <string>
#include <vector>

#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet::cli_testing {

using freshet::testing::ProcessResult;
using freshet::testing::TempDir;

// {"fields": [{"name": "id", "type": "BIGINT"}]}
inline constexpr const char* kIdSchema =
    R"json({"fields": [{"name": "id", "type": "BIGINT"}]})json";

// Runs `freshet <args...>` with `stdin_data` on its standard input.
inline ProcessResult RunCli(std::vector<std::string> args, const std::string& stdin_data = "") {
  args.insert(args.begin(), FRESHET_CLI_PATH);
  return freshet::testing::RunProcess(args, stdin_data);
}

// `freshet create <table> --schema <schema>`.
inline ProcessResult CreateTable(const std::string& table, const std::string& schema = kIdSchema) {
  return RunCli({"create", table, "--schema", schema});
}

// `freshet write <table> --input -` of JSON lines, one commit per line: a table with as many
// snapshots as `jsonl` has lines.
inline ProcessResult WriteOneCommitPerRow(const std::string& table, const std::string& jsonl) {
  return RunCli({"write", table, "--input", "-", "--batch-rows", "1", "--commit-every", "1"},
                jsonl);
}

// {"id": first}\n ... {"id": last}\n
inline std::string IdRows(int first, int last) {
  std::string rows;
  for (int i = first; i <= last; ++i) rows += "{\"id\": " + std::to_string(i) + "}\n";
  return rows;
}

}  // namespace freshet::cli_testing
