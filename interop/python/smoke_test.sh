#!/usr/bin/env bash
# Smoke test of the pypaimon reference harness (interop/python/paimon_harness.py).
# Exit status 0 = all checks passed. Known pypaimon limitations are reported as
# "KNOWN LIMITATION" lines and do not fail the test (see interop/README.md).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${PYPAIMON_PYTHON:-$ROOT/.venv-pypaimon/bin/python}"
HARNESS="$HERE/paimon_harness.py"
# The optional external golden set (beside the checkout, or $FRESHET_GOLDEN_DIR).
GOLDEN="${FRESHET_GOLDEN:-${FRESHET_GOLDEN_DIR:-$ROOT/../shared/golden}}"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/pypaimon-smoke.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
WH="$TMP/wh"
FAILS=0

h() { "$PY" "$HARNESS" "$@"; }
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# same_lines <expected.jsonl> <actual.jsonl> <label>: exact string compare, order-insensitive
same_lines() {
  if diff <(LC_ALL=C sort "$1") <(LC_ALL=C sort "$2") >"$TMP/diff.txt"; then
    pass "$3"
  else
    fail "$3"; sed 's/^/    /' "$TMP/diff.txt" | head -40
  fi
}

# same_values <expected.jsonl> <actual.jsonl> <label>: compare parsed JSON values as
# multisets (golden files use slightly different conventions: BYTES as raw text,
# FLOAT with a tolerance).
same_values() {
  if "$PY" - "$1" "$2" <<'EOF' >"$TMP/cmp.txt" 2>&1; then pass "$3"; else fail "$3"; sed 's/^/    /' "$TMP/cmp.txt" | head -40; fi
import json, math, sys
def load(p):
    with open(p) as f:
        return [json.loads(l) for l in f if l.strip()]
def eq(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(eq(a[k], b[k]) for k in a)
    return a == b
exp, act = load(sys.argv[1]), load(sys.argv[2])
left = list(act)
for row in exp:
    for i, cand in enumerate(left):
        if eq(row, cand):
            del left[i]
            break
    else:
        print("missing:", json.dumps(row)); sys.exit(1)
if left:
    print("unexpected:", json.dumps(left[0]), "(+%d more)" % (len(left) - 1)); sys.exit(1)
EOF
}

# ---------------------------------------------------------------------------
# 1. append table, Parquet, partitioned, bucket 2 with bucket-key
# ---------------------------------------------------------------------------
cat >"$TMP/append.json" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"INT"},{"name":"name","type":"STRING"},{"name":"score","type":"DOUBLE"}],
 "partitionKeys":["dt"],"options":{"bucket":"2","bucket-key":"id","file.format":"parquet"},"comment":"smoke append"}
