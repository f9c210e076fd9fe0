#!/usr/bin/env bash
# Primary-key benchmark: freshet (bench/primary_key_bench.cc) vs Java Paimon (interop/java
# `bench-pk`), the same generated event streams into 4-bucket deduplicate tables, one after the
# other on this machine (docs/benchmarks.md, "Primary-key tables"). Builds nothing: run
# scripts/setup.sh (Java harness jar) and build freshet_primary_key_bench first.
#
# Per format and workload (upsert: N events with 20 % updates and 2 % deletes, a commit per 1M
# events; mor: N upserts in 8 commits = 8 overlapping level-0 runs per bucket):
#   1. freshet writes its table (RESULT line), then one JVM writes FRESHET_BENCH_JAVA_RUNS tables
#      (first run = cold JIT, then warm runs);
#   2. freshet reads its own table, then Java's first table (a process each, READ lines), each
#      FRESHET_BENCH_JAVA_READ_RUNS times;
#   3. one JVM reads Java's first table and then freshet's, each FRESHET_BENCH_JAVA_READ_RUNS times;
#      the JVM's first read pays its warm-up (JIT) and freshet's first read in a process its
#      memory, so the summary compares first reads and the best later ("warm") reads of each table.
# Every table must read back with the row count and checksum the writers computed from the event
# stream (the merged rows: per key its last event, unless a delete), else exit 1.
#
# Usage: bench/run_primary_key_bench.sh [rows]        (default 10,000,000)
# Env:   FRESHET_BENCH_BIN    freshet_primary_key_bench (default: build-bench/, then build/)
#        FRESHET_INTEROP_JAR  harness jar (default interop/java/target/freshet-interop-java.jar)
#        FRESHET_BENCH_FORMATS    default "parquet orc"
#        FRESHET_BENCH_WORKLOADS  default "upsert mor"
#        FRESHET_BENCH_COMMIT_ROWS  upsert events per commit (default 1,000,000)
#        FRESHET_BENCH_JAVA_RUNS  Java write runs in one JVM (default 2: first + warm)
#        FRESHET_BENCH_JAVA_READ_RUNS  Java reads of each table in one JVM (default 3)
#        FRESHET_BENCH_BUCKETS    buckets of the tables (default 4)
#        FRESHET_BENCH_COMPACTION=1  writers compact in the background (no write-only; both
#                                 engines' last commit waits for the running compaction)
#        FRESHET_BENCH_FULL_COMPACT=1  after each write, time one full compaction of every bucket
#                                 (COMPACT lines; the reads below then read the compacted tables)
#        FRESHET_BENCH_DIR    scratch directory (default: a fresh mktemp -d, removed at the end)
#        JAVA_OPTS            extra JVM options
# Write rows/s = events / (Write + Commit wall seconds; generating the rows is excluded).
# "cores" = process CPU seconds (all threads; the generator's CPU subtracted for writes) / wall.
# "rows/CPU-s" = rows / those CPU seconds: the per-core throughput.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-10000000}
formats=${FRESHET_BENCH_FORMATS:-parquet orc}
workloads=${FRESHET_BENCH_WORKLOADS:-upsert mor}
commit_rows=${FRESHET_BENCH_COMMIT_ROWS:-1000000}
java_runs=${FRESHET_BENCH_JAVA_RUNS:-2}
java_read_runs=${FRESHET_BENCH_JAVA_READ_RUNS:-3}
bin=${FRESHET_BENCH_BIN:-}
if [ -z "$bin" ]; then
  for b in "$root"/build-bench/bench/freshet_primary_key_bench \
           "$root"/build/bench/freshet_primary_key_bench; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
jar=${FRESHET_INTEROP_JAR:-$root/interop/java/target/freshet-interop-java.jar}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "FAIL: freshet_primary_key_bench not built" \
    "(cmake --build <dir> --target freshet_primary_key_bench)" >&2
  exit 1
fi
if [ ! -f "$jar" ]; then
  echo "FAIL: Java Paimon harness jar $jar is missing - run scripts/setup.sh" >&2
  exit 1
fi
if [ -n "${FRESHET_BENCH_DIR:-}" ]; then
  dir=$FRESHET_BENCH_DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d /tmp/freshet-pk-bench.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
