#!/usr/bin/env bash
# Builds the fuzz targets (tests/fuzz, docs/fuzzing.md) with clang's libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer into build-fuzz/, then fuzzes.
#
#   scripts/fuzz.sh                         # build only; lists the targets
#   scripts/fuzz.sh TARGET [LIBFUZZER_FLAGS...]
#       fuzzes TARGET (e.g. predicate) starting from tests/fuzz/corpus/TARGET; new inputs go to
#       build-fuzz/corpus/TARGET (the checked-in corpus is not touched). Default flags:
#       -max_total_time=600. Crashes are written to build-fuzz/crashes/TARGET/.
#   scripts/fuzz.sh --merge TARGET          # minimizes build-fuzz/corpus/TARGET into the
#                                           # checked-in corpus (then review and commit it)
#   scripts/fuzz.sh --campaign TARGET...    # each TARGET until 10^7 executions or one hour
#       (FRESHET_FUZZ_RUNS, FRESHET_FUZZ_SECONDS), restarting after a crash with what is left;
#       one summary line per target in build-fuzz/campaign.txt (docs/fuzzing.md)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${FRESHET_FUZZ_BUILD_DIR:-build-fuzz}

# Debian's clang and its runtime (libFuzzer, sanitizers); installed on first use.
if ! command -v clang++-14 >/dev/null || [ ! -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd=sudo
  $sudo_cmd apt-get install -y clang-14 libclang-rt-14-dev >/dev/null
fi

if [ ! -f "$build_dir/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFRESHET_SANITIZE=fuzzer -DFRESHET_BUILD_BENCHMARKS=OFF >/dev/null
fi
targets=$(cd tests/fuzz && ls ./*_fuzzer.cc | sed 's|^\./||; s|\.cc$||')
# shellcheck disable=SC2086
cmake --build "$build_dir" --parallel "${FRESHET_JOBS:-2}" --target $targets

# The wheel's jemalloc/mimalloc pools are not instrumented: use malloc so ASan sees every buffer.
export ARROW_DEFAULT_MEMORY_POOL=system
if [ $# -eq 0 ]; then
  echo "fuzz targets: $(echo "$targets" | sed 's/_fuzzer//g' | tr '\n' ' ')"
  exit 0
fi
if [ "$1" = "--merge" ]; then
  target=$2
  "$build_dir/tests/fuzz/${target}_fuzzer" -merge=1 "tests/fuzz/corpus/$target" "$build_dir/corpus/$target"
  exit 0
fi
if [ "$1" = "--campaign" ]; then
  shift
  for target in "$@"; do
    runs_left=${FRESHET_FUZZ_RUNS:-10000000}; seconds_left=${FRESHET_FUZZ_SECONDS:-3600}
    total_runs=0; total_seconds=0; crashes=0; log="$build_dir/logs/$target.log"
    mkdir -p "$build_dir/logs" "$build_dir/corpus/$target" "$build_dir/crashes/$target"
    : > "$log"
    while [ "$runs_left" -gt 0 ] && [ "$seconds_left" -gt 0 ]; do
      start=$(date +%s)
      set +e
      "$build_dir/tests/fuzz/${target}_fuzzer" -artifact_prefix="$build_dir/crashes/$target/" \
        -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 -runs="$runs_left" \
        -max_total_time="$seconds_left" "$build_dir/corpus/$target" "tests/fuzz/corpus/$target" \
        >> "$log" 2>&1
      status=$?
      set -e
      elapsed=$(( $(date +%s) - start ))
      runs=$(grep -a 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')
      runs=${runs:-0}
      total_runs=$((total_runs + runs)); total_seconds=$((total_seconds + elapsed))
      runs_left=$((runs_left - runs)); seconds_left=$((seconds_left - elapsed))
      [ $status -eq 0 ] && break
      crashes=$((crashes + 1))
      [ "$runs" -eq 0 ] && break  # a crash at start-up: nothing more to learn by restarting
    done
    cov=$(grep -a 'cov: ' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/')
    corpus=$(ls "$build_dir/corpus/$target" | wc -l)
    line="$target: $total_runs executions in $total_seconds s; coverage $cov; corpus $corpus new inputs; crashes $crashes ($(date -u +%FT%TZ))"
    echo "$line" | tee -a "$build_dir/campaign.txt"
  done
  exit 0
fi
target=$1; shift
mkdir -p "$build_dir/corpus/$target" "$build_dir/crashes/$target"
flags=("$@"); [ ${#flags[@]} -eq 0 ] && flags=(-max_total_time=600)
exec "$build_dir/tests/fuzz/${target}_fuzzer" -artifact_prefix="$build_dir/crashes/$target/" \
  -rss_limit_mb=4096 -timeout=30 "${flags[@]}" "$build_dir/corpus/$target" "tests/fuzz/corpus/$target"
