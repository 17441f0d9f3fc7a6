#!/usr/bin/env python3
"""Chart issue 16's real workloads: agent/plain per pair, from PairedJvms --csv rows.

    java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.realworld.PairedJvms derby 6 --csv=rw.csv
    ...  (the other workloads into the same file)
    python3 benchmarks/realworld_chart.py rw.csv docs/img/realworld.png --title "..."

One row per workload and measure (timed round, process CPU per round, GC pauses of the whole JVM): a dot per
pair in which both JVMs passed (plain and agent run back to back, so a pair shares the machine's state), a bar
at the pairs' median, and the issue's goal as a vertical tick. Prints the same numbers as a Markdown table.
Needs matplotlib (pip install matplotlib).
"""
import argparse
import csv
import statistics
import sys

MEASURES = [("round_ms", "timed round"), ("cpu_ms", "CPU per round"), ("gc_pause_ms", "GC pauses, whole JVM")]
# issue 16's goals: time per round for each workload, GC pauses for Derby
GOALS = {("derby", "round_ms"): 1.10, ("derby", "gc_pause_ms"): 1.20, ("h2", "round_ms"): 1.05,
         ("rhino", "round_ms"): 1.05, ("xz", "round_ms"): 1.00}
ORDER = ["derby", "h2", "rhino", "xz"]


def pair_ratios(rows):
    """{(workload, measure): [agent/plain per pair]} over pairs in which both JVMs passed."""
    by_pair = {}
    for r in rows:
        by_pair.setdefault((r["workload"], r["pair"]), {})[r["side"]] = r
    out = {}
    for (workload, _), sides in sorted(by_pair.items()):
        p, a = sides.get("plain"), sides.get("agent")
        if not p or not a or p["ok"] != "true" or a["ok"] != "true":
            continue
        for key, _ in MEASURES:
            if float(p[key]) > 0 and float(a[key]) > 0:
                out.setdefault((workload, key), []).append(float(a[key]) / float(p[key]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", required=True)
    args = parser.parse_args()
    with open(args.csv) as f:
        ratios = pair_ratios(list(csv.DictReader(f)))
    workloads = [w for w in ORDER if any(k[0] == w for k in ratios)]
    workloads += sorted({k[0] for k in ratios} - set(workloads))
    rows = [(w, key, label) for w in workloads for key, label in MEASURES if (w, key) in ratios]
    if not rows:
        sys.exit("no pair in which both JVMs passed")

    print("| workload | measure | pairs | per-pair agent/plain: median (min-max) | goal |")
    print("| --- | --- | --- | --- | --- |")
    for w, key, label in rows:
        v = ratios[(w, key)]
        goal = GOALS.get((w, key))
        print(f"| {w} | {label} | {len(v)} | {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f}) | "
              f"{'<= %.2fx' % goal if goal else '-'} |")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colours = {"round_ms": "tab:blue", "cpu_ms": "tab:orange", "gc_pause_ms": "tab:grey"}
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(rows) + 1.4))
    for i, (w, key, label) in enumerate(rows):
        y = len(rows) - 1 - i
        v = ratios[(w, key)]
        ax.scatter(v, [y] * len(v), s=14, color=colours[key], alpha=0.6, zorder=3)
        ax.plot([statistics.median(v)] * 2, [y - 0.3, y + 0.3], color=colours[key], linewidth=2.5, zorder=4)
        goal = GOALS.get((w, key))
        if goal:
            ax.plot([goal, goal], [y - 0.4, y + 0.4], color="green", linestyle="--", linewidth=1.2, zorder=2)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{w}: {label}" for w, _, label in reversed(rows)])
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("agent / plain, per pair of JVMs (dots), median (bar); green dashes: the issue's goal")
    ax.set_title(args.title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
