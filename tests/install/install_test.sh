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
cmake -S "$source_dir/downstream" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/downstream"
"$work/prefix/bin/freshet" --version
echo "install_test: ok"
