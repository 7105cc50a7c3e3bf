#!/bin/sh
# Side-by-side harness: perfkb serve on the default native: store against
# OpenLink Virtuoso 7 (Debian's virtuoso-opensource), both on loopback, the
# same perfkb sample file bulk-loaded into each, the same client, queries and
# protocol. Prints a Markdown table (median of RUNS after a warm-up, and the
# perfkb/Virtuoso ratio), a wrk throughput run on Fig. 6.29, and Graph
# Store Protocol POST throughput on perfkb (gsp.sh: 1,000- and 10-triple
# bodies).
#
#   bench/serve/run.sh                     # 1M triples, data in /tmp/perfkb-serve-bench
#   TRIPLES=10000000 RUNS=5 bench/serve/run.sh
#
# Needs: virtuoso-opensource, wrk, python3 (apt-get install -y
# virtuoso-opensource wrk python3). Nothing is written to the repository.
# Environment: DATA (work dir), TRIPLES, RUNS, CLIENTS (wrk connections,
# 32), DURATION (wrk seconds, 20), PERFKB (binary; default: go build),
# PERFKB_FLAGS (extra serve flags), VIRTUOSO_BUFFERS (NumberOfBuffers,
# 340000 ≈ 2.7 GB), SKIP_VIRTUOSO=1 (perfkb only), SKIP_GSP=1 (no GSP run),
# REUSE=1 (query the stores an earlier run of the same TRIPLES loaded).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
DATA=${DATA:-/tmp/perfkb-serve-bench}
TRIPLES=${TRIPLES:-1000000}
RUNS=${RUNS:-5}
CLIENTS=${CLIENTS:-32}
DURATION=${DURATION:-20}
VIRTUOSO_BUFFERS=${VIRTUOSO_BUFFERS:-340000}
GRAPH=http://perfkb.example/bench
PK_PORT=${PK_PORT:-18080}
V_HTTP=${V_HTTP:-18890}
V_SQL=${V_SQL:-11112}
. "$here/virtuoso.sh"
ports_free PK_PORT V_HTTP V_SQL || exit 1
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)

if [ -z "${PERFKB:-}" ]; then
	PERFKB=$DATA/perfkb
	(cd "$repo" && go build -o "$PERFKB" ./cmd/perfkb)
fi

pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $TRIPLES triples"
nt=$DATA/sample-$TRIPLES.nt
[ -s "$nt" ] || "$PERFKB" sample --sites 3 --triples "$TRIPLES" -o "$nt"

# perfkb: fresh native store, bulk load, serve. REUSE=1 keeps both
# stores of an earlier run of the same size (no load times then).
loaded=$DATA/loaded-$TRIPLES
if [ -n "${REUSE:-}" ] && [ -f "$loaded" ]; then
	echo "# reusing the stores loaded by an earlier run ($(cat "$loaded"))"
else
	REUSE=""
	rm -f "$DATA"/loaded-*
	rm -rf "$DATA/perfkb.db"
	t0=$(date +%s.%N)
	"$PERFKB" load --store "native:$DATA/perfkb.db" --graph "$GRAPH" "$nt" >"$DATA/perfkb-load.log" 2>&1
	t1=$(date +%s.%N)
	echo "# perfkb load: $(echo "$t1 - $t0" | bc) s ($(echo "$TRIPLES / ($t1 - $t0)" | bc) triples/s)"
fi
t0=$(date +%s.%N)
"$PERFKB" serve --store "native:$DATA/perfkb.db" --addr "127.0.0.1:$PK_PORT" --log-level warn \
	--max-concurrent 64 ${PERFKB_FLAGS:-} >"$DATA/perfkb-serve.log" 2>&1 &
pk=$!
pids="$pids $pk"
until curl -sf -o /dev/null "http://127.0.0.1:$PK_PORT/sparql?query=ASK%7B%7D"; do
	kill -0 $pk || { cat "$DATA/perfkb-serve.log"; exit 1; }
	sleep 0.1
done
t1=$(date +%s.%N)
echo "# perfkb serve ready (store open) in $(echo "$t1 - $t0" | bc) s"

endpoints="perfkb=http://127.0.0.1:$PK_PORT/sparql"
if [ -z "${SKIP_VIRTUOSO:-}" ]; then
	vdir=$DATA/virtuoso
	if [ -z "$REUSE" ]; then
		rm -rf "$vdir"
		mkdir -p "$vdir"
		cp "$nt" "$vdir/sample.nt"
	fi
	virtuoso_ini "$vdir"
	virtuoso_start "$vdir"
	pids="$pids $vpid"
	if [ -z "$REUSE" ]; then
		t0=$(date +%s.%N)
		virtuoso_load "$vdir" sample.nt "$GRAPH"
		t1=$(date +%s.%N)
		echo "# virtuoso load (ld_dir + rdf_loader_run + checkpoint): $(echo "$t1 - $t0" | bc) s"
		date -u +"%Y-%m-%dT%H:%MZ" >"$loaded"
	fi
	endpoints="$endpoints virtuoso=http://127.0.0.1:$V_HTTP/sparql|$GRAPH"
fi

echo
python3 "$here/client.py" -n "$RUNS" $endpoints -- "$here"/queries/*.rq

echo
echo "# wrk: $CLIENTS connections, ${DURATION}s, Fig. 6.29 (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for e in $endpoints; do
	name=${e%%=*}
	url=${e#*=}
	graph=""
	case $url in *"|"*) graph=${url#*|}; url=${url%%|*} ;; esac
	line=$(QUERY_FILE="$here/queries/1-fig629.rq" GRAPH=$graph wrk -t 2 -c "$CLIENTS" -d "${DURATION}s" \
		--timeout 30s -s "$here/post.lua" "$url" | grep '^WRK')
	echo "$name: ${line#WRK }"
done
pk_rss=$(awk '/VmHWM/ {print $2}' /proc/$pk/status)
echo "# perfkb serve peak RSS: $((pk_rss / 1024)) MiB"
if [ -z "${SKIP_VIRTUOSO:-}" ]; then
	echo "# virtuoso peak RSS: $(($(awk '/VmHWM/ {print $2}' /proc/$vpid/status) / 1024)) MiB"
fi
if [ -z "${SKIP_GSP:-}" ]; then
	# Graph Store Protocol appends (group commit) on a fresh store.
	echo
	for n in 1000 10; do
		DATA=$DATA PERFKB=$PERFKB CLIENTS=$CLIENTS DURATION=$DURATION TRIPLES_PER_POST=$n \
			PK_PORT=$((PK_PORT + 1)) "$here/gsp.sh"
	done
fi
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
