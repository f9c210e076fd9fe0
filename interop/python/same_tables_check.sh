#!/usr/bin/env bash
# Two builds of freshet write the same tables: every layout of the interop matrix (Parquet, ORC,
# Avro; partitioned or not; bucket -1, 1, 4) from the same inputs, with each build's CLI, and
# compare_tables.py checks that snapshots, manifests and data files are the same (names and clock
# readings aside). For refactorings that must not change what lands on disk.
#
#   interop/python/same_tables_check.sh OLD_FRESHET_BINARY NEW_FRESHET_BINARY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
old=$1 new=$2
python=${FRESHET_PYPAIMON_PYTHON:-$root/.venv-pypaimon/bin/python}
data=$root/tests/cli/testdata
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# rows_1 (40 rows) is split into three appends and an overwrite; rows_2 follows the overwrite.
sed -n 1,12p "$data/pre_realtime_rows_1.jsonl" >"$work/a.jsonl"
sed -n 13,20p "$data/pre_realtime_rows_1.jsonl" >"$work/b.jsonl"
sed -n 21,28p "$data/pre_realtime_rows_1.jsonl" >"$work/c.jsonl"
sed -n 29,32p "$data/pre_realtime_rows_1.jsonl" >"$work/overwrite.jsonl"
cp "$data/pre_realtime_rows_2.jsonl" "$work/d.jsonl"

write_table() {  # binary table format bucket partitioned
  local cli=$1 table=$2 format=$3 bucket=$4 partitioned=$5
  local schema
  schema=$("$python" - "$data/pre_realtime_schema.json" "$format" "$bucket" "$partitioned" <<'EOF'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["options"] = {"file.format": sys.argv[2], "bucket": sys.argv[3]}
if sys.argv[3] != "-1":
    spec["options"]["bucket-key"] = "id"
if sys.argv[4] != "yes":
    spec["partitionKeys"] = []
print(json.dumps(spec))
EOF
)
  "$cli" create "$table" --schema "$schema" >/dev/null
  "$cli" write "$table" --input "$work/a.jsonl" >/dev/null
  "$cli" write "$table" --input "$work/b.jsonl" --batch-rows 4 --commit-every 4 >/dev/null
  "$cli" write "$table" --input "$work/c.jsonl" >/dev/null
  "$cli" write "$table" --input "$work/overwrite.jsonl" --overwrite >/dev/null
  "$cli" write "$table" --input "$work/d.jsonl" >/dev/null
}

failures=0
layouts=0
for format in parquet orc avro; do
  for bucket in -1 1 4; do
    for partitioned in yes no; do
      name="${format}_bucket${bucket}_${partitioned/yes/partitioned}"
      name=${name%_no}
      write_table "$old" "$work/old/$name" "$format" "$bucket" "$partitioned"
      write_table "$new" "$work/new/$name" "$format" "$bucket" "$partitioned"
      layouts=$((layouts + 1))
      if result=$("$python" "$here/compare_tables.py" "$work/old/$name" "$work/new/$name"); then
        echo "$name: $result"
      else
        echo "$name: $result"
        failures=$((failures + 1))
      fi
    done
  done
done
echo "$layouts layouts, $failures different"
[ "$failures" -eq 0 ]
