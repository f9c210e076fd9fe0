#include <cstdio>
#include <cstring>

#include "freshet/version.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("freshet %s\n", freshet::Version());
    return 0;
  }
  std::fprintf(stderr, "usage: freshet <command> ...\n");
  return 2;
}