EOF
cat >"$TMP/append_c1.jsonl" <<'EOF'
{"dt": "2024-01-01", "id": 1, "name": "Alice", "score": 11.1}
{"dt": "2024-01-01", "id": 2, "name": "Bob", "score": 12.5}
{"dt": "2024-01-02", "id": 3, "name": "Carol", "score": null}
{"dt": "2024-01-02", "id": 4, "name": null, "score": -0.1}
EOF
cat >"$TMP/append_c2.jsonl" <<'EOF'
{"dt": "2024-01-01", "id": 1, "name": "Alice", "score": 11.1}
{"dt": "2024-01-03", "id": 5, "name": "Eve", "score": 1e+20}
EOF
T="$WH/smoke.db/append_pq"
h create --table "$T" --schema "$TMP/append.json"
h write --table "$T" --input "$TMP/append_c1.jsonl"
h write --table "$T" --input "$TMP/append_c2.jsonl"
h read --table "$T" --output "$TMP/out.jsonl"
cat "$TMP/append_c1.jsonl" "$TMP/append_c2.jsonl" >"$TMP/exp.jsonl"
same_lines "$TMP/exp.jsonl" "$TMP/out.jsonl" "append/parquet partitioned bucket=2: latest"
h read --table "$T" --snapshot 1 --output "$TMP/out.jsonl"
same_lines "$TMP/append_c1.jsonl" "$TMP/out.jsonl" "append/parquet: --snapshot 1"
if "$PY" - "$T" <<'EOF'; then pass "append/parquet: dt=*/bucket-{0,1} folders with .parquet files, schema-0 keeps keys/options"; else fail "append/parquet: table layout"; fi
import glob, json, os, sys
t = sys.argv[1]
files = glob.glob(os.path.join(t, "dt=*", "bucket-*", "*.parquet"))
parts = {os.path.basename(os.path.dirname(os.path.dirname(f))) for f in files}
buckets = {os.path.basename(os.path.dirname(f)) for f in files}
assert parts == {"dt=2024-01-01", "dt=2024-01-02", "dt=2024-01-03"}, parts
assert buckets <= {"bucket-0", "bucket-1"} and len(buckets) == 2, buckets
s = json.load(open(os.path.join(t, "schema", "schema-0")))
assert s["partitionKeys"] == ["dt"] and s["primaryKeys"] == [], s
assert s["options"] == {"bucket": "2", "bucket-key": "id", "file.format": "parquet"}, s["options"]
assert s.get("comment") == "smoke append", s.get("comment")
EOF
# --overwrite = INSERT OVERWRITE with Paimon's default dynamic partition overwrite:
# only the partitions present in the new rows are replaced.
echo '{"dt": "2024-02-01", "id": 9, "name": "Zed", "score": 0.5}' >"$TMP/append_c3.jsonl"
h write --table "$T" --input "$TMP/append_c3.jsonl" --overwrite
h read --table "$T" --output "$TMP/out.jsonl"
cat "$TMP/exp.jsonl" "$TMP/append_c3.jsonl" >"$TMP/exp3.jsonl"
same_lines "$TMP/exp3.jsonl" "$TMP/out.jsonl" "append/parquet: --overwrite of a new partition keeps the others"
echo '{"dt": "2024-01-01", "id": 7, "name": "New", "score": 7.0}' >"$TMP/append_c4.jsonl"
h write --table "$T" --input "$TMP/append_c4.jsonl" --overwrite
h read --table "$T" --output "$TMP/out.jsonl"
grep -v '"2024-01-01"' "$TMP/exp3.jsonl" | cat - "$TMP/append_c4.jsonl" >"$TMP/exp4.jsonl"
same_lines "$TMP/exp4.jsonl" "$TMP/out.jsonl" "append/parquet: --overwrite replaces partition dt=2024-01-01 only"
h read --table "$T" --snapshot 2 --output "$TMP/out.jsonl"
same_lines "$TMP/exp.jsonl" "$TMP/out.jsonl" "append/parquet: --snapshot 2 after overwrites"
h read --table "$T" --all-snapshots --output "$TMP/out.jsonl"
if [ "$(grep __snapshot "$TMP/out.jsonl" | tr -d '\n')" \
    = '{"__snapshot": 1}{"__snapshot": 2}{"__snapshot": 3}{"__snapshot": 4}' ]; then
  { echo '{"__snapshot": 1}'; cat "$TMP/append_c1.jsonl"; echo '{"__snapshot": 2}'; cat "$TMP/exp.jsonl"
    echo '{"__snapshot": 3}'; cat "$TMP/exp3.jsonl"; echo '{"__snapshot": 4}'; cat "$TMP/exp4.jsonl"
  } >"$TMP/exp_all.jsonl"
  same_lines "$TMP/exp_all.jsonl" "$TMP/out.jsonl" "append/parquet: --all-snapshots (4 markers + rows)"
else
  fail "append/parquet: --all-snapshots markers: $(grep __snapshot "$TMP/out.jsonl" | tr '\n' ' ')"
fi

