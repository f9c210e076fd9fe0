// freshet: create, ingest, inspect and query Apache Paimon tables.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "freshet/version.h"

namespace {

void PrintUsage(FILE* out) {
  std::fprintf(out, "freshet %s: native Apache Paimon tables, queryable as they are written\n\n",
               freshet::Version());
  std::fprintf(out, "usage: freshet <command> [arguments]\n\ncommands:\n");
  for (const auto& command : freshet::cli::Commands()) {
    std::fprintf(out, "  %-10s %s\n             %s\n", command.name, command.summary,
                 command.usage);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0) {
    PrintUsage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("freshet %s\n", freshet::Version());
    return 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& command : freshet::cli::Commands()) {
    if (std::strcmp(argv[1], command.name) == 0) return command.run(args);
  }
  std::fprintf(stderr, "freshet: unknown command '%s' (see freshet --help)\n", argv[1]);
  return 2;
}
