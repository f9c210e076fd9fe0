#!/usr/bin/env bash
# Real-time benchmark (bench/realtime_bench.cc, docs/benchmarks.md "Real-time"): runs
# freshet_realtime_bench once with the given flags (default sizes: a few minutes on 2 cores) and
# prints the machine, the load before and after, every RESULT line and the human summary.
# Builds nothing: build freshet_realtime_bench first (docs/benchmarks.md).
#
# Usage: bench/run_realtime_bench.sh [freshet_realtime_bench flags...]
#        e.g. --flush-bytes 256m --read-rows 1000000 --only read,memory
# Env:   FRESHET_RTBENCH_BIN  freshet_realtime_bench (default: build-rtbench/, build-bench/, build/)
#        FRESHET_RTBENCH_DIR  scratch directory (default: a fresh mktemp -d, removed at the end)
#        FRESHET_RTBENCH_PLOTS  a directory: the run's raw samples (--samples) are kept there and
#                             drawn by bench/plot_realtime.py (matplotlib from PyPI into
#                             .venv-bench) as realtime-*.png
# Exit 1 if the bench fails (it checks row counts and checksums of everything it reads back).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${FRESHET_RTBENCH_BIN:-}
if [ -z "$bin" ]; then
  for b in "$root"/build-rtbench/bench/freshet_realtime_bench \
           "$root"/build-bench/bench/freshet_realtime_bench \
           "$root"/build/bench/freshet_realtime_bench; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "FAIL: freshet_realtime_bench not built" \
    "(cmake --build <dir> --target freshet_realtime_bench)" >&2
  exit 1
fi
if [ -n "${FRESHET_RTBENCH_DIR:-}" ]; then
  dir=$FRESHET_RTBENCH_DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d /tmp/freshet-rtbench.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi

# awk, not `sed | head`: under pipefail, head leaving early can kill sed with SIGPIPE.
model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(sed -n 's/^MemTotal:[[:space:]]*//p' /proc/meminfo)
echo "# freshet: $bin"
echo "# flags:   ${*:-(defaults)}"
echo "# machine: nproc=$(nproc), $model, MemTotal $mem, $(uname -sr)"
echo "# load before: $(uptime)"
start=$(date +%s)
out=$dir/out.txt
status=0
plots=${FRESHET_RTBENCH_PLOTS:-}
samples_args=()
if [ -n "$plots" ]; then
  mkdir -p "$plots/samples"
  samples_args=(--samples "$plots/samples")
fi
"$bin" --dir "$dir" "${samples_args[@]}" "$@" | tee "$out" || status=$?
echo
echo "# load after: $(uptime)"
echo "# wall: $(( $(date +%s) - start )) s"
if [ "$status" -ne 0 ] || ! grep -q '^RESULT ' "$out"; then
  echo "FAIL: freshet_realtime_bench exited with status $status" >&2
  exit 1
fi
if [ -n "$plots" ]; then
  venv=$root/.venv-bench
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q matplotlib
  fi
  "$venv/bin/python" "$root/bench/plot_realtime.py" "$plots/samples" "$plots"
fi
echo "OK: $(grep -c '^RESULT ' "$out") RESULT lines; every read-back matched its row count and checksum"
