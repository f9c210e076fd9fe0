#!/usr/bin/env bash
# Smoke test of the Java Paimon reference harness. Builds nothing: expects
# interop/java/target/freshet-interop-java.jar (mvn -q -B -f interop/java/pom.xml package -DskipTests).
# Exits non-zero on the first failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jar=${FRESHET_INTEROP_JAR:-$here/target/freshet-interop-java.jar}
# The optional external golden set (Java-written tables beside the checkout, ../shared/golden, or
# $FRESHET_GOLDEN_DIR): its check is skipped without it.
golden=${FRESHET_GOLDEN:-${FRESHET_GOLDEN_DIR:-$here/../../../shared/golden}}
golden_table=$golden/parquet/append_09.db/append_09
golden_expected=$golden/expected/parquet__append_09/s5_latest.jsonl

[ -f "$jar" ] || { echo "FAIL: $jar not found (build it first)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/freshet-interop-java.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

pass=0
j() { java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$jar" "$@"; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }

# expect_rows NAME ACTUAL_FILE EXPECTED_FILE: same JSON lines as strings, order-insensitive.
expect_rows() {
  if diff <(sort "$2") <(sort "$3") >"$tmp/diff.txt"; then
    ok "$1"
  else
    echo "--- diff (< actual, > expected) ---" >&2; cat "$tmp/diff.txt" >&2
    fail "$1"
  fi
}

# ------------------------------------------------------------------------------------------------
# (a) append table, Parquet, partitioned, bucket 2
cat >a.schema.json <<'EOF'
{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"name","type":"STRING"},
           {"name":"v","type":"DOUBLE"},{"name":"ts","type":"TIMESTAMP(6)"},{"name":"dt","type":"STRING NOT NULL"}],
 "partitionKeys":["dt"],
 "options":{"bucket":"2","bucket-key":"id","file.format":"parquet"},
 "comment":"smoke append parquet"}
EOF
cat >a.1.jsonl <<'EOF'
{"id":1,"name":"a","v":1.5,"ts":"2024-01-01 00:00:00.000001","dt":"2024-01-01"}
{"id":2,"name":null,"v":-0.1,"ts":"1969-12-31 23:59:59.999999","dt":"2024-01-01"}
{"id":3,"name":"c","v":1e300,"ts":null,"dt":"2024-01-02"}
EOF
cat >a.2.jsonl <<'EOF'
{"id":4,"name":"d","v":"NaN","ts":"2000-02-29 12:00:00","dt":"2024-01-02"}
{"id":5,"name":"e","v":3,"ts":"2038-01-19 03:14:08.5","dt":"2024-01-03"}
EOF
cat >a.expected1.jsonl <<'EOF'
{"id": 1, "name": "a", "v": 1.5, "ts": "2024-01-01 00:00:00.000001", "dt": "2024-01-01"}
{"id": 2, "name": null, "v": -0.1, "ts": "1969-12-31 23:59:59.999999", "dt": "2024-01-01"}
{"id": 3, "name": "c", "v": 1.0E300, "ts": null, "dt": "2024-01-02"}
EOF
cat a.expected1.jsonl >a.expected2.jsonl
cat >>a.expected2.jsonl <<'EOF'
{"id": 4, "name": "d", "v": "NaN", "ts": "2000-02-29 12:00:00.000000", "dt": "2024-01-02"}
{"id": 5, "name": "e", "v": 3.0, "ts": "2038-01-19 03:14:08.500000", "dt": "2024-01-03"}
EOF
j create --table wh/db.db/a --schema a.schema.json
j write --table wh/db.db/a --input a.1.jsonl
j write --table wh/db.db/a --input a.2.jsonl
j read --table wh/db.db/a >a.out.jsonl
expect_rows "append parquet: latest" a.out.jsonl a.expected2.jsonl
j read --table wh/db.db/a --snapshot 1 --output a.s1.jsonl
expect_rows "append parquet: --snapshot 1" a.s1.jsonl a.expected1.jsonl
[ "$(j snapshots --table wh/db.db/a)" = $'1 APPEND\n2 APPEND' ] && ok "append parquet: snapshots" \
  || fail "append parquet: snapshots: $(j snapshots --table wh/db.db/a | tr '\n' ' ')"
