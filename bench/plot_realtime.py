#!/usr/bin/env python3
"""Plots the raw samples of freshet_realtime_bench --samples DIR (docs/benchmarks.md).

Usage: plot_realtime.py SAMPLES_DIR OUT_DIR

One PNG per CSV the run wrote (steps not run are skipped):
  visible.csv -> realtime-visible-cdf.png  write-to-visible latency CDF, same thread and query
                                             thread
  ingest.csv  -> realtime-ingest.png       rows accepted by Write over time, and the end of
                                             the commit, real-time vs plain, per run
  stall.csv   -> realtime-stall.png        latency of every Write during a 1 GiB real-time
                                             flush vs every Write of a plain writer
  plan.csv    -> realtime-plan.png         planning time of a committed-only point query vs
                                             live files: full decode, after one commit, warm
Needs matplotlib (bench/run_realtime_bench.sh installs it into .venv-bench).
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_visible(rows, out):
    by_kind = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(float(r["us"]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for kind, values in sorted(by_kind.items()):
        values.sort()
        n = len(values)
        ax.plot(values, [(i + 1) / n for i in range(n)], label=f"{kind} ({n} writes)")
    ax.set_xscale("log")
    ax.set_xlabel("write-to-visible latency (µs, log scale)")
    ax.set_ylabel("fraction of writes")
    ax.set_title("Write start to the row returned by a query")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plot_ingest(rows, out):
    runs = defaultdict(list)
    for r in rows:
        runs[(r["mode"], int(r["run"]))].append(r)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = {"plain": "tab:blue", "realtime": "tab:orange"}
    for (mode, run), events in sorted(runs.items()):
        written = [(float(e["s"]), int(e["rows"])) for e in events if e["event"] == "written"]
        committed = [(float(e["s"]), int(e["rows"])) for e in events if e["event"] == "committed"]
        label = mode if run == 1 else None
        ax.plot([0] + [s for s, _ in written], [0] + [n for _, n in written],
                color=colors.get(mode), alpha=0.8, label=label and f"{mode}: rows accepted by Write")
        for s, n in committed:
            ax.plot([written[-1][0], s], [n, n], color=colors.get(mode), linestyle=":", alpha=0.8)
            ax.scatter([s], [n], color=colors.get(mode), marker="o", zorder=3,
                       label=label and f"{mode}: commit returned")
    ax.set_xlabel("seconds since the table was created (batch generation excluded)")
    ax.set_ylabel("rows")
    ax.set_title("Ingest over time, every run")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plot_stall(rows, out):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    realtime = [(float(r["s"]), float(r["us"])) for r in rows if r["writer"] == "realtime"]
    plain = [(float(r["s"]), float(r["us"])) for r in rows if r["writer"] == "plain"]
    commit = [(float(r["s"]), float(r["us"])) for r in rows if r["writer"] == "plain-commit"]
    if plain:
        ax.scatter([s for s, _ in plain], [us for _, us in plain], s=4, color="tab:blue",
                   label="plain writer: every Write (encodes as it goes)")
    if commit:
        s, us = commit[0]
        ax.scatter([s], [us], s=30, color="tab:blue", marker="x", label="plain writer: Commit")
    if realtime:
        ax.scatter([s for s, _ in realtime], [us for _, us in realtime], s=6, color="tab:orange",
                   label="real-time writer: Writes while another thread's Commit flushes")
    ax.set_yscale("log")
    ax.set_xlabel("seconds (real-time: since the commit began; plain: Write time so far)")
    ax.set_ylabel("call latency (µs, log scale)")
    ax.set_title("Write latency during a flush")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plot_plan(rows, out):
    files = [int(r["files"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(files, [float(r["full_decode_us"]) for r in rows], marker="o",
            label="full decode (the plan cache many commits behind)")
    ax.plot(files, [float(r["after_commit_us"]) for r in rows], marker="o",
            label="first query after one commit (cache advanced by its delta)")
    ax.plot(files, [float(r["warm_us"]) for r in rows], marker="o",
            label="warm (same snapshot), median of 9")
    ax.set_xlabel("live data files")
    ax.set_yscale("log")
    ax.set_ylabel("query time (µs, log scale)")
    ax.set_title("Committed-only point query: planning vs live files")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    samples, out_dir = argv[1], argv[2]
    os.makedirs(out_dir, exist_ok=True)
    plots = [("visible.csv", "realtime-visible-cdf.png", plot_visible),
             ("ingest.csv", "realtime-ingest.png", plot_ingest),
             ("stall.csv", "realtime-stall.png", plot_stall),
             ("plan.csv", "realtime-plan.png", plot_plan)]
    for name, png, plot in plots:
        path = os.path.join(samples, name)
        if not os.path.exists(path):
            continue
        plot(read(path), os.path.join(out_dir, png))
        print(f"wrote {os.path.join(out_dir, png)}")


if __name__ == "__main__":
    main(sys.argv)
