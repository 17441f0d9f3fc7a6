#!/usr/bin/env bash
# Runs a selection of OpenJDK's own RMI regression tests (test/jdk/java/rmi) with jtreg, once plainly and
# once with the dthreads agent on the test JVM and on every JVM the tests start (RMI's test library passes
# jtreg's -vmoption values to its child JVMs). The tests are not part of this repository: point the script
# at an OpenJDK source checkout (the jdk17u repository, or openjdk/jdk at a JDK 17 tag).
#
#   interop-tests/jtreg/run-openjdk-rmi.sh /path/to/jdk17u [test paths relative to test/jdk ...]
#
# Needs jtreg (Debian: apt-get install jtreg7) and the agent built (./mvnw -B -q -pl dthreads-agent -am
# package -DskipTests). Environment: JAVA_HOME (default: the java on PATH), AGENT (default: this
# repository's dthreads-agent/target/dthreads-agent.jar), WORK (default: target/openjdk-rmi), JTREG_CONCURRENCY
# (default 1: the tests open fixed ports and time out under load). Exit status: 0 when both runs have the
# same failures (none, on a good build), 1 otherwise; each run's summary is printed, reports are under WORK.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jdk_src="${1:?usage: $0 OPENJDK_SOURCE_DIR [TEST_PATH ...]}"
shift
test_root="$jdk_src/test/jdk"
[ -f "$test_root/TEST.ROOT" ] || { echo "no $test_root/TEST.ROOT: not an OpenJDK source checkout" >&2; exit 2; }
agent="$(realpath "${AGENT:-$repo/dthreads-agent/target/dthreads-agent.jar}")"
[ -f "$agent" ] || { echo "no agent at $agent: build it first" >&2; exit 2; }
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
work="${WORK:-$repo/interop-tests/target/openjdk-rmi}"
jtreg_bin="$(command -v jtreg || command -v jtreg7)"

# Default selection: stubs and proxies, exports, registries, DGC, socket factories, hashes, callbacks.
# (Activation was removed in JDK 17; its tests are skipped by their own @requires.)
if [ $# -eq 0 ]; then
    set -- java/rmi/server java/rmi/registry java/rmi/dgc java/rmi/transport java/rmi/Naming \
        java/rmi/MarshalledObject java/rmi/reliability/juicer
fi
tests=()
for t in "$@"; do tests+=("$test_root/$t"); done

run() { # name, extra jtreg options...
    local name="$1"; shift
    echo "== $name"
    "$jtreg_bin" -jdk:"$java_home" -agentvm -conc:"${JTREG_CONCURRENCY:-1}" -timeoutFactor:4 -v:fail,error,summary \
        -w:"$work/$name/work" -r:"$work/$name/report" "$@" "${tests[@]}" > "$work/$name.log" 2>&1 || true
    grep -E '^(Test results|Failed|Error)' "$work/$name.log" || true
    awk '$2 ~ /^(Failed|Error)/ { print $1 }' "$work/$name/report/text/summary.txt" 2>/dev/null | sort > "$work/$name.failed" || true
}

mkdir -p "$work"
run plain
run agent -vmoption:-javaagent:"$agent" -javaoption:-javaagent:"$agent"
if diff -u "$work/plain.failed" "$work/agent.failed"; then
    echo "same results with and without the agent"
else
    echo "different results with the agent (above: - plain only, + agent only); logs under $work" >&2
    exit 1
fi
