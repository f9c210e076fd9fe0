#!/usr/bin/env bash
# The real-time layer on primary-key tables (docs/benchmarks.md, "Real-time primary-key tables"):
# the figures issue 13 asks for, columnar and indexed plugins side by side, in one run:
#   visible  write-to-visible under 100,000 upserts/s (50 new keys + 50 updates of earlier keys
#            every millisecond), commits every second, background compaction on;
#   read     union read rows/s with 0%, 50% and 100% of the rows in memory, and the disk-only
#            merge of the same rows;
#   lookup   Table::Lookup p50/p99 of one key in memory, on disk and missing, with 10M keys.
# Each step is one run of bench/run_realtime_bench.sh (machine, load before and after).
#
# Usage: bench/run_realtime_primary_key_bench.sh [plugins, default "columnar indexed"]
# Env:   FRESHET_RTPK_VISIBLE_BATCHES (default 30000: 30 s), FRESHET_RTPK_READ_ROWS (2000000),
#        FRESHET_RTPK_LOOKUP_KEYS (10000000), FRESHET_RTPK_LOOKUP_RUNS (1000), and the variables
#        of run_realtime_bench.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugins=${*:-columnar indexed}
batches=${FRESHET_RTPK_VISIBLE_BATCHES:-30000}
read_rows=${FRESHET_RTPK_READ_ROWS:-2000000}
lookup_keys=${FRESHET_RTPK_LOOKUP_KEYS:-10000000}
lookup_runs=${FRESHET_RTPK_LOOKUP_RUNS:-1000}
for plugin in $plugins; do
  echo "## visible, $plugin"
  "$here/run_realtime_bench.sh" --primary-key --plugin "$plugin" --only visible \
    --visible-batches "$batches" --visible-batch-rows 50 --visible-update-rows 50 \
    --visible-interval-us 1000 --visible-sync-every 100 --commit-interval-ms 1000
done
for plugin in $plugins; do
  echo "## read, $plugin"
  "$here/run_realtime_bench.sh" --primary-key --plugin "$plugin" --only read \
    --read-rows "$read_rows"
done
for plugin in $plugins; do
  echo "## lookup, $plugin"
  "$here/run_realtime_bench.sh" --primary-key --plugin "$plugin" --only lookup \
    --lookup-keys "$lookup_keys" --lookup-memory-keys 100000 --lookup-runs "$lookup_runs"
done
