#!/usr/bin/env python3
"""Self and inclusive shares of one thread's execution samples over one or more JFR recordings: for start-up
profiles, where one JVM gives too few samples and the question is "how much of the loading thread's time is
under this method", not only which method is on top.

    python3 benchmarks/jfr_inclusive.py [--thread main] [--within LoadAll] [--top 40] a.jfr [b.jfr ...]

Only samples of --thread whose stack has a frame containing --within count (e.g. the timed window of
org.dthreads.benchmarks.startup.LoadAll). Record with a short sampling period for enough samples, e.g. JDK's
profile.jfc with method-sampling-java-interval set to 1 ms.
"""
import argparse
import collections
import json
import subprocess


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--thread", default="main")
    p.add_argument("--within", default="LoadAll")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--jfr", default="jfr")
    p.add_argument("recordings", nargs="+")
    a = p.parse_args()
    own, inclusive, total = collections.Counter(), collections.Counter(), 0
    for recording in a.recordings:
        out = subprocess.run([a.jfr, "print", "--json", "--stack-depth", "256", "--events", "jdk.ExecutionSample",
                              recording], check=True, capture_output=True, text=True).stdout
        for e in json.loads(out)["recording"]["events"]:
            thread = e["values"].get("sampledThread") or {}
            if thread.get("javaName") != a.thread or not e["values"].get("stackTrace"):
                continue
            names = [(f["method"]["type"]["name"] + "." + f["method"]["name"]).replace("/", ".")
                     for f in e["values"]["stackTrace"]["frames"]]
            if not any(a.within in n for n in names):
                continue
            total += 1
            own[names[0]] += 1
            inclusive.update(set(names))
    print(f"{total} samples of thread {a.thread} within {a.within}")
    print("-- self")
    for name, n in own.most_common(a.top):
        print(f"{100 * n / total:5.1f}% {name}")
    print("-- inclusive")
    for name, n in inclusive.most_common(a.top * 2):
        print(f"{100 * n / total:5.1f}% {name}")


if __name__ == "__main__":
    main()
