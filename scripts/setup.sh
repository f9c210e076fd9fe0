#!/usr/bin/env bash
# Installs everything freshet needs on a fresh Debian machine, idempotently and quickly when all
# is already there: Debian -dev packages, Arrow C++ (the pyarrow wheel in .venv), pypaimon (in
# .venv-pypaimon, which pins an older pyarrow), and the Java Paimon harness (Maven).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/versions.sh

log() { printf '[setup] %s\n' "$*" >&2; }

# 1. Debian packages.
apt_packages=(cmake ninja-build g++ python3-venv libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev
              libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libxxhash-dev libdeflate-dev
              clang-format maven openjdk-17-jdk-headless)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. Arrow C++ from the pyarrow wheel (headers + shared libraries, new C++ ABI).
python=${FRESHET_BOOTSTRAP_PYTHON:-python3}
ensure_venv() {  # ensure_venv DIR PACKAGE==VERSION...
  local dir=$1; shift
  if [ ! -x "$dir/bin/python" ]; then
    log "creating $dir"
    "$python" -m venv "$dir"
  fi
  local want
  for want in "$@"; do
    local name=${want%%==*} version=${want##*==}
    if [ "$("$dir/bin/python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')" != "$version" ]; then
      log "installing $* into $dir"
      "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@"
      return
    fi
  done
}
ensure_venv .venv "pyarrow==$PYARROW_VERSION"
# The wheel ships only versioned sonames (libarrow.so.2600); a linker wants the plain names too.
.venv/bin/python - <<'PY'
import os, pyarrow
d = os.path.dirname(pyarrow.__file__)
for lib in ("arrow", "parquet"):
    versioned = sorted(f for f in os.listdir(d) if f.startswith(f"lib{lib}.so."))[0]
    link = os.path.join(d, f"lib{lib}.so")
    if not os.path.exists(link):
        os.symlink(versioned, link)
PY

# 3. pypaimon, the independent Python reader/writer (it requires pyarrow < 20).
ensure_venv .venv-pypaimon "pypaimon==$PYPAIMON_VERSION"

# 4. The Java Paimon harness (Maven Central; ~/.m2 caches the downloads between runs): the jar
# with Paimon $PAIMON_JAVA_VERSION, the same harness without Paimon, and the paimon-bundle jar of
# every version in $PAIMON_JAVA_FIXTURE_VERSIONS (the interop fixtures run the harness with each).
if [ -f interop/java/pom.xml ] && [ "${FRESHET_SKIP_JAVA:-0}" != 1 ]; then
  jar=interop/java/target/freshet-interop-java.jar
  nopaimon=interop/java/target/freshet-interop-java-nopaimon.jar
  if [ ! -f "$jar" ] || [ ! -f "$nopaimon" ] ||
     [ -n "$(find interop/java/pom.xml interop/java/src -newer "$jar" 2>/dev/null | head -1)" ]; then
    log "building the Java Paimon $PAIMON_JAVA_VERSION harness"
    mvn -q -B -f interop/java/pom.xml -Dpaimon.version="$PAIMON_JAVA_VERSION" package -DskipTests >&2
  fi
  bundles=interop/java/target/paimon-bundles
  for v in $PAIMON_JAVA_FIXTURE_VERSIONS; do
    [ -f "$bundles/paimon-bundle-$v.jar" ] && continue
    log "fetching org.apache.paimon:paimon-bundle:$v"
    mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      -Dartifact="org.apache.paimon:paimon-bundle:$v" -DoutputDirectory="$bundles" >&2
  done
fi
log "ready"
