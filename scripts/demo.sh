#!/usr/bin/env bash
# The main job: installs what is missing, builds freshet, and runs `freshet demo` (10 s of events
# streamed into a real-time table in the local warehouse ./warehouse, queried before and after
# commits, then checked). Arguments go to the demo (--seconds N, --warehouse DIR).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
FRESHET_SKIP_JAVA=1 scripts/setup.sh
# Only the CLI: tests and benchmarks are not needed to run the demo.
FRESHET_TARGETS=freshet_cli scripts/build.sh | tail -n 3 >&2
exec build/freshet demo "$@"