# ---------------------------------------------------------------------------
# 2. append table with every primitive type pypaimon supports + ARRAY/MAP/ROW
# ---------------------------------------------------------------------------
cat >"$TMP/types.json" <<'EOF'
{"fields":[
 {"name":"id","type":"INT NOT NULL"},
 {"name":"b","type":"BOOLEAN"},
 {"name":"ti","type":"TINYINT"},
 {"name":"si","type":"SMALLINT"},
 {"name":"bi","type":"BIGINT"},
 {"name":"f","type":"FLOAT"},
 {"name":"d","type":"DOUBLE"},
 {"name":"dec","type":"DECIMAL(10, 2)"},
 {"name":"dec38","type":"DECIMAL(38, 10)"},
 {"name":"s","type":"STRING"},
 {"name":"vc","type":"VARCHAR(20)"},
 {"name":"ch","type":"CHAR(3)"},
 {"name":"by","type":"BYTES"},
 {"name":"vb","type":"VARBINARY(8)"},
 {"name":"bin","type":"BINARY(4)"},
 {"name":"dte","type":"DATE"},
 {"name":"t0","type":"TIME"},
 {"name":"t3","type":"TIME(3)"},
 {"name":"ts0","type":"TIMESTAMP(0)"},
 {"name":"ts3","type":"TIMESTAMP(3)"},
 {"name":"ts6","type":"TIMESTAMP(6)"},
 {"name":"ts9","type":"TIMESTAMP(9)"},
 {"name":"ltz3","type":"TIMESTAMP(3) WITH LOCAL TIME ZONE"},
 {"name":"ltz6","type":"TIMESTAMP(6) WITH LOCAL TIME ZONE"},
 {"name":"arr","type":{"type":"ARRAY","element":"STRING"}},
 {"name":"m","type":{"type":"MAP","key":"STRING NOT NULL","value":"INT"}},
 {"name":"r","type":{"type":"ROW","fields":[{"name":"x","type":"INT"},{"name":"y","type":{"type":"ARRAY","element":"DOUBLE"}},{"name":"z","type":{"type":"ROW","fields":[{"name":"q","type":"DATE"}]}}]}}
],"options":{"file.format":"parquet"}}
EOF
cat >"$TMP/types_c1.jsonl" <<'EOF'
{"id": 1, "b": true, "ti": -128, "si": 32767, "bi": 9223372036854775807, "f": 1.1, "d": 3.141592653589793, "dec": "12345678.90", "dec38": "-1234567890123456789012345678.0123456789", "s": "h\u00e9llo \u2713", "vc": "v", "ch": "abc", "by": "AAEC/w==", "vb": "3q2+7w==", "bin": "AQIDBA==", "dte": "2024-02-29", "t0": "23:59:59", "t3": "12:34:56.789", "ts0": "2024-01-02 03:04:05", "ts3": "2024-01-02 03:04:05.123", "ts6": "1969-12-31 23:59:59.999999", "ts9": "2024-01-02 03:04:05.123456789", "ltz3": "2024-01-02 03:04:05.120Z", "ltz6": "1970-01-01 00:00:00.000001Z", "arr": ["a", null, "c"], "m": [["k1", 1], ["k2", null]], "r": {"x": 7, "y": [1.5, -0.0], "z": {"q": "2000-01-01"}}}
{"id": 2, "b": false, "ti": 127, "si": -32768, "bi": -9223372036854775808, "f": "NaN", "d": "-Infinity", "dec": "0.00", "dec38": "0.0000000000", "s": "", "vc": "", "ch": "x", "by": "", "vb": null, "bin": "AAAAAA==", "dte": "1970-01-01", "t0": "00:00:00", "t3": "00:00:00.001", "ts0": "1970-01-01 00:00:00", "ts3": "1900-01-01 00:00:00.000", "ts6": "2262-04-11 23:47:16.854775", "ts9": "1677-09-21 00:12:43.145224192", "ltz3": "1969-12-31 23:59:59.999Z", "ltz6": "2038-01-19 03:14:08.000000Z", "arr": [], "m": [], "r": {"x": null, "y": null, "z": null}}
EOF
cat >"$TMP/types_c2.jsonl" <<'EOF'
{"id": 3, "b": null, "ti": null, "si": null, "bi": null, "f": 3.4028235e+38, "d": 1e-300, "dec": "-0.01", "dec38": null, "s": null, "vc": null, "ch": null, "by": null, "vb": null, "bin": null, "dte": null, "t0": null, "t3": null, "ts0": null, "ts3": null, "ts6": null, "ts9": null, "ltz3": null, "ltz6": null, "arr": null, "m": null, "r": null}
{"id": 4, "b": true, "ti": 0, "si": 0, "bi": 0, "f": "-Infinity", "d": "NaN", "dec": "99999999.99", "dec38": "1.5000000000", "s": "\"quoted\" \\ slash", "vc": "z", "ch": "zz", "by": "/w==", "vb": "AA==", "bin": "/////w==", "dte": "9999-12-31", "t0": "12:00:00", "t3": "23:59:59.999", "ts0": "9999-12-31 23:59:59", "ts3": "0001-01-01 00:00:00.000", "ts6": "2024-06-30 12:00:00.000500", "ts9": "2024-06-30 12:00:00.000000001", "ltz3": "2024-06-30 12:00:00.000Z", "ltz6": "2024-06-30 12:00:00.123456Z", "arr": ["only"], "m": [["a", -1]], "r": {"x": -1, "y": [], "z": {"q": null}}}
EOF
T="$WH/smoke.db/all_types"
h create --table "$T" --schema "$TMP/types.json"
h write --table "$T" --input "$TMP/types_c1.jsonl"
h write --table "$T" --input "$TMP/types_c2.jsonl"
# the inputs spell non-ASCII characters as \u escapes; the harness prints them as UTF-8
"$PY" -c 'import json,sys
for l in open(sys.argv[1]): print(json.dumps(json.loads(l), ensure_ascii=False))' "$TMP/types_c1.jsonl" >"$TMP/types_c1.norm"
"$PY" -c 'import json,sys
for l in open(sys.argv[1]): print(json.dumps(json.loads(l), ensure_ascii=False))' "$TMP/types_c2.jsonl" >"$TMP/types_c2.norm"
h read --table "$T" --output "$TMP/out.jsonl"
cat "$TMP/types_c1.norm" "$TMP/types_c2.norm" >"$TMP/exp.jsonl"
same_lines "$TMP/exp.jsonl" "$TMP/out.jsonl" "all types/parquet: latest"
h read --table "$T" --snapshot 1 --output "$TMP/out.jsonl"
same_lines "$TMP/types_c1.norm" "$TMP/out.jsonl" "all types/parquet: --snapshot 1"
if "$PY" - "$T/schema/schema-0" <<'EOF'; then pass "all types: schema JSON (canonical types, Java-style field ids)"; else fail "all types: schema JSON"; fi
import json, sys
s = json.load(open(sys.argv[1]))
types = {f["name"]: f["type"] for f in s["fields"]}
assert types["id"] == "INT NOT NULL", types["id"]
assert types["t0"] == "TIME(0)", types["t0"]
assert types["ltz3"] == "TIMESTAMP(3) WITH LOCAL TIME ZONE", types["ltz3"]
assert types["dec"] == "DECIMAL(10, 2)", types["dec"]
r = [f for f in s["fields"] if f["name"] == "r"][0]
# Java Schema.Builder numbering: r=26, then nested q=27, x=28, y=29, z=30 (children before parent)
ids = {f["name"]: f["id"] for f in r["type"]["fields"]}
assert r["id"] == 26 and ids == {"x": 27, "y": 28, "z": 30}, (r["id"], ids)
assert r["type"]["fields"][2]["type"]["fields"][0]["id"] == 29
assert s["highestFieldId"] == 30, s["highestFieldId"]
EOF

