#!/usr/bin/env bash
# Installs freshet into a temporary prefix, builds a downstream project against it with
# find_package(freshet), and runs it.
set -euo pipefail
trap 'echo "install_test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
build_dir=$1
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/freshet/status.h"
test -x "$work/prefix/bin/freshet"
# No RPATH of the install names a directory of the build machine (relative or Arrow's own prefix
# when Arrow came from find_package), and the wheel's Arrow, when used, is installed beside.
for binary in "$work/prefix/bin/freshet" "$work/prefix"/lib*/libfreshet.so; do
  runpath=$(readelf -d "$binary" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p')
  case "$runpath" in
    *"$build_dir"* | *"/.venv/"*) echo "install_test: $binary has RPATH $runpath" >&2; exit 1 ;;
  esac
done
if ! grep -q '^Arrow_DIR:PATH=/' "$build_dir/CMakeCache.txt"; then  # Arrow from the wheel
  # ldd's output is captured first: `grep -q` closing the pipe early would fail it under pipefail.
  libraries=$(ldd "$work/prefix/bin/freshet")
  grep -q "libarrow.*$work/prefix" <<<"$libraries" ||
    { echo "install_test: the installed CLI does not load the installed Arrow" >&2; exit 1; }
fi
# libfreshet.so exports the public API only (include/freshet/export.h, cmake/libfreshet.map): no
# symbol of Arrow, Parquet, nlohmann::json or the standard library, and nothing of freshet's
# internal namespaces. The exceptions are Arrow's CRC-32 and codec factory, which freshet replaces
# for Parquet (src/format/parquet_page_crc.h, src/format/zstd_codec.h).
for lib in "$work/prefix"/lib*/libfreshet.so; do
  leaked=$(nm -DC --defined-only "$lib" | cut -c20- | grep -Ev \
    '^(freshet::|typeinfo for freshet::|typeinfo name for freshet::|vtable for freshet::|arrow::internal::crc32\(|arrow::util::Codec::Create\()' \
    || true)
  internal=$(nm -DC --defined-only "$lib" | cut -c20- | grep -E \
    'freshet::(common|io|container|meta|bridge|format|catalog|scan|write|commit|read)::|::Impl::|freshet::realtime::(RealtimeWrite|PartitionBucketSlot|ProgressResolver|InternalImpl)' \
    || true)
  if [ -n "$leaked$internal" ]; then
    echo "install_test: $lib exports more than the public API:" >&2
    printf '%s\n' "$leaked" "$internal" | sed '/^$/d' | head -20 >&2
    exit 1
  fi
done
# A sanitizer build's library needs its runtime first in the program: build the downstream
# project with the same sanitizer flags.
sanitize=$(sed -n 's/^FRESHET_SANITIZE:STRING=//p' "$build_dir/CMakeCache.txt")
flags=""
case "$sanitize" in
  address) flags="-fsanitize=address,undefined" ;;
  thread) flags="-fsanitize=thread" ;;
esac
cmake -S "$source_dir/downstream" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/downstream"
"$work/prefix/bin/freshet" --version
echo "install_test: ok"