ls wh/db.db/a/dt=2024-01-01/bucket-* >/dev/null && ls wh/db.db/a/dt=2024-01-01/bucket-*/*.parquet >/dev/null \
  && ok "append parquet: partition/bucket directories" || fail "append parquet: layout"

# Dynamic partition overwrite: only partition 2024-01-02 is replaced.
echo '{"id":9,"name":"z","v":0,"ts":null,"dt":"2024-01-02"}' >a.3.jsonl
j write --table wh/db.db/a --input a.3.jsonl --overwrite
grep -v '"dt": "2024-01-02"' a.expected2.jsonl >a.expected3.jsonl
echo '{"id": 9, "name": "z", "v": 0.0, "ts": null, "dt": "2024-01-02"}' >>a.expected3.jsonl
j read --table wh/db.db/a >a.out3.jsonl
expect_rows "append parquet: --overwrite (dynamic partition)" a.out3.jsonl a.expected3.jsonl
[ "$(j snapshots --table wh/db.db/a | tail -1)" = "3 OVERWRITE" ] && ok "append parquet: OVERWRITE snapshot" \
  || fail "append parquet: OVERWRITE snapshot"
{ echo '{"__snapshot": 1}'; cat a.expected1.jsonl; echo '{"__snapshot": 2}'; cat a.expected2.jsonl
  echo '{"__snapshot": 3}'; cat a.expected3.jsonl; } >a.expected_all.jsonl
j read --table wh/db.db/a --all-snapshots >a.all.jsonl
# Marker lines in order, and each snapshot's rows (order-insensitive within a snapshot).
[ "$(grep __snapshot a.all.jsonl | tr '\n' ' ')" = '{"__snapshot": 1} {"__snapshot": 2} {"__snapshot": 3} ' ] \
  || fail "append parquet: --all-snapshots markers: $(grep __snapshot a.all.jsonl | tr '\n' ' ')"
expect_rows "append parquet: --all-snapshots" a.all.jsonl a.expected_all.jsonl

# ------------------------------------------------------------------------------------------------
# (b) append table, ORC, bucket -1, every primitive type + ARRAY/MAP/MULTISET/ROW
cat >b.schema.json <<'EOF'
{"fields":[
 {"name":"b","type":"BOOLEAN"},{"name":"ti","type":"TINYINT"},{"name":"si","type":"SMALLINT"},
 {"name":"i","type":"INT NOT NULL"},{"name":"bi","type":"BIGINT"},{"name":"f","type":"FLOAT"},
 {"name":"d","type":"DOUBLE"},{"name":"dec","type":"DECIMAL(10, 2)"},{"name":"dec38","type":"DECIMAL(38, 10)"},
 {"name":"c","type":"CHAR(5)"},{"name":"vc","type":"VARCHAR(20)"},{"name":"s","type":"STRING"},
 {"name":"bin","type":"BINARY(4)"},{"name":"vb","type":"VARBINARY(10)"},{"name":"by","type":"BYTES"},
 {"name":"dt","type":"DATE"},{"name":"tm","type":"TIME(3)"},{"name":"tm0","type":"TIME"},
 {"name":"ts0","type":"TIMESTAMP(0)"},{"name":"ts3","type":"TIMESTAMP(3)"},{"name":"ts9","type":"TIMESTAMP(9)"},
 {"name":"ltz3","type":"TIMESTAMP(3) WITH LOCAL TIME ZONE"},{"name":"ltz6","type":"TIMESTAMP_LTZ(6)"},
 {"name":"arr","type":{"type":"ARRAY","element":"INT"}},
 {"name":"m","type":{"type":"MAP","key":"STRING","value":"BIGINT"}},
 {"name":"ms","type":{"type":"MULTISET","element":"STRING"}},
 {"name":"r","type":{"type":"ROW NOT NULL","fields":[{"name":"x","type":"INT"},
   {"name":"y","type":{"type":"ARRAY","element":{"type":"ROW","fields":[{"name":"z","type":"DECIMAL(5, 1)"}]}}}]}}
],"options":{"bucket":"-1","file.format":"orc"}}
EOF
cat >b.1.jsonl <<'EOF'
{"b":true,"ti":-128,"si":32767,"i":-2147483648,"bi":9223372036854775807,"f":1.1,"d":0.1,"dec":"12345678.90","dec38":"1234567890123456789012345678.0123456789","c":"ab","vc":"héllo ☃","s":"q\"uo\\te\n","bin":"AQIDBA==","vb":"AAE=","by":"","dt":"2024-02-29","tm":"23:59:59.123","tm0":"01:02:03","ts0":"2024-01-01 00:00:01","ts3":"2024-01-01 00:00:01.123","ts9":"2024-01-01 12:34:56.123456789","ltz3":"2024-01-01 00:00:00.001Z","ltz6":"2024-06-30 23:00:00.000001Z","arr":[1,null,3],"m":[["a",1],["b",null]],"ms":[["x",2]],"r":{"x":7,"y":[{"z":"1.5"},null]}}
EOF
cat >b.2.jsonl <<'EOF'
{"b":false,"ti":127,"si":-32768,"i":0,"bi":-9223372036854775808,"f":"Infinity","d":"-Infinity","dec":"-0.01","dec38":"0","c":"","vc":"","s":"","bin":"AAAAAA==","vb":"/w==","by":"3q2+7w==","dt":"1970-01-01","tm":"00:00:00","tm0":"23:59:59","ts0":"1970-01-01 00:00:00","ts3":"2100-12-31 23:59:59.999","ts9":"2000-01-01 00:00:00.000000001","ltz3":"1999-12-31 23:59:59.999Z","ltz6":"2024-01-01 00:00:00Z","arr":[],"m":[],"ms":[],"r":{"x":null,"y":[]}}
{"b":null,"ti":null,"si":null,"i":1,"bi":null,"f":null,"d":null,"dec":null,"dec38":null,"c":null,"vc":null,"s":null,"bin":null,"vb":null,"by":null,"dt":null,"tm":null,"tm0":null,"ts0":null,"ts3":null,"ts9":null,"ltz3":null,"ltz6":null,"arr":null,"m":null,"ms":null,"r":{"x":null,"y":null}}
{"i":2,"f":3,"d":123456789012,"r":{"x":1,"y":null}}
EOF
cat >b.expected1.jsonl <<'EOF'
{"b": true, "ti": -128, "si": 32767, "i": -2147483648, "bi": 9223372036854775807, "f": 1.1, "d": 0.1, "dec": "12345678.90", "dec38": "1234567890123456789012345678.0123456789", "c": "ab", "vc": "héllo ☃", "s": "q\"uo\\te\n", "bin": "AQIDBA==", "vb": "AAE=", "by": "", "dt": "2024-02-29", "tm": "23:59:59.123", "tm0": "01:02:03", "ts0": "2024-01-01 00:00:01", "ts3": "2024-01-01 00:00:01.123", "ts9": "2024-01-01 12:34:56.123456789", "ltz3": "2024-01-01 00:00:00.001Z", "ltz6": "2024-06-30 23:00:00.000001Z", "arr": [1, null, 3], "m": [["a", 1], ["b", null]], "ms": [["x", 2]], "r": {"x": 7, "y": [{"z": "1.5"}, null]}}
EOF
cat b.expected1.jsonl >b.expected2.jsonl
cat >>b.expected2.jsonl <<'EOF'
{"b": false, "ti": 127, "si": -32768, "i": 0, "bi": -9223372036854775808, "f": "Infinity", "d": "-Infinity", "dec": "-0.01", "dec38": "0.0000000000", "c": "", "vc": "", "s": "", "bin": "AAAAAA==", "vb": "/w==", "by": "3q2+7w==", "dt": "1970-01-01", "tm": "00:00:00.000", "tm0": "23:59:59", "ts0": "1970-01-01 00:00:00", "ts3": "2100-12-31 23:59:59.999", "ts9": "2000-01-01 00:00:00.000000001", "ltz3": "1999-12-31 23:59:59.999Z", "ltz6": "2024-01-01 00:00:00.000000Z", "arr": [], "m": [], "ms": [], "r": {"x": null, "y": []}}
{"b": null, "ti": null, "si": null, "i": 1, "bi": null, "f": null, "d": null, "dec": null, "dec38": null, "c": null, "vc": null, "s": null, "bin": null, "vb": null, "by": null, "dt": null, "tm": null, "tm0": null, "ts0": null, "ts3": null, "ts9": null, "ltz3": null, "ltz6": null, "arr": null, "m": null, "ms": null, "r": {"x": null, "y": null}}
{"b": null, "ti": null, "si": null, "i": 2, "bi": null, "f": 3.0, "d": 1.23456789012E11, "dec": null, "dec38": null, "c": null, "vc": null, "s": null, "bin": null, "vb": null, "by": null, "dt": null, "tm": null, "tm0": null, "ts0": null, "ts3": null, "ts9": null, "ltz3": null, "ltz6": null, "arr": null, "m": null, "ms": null, "r": {"x": 1, "y": null}}
EOF
j create --table b --schema b.schema.json
j write --table b --input b.1.jsonl
j write --table b --input b.2.jsonl
ls b/bucket-0/*.orc >/dev/null && ok "append orc: data files are .orc" || fail "append orc: no .orc files"
j read --table b >b.out.jsonl
expect_rows "append orc all types: latest" b.out.jsonl b.expected2.jsonl
j read --table b --snapshot 1 >b.s1.jsonl
expect_rows "append orc all types: --snapshot 1" b.s1.jsonl b.expected1.jsonl

# ------------------------------------------------------------------------------------------------
# (c) primary-key table, bucket 2: delete + upsert in the second commit
cat >c.schema.json <<'EOF'
{"fields":[{"name":"id","type":"INT"},{"name":"v","type":"STRING"},{"name":"n","type":"BIGINT"}],
 "primaryKeys":["id"],"options":{"bucket":"2","file.format":"parquet"}}
EOF
cat >c.1.jsonl <<'EOF'
{"id":1,"v":"one","n":10}
{"id":2,"v":"two","n":20}
{"id":3,"v":"three","n":30}
{"id":4,"v":"four","n":40}
EOF
cat >c.2.jsonl <<'EOF'
{"_kind":"-D","id":2,"v":"two","n":20}
{"_kind":"-U","id":3,"v":"three","n":30}
{"_kind":"+U","id":3,"v":"THREE","n":33}
{"id":4,"v":"FOUR","n":44}
{"_kind":"+I","id":5,"v":"five","n":50}
EOF
cat >c.expected2.jsonl <<'EOF'
{"id": 1, "v": "one", "n": 10}
{"id": 3, "v": "THREE", "n": 33}
{"id": 4, "v": "FOUR", "n": 44}
{"id": 5, "v": "five", "n": 50}
EOF
j create --table c --schema c.schema.json
grep -q '"type" : "INT NOT NULL"' c/schema/schema-0 && ok "pk: key column normalised to NOT NULL" \
  || fail "pk: schema-0 key column"
j write --table c --input c.1.jsonl --commit-user smoke-user --commit-id 1
j write --table c --input c.2.jsonl --commit-user smoke-user --commit-id 2
grep -q '"commitUser" : "smoke-user"' c/snapshot/snapshot-2 && grep -q '"commitIdentifier" : 2' c/snapshot/snapshot-2 \
  && ok "pk: --commit-user/--commit-id recorded" || fail "pk: commit user/id"
j read --table c >c.out.jsonl
expect_rows "pk: -D and upsert applied" c.out.jsonl c.expected2.jsonl
cat >c.expected1.jsonl <<'EOF'
{"id": 1, "v": "one", "n": 10}
{"id": 2, "v": "two", "n": 20}
{"id": 3, "v": "three", "n": 30}
{"id": 4, "v": "four", "n": 40}
EOF
j read --table c --snapshot 1 >c.s1.jsonl
expect_rows "pk: --snapshot 1" c.s1.jsonl c.expected1.jsonl

# ------------------------------------------------------------------------------------------------
# bucket ids (known Java values)
for n in 100 4; do
  echo "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"}],\"options\":{\"bucket\":\"$n\",\"bucket-key\":\"k\"}}" >k$n.json
  j create --table k$n --schema k$n.json
done
echo '{"k":5}' >k5.jsonl
echo '{"k":1}' >k1.jsonl
[ "$(j bucket --table k100 --input k5.jsonl)" = 96 ] && ok "bucket: 100 buckets, k=5 -> 96" || fail "bucket k=5"
[ "$(j bucket --table k4 --input k1.jsonl)" = 2 ] && ok "bucket: 4 buckets, k=1 -> 2" || fail "bucket k=1"
[ "$(j bucket --table c --input c.1.jsonl | wc -l)" = 4 ] && ok "bucket: one line per row" || fail "bucket lines"

# ------------------------------------------------------------------------------------------------
# golden Java-written table (parquet data, orc manifests); expected file uses its own JSON style,
# so compare parsed values.
if [ ! -d "$golden_table" ]; then
  echo "SKIP golden append_09: external golden set not found at $golden: skipped; set FRESHET_GOLDEN_DIR"
else
cp -r "$golden_table" golden
j read --table golden >golden.out.jsonl
python3 - golden.out.jsonl "$golden_expected" <<'PY' || fail "golden append_09: values differ"
import json, sys
def rows(p):
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in open(p) if l.strip())
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a != b:
    print("actual:", *a, "expected:", *b, sep="\n", file=sys.stderr)
    sys.exit(1)
PY
ok "golden append_09 (latest) matches expected values"
fi

# ------------------------------------------------------------------------------------------------
# errors: one line on stderr, non-zero exit
if j read --table does/not/exist >err.out 2>err.txt; then fail "missing table: exit 0"; fi
[ "$(wc -l <err.txt)" = 1 ] && ok "error: one stderr line ($(cat err.txt))" || fail "error output: $(cat err.txt)"
echo '{"id":"x"}' >bad.jsonl
if j write --table c --input bad.jsonl 2>err2.txt; then fail "bad row: exit 0"; fi
[ "$(wc -l <err2.txt)" = 1 ] && ok "error: bad value ($(cat err2.txt))" || fail "bad value output: $(cat err2.txt)"
j --help | grep snapshots >/dev/null && ok "--help lists commands" || fail "--help"

echo "all $pass checks passed"
