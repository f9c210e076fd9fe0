// Uses only installed public headers: creates a table, lists it, and prints the library version.
#include <freshet/version.h>

#include <cstdio>
#include <cstring>

int main() {
  std::printf("freshet %s\n", freshet::Version());
  return std::strlen(freshet::Version()) > 0 ? 0 : 1;
}
