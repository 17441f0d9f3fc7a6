#!/usr/bin/env bash
# Runs the auction: the server and the bidders' client in two JVMs, both with the dthreads agent.
#   examples/rmi-auction/run.sh                      with dthreads: the auction completes
#   examples/rmi-auction/run.sh --without-dthreads   plain JVMs: the first callback deadlocks; after
#                                                    10 s the threads holding the auction are printed
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
AGENT="$ROOT/dthreads-agent/target/dthreads-agent.jar"
CLASSES="$HERE/target/classes"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
BOUND="${AUCTION_TIMEOUT:-10}"

agent=("-javaagent:$AGENT")
case "${1:-}" in
  --without-dthreads) agent=() ;;
  "") ;;
  *) echo "usage: $0 [--without-dthreads]" >&2; exit 2 ;;
esac

if [ ! -f "$AGENT" ] || [ ! -d "$CLASSES/example/auction" ]; then
  echo "building the agent and the example (./mvnw -B -q -pl examples/rmi-auction -am package -DskipTests) ..." >&2
  (cd "$ROOT" && ./mvnw -B -q -pl examples/rmi-auction -am package -DskipTests)
fi

port="${AUCTION_PORT:-$((20000 + RANDOM % 20000))}"
out="$(mktemp)"
server=""; client=""
cleanup() {
  [ -n "$client" ] && kill "$client" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -f "$out"
}
trap cleanup EXIT

"$JAVA" ${agent[@]+"${agent[@]}"} -cp "$CLASSES" example.auction.AuctionServer "$port" >"$out" 2>&1 &
server=$!
for _ in $(seq 100); do
  grep -q "auction ready" "$out" && break
  kill -0 "$server" 2>/dev/null || { cat "$out" >&2; echo "the server did not start" >&2; exit 1; }
  sleep 0.2
done
cat "$out"

"$JAVA" ${agent[@]+"${agent[@]}"} -cp "$CLASSES" example.auction.Bidder localhost "$port" &
client=$!
for _ in $(seq $((BOUND * 5))); do
  if ! kill -0 "$client" 2>/dev/null; then
    wait "$client"; rc=$?; client=""
    exit "$rc"
  fi
  sleep 0.2
done

echo "no progress for ${BOUND} s: the auction is deadlocked. Its threads (jstack), server then client:" >&2
for pid in "$server" "$client"; do
  echo "----- pid $pid" >&2
  # the paragraphs of the threads running the example's code
  "${JAVA%java}jstack" "$pid" 2>/dev/null | awk -v RS= '/example\.auction/ { print; print "" }' >&2 || true
done
exit 1
