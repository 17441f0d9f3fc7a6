#!/usr/bin/env python3
"""Draw PNG charts for docs/benchmarks.md from JMH JSON results.

Each chart compares benchmarks in pairs, anchor first: the bar is variant/anchor (1.0 = same cost),
with the JMH error interval propagated. Pairs are given as regular expressions with one group that
names the row, e.g. for the paper's Table 1:

    python3 benchmarks/charts.py table1.json docs/img/table1.png \
        --title "Universal extra argument vs dthreads (Table 1)" \
        --anchor 'Table1Benchmark\\.params(\\d)Base' --variant 'Table1Benchmark\\.params(\\d)Extra' \
        --label '{} int params'

and, for a benchmark with @Param values, "Class.method:param=value" names, e.g. the paper's Table 2:

    python3 benchmarks/charts.py docs/results/table2.json docs/img/table2.png \
        --title "Table 2" --anchor 'Table2Benchmark\\.original:library=(\\w+)' \
        --variant 'Table2Benchmark\\.extraArgument:library=(\\w+)' \
        --variant 'Table2Benchmark\\.dthreads:library=(\\w+)' --variant-name "extra argument" --variant-name dthreads

Several --variant options draw grouped bars (one colour each, named by --variant-name).

Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import re
import sys


def load(path, median=False):
    with open(path) as f:
        data = json.load(f)
    results = {}
    for entry in data:
        name = entry["benchmark"].split(".")[-2] + "." + entry["benchmark"].split(".")[-1]
        metric = entry["primaryMetric"]
        value = (metric["score"], metric.get("scoreError", 0.0) or 0.0, metric["scoreUnit"])
        if median:
            # median of every measured iteration of every fork, error: half the interquartile range
            xs = sorted(x for fork in metric["rawData"] for x in fork)
            q = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))]
            value = (q(0.5), (q(0.75) - q(0.25)) / 2, metric["scoreUnit"])
        results[name] = value
        # With @Param values, also under "Class.method:name=value,..." (Table 2: --anchor 'Table2Benchmark\.original:library=(\w+)')
        params = entry.get("params") or {}
        if params:
            results[name + ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))] = value
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
    parser.add_argument("--variant", required=True, action="append")
    parser.add_argument("--variant-name", action="append", default=[], help="legend entry per --variant")
    parser.add_argument("--label", default="{}")
    parser.add_argument("--median", action="store_true",
                        help="median of the measured iterations instead of JMH's mean (error: half the IQR)")
    parser.add_argument("--goal", type=float, default=None, help="draw a goal line at this ratio")
    args = parser.parse_args()

    results = load(args.json, args.median)
    series = [pairs(results, args.anchor, v) for v in args.variant]
    if not any(series):
        sys.exit("charts.py: no anchor/variant pairs matched in " + args.json)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted({k for rows in series for k, _, _ in rows})
    labels = [args.label.format(k) for k in keys]
    colours = ["#4c72b0", "#dd8452", "#55a868", "#8172b3"]
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    top = 0.0
    for i, rows in enumerate(series):
        by_key = {k: (r, e) for k, r, e in rows}
        xs = [j + (i - (len(series) - 1) / 2) * width for j, k in enumerate(keys) if k in by_key]
        ratios = [by_key[k][0] for k in keys if k in by_key]
        errors = [by_key[k][1] for k in keys if k in by_key]
        name = args.variant_name[i] if i < len(args.variant_name) else None
        bars = ax.bar(xs, ratios, width=width * 0.95, yerr=errors, capsize=4, color=colours[i % len(colours)], label=name)
        for bar, ratio, err in zip(bars, ratios, errors):
            ax.annotate(f"{ratio:.2f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height() + err),
                        ha="center", va="bottom", fontsize=8, xytext=(0, 3), textcoords="offset points")
        top = max([top] + [r + e for r, e in zip(ratios, errors)])
        for k, r, e in rows:
            prefix = (name + " ") if name else ""
            print(f"{prefix}{args.label.format(k)}: {r:.3f} +- {e:.3f}")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(labels)
    ax.axhline(1.0, color="black", linewidth=0.8)
    if args.goal:
        ax.axhline(args.goal, color="#c44e52", linestyle="--", linewidth=0.8, label=f"goal {args.goal:g}x")
    if args.goal or args.variant_name:
        ax.legend(loc="upper left", fontsize=8)
    ax.set_ylabel("variant / anchor")
    ax.set_title(args.title, fontsize=10)
    ax.set_ylim(0, max(top, args.goal or 0) * 1.2)
    fig.tight_layout()
    fig.savefig(args.png)


if __name__ == "__main__":
    main()
