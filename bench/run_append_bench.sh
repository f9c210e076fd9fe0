#!/usr/bin/env bash
# Append benchmark: freshet (bench/append_bench.cc) vs Java Paimon (interop/java `bench`), same
# generated rows, same formats, one after the other on this machine. Builds nothing: run
# scripts/setup.sh (Java harness jar) and build freshet_append_bench first (docs/benchmarks.md).
#
# Usage: bench/run_append_bench.sh [rows]            (default 10,000,000)
# Env:   FRESHET_BENCH_BIN    freshet_append_bench (default: build-bench/, then build/)
#        FRESHET_INTEROP_JAR  harness jar (default interop/java/target/freshet-interop-java.jar)
#        FRESHET_BENCH_FORMATS  default "parquet orc"
#        FRESHET_BENCH_JAVA_RUNS  Java runs in one JVM (default 2: first + warm)
#        FRESHET_BENCH_ROUNDS  rounds of freshet then Java (a fresh JVM each), default 1; with
#                             more, the medians of each engine's rounds and their ratios follow
#                             (this VM's figures swing run to run: docs/benchmarks.md)
#        FRESHET_BENCH_DIR    scratch directory (default: a fresh mktemp -d, removed at the end)
#        JAVA_OPTS            extra JVM options
# "cores" = process CPU seconds (all threads) / (gen_s + write_s + read_s) wall seconds.
# Exit 1 if any side fails, or if the row counts / checksums of the two sides (and of each side
# reading the other's table) disagree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-10000000}
formats=${FRESHET_BENCH_FORMATS:-parquet orc}
java_runs=${FRESHET_BENCH_JAVA_RUNS:-2}
rounds=${FRESHET_BENCH_ROUNDS:-1}
bin=${FRESHET_BENCH_BIN:-}
if [ -z "$bin" ]; then
  for b in "$root"/build-bench/bench/freshet_append_bench "$root"/build/bench/freshet_append_bench
  do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
jar=${FRESHET_INTEROP_JAR:-$root/interop/java/target/freshet-interop-java.jar}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "FAIL: freshet_append_bench not built" \
    "(cmake --build <dir> --target freshet_append_bench)" >&2
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
  dir=$(mktemp -d /tmp/freshet-bench.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
java=(java ${JAVA_OPTS:-} -jar "$jar")
results=$dir/results.txt
: >"$results"

field() {  # field <key> <line>
  sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

echo "# rows=$rows formats=($formats) java_runs=$java_runs rounds=$rounds"
echo "# freshet: $bin"
echo "# java:    $jar (Paimon $("${java[@]}" version)), $(java -version 2>&1 | head -1)"
echo "# load before: $(uptime)"
for fmt in $formats; do
  for round in $(seq 1 "$rounds"); do
    rdir=$dir/round$round
    f=$("$bin" --rows "$rows" --format "$fmt" --dir "$rdir" --keep | grep '^RESULT')
    echo "$f round=$round" | tee -a "$results"
    j=$("${java[@]}" bench --rows "$rows" --format "$fmt" --dir "$rdir" --runs "$java_runs" \
          --keep | grep '^RESULT')
    sed "s/\$/ round=$round/" <<<"$j" | tee -a "$results"
    sum=$(field checksum "$f")
    while read -r line; do
      [ "$(field checksum "$line")" = "$sum" ] || fail "$fmt: Java checksum differs from freshet's"
      [ "$(field rows "$line")" = "$rows" ] || fail "$fmt: Java row count"
    done <<<"$j"
    if [ "$round" = 1 ]; then
      # Cross-read: Java reads freshet's table, freshet reads Java's first table.
      ft=$(field table "$f")
      jt=$(field table "$(head -1 <<<"$j")")
      jv=$("${java[@]}" bench --verify "$ft" | grep '^VERIFY')
      fv=$("$bin" --verify "$jt" | grep '^VERIFY')
      echo "$jv (freshet's $fmt table)"
      echo "$fv (Java's $fmt table)"
      for v in "$jv" "$fv"; do
        [ "$(field checksum "$v")" = "$sum" ] || fail "$fmt: cross-read checksum differs"
        [ "$(field rows "$v")" = "$rows" ] || fail "$fmt: cross-read row count"
      done
    fi
    rm -rf "$rdir"
  done
done
echo "# load after: $(uptime)"
echo
awk -v rounds="$rounds" '
  function get(k,   i, kv) {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
    return ""
  }
  function median(list,   n, v, i, j, t) {  # list: values separated by spaces
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
      t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
    }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  {
    e = get("engine"); f = get("format"); r = get("run"); o = get("round")
    w[NR] = get("write_rows_per_s"); rd[NR] = get("read_rows_per_s")
    eng[NR] = e; fmt[NR] = f; run[NR] = r; rnd[NR] = o
    bytes[NR] = get("data_bytes"); rss[NR] = get("peak_rss_mib")
    cpu[NR] = get("cpu_s") / (get("gen_s") + get("write_s") + get("read_s"))
    if (e == "freshet") { fw[f, o] = w[NR]; fr[f, o] = rd[NR] }
    kind = e == "freshet" ? "freshet" : (r == 1 ? "java first" : "java warm")
    if (!((f, kind) in ws)) { kinds[f] = kinds[f] (kinds[f] == "" ? "" : "|") kind }
    ws[f, kind] = ws[f, kind] " " w[NR]; rs[f, kind] = rs[f, kind] " " rd[NR]
  }
  END {
    printf "%-8s %-8s %-5s %-10s %14s %14s %16s %16s %14s %9s %6s\n", "engine", "format",
      "round", "run", "write rows/s", "read rows/s", "write f/J ratio", "read f/J ratio",
      "data bytes", "RSS MiB", "cores"
    for (i = 1; i <= NR; i++) {
      label = eng[i] == "java" ? (run[i] == 1 ? "1 (first)" : run[i] " (warm)") : run[i]
      wr = eng[i] == "java" ? sprintf("%.2f", fw[fmt[i], rnd[i]] / w[i]) : "-"
      rr = eng[i] == "java" ? sprintf("%.2f", fr[fmt[i], rnd[i]] / rd[i]) : "-"
      printf "%-8s %-8s %-5s %-10s %14.0f %14.0f %16s %16s %14d %9d %6.2f\n", eng[i], fmt[i],
        rnd[i], label, w[i], rd[i], wr, rr, bytes[i], rss[i], cpu[i]
    }
    if (rounds < 2) exit
    printf "\nmedians of %d rounds\n", rounds
    printf "%-8s %-12s %14s %14s %16s %16s\n", "format", "engine", "write rows/s", "read rows/s",
      "write f/J ratio", "read f/J ratio"
    for (f in kinds) {
      n = split(kinds[f], list, "|")
      mw = median(ws[f, "freshet"]); mr = median(rs[f, "freshet"])
      for (k = 1; k <= n; k++) {
        jw = median(ws[f, list[k]]); jr = median(rs[f, list[k]])
        printf "%-8s %-12s %14.0f %14.0f %16s %16s\n", f, list[k], jw, jr,
          list[k] == "freshet" ? "-" : sprintf("%.2f", mw / jw),
          list[k] == "freshet" ? "-" : sprintf("%.2f", mr / jr)
      }
    }
  }' "$results"
echo "OK: row counts and checksums agree (both engines, both directions)"
