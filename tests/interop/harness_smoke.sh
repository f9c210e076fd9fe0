#!/usr/bin/env bash
# ctest wrapper for the reference harnesses' own smoke tests: fails (never skips) with a clear
# message when scripts/setup.sh has not built the harness.
# Usage: harness_smoke.sh java|python <repo root>
set -euo pipefail
which=$1
root=$2
case "$which" in
  java)
    jar=${FRESHET_INTEROP_JAR:-$root/interop/java/target/freshet-interop-java.jar}
    if [ ! -f "$jar" ]; then
      echo "FAIL: Java Paimon harness jar $jar is missing - run scripts/setup.sh" >&2
      exit 1
    fi
    exec bash "$root/interop/java/smoke_test.sh"
    ;;
  python)
    py=${PYPAIMON_PYTHON:-$root/.venv-pypaimon/bin/python}
    if [ ! -x "$py" ]; then
      echo "FAIL: pypaimon venv interpreter $py is missing - run scripts/setup.sh" >&2
      exit 1
    fi
    exec bash "$root/interop/python/smoke_test.sh"
    ;;
  *)
    echo "usage: harness_smoke.sh java|python <repo root>" >&2
    exit 2
    ;;
esac
