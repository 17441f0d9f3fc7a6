#!/usr/bin/env python3
"""Summarise a JFR recording: top methods by execution samples (top frame), the share of samples with
a dthreads frame on top and anywhere in the stack, and GC pause totals.

    python3 benchmarks/jfr_top.py recording.jfr [top=25] [jfr=jfr]

Uses `jfr print --json` (JDK 17's jfr works; any newer jfr reads the file too).
"""
import collections
import json
import subprocess
import sys


def events(jfr, recording, name, depth):
    out = subprocess.run([jfr, "print", "--json", "--stack-depth", str(depth), "--events", name, recording],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["recording"]["events"]


def frame_name(frame):
    method = frame["method"]
    return (method["type"]["name"] + "." + method["name"]).replace("/", ".")


CATEGORIES = [("dthreads monitor runtime", "org.dthreads.monitor."), ("dthreads agent (rewriting classes)", "org.dthreads.agent."),
              ("benchmark harness", "org.dthreads.benchmarks."), ("other dthreads", "org.dthreads."), ("JDK", ("java.", "jdk.", "sun."))]


def is_dthreads(name):
    return name.startswith("org.dthreads.") and not name.startswith("org.dthreads.benchmarks.")


def category(name):
    for label, prefix in CATEGORIES:
        if name.startswith(prefix):
            return label
    return "application"


def main():
    recording = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    jfr = sys.argv[3] if len(sys.argv) > 3 else "jfr"
    samples = events(jfr, recording, "jdk.ExecutionSample", 64)
    tops = collections.Counter()
    categories = collections.Counter()
    dthreads_top = 0
    dthreads_any = 0
    for e in samples:
        frames = (e["values"].get("stackTrace") or {}).get("frames") or []
        if not frames:
            continue
        tops[frame_name(frames[0])] += 1
        categories[category(frame_name(frames[0]))] += 1
        if is_dthreads(frame_name(frames[0])):
            dthreads_top += 1
        if any(is_dthreads(frame_name(f)) for f in frames):
            dthreads_any += 1
    n = max(1, sum(tops.values()))
    print(f"{n} execution samples; dthreads frame on top: {100 * dthreads_top / n:.1f}%, "
          f"anywhere in the stack (64 frames): {100 * dthreads_any / n:.1f}%")
    print("top frame by kind: " + ", ".join(f"{label} {100 * c / n:.1f}%" for label, c in categories.most_common()))
    print("| samples | share | top frame |")
    print("| --- | --- | --- |")
    for method, count in tops.most_common(top):
        print(f"| {count} | {100 * count / n:.1f}% | `{method}` |")
    pauses = events(jfr, recording, "jdk.GCPhasePause", 1)
    total_ms = 0.0
    for e in pauses:
        d = e["values"]["duration"]  # ISO-8601, e.g. PT0.002914S
        total_ms += float(d[2:-1]) * 1000 if d.startswith("PT") and d.endswith("S") else 0.0
    print(f"GC pauses (jdk.GCPhasePause): {len(pauses)}, total {total_ms:.1f} ms")


if __name__ == "__main__":
    main()
