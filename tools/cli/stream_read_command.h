// `freshet read` with --delta, --incremental-between, --with-row-kind, --follow or --scan-mode:
// reads through Table::NewStreamReader (include/freshet/stream.h, docs/streaming-reads.md).
#pragma once

#include "cli/cli.h"

namespace freshet::cli {

// Whether `args` ask for a read through the stream reader.
bool IsStreamRead(const Args& args);
// Runs such a read, printing rows as `freshet read` does (--format, --select, --where, --limit).
Status RunStreamRead(const Args& args);

}  // namespace freshet::cli
