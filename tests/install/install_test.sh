#!/usr/bin/env bash
# Installs freshet into a temporary prefix, builds a downstream project against it with
# find_package(freshet), and runs it.
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/freshet/status.h"
test -x "$work/prefix/bin/freshet"
# A sanitizer build's library needs its runtime first in the program: build the downstream
# project with the same sanitizer flags.
sanitize=$(sed -n 's/^FRESHET_SANITIZE:STRING=//p' "$build_dir/CMakeCache.txt")
flags=""
case "$sanitize" in
  address) flags="-fsanitize=address,undefined" ;;
  thread) flags="-fsanitize=thread" ;;
esac
cmake -S "$source_dir/downstream" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/downstream"
"$work/prefix/bin/freshet" --version
echo "install_test: ok"
