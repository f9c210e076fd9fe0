#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every ctest test (unit, golden,
# interop against Java Paimon and pypaimon, install + find_package) but the `stress` ones.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/setup.sh
scripts/build.sh
cd "${FRESHET_BUILD_DIR:-build}"
# Stress tests (label `stress`: gigabytes, tens of minutes) run only when asked for, with
# `ctest -L stress` in the build directory.
ctest --output-on-failure --parallel "${FRESHET_JOBS:-2}" --timeout 900 --label-exclude stress "$@"