# same table in ORC data files (manifests stay Avro). pyarrow's ORC writer goes through
# int64 nanoseconds, so TIMESTAMPs outside 1677..2262 are refused by the harness.
sed 's/"file.format":"parquet"/"file.format":"orc"/' "$TMP/types.json" >"$TMP/types_orc.json"
sed -e 's/"ts0": "9999-12-31 23:59:59"/"ts0": "2262-04-11 23:47:16"/' \
    -e 's/"ts3": "0001-01-01 00:00:00.000"/"ts3": "1677-09-21 00:12:44.000"/' "$TMP/types_c2.norm" >"$TMP/types_c2_orc.jsonl"
T="$WH/smoke.db/all_types_orc"
h create --table "$T" --schema "$TMP/types_orc.json"
h write --table "$T" --input "$TMP/types_c1.jsonl"
h write --table "$T" --input "$TMP/types_c2_orc.jsonl"
h read --table "$T" --output "$TMP/out.jsonl"
cat "$TMP/types_c1.norm" "$TMP/types_c2_orc.jsonl" >"$TMP/exp_orc.jsonl"
same_lines "$TMP/exp_orc.jsonl" "$TMP/out.jsonl" "all types/orc: latest"
if h write --table "$T" --input "$TMP/types_c2.jsonl" 2>"$TMP/err.txt"; then
  fail "all types/orc: year-9999 TIMESTAMP write should be refused"
