#!/bin/sh
# Graph Store Protocol write throughput on the default native: store:
# CLIENTS wrk connections POST N-Triples bodies of TRIPLES_PER_POST triples
# (distinct subjects per request) to /data?graph=..., with the write token,
# for DURATION seconds; then the server is stopped and the store reopened
# to count what was acknowledged against what is stored.
#
#   bench/serve/gsp.sh                        # 32 clients, 1,000-triple bodies
#   TRIPLES_PER_POST=10 bench/serve/gsp.sh
#
# Environment: DATA (work dir, /tmp/perfkb-serve-bench), PERFKB (binary;
# default: go build), BASE_STORE (a native store directory copied as the
# starting state; default: empty), CLIENTS (32), DURATION (20),
# TRIPLES_PER_POST (1000), PK_PORT (18081), PERFKB_FLAGS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
DATA=${DATA:-/tmp/perfkb-serve-bench}
CLIENTS=${CLIENTS:-32}
DURATION=${DURATION:-20}
TRIPLES_PER_POST=${TRIPLES_PER_POST:-1000}
PK_PORT=${PK_PORT:-18081}
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
if [ -z "${PERFKB:-}" ]; then
	PERFKB=$DATA/perfkb
	(cd "$repo" && go build -o "$PERFKB" ./cmd/perfkb)
fi
pk=""
cleanup() { [ -z "$pk" ] || kill "$pk" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

store=$DATA/gsp.db
rm -rf "$store"
if [ -n "${BASE_STORE:-}" ]; then cp -r "$BASE_STORE" "$store"; fi
token=gsp-bench-$$
quads() { "$PERFKB" stats --store "native:$1" | awk '/^ *quads:/ {gsub(",", "", $2); print $2}'; }
before=0
if [ -n "${BASE_STORE:-}" ]; then
	before=$(quads "$store")
fi
PERFKB_TOKEN=$token "$PERFKB" serve --store "native:$store" --addr "127.0.0.1:$PK_PORT" --log-level warn \
	--max-concurrent 64 ${PERFKB_FLAGS:-} >"$DATA/gsp-serve.log" 2>&1 &
pk=$!
until curl -sf -o /dev/null "http://127.0.0.1:$PK_PORT/sparql?query=ASK%7B%7D"; do
	kill -0 $pk || { cat "$DATA/gsp-serve.log"; exit 1; }
	sleep 0.1
done
echo "# GSP POST: $CLIENTS connections, ${DURATION}s, $TRIPLES_PER_POST triples per request (load average $(cut -d' ' -f1-3 /proc/loadavg))"
cpu0=$(awk '{print $14 + $15}' /proc/$pk/stat)
line=$(TOKEN=$token TRIPLES_PER_POST=$TRIPLES_PER_POST wrk -t 2 -c "$CLIENTS" -d "${DURATION}s" --timeout 30s \
	-s "$here/gsp.lua" "http://127.0.0.1:$PK_PORT/data?graph=http%3A%2F%2Fperfkb.example%2Fgsp" | grep '^WRK')
cpu1=$(awk '{print $14 + $15}' /proc/$pk/stat)
echo "perfkb: ${line#WRK } triples/s=$(echo "${line#*req/s=}" | awk -v n="$TRIPLES_PER_POST" '{printf "%.0f", $1 * n}')"
echo "# server CPU: $(echo "($cpu1 - $cpu0) / $(getconf CLK_TCK)" | bc -l | xargs printf '%.1f') s over ${DURATION} s; peak RSS $(($(awk '/VmHWM/ {print $2}' /proc/$pk/status) / 1024)) MiB"
kill "$pk"
wait "$pk" 2>/dev/null || true
pk=""
requests=$(echo "$line" | sed 's/.*requests=//')
after=$(quads "$store")
echo "# stored after restart: $((after - before)) triples added; completed requests × $TRIPLES_PER_POST = $((requests * TRIPLES_PER_POST)) (requests in flight at the end may add more)"
