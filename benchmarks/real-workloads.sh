#!/bin/sh
# Issue 16's real workloads in one go (docs/benchmarks.md, "Real workloads (issue 16)").
# Run from the repository root after:
#   ./mvnw -B -o -q -pl dthreads-agent,benchmarks -am package -DskipTests
# PAIRS (default 5) plain + agent JVMs per workload, interleaved; output to stdout.
# CSV (optional): a file that collects one row per JVM; then the chart, e.g.
#   CSV=/tmp/rw.csv benchmarks/real-workloads.sh
#   python3 benchmarks/realworld_chart.py /tmp/rw.csv docs/img/realworld.png --title "agent / plain"
set -e
PAIRS=${PAIRS:-5}
JAR=benchmarks/target/benchmarks.jar
CSV_FLAG=${CSV:+--csv=$CSV}
for w in derby h2 rhino xz startup-h2 startup-derby; do
    java -cp "$JAR" org.dthreads.benchmarks.realworld.PairedJvms "$w" "$PAIRS" $CSV_FLAG || echo "($w failed)"
    echo
done
java -cp "$JAR" org.dthreads.benchmarks.realworld.PairedJvms memory 1 || echo "(memory failed)"
