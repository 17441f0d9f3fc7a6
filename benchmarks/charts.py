#!/usr/bin/env python3
"""Draw PNG charts for docs/benchmarks.md from JMH JSON results.

Each chart compares benchmarks in pairs, anchor first: the bar is variant/anchor (1.0 = same cost),
with the JMH error interval propagated. Pairs are given as regular expressions with one group that
names the row, e.g. for the paper's Table 1:

    python3 benchmarks/charts.py table1.json docs/img/table1.png \
        --title "Universal extra argument vs dthreads (Table 1)" \
        --anchor 'Table1Benchmark\\.params(\\d)Base' --variant 'Table1Benchmark\\.params(\\d)Extra' \
        --label '{} int params'

Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import re
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    results = {}
    for entry in data:
        name = entry["benchmark"].split(".")[-2] + "." + entry["benchmark"].split(".")[-1]
        metric = entry["primaryMetric"]
        results[name] = (metric["score"], metric.get("scoreError", 0.0) or 0.0, metric["scoreUnit"])
    return results


def pairs(results, anchor, variant):
    rows = {}
    for name, value in results.items():
        a = re.fullmatch(anchor, name)
        v = re.fullmatch(variant, name)
        if a:
            rows.setdefault(a.group(1), {})["anchor"] = value
        if v:
            rows.setdefault(v.group(1), {})["variant"] = value
    out = []
    for key in sorted(rows):
        r = rows[key]
        if "anchor" in r and "variant" in r:
            (sa, ea, _), (sv, ev, _) = r["anchor"], r["variant"]
            ratio = sv / sa
            # first-order propagation of the two relative errors
            err = ratio * ((ea / sa) ** 2 + (ev / sv) ** 2) ** 0.5
            out.append((key, ratio, err))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json")
    parser.add_argument("png")
    parser.add_argument("--title", required=True)
    parser.add_argument("--anchor", required=True)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--label", default="{}")
    parser.add_argument("--goal", type=float, default=None, help="draw a goal line at this ratio")
    args = parser.parse_args()

    rows = pairs(load(args.json), args.anchor, args.variant)
    if not rows:
        sys.exit("charts.py: no anchor/variant pairs matched in " + args.json)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [args.label.format(k) for k, _, _ in rows]
    ratios = [r for _, r, _ in rows]
    errors = [e for _, _, e in rows]
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    bars = ax.bar(labels, ratios, yerr=errors, capsize=4, color="#4c72b0")
    ax.axhline(1.0, color="black", linewidth=0.8)
    if args.goal:
        ax.axhline(args.goal, color="#c44e52", linestyle="--", linewidth=0.8, label=f"goal {args.goal:g}x")
        ax.legend(loc="upper left")
    for bar, ratio, err in zip(bars, ratios, errors):
        ax.annotate(f"{ratio:.2f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height() + err),
                    ha="center", va="bottom", fontsize=8, xytext=(0, 3), textcoords="offset points")
    ax.set_ylabel("variant / anchor")
    ax.set_title(args.title, fontsize=10)
    ax.set_ylim(0, max(max(ratios) + max(errors), args.goal or 0) * 1.2)
    fig.tight_layout()
    fig.savefig(args.png)
    for (k, r, e) in rows:
        print(f"{args.label.format(k)}: {r:.3f} +- {e:.3f}")


if __name__ == "__main__":
    main()
