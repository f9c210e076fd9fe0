#!/usr/bin/env bash
# The main job: installs what is missing, builds freshet, and runs `freshet demo` (a table in the
# local warehouse ./warehouse: create, write, read back, time travel). Arguments go to the demo.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
FRESHET_SKIP_JAVA=1 scripts/setup.sh
scripts/build.sh | tail -n 3 >&2
exec build/freshet demo "$@"
