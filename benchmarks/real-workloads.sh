#!/bin/sh
# Issue 16's real-workload baseline in one go (docs/benchmarks.md, "Real workloads (issue 16)").
# Run from the repository root after:
#   ./mvnw -B -o -q -pl dthreads-agent,benchmarks -am package -DskipTests
# PAIRS (default 5) plain + agent JVMs per workload, interleaved; output to stdout.
set -e
PAIRS=${PAIRS:-5}
JAR=benchmarks/target/benchmarks.jar
for w in derby h2 rhino xz startup-h2 startup-derby; do
    java -cp "$JAR" org.dthreads.benchmarks.realworld.PairedJvms "$w" "$PAIRS" || echo "($w failed)"
    echo
done
java -cp "$JAR" org.dthreads.benchmarks.realworld.PairedJvms memory 1 || echo "(memory failed)"
