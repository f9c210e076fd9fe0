#!/usr/bin/env bash
# Configures and builds freshet into build/ (incremental). Extra arguments go to CMake's configure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${FRESHET_BUILD_DIR:-build}
werror=OFF; [ "${CI:-}" = "true" ] && werror=ON
if [ ! -f "$build_dir/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFRESHET_WERROR=$werror "$@" >/dev/null
fi
# FRESHET_TARGETS: build only these targets (space separated), e.g. the CLI for the demo.
# shellcheck disable=SC2086
cmake --build "$build_dir" --parallel "${FRESHET_JOBS:-2}" ${FRESHET_TARGETS:+--target $FRESHET_TARGETS}