elif grep -q "outside 1677-09-21..2262-04-11" "$TMP/err.txt"; then
  echo "KNOWN LIMITATION: $(cat "$TMP/err.txt")"
else
  fail "all types/orc: unexpected error: $(cat "$TMP/err.txt")"
fi

# ---------------------------------------------------------------------------
# 3. primary-key table, bucket 2
# ---------------------------------------------------------------------------
cat >"$TMP/pk.json" <<'EOF'
{"fields":[{"name":"id","type":"BIGINT"},{"name":"name","type":"STRING"},{"name":"price","type":"DECIMAL(10, 2)"},{"name":"ts","type":"TIMESTAMP(3)"}],
 "primaryKeys":["id"],"options":{"bucket":"2","file.format":"parquet"}}
EOF
cat >"$TMP/pk_c1.jsonl" <<'EOF'
{"id": 1, "name": "apple", "price": "1.50", "ts": "2024-01-01 00:00:00.000"}
{"id": 2, "name": "banana", "price": "0.25", "ts": "2024-01-01 00:00:00.001"}
{"id": 3, "name": "cherry", "price": "10.00", "ts": null}
{"id": 4, "name": "date", "price": null, "ts": "2024-01-01 00:00:00.002"}
EOF
cat >"$TMP/pk_c2.jsonl" <<'EOF'
{"id": 2, "name": "banana", "price": "0.30", "ts": "2024-01-02 00:00:00.000"}
{"id": 3, "name": "cherry", "price": "10.00", "ts": null, "_kind": "-D"}
{"id": 4, "name": "date", "price": null, "ts": "2024-01-01 00:00:00.002", "_kind": "-U"}
{"id": 4, "name": "dates", "price": "7.77", "ts": "2024-01-02 00:00:00.000", "_kind": "+U"}
{"id": 5, "name": "elder", "price": "5.00", "ts": null}
{"id": 5, "name": "elderberry", "price": "5.50", "ts": null}
EOF
cat >"$TMP/pk_exp.jsonl" <<'EOF'
{"id": 1, "name": "apple", "price": "1.50", "ts": "2024-01-01 00:00:00.000"}
{"id": 2, "name": "banana", "price": "0.30", "ts": "2024-01-02 00:00:00.000"}
{"id": 4, "name": "dates", "price": "7.77", "ts": "2024-01-02 00:00:00.000"}
{"id": 5, "name": "elderberry", "price": "5.50", "ts": null}
EOF
T="$WH/smoke.db/pk"
h create --table "$T" --schema "$TMP/pk.json"
h write --table "$T" --input "$TMP/pk_c1.jsonl"
h write --table "$T" --input "$TMP/pk_c2.jsonl"
h read --table "$T" --output "$TMP/out.jsonl"
same_lines "$TMP/pk_exp.jsonl" "$TMP/out.jsonl" "pk bucket=2: latest (upsert, _kind -D/-U/+U, in-batch dedup)"
h read --table "$T" --snapshot 1 --output "$TMP/out.jsonl"
same_lines "$TMP/pk_c1.jsonl" "$TMP/out.jsonl" "pk bucket=2: --snapshot 1"
if [ -d "$T/bucket-0" ] && [ -d "$T/bucket-1" ]; then pass "pk: bucket-0 and bucket-1 folders"; else fail "pk: bucket folders"; fi
# a lone -D for a key (its file is alone in its split): must not show up as a live row,
# and the file metadata must count it in deleteRowCount (pypaimon itself writes 0)
T="$WH/smoke.db/pk_lone_delete"
h create --table "$T" --schema "$TMP/pk.json"
echo '{"id": 42, "name": "ghost", "price": null, "ts": null, "_kind": "-D"}' >"$TMP/pk_del.jsonl"
h write --table "$T" --input "$TMP/pk_del.jsonl"
h read --table "$T" --output "$TMP/out.jsonl"
same_lines /dev/null "$TMP/out.jsonl" "pk: lone -D is not returned"
if "$PY" - "$T" <<'EOF'; then pass "pk: manifest deleteRowCount=1 for the -D file"; else fail "pk: manifest deleteRowCount"; fi
import fastavro, glob, os, sys
counts = []
for m in glob.glob(os.path.join(sys.argv[1], "manifest", "manifest-*")):
    if "manifest-list" in os.path.basename(m):
        continue
    with open(m, "rb") as f:
        counts += [r["_FILE"].get("_DELETE_ROW_COUNT") for r in fastavro.reader(f)]
