#!/bin/sh
# bigstore.sh: the read side at size. For one loaded native store: how long
# `perfkb serve` takes from its start to its first answer, how long each
# workload query (bench/serve/queries) takes through the server and
# through `perfkb query` (a fresh process per query, opening the store
# each time, before serve holds the store), and serve's RSS before and after wrk on the workload queries.
#
#   bench/serve/bigstore.sh PERFKB STORE_DIR
#
# Environment: PORT (18290), CLIENTS ("16"), DURATION (wrk seconds, 5),
# QUERIES (files; default bench/serve/queries/*.rq), SKIP_CLI (set: no
# `perfkb query` runs),
# GRAPH (http://perfkb.example/bench; the server's default-graph-uri: the
# CLI reads the same data through a FROM clause).
set -eu
[ $# -eq 2 ] || { sed -n 2,12p "$0"; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
PERFKB=$1 STORE=native:$2
PORT=${PORT:-18290}
CLIENTS=${CLIENTS:-16}
DURATION=${DURATION:-5}
GRAPH=${GRAPH:-http://perfkb.example/bench}
QUERIES=${QUERIES:-$repo/bench/serve/queries/*.rq}
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
rss() { awk '/VmRSS|RssAnon|RssFile/ {printf "%s %d MiB ", $1, $2 / 1024}' "/proc/$1/status"; }
ask() { curl -sf -o /dev/null -w '%{time_total}' --max-time 130 --data-urlencode "query@$1" \
	--data-urlencode "default-graph-uri=$GRAPH" -H 'Accept: application/sparql-results+json' \
	"http://127.0.0.1:$PORT/sparql" || echo failed; }
fromq() { # the query with FROM <GRAPH> as its dataset clause (fromq.awk)
	awk -v g="$GRAPH" -f "$repo/bench/serve/fromq.awk" "$1"
}

echo "# store: $2 ($(du -sh "$2" | cut -f1)); load $(cut -d' ' -f1 /proc/loadavg)"
t0=$(now)
"$PERFKB" --store "$STORE" stats >/dev/null
echo "perfkb stats (open, counts, close): $(since "$t0") s"
t0=$(now)
"$PERFKB" --version >/dev/null
echo "process start (perfkb --version): $(since "$t0") s"
# A native store is opened by one process at a time: the CLI runs first.
[ -n "${SKIP_CLI:-}" ] || for q in $QUERIES; do
	fromq "$q" >/tmp/bigstore-q.rq
	t0=$(now)
	"$PERFKB" query --store "$STORE" --timeout 120s /tmp/bigstore-q.rq >/tmp/bigstore-cli.out 2>&1 || true
	echo "$(basename "$q" .rq): perfkb query $(since "$t0") s, $(grep -c '"type"' /tmp/bigstore-cli.out) terms in the answer"
done
t0=$(now)
"$PERFKB" serve --store "$STORE" --addr "127.0.0.1:$PORT" --log-level warn --max-concurrent 64 \
	--timeout 120s --query-memory 2GiB --query-memory-total 8GiB >/tmp/bigstore-serve.log 2>&1 &
pid=$!
# Wait for serve to exit: the next run (or command) opens the same store.
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT INT TERM
until curl -sf "http://127.0.0.1:$PORT/sparql?query=ASK%7B%7D" >/dev/null 2>&1; do
	kill -0 $pid || { cat /tmp/bigstore-serve.log; exit 1; }
	sleep 0.05
done
echo "serve: first answer $(since "$t0") s after start; RSS $(rss $pid)"
for q in $QUERIES; do
	name=$(basename "$q" .rq)
	first=$(ask "$q")
	second=$(ask "$q")
	echo "$name: server ${first} s first, ${second} s warm"
done
echo "serve RSS after one run of each query: $(rss $pid)"
for q in $QUERIES; do
	for c in $CLIENTS; do
		line=$(QUERY_FILE=$q GRAPH=$GRAPH wrk -t 2 -c "$c" -d "${DURATION}s" --timeout 60s \
			-s "$repo/bench/serve/post.lua" "http://127.0.0.1:$PORT/sparql" | grep '^WRK' || echo "WRK failed")
		echo "$(basename "$q" .rq) c=$c: ${line#WRK }"
	done
done
echo "serve RSS after wrk: $(rss $pid); peak $(awk '/VmHWM/ {printf "%d MiB", $2 / 1024}' "/proc/$pid/status")"
# An idle server gives its mapped store pages back after a second
# (backend.QueryEngine.ReleaseWhenIdle).
sleep 3
echo "serve RSS 3 s after wrk: $(rss $pid)"
sleep 7
echo "serve RSS 10 s after wrk: $(rss $pid)"
