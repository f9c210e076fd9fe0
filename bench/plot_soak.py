#!/usr/bin/env python3
"""Plots freshet_compaction_soak CSVs: files per bucket and query latency over time.

Usage: plot_soak.py OUT.png LABEL=FILE.csv [LABEL=FILE.csv ...]
One line per CSV in each panel: the fullest bucket's files and sorted runs (top), the reader's
p99 query latency per window (bottom). Needs matplotlib (bench/run_compaction_soak.sh installs it
into a virtual environment of its own).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out = argv[1]
    runs = []
    for arg in argv[2:]:
        label, _, path = arg.partition("=")
        runs.append((label, read(path)))
    fig, (files, latency) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    for label, rows in runs:
        t = [float(r["elapsed_s"]) for r in rows]
        files.plot(t, [int(r["files_per_bucket_max"]) for r in rows], label=f"{label}: files")
        files.plot(t, [int(r["sorted_runs_max"]) for r in rows], linestyle="--",
                   label=f"{label}: sorted runs")
        latency.plot(t, [float(r["query_p99_ms"]) for r in rows], label=f"{label}: p99")
        latency.plot(t, [float(r["query_p50_ms"]) for r in rows], linestyle=":",
                     label=f"{label}: p50")
    files.set_ylabel("fullest bucket")
    files.set_ylim(bottom=0)
    files.legend(loc="upper left", fontsize="small")
    files.grid(alpha=0.3)
    latency.set_ylabel("query latency (ms)")
    latency.set_xlabel("elapsed (s)")
    latency.set_ylim(bottom=0)
    latency.legend(loc="upper left", fontsize="small")
    latency.grid(alpha=0.3)
    fig.suptitle("Compaction soak: one upserting writer, one reader querying the latest snapshot")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv)
