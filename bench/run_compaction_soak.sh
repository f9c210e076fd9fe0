#!/usr/bin/env bash
# The compaction soak (docs/benchmarks.md, "Compaction soak"): freshet_compaction_soak for
# SECONDS (default 300) on a plain table and on a deletion-vector table, one after the other,
# then the plot docs/img/compaction-soak.png. Builds nothing: build freshet_compaction_soak first
# (cmake --build build --target freshet_compaction_soak). matplotlib comes from PyPI into
# .venv-bench (created on first use).
#
# Usage: bench/run_compaction_soak.sh [seconds]
# Env:   FRESHET_SOAK_BIN   the binary (default build-bench/, then build/)
#        FRESHET_SOAK_ARGS  extra arguments for both runs (e.g. "--keys 500000")
#        FRESHET_SOAK_OUT   directory of the CSVs and the plot (default docs/img)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
out=${FRESHET_SOAK_OUT:-$root/docs/img}
bin=${FRESHET_SOAK_BIN:-}
if [ -z "$bin" ]; then
  for b in "$root"/build-bench/bench/freshet_compaction_soak "$root"/build/bench/freshet_compaction_soak; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "FAIL: freshet_compaction_soak not built" >&2; exit 1; }
mkdir -p "$out"
dir=$(mktemp -d /tmp/freshet-soak.XXXXXX)
trap 'rm -rf "$dir"' EXIT
echo "# load before: $(uptime)"
# shellcheck disable=SC2086
"$bin" --seconds "$seconds" --dir "$dir" --csv "$out/compaction-soak.csv" ${FRESHET_SOAK_ARGS:-}
# shellcheck disable=SC2086
"$bin" --seconds "$seconds" --dir "$dir" --dv --csv "$out/compaction-soak-dv.csv" \
  ${FRESHET_SOAK_ARGS:-}
echo "# load after: $(uptime)"
venv=$root/.venv-bench
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q matplotlib
fi
"$venv/bin/python" "$root/bench/plot_soak.py" "$out/compaction-soak.png" \
  "plain=$out/compaction-soak.csv" "deletion vectors=$out/compaction-soak-dv.csv"
echo "OK: $out/compaction-soak.png"
