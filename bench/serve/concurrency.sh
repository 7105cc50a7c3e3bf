#!/bin/sh
# concurrency.sh: wrk at several client counts on the five workload queries
# (bench/serve/queries), against two perfkb binaries served side by side,
# alternating A and B for every query and client count, so that both meet
# the same machine load. Each binary serves its own copy of the store (a
# native store is opened by one process at a time).
#
#   bench/serve/concurrency.sh BIN_A STORE_A BIN_B STORE_B
#
# Prints one line per run: query, clients, binary, req/s, p50, p99,
# errors, the server's CPU-seconds during the run and the load average.
# Environment: CLIENTS ("16 64"), DURATION (wrk seconds, 10), ROUNDS (1:
# how many times the whole A/B sweep repeats), QUERIES (files; default
# bench/serve/queries/*.rq), GRAPH (http://perfkb.example/bench),
# FLAGS_A / FLAGS_B (extra `perfkb serve` flags), PORT_A / PORT_B.
set -eu
[ $# -eq 4 ] || { sed -n 2,16p "$0"; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
CLIENTS=${CLIENTS:-16 64}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-1}
GRAPH=${GRAPH:-http://perfkb.example/bench}
PORT_A=${PORT_A:-18281}
PORT_B=${PORT_B:-18282}
QUERIES=${QUERIES:-$repo/bench/serve/queries/*.rq}
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done' EXIT INT TERM

serve() { # BIN STORE PORT FLAGS
	# shellcheck disable=SC2086
	"$1" serve --store "$2" --addr "127.0.0.1:$3" --log-level warn \
		--max-concurrent 64 --timeout 35s --query-memory 2GiB --query-memory-total 8GiB $4 \
		>"/tmp/concurrency-$3.log" 2>&1 &
	echo $!
}
wait_up() { # PORT PID
	until curl -sf "http://127.0.0.1:$1/sparql?query=ASK%7B%7D" >/dev/null 2>&1; do
		kill -0 "$2" || { cat "/tmp/concurrency-$1.log"; exit 1; }
		sleep 0.2
	done
}
cpu() { # PID: user+system CPU seconds
	awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$1/stat"
}

pa=$(serve "$1" "$2" "$PORT_A" "${FLAGS_A:-}")
pids=$pa
pb=$(serve "$3" "$4" "$PORT_B" "${FLAGS_B:-}")
pids="$pa $pb"
wait_up "$PORT_A" "$pa"
wait_up "$PORT_B" "$pb"
# One untimed pass warms both servers' caches and cost memos.
for q in $QUERIES; do
	for port in "$PORT_A" "$PORT_B"; do
		curl -sf -o /dev/null --data-urlencode "query@$q" --data-urlencode "default-graph-uri=$GRAPH" \
			-H 'Accept: application/sparql-results+json' "http://127.0.0.1:$port/sparql" || true
	done
done
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	r=$((r + 1))
	for q in $QUERIES; do
		for c in $CLIENTS; do
			for side in A B; do
				if [ $side = A ]; then port=$PORT_A pid=$pa; else port=$PORT_B pid=$pb; fi
				c0=$(cpu "$pid")
				line=$(QUERY_FILE=$q GRAPH=$GRAPH wrk -t 2 -c "$c" -d "${DURATION}s" --timeout 30s \
					-s "$repo/bench/serve/post.lua" "http://127.0.0.1:$port/sparql" | grep '^WRK' || echo "WRK failed")
				c1=$(cpu "$pid")
				echo "$(basename "$q" .rq) c=$c $side: ${line#WRK } cpu=$(echo "$c1 - $c0" | bc)s load=$(cut -d' ' -f1 /proc/loadavg)"
			done
		done
	done
done
echo "# peak RSS: A $(($(awk '/VmHWM/ {print $2}' "/proc/$pa/status") / 1024)) MiB, B $(($(awk '/VmHWM/ {print $2}' "/proc/$pb/status") / 1024)) MiB"