java=(java ${JAVA_OPTS:-} -jar "$jar")
results=$dir/results.txt
compactions=$dir/compactions.txt
: >"$results"
: >"$compactions"
extra=(--buckets "${FRESHET_BENCH_BUCKETS:-4}")
[ "${FRESHET_BENCH_COMPACTION:-0}" = 1 ] && extra+=(--compaction)
[ "${FRESHET_BENCH_FULL_COMPACT:-0}" = 1 ] && extra+=(--full-compact)

field() {  # field <key> <line>
  sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

echo "# rows=$rows formats=($formats) workloads=($workloads) commit_rows=$commit_rows" \
  "java_runs=$java_runs java_read_runs=$java_read_runs options=(${extra[*]})"
echo "# freshet: $bin"
echo "# java:    $jar (Paimon $("${java[@]}" version)), $(java -version 2>&1 | head -1)"
echo "# load before: $(uptime)"
for fmt in $formats; do
  for wl in $workloads; do
    fo=$("$bin" --workload "$wl" --rows "$rows" --format "$fmt" --dir "$dir" \
        --commit-rows "$commit_rows" "${extra[@]}" --keep | grep -E '^(RESULT|COMPACT)')
    jo=$("${java[@]}" bench-pk --workload "$wl" --rows "$rows" --format "$fmt" --dir "$dir" \
        --commit-rows "$commit_rows" --runs "$java_runs" "${extra[@]}" --keep |
         grep -E '^(RESULT|COMPACT)')
    f=$(grep '^RESULT' <<<"$fo")
    j=$(grep '^RESULT' <<<"$jo")
    echo "$f"$'\n'"$j" | tee -a "$results"
    { grep '^COMPACT' <<<"$fo"$'\n'"$jo" || true; } | tee -a "$compactions"
    sum=$(field checksum "$f")
    merged=$(field merged_rows "$f")
    while read -r line; do
      [ "$(field checksum "$line")" = "$sum" ] || fail "$fmt $wl: Java's expected checksum differs"
      [ "$(field merged_rows "$line")" = "$merged" ] || fail "$fmt $wl: Java's merged row count"
    done <<<"$j"
    ft=$(field table "$f")
    jt=$(field table "$(head -1 <<<"$j")")
    # freshet reads each table as often as the JVM does, in a process per table (its first
    # read allocates the memory the later ones reuse).
    fr=$(for t in "$ft" "$jt"; do
           "$bin" --read "$(for ((r = 0; r < java_read_runs; r++)); do printf '%s,' "$t"; done)"
         done | grep '^READ' | sed "s/\$/ workload=$wl format=$fmt/")
    echo "$fr" | tee -a "$results"
    jr=$("${java[@]}" bench-pk --read "$jt,$ft" --runs "$java_read_runs" | grep '^READ' |
         sed "s/\$/ workload=$wl format=$fmt/")
    echo "$jr" | tee -a "$results"
    while read -r line; do
      [ "$(field checksum "$line")" = "$sum" ] || fail "$fmt $wl: checksum of a read differs: $line"
      [ "$(field rows "$line")" = "$merged" ] || fail "$fmt $wl: row count of a read differs: $line"
    done <<<"$fr"$'\n'"$jr"
    rm -rf "$dir/bench.db"
  done
done
echo "# load after: $(uptime)"
echo
awk '
  function get(k,   i, kv) {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
    return ""
  }
  {
    n = NR; kind[n] = $1; eng[n] = get("engine"); fmt[n] = get("format"); wl[n] = get("workload")
    run[n] = get("run"); rss[n] = get("peak_rss_mib"); tbl[n] = get("table")
    if ($1 == "RESULT") {
      rate[n] = get("write_rows_per_s"); cores[n] = get("write_cores")
      pc[n] = get("write_rows_per_cpu_s")
      if (eng[n] == "freshet") { fw[fmt[n] wl[n]] = rate[n]; fwc[fmt[n] wl[n]] = pc[n] }
    } else {
      rate[n] = get("read_rows_per_s"); cores[n] = get("read_cores")
      pc[n] = get("read_rows_per_cpu_s")
      if (eng[n] == "freshet" && run[n] == 1) { fr[tbl[n]] = rate[n]; frc[tbl[n]] = pc[n] }
      owner[n] = tbl[n] ~ /\/freshet_[^\/]*$/ ? "freshet" : "java"
    }
  }
  END {
    printf "%-6s %-8s %-8s %-8s %-13s %-10s %12s %8s %6s %12s %12s %8s\n", "phase", "engine",
      "format", "workload", "table", "run", "rows/s", "f/J", "cores", "rows/CPU-s", "f/J per CPU",
      "RSS MiB"
    for (i = 1; i <= n; i++) {
      ph = kind[i] == "RESULT" ? "write" : "read"
      t = kind[i] == "RESULT" ? "own" : owner[i] "'"'"'s"
      if (eng[i] == "java") {
        label = run[i] == 1 && (ph == "write" || t == "java'"'"'s") ? run[i] " (first)" : run[i] " (warm)"
      } else {
        label = ph == "read" ? (run[i] == 1 ? run[i] " (first)" : run[i] " (warm)") : run[i]
      }
      if (eng[i] == "java") {
        if (ph == "write") { r = fw[fmt[i] wl[i]] / rate[i]; rc = fwc[fmt[i] wl[i]] / pc[i] }
        else { r = fr[tbl[i]] / rate[i]; rc = frc[tbl[i]] / pc[i] }
        rs = sprintf("%.2f", r); rcs = sprintf("%.2f", rc)
      } else { rs = "-"; rcs = "-" }
      printf "%-6s %-8s %-8s %-8s %-13s %-10s %12.0f %8s %6.2f %12.0f %12s %8d\n", ph, eng[i],
        fmt[i], wl[i], t, label, rate[i], rs, cores[i], pc[i], rcs, rss[i]
      if (ph == "read") {  # the best first and warm read of each engine per table
        k = fmt[i] " " wl[i] " " t; e = eng[i] " " (label ~ /warm/ ? "warm" : "first")
        if (!(k in keys)) { keys[k] = 1; order[++nk] = k }  # tables in the order first read
        if (!((k, e) in bc) || pc[i] > bc[k, e]) { br[k, e] = rate[i]; bc[k, e] = pc[i] }
      }
    }
    for (j = 1; j <= nk; j++) {
      k = order[j]
      for (w = 1; w <= 2; w++) {
        e = w == 1 ? "first" : "warm"
        if (!((k, "freshet " e) in bc) || !((k, "java " e) in bc)) continue
        printf "read, %s reads: %s table: freshet %.0f rows/s, %.0f rows/CPU-s; Java %.0f " \
          "rows/s, %.0f rows/CPU-s: %.2fx, %.2fx per CPU\n", e, k, br[k, "freshet " e],
          bc[k, "freshet " e], br[k, "java " e], bc[k, "java " e],
          br[k, "freshet " e] / br[k, "java " e], bc[k, "freshet " e] / bc[k, "java " e]
      }
    }
  }' "$results"
if [ -s "$compactions" ]; then
  echo
  awk '
    function get(k,   i, kv) {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
      return ""
    }
    {
      n = NR; eng[n] = get("engine"); fmt[n] = get("format"); run[n] = get("run")
      wl[n] = get("workload"); k = fmt[n] wl[n]
      rec[n] = get("records"); rate[n] = get("compact_records_per_s")
      pc[n] = get("compact_records_per_cpu_s"); cores[n] = get("compact_cores")
      fb[n] = get("files_before"); fa[n] = get("files_after"); rss[n] = get("peak_rss_mib")
      if (eng[n] == "freshet") { fr[k] = rate[n]; frc[k] = pc[n] }
      key[n] = k
    }
    END {
      printf "%-13s %-8s %-8s %-8s %-10s %10s %9s %12s %8s %6s %12s %12s %8s\n", "phase",
        "engine", "format", "workload", "run", "records", "files", "records/s", "f/J", "cores",
        "rec/CPU-s", "f/J per CPU", "RSS MiB"
      for (i = 1; i <= n; i++) {
        label = eng[i] == "java" ? run[i] (run[i] == 1 ? " (first)" : " (warm)") : run[i]
        rs = eng[i] == "java" ? sprintf("%.2f", fr[key[i]] / rate[i]) : "-"
        rcs = eng[i] == "java" ? sprintf("%.2f", frc[key[i]] / pc[i]) : "-"
        printf "%-13s %-8s %-8s %-8s %-10s %10d %9s %12.0f %8s %6.2f %12.0f %12s %8d\n",
          "full compact", eng[i], fmt[i], wl[i], label, rec[i], fb[i] "->" fa[i], rate[i], rs,
          cores[i], pc[i], rcs, rss[i]
      }
    }' "$compactions"
fi
echo "OK: merged row counts and checksums agree (both engines, both directions)"
