#!/usr/bin/env bash
# ctest fixture setup (FIXTURES_SETUP java_fixtures): writes the tables of every Java Paimon
# version that scripts/setup.sh fetched, with the Java harness compiled once and each version's
# paimon-bundle jar on the class path (docs/interop-tests.md, "Tables of every Java Paimon
# version"). Fails (never skips) with the setup hint when the harness or the bundles are missing.
#
# Usage: java_fixtures.sh <repo root> <output dir>
# Output: <output dir>/<version>/ (see `fixtures` in interop/README.md; its primary-key tables
# re-read by the newest version in <version>/pk/newest/), <output dir>/VERSIONS
# (one version a line) and <output dir>/vectors (the bucket-id vectors of the newest version).
# A version's directory is reused while its DONE file is newer than the harness jar and the bundle,
# so a second run takes a moment. FRESHET_JAVA_FIXTURE_JOBS: JVMs at a time (default 2).
set -euo pipefail
root=$1
out=$2
jar=${FRESHET_INTEROP_NOPAIMON_JAR:-$root/interop/java/target/freshet-interop-java-nopaimon.jar}
bundles=${FRESHET_PAIMON_BUNDLES:-$root/interop/java/target/paimon-bundles}
hint="run scripts/setup.sh (it builds the Java harness and fetches the Paimon bundles)"
if [ ! -f "$jar" ]; then
  echo "FAIL: Java harness jar $jar is missing - $hint" >&2
  exit 1
fi
shopt -s nullglob
jars=("$bundles"/paimon-bundle-*.jar)
if ((${#jars[@]} == 0)); then
  echo "FAIL: no paimon-bundle-*.jar in $bundles - $hint" >&2
  exit 1
fi
mkdir -p "$out"
start=$SECONDS
versions=()
pids=()
failed=()
jobs_max=${FRESHET_JAVA_FIXTURE_JOBS:-2}

# Waits for the oldest running JVM and records a failure.
reap() {
  local pid=${pids[0]} v=${run_versions[0]}
  pids=("${pids[@]:1}")
  run_versions=("${run_versions[@]:1}")
  if wait "$pid"; then
    echo "$v: written in $(cat "$out/$v.seconds") s"
  else
    failed+=("$v")
    echo "FAIL: Paimon $v: fixtures failed; the JVM said:" >&2
    tail -n 20 "$out/$v.log" >&2
  fi
}

# True when $1 is one of the other arguments. (Not `printf | grep -q`: under pipefail, grep
# stopping at its first match can fail the pipeline by SIGPIPE, and a version's tables were
# deleted that way.)
contains() {
  local wanted=$1 item
  shift
  for item in "$@"; do [ "$item" = "$wanted" ] && return 0; done
  return 1
}

run_versions=()
for bundle in "${jars[@]}"; do
  v=$(basename "$bundle" .jar)
  v=${v#paimon-bundle-}
  versions+=("$v")
  if [ -f "$out/$v/DONE" ] && [ "$out/$v/DONE" -nt "$jar" ] && [ "$out/$v/DONE" -nt "$bundle" ]; then
    echo "$v: up to date"
    continue
  fi
  rm -rf "${out:?}/$v" "$out/$v.log"
  while ((${#pids[@]} >= jobs_max)); do reap; done
  (
    s=$SECONDS
    nice java -cp "$jar:$bundle" dev.freshet.interop.Main fixtures --dir "$out/$v" >"$out/$v.log" 2>&1
    echo $((SECONDS - s)) >"$out/$v.seconds"
  ) &
  pids+=("$!")
  run_versions+=("$v")
done
while ((${#pids[@]} > 0)); do reap; done

# Versions no longer fetched are dropped, so the readers check exactly the bundles present.
for dir in "$out"/*/; do
  v=$(basename "$dir")
  [ "$v" = vectors ] && continue
  contains "$v" "${versions[@]}" || rm -rf "${out:?}/$v"
done
printf '%s\n' "${versions[@]}" | sort -V >"$out/VERSIONS"
newest=$(tail -n 1 "$out/VERSIONS")
# The newest version reads every snapshot of the older versions' primary-key tables (pk/newest/):
# what freshet must return (older versions read some of their own tables differently). One JVM
# for all stale directories.
newest_bundle="$bundles/paimon-bundle-$newest.jar"
reread=()
while read -r v; do
  [ "$v" = "$newest" ] && continue
  contains "$v" "${failed[@]}" && continue
  done_file="$out/$v/pk/newest/DONE"
  if [ -f "$done_file" ] && [ "$done_file" -nt "$out/$v/DONE" ] && [ "$done_file" -nt "$jar" ] &&
    [ "$done_file" -nt "$newest_bundle" ] && [ "$(cat "$done_file")" = "$newest" ]; then
    continue
  fi
  reread+=("$out/$v")
done <"$out/VERSIONS"
if ((${#reread[@]})); then
  s=$SECONDS
  dirs=$(IFS=,; echo "${reread[*]}")
  if nice java -cp "$jar:$newest_bundle" dev.freshet.interop.Main pk-reread --dirs "$dirs" \
    >"$out/pk-reread.log" 2>&1; then
    echo "Paimon $newest re-read the primary-key tables of ${#reread[@]} versions in $((SECONDS - s)) s"
  else
    failed+=("pk-reread")
    echo "FAIL: Paimon $newest could not re-read the primary-key tables; the JVM said:" >&2
    tail -n 20 "$out/pk-reread.log" >&2
  fi
fi
if [ -d "$out/$newest/vectors" ]; then
  rm -rf "$out/vectors"
  cp -r "$out/$newest/vectors" "$out/vectors"
fi
echo "Java Paimon fixtures of ${#versions[@]} versions ($(tr '\n' ' ' <"$out/VERSIONS")) in $out, $((SECONDS - start)) s"
if ((${#failed[@]})); then
  echo "FAIL: the fixtures of Paimon ${failed[*]} could not be written" >&2
  exit 1
fi