assert counts == [1], counts
EOF
# table with the rowkind.field option: _kind fills the row-kind column (default +I)
cat >"$TMP/rk.json" <<'EOF'
{"fields":[{"name":"id","type":"INT"},{"name":"op","type":"STRING"},{"name":"v","type":"INT"}],
 "primaryKeys":["id"],"options":{"bucket":"1","rowkind.field":"op"}}
EOF
printf '%s\n' '{"id": 1, "v": 1}' '{"id": 2, "v": 2}' >"$TMP/rk1.jsonl"
printf '%s\n' '{"id": 1, "v": 1, "_kind": "-D"}' '{"id": 2, "v": 3, "_kind": "+U"}' >"$TMP/rk2.jsonl"
echo '{"id": 2, "op": "+U", "v": 3}' >"$TMP/rk_exp.jsonl"
T="$WH/smoke.db/pk_rowkind_field"
h create --table "$T" --schema "$TMP/rk.json"
h write --table "$T" --input "$TMP/rk1.jsonl"
h write --table "$T" --input "$TMP/rk2.jsonl"
h read --table "$T" --output "$TMP/out.jsonl"
same_lines "$TMP/rk_exp.jsonl" "$TMP/out.jsonl" "pk with rowkind.field: _kind -> row-kind column"

# ---------------------------------------------------------------------------
# 4. errors: one line on stderr, non-zero exit
# ---------------------------------------------------------------------------
expect_error() {  # <label> <args...>
  local label="$1"; shift
  if h "$@" >"$TMP/err.out" 2>"$TMP/err.txt"; then
    fail "error case '$label' succeeded"
  elif [ "$(wc -l <"$TMP/err.txt")" -ne 1 ]; then
    fail "error case '$label' printed $(wc -l <"$TMP/err.txt") lines on stderr"; sed 's/^/    /' "$TMP/err.txt"
  else
    pass "error case '$label': $(cat "$TMP/err.txt")"
  fi
}
echo '{"id": "x"}' >"$TMP/bad_row.jsonl"
echo '{"id": 1, "name": "a", "_kind": "-D"}' >"$TMP/bad_kind.jsonl"
expect_error "path without .db" read --table "$TMP/nowhere/t"
expect_error "missing table" read --table "$WH/smoke.db/missing"
expect_error "missing snapshot" read --table "$WH/smoke.db/pk" --snapshot 99
expect_error "bad value" write --table "$WH/smoke.db/append_pq" --input "$TMP/bad_row.jsonl"
expect_error "_kind on append table" write --table "$WH/smoke.db/append_pq" --input "$TMP/bad_kind.jsonl"
expect_error "table exists" create --table "$WH/smoke.db/pk" --schema "$TMP/pk.json"
expect_error "no command"

