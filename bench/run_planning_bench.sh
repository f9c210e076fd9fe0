#!/usr/bin/env bash
# Scan-planning benchmark: freshet (bench/planning_bench.cc) vs Java Paimon (interop/java
# `bench-plan`) planning the same queries of the same table, one engine after the other on this
# machine (docs/benchmarks.md, "Planning at 10^6 files"). Builds nothing: run scripts/setup.sh
# (Java harness jar) and build freshet_planning_bench first.
#
#   1. freshet_planning_bench create: a table of P partitions x B buckets, C commits of one file
#      per partition-bucket (metadata only: P*B*C live files; default 10^6 in 10^4 buckets);
#   2. per query kind (point, partition, full): a fresh freshet process, then a fresh JVM, each
#      planning the query cold (first plan of the process), warm (the same query again) and new
#      (other literals), every plan checked against the files it must keep.
#
# Usage: bench/run_planning_bench.sh [partitions buckets commits]   (default 1000 10 100)
# Env:   FRESHET_PLAN_BENCH_BIN  freshet_planning_bench (default: build-bench/, then build/)
#        FRESHET_INTEROP_JAR     harness jar (default interop/java/target/freshet-interop-java.jar)
#        FRESHET_PLAN_QUERIES    default "point partition full"
#        FRESHET_PLAN_RUNS       warm and new plans per query kind (default 200; full: a tenth)
#        FRESHET_PLAN_ENGINES    default "freshet java"
#        FRESHET_BENCH_DIR       scratch directory (default: a fresh mktemp -d, removed at the end)
#        JAVA_OPTS               extra JVM options
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
partitions=${1:-1000}
buckets=${2:-10}
commits=${3:-100}
queries=${FRESHET_PLAN_QUERIES:-point partition full}
runs=${FRESHET_PLAN_RUNS:-200}
engines=${FRESHET_PLAN_ENGINES:-freshet java}
bin=${FRESHET_PLAN_BENCH_BIN:-}
if [ -z "$bin" ]; then
  for b in "$root"/build-bench/bench/freshet_planning_bench "$root"/build/bench/freshet_planning_bench; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
jar=${FRESHET_INTEROP_JAR:-$root/interop/java/target/freshet-interop-java.jar}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "FAIL: freshet_planning_bench not built (cmake --build <dir> --target freshet_planning_bench)" >&2
  exit 1
fi
if [[ " $engines " == *" java "* ]] && [ ! -f "$jar" ]; then
  echo "FAIL: Java Paimon harness jar $jar is missing - run scripts/setup.sh" >&2
  exit 1
fi
if [ -n "${FRESHET_BENCH_DIR:-}" ]; then
  dir=$FRESHET_BENCH_DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d /tmp/freshet-plan-bench.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
shape=(--partitions "$partitions" --buckets "$buckets" --commits "$commits")

echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" create --dir "$dir" "${shape[@]}"
for q in $queries; do
  n=$runs
  [ "$q" = full ] && n=$(( runs / 10 > 0 ? runs / 10 : 1 ))
  for engine in $engines; do
    case $engine in
      freshet) "$bin" query --dir "$dir" --query "$q" --runs "$n" "${shape[@]}" ;;
      java) java ${JAVA_OPTS:-} -jar "$jar" bench-plan --table "$dir/plan" --query "$q" --runs "$n" \
              "${shape[@]}" ;;
      *) echo "FAIL: unknown engine $engine" >&2; exit 1 ;;
    esac
  done
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
