#!/bin/sh
# clicost.sh: what one `perfkb query` process costs against the server's
# time for the same query on the same native store (Done-when 4 of issue
# 24: the CLI within 1.2x of the server's time plus process start). Per
# query: RUNS fresh `perfkb query` processes (FROM <GRAPH> added by
# fromq.awk), wall and CPU seconds (user+system) and peak RSS from
# /usr/bin/time; then `perfkb serve` on the store, SRUNS requests per
# query with default-graph-uri (the first is the server's first answer),
# wall seconds from curl and the server's CPU seconds from /proc/PID/stat
# around each request. On a loaded machine compare the CPU seconds.
#
#   bench/serve/clicost.sh PERFKB STORE_DIR QUERY.rq...
#
# Environment: PORT (18467), RUNS ("1 2 3"), SRUNS ("1 2 3"), GRAPH
# (http://perfkb.example/bench). The store's directory gets the derived
# side files a query writes (readside-stats, …): copy a shared store first.
set -eu
[ $# -ge 3 ] || { sed -n 2,17p "$0"; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
PERFKB=$1 STORE=$2
shift 2
PORT=${PORT:-18467}
GRAPH=${GRAPH:-http://perfkb.example/bench}
tmp=$(mktemp -d)
cpu() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$1/stat"; }
echo "# $PERFKB on $STORE; load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%T)"
for i in 1 2 3; do
	/usr/bin/time -f "process start (perfkb --version): %e s wall, %U+%S CPU-s" "$PERFKB" --version 2>&1 >/dev/null
done
for q in "$@"; do
	n=$(basename "$q" .rq)
	awk -v g="$GRAPH" -f "$repo/bench/serve/fromq.awk" "$q" >"$tmp/$n.rq"
	for i in ${RUNS:-1 2 3}; do
		/usr/bin/time -f "$n: perfkb query %e s wall, %U+%S CPU-s, peak RSS %M KiB" \
			"$PERFKB" query --store "native:$STORE" --timeout 120s "$tmp/$n.rq" 2>&1 >/dev/null | tail -n 1
	done
done
"$PERFKB" serve --store "native:$STORE" --addr "127.0.0.1:$PORT" --log-level warn --max-concurrent 64 \
	--timeout 120s --query-memory 2GiB --query-memory-total 8GiB >"$tmp/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM
t0=$(date +%s.%N)
until curl -sf "http://127.0.0.1:$PORT/sparql?query=ASK%7B%7D" >/dev/null 2>&1; do
	kill -0 $pid || { cat "$tmp/serve.log"; exit 1; }
	sleep 0.05
done
echo "serve: first answer $(echo "$(date +%s.%N) - $t0" | bc) s after start"
for q in "$@"; do
	n=$(basename "$q" .rq)
	for i in ${SRUNS:-1 2 3}; do
		c0=$(cpu $pid)
		t=$(curl -sf -o /dev/null -w '%{time_total}' --max-time 130 --data-urlencode "query@$q" \
			--data-urlencode "default-graph-uri=$GRAPH" -H 'Accept: application/sparql-results+json' \
			"http://127.0.0.1:$PORT/sparql" || echo failed)
		echo "$n: server request $i $t s wall, $(echo "$(cpu $pid) - $c0" | bc) CPU-s"
	done
done
echo "# load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%T)"