# ---------------------------------------------------------------------------
# 5. golden tables written by Java Paimon
# ---------------------------------------------------------------------------
copy_golden() {  # <relative table dir> -> prints the copy's path
  local rel="$1" name db
  name="$(basename "$rel")"; db="$(basename "$(dirname "$rel")")"
  mkdir -p "$TMP/wh/$db"
  cp -r "$GOLDEN/$rel" "$TMP/wh/$db/"
  echo "$TMP/wh/$db/$name"
}
if [ ! -d "$GOLDEN" ]; then
  echo "SKIP golden tables: external golden set not found at $GOLDEN: skipped; set FRESHET_GOLDEN_DIR"
else
  # append_09: Parquet data but ORC manifests (manifest.format=orc)
  T="$(copy_golden parquet/append_09.db/append_09)"
  if h read --table "$T" --output "$TMP/out.jsonl" 2>"$TMP/err.txt"; then
    same_values "$GOLDEN/expected/parquet__append_09/s5_latest.jsonl" "$TMP/out.jsonl" "golden append_09: latest"
  elif grep -q "manifest.format=orc" "$TMP/err.txt"; then
    echo "KNOWN LIMITATION: golden append_09 not readable: $(cat "$TMP/err.txt")"
  else
    fail "golden append_09: unexpected error: $(cat "$TMP/err.txt")"
  fi
  # Java-written tables with Avro manifests that pypaimon can read
  T="$(copy_golden parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid)"
  h read --table "$T" --output "$TMP/out.jsonl"
  same_values "$GOLDEN/expected/parquet__append_complex_build_in_fieldid/s1_latest.jsonl" "$TMP/out.jsonl" \
    "golden parquet/append_complex_build_in_fieldid: latest"
  T="$(copy_golden parquet/append_table_with_alter_table.db/append_table_with_alter_table)"
  h read --table "$T" --output "$TMP/out.jsonl"
  same_values "$GOLDEN/expected/parquet__append_table_with_alter_table/s2_latest.jsonl" "$TMP/out.jsonl" \
    "golden parquet/append_table_with_alter_table: latest"
  h read --table "$T" --snapshot 1 --output "$TMP/out.jsonl"
  same_values "$GOLDEN/expected/parquet__append_table_with_alter_table/s1.jsonl" "$TMP/out.jsonl" \
    "golden parquet/append_table_with_alter_table: --snapshot 1 (old schema)"
  T="$(copy_golden avro/append_simple.db/append_simple)"
  h read --table "$T" --output "$TMP/out.jsonl"
  same_values "$GOLDEN/expected/avro__append_simple/s1_latest.jsonl" "$TMP/out.jsonl" \
    "golden avro/append_simple: latest"
fi

echo
if [ "$FAILS" -ne 0 ]; then
  echo "smoke_test: $FAILS check(s) FAILED"
  exit 1
fi
echo "smoke_test: all checks passed"
