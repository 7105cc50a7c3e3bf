#!/bin/sh
# Sparqloscope-generated benchmark: perfkb serve (native: store, or
# $PERFKB_STORE) against
# Virtuoso 7 on one N-Triples file, both restricted to the data graph.
#
#   bench/generated/run.sh NAME FILE.nt            # queries from bench/generated/queries/NAME
#   GENERATE=1 bench/generated/run.sh NAME FILE.nt # (re)generate them first (gen.py, on perfkb)
#   RUNS=1 SHORT=10 bench/generated/run.sh ...     # quick: 1 timed run, 10 queries
#
# The five workload queries of bench/serve/queries run after the generated
# ones (family "workload"). Writes $OUT/NAME.md and $OUT/NAME.json (per
# query, per family, geometric mean, failures, answer disagreements),
# $OUT/NAME-diffs/ (both answers of each disagreement) and $OUT/NAME-wrk.txt
# (wrk at $CLIENTS connections on bench/serve/queries). Nothing else is written to
# the repository unless GENERATE=1.
# Environment: DATA (work dir, /tmp/perfkb-generated-bench), OUT (result
# dir, $DATA/results), RUNS (3), TIMEOUT (s per query, 60), SHORT (first N
# queries only), PERFKB (binary; default go build), PERFKB_FLAGS,
# VIRTUOSO_BUFFERS (340000), CLIENTS ("16 64"), DURATION (wrk s, 10), WRK_THREADS (2),
# SLOW (s: one timed run where a warm-up took longer), QUERIES (files to run
# instead), SKIP_WRK=1, GEN_ENDPOINT=virtuoso (run gen.py's placeholders there),
# GEN_ONLY=1 (stop after generating), REUSE=1 (keep the stores an earlier
# run of NAME loaded), PERFKB_STORE (the store perfkb loads and serves
# instead of native:$DATA/NAME-perfkb.db, e.g. a postgres:// DSN of an
# empty database; the script empties only a native: store itself).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
NAME=$1
NT=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
DATA=${DATA:-/tmp/perfkb-generated-bench}
RUNS=${RUNS:-3}
TIMEOUT=${TIMEOUT:-60}
CLIENTS=${CLIENTS:-16 64}
DURATION=${DURATION:-10}
VIRTUOSO_BUFFERS=${VIRTUOSO_BUFFERS:-340000}
GRAPH=http://perfkb.example/bench
PK_PORT=${PK_PORT:-18180}
V_HTTP=${V_HTTP:-18990}
V_SQL=${V_SQL:-11212}
. "$repo/bench/serve/virtuoso.sh"
ports_free PK_PORT V_HTTP V_SQL || exit 1
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
OUT=${OUT:-$DATA/results}
mkdir -p "$OUT"
STORE=${PERFKB_STORE:-native:$DATA/$NAME-perfkb.db}
if [ -z "${PERFKB:-}" ]; then
	PERFKB=$DATA/perfkb
	(cd "$repo" && go build -o "$PERFKB" ./cmd/perfkb)
fi

pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
log() { echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg): $*"; }
log "$(nproc) CPUs; $NAME: $(wc -l <"$NT") lines in $NT"

if [ -z "${REUSE:-}" ] || [ ! -f "$DATA/$NAME-loaded" ]; then
	REUSE=""
	rm -f "$DATA/$NAME-loaded"
	case $STORE in native:*) rm -rf "${STORE#native:}" ;; esac
	t0=$(date +%s.%N)
	"$PERFKB" load --store "$STORE" --graph "$GRAPH" "$NT" >"$DATA/$NAME-perfkb-load.log" 2>&1
	log "perfkb load (${STORE%%:*}): $(since "$t0") s"
fi
"$PERFKB" serve --store "$STORE" --addr "127.0.0.1:$PK_PORT" --log-level warn \
	--max-concurrent 64 --timeout "$((TIMEOUT + 5))s" --query-memory 2GiB --query-memory-total 8GiB \
	${PERFKB_FLAGS:-} >"$DATA/$NAME-perfkb-serve.log" 2>&1 &
pk=$!
pids="$pids $pk"
until python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PK_PORT/sparql?query=ASK%7B%7D')" 2>/dev/null; do
	kill -0 $pk || { cat "$DATA/$NAME-perfkb-serve.log"; exit 1; }
	sleep 0.2
done

vdir=$DATA/$NAME-virtuoso
if [ -z "$REUSE" ]; then
	rm -rf "$vdir"
	mkdir -p "$vdir"
	ln "$NT" "$vdir/data.nt" 2>/dev/null || cp "$NT" "$vdir/data.nt"
fi
virtuoso_ini "$vdir"
virtuoso_start "$vdir"
pids="$pids $vpid"
if [ -z "$REUSE" ]; then
	t0=$(date +%s.%N)
	virtuoso_load "$vdir" data.nt "$GRAPH"
	log "virtuoso load (ld_dir + rdf_loader_run + checkpoint): $(since "$t0") s"
	date -u +%FT%TZ >"$DATA/$NAME-loaded"
else
	log "reusing the stores loaded at $(cat "$DATA/$NAME-loaded")"
fi

PK_URL=http://127.0.0.1:$PK_PORT/sparql
V_URL=http://127.0.0.1:$V_HTTP/sparql
if [ -n "${GENERATE:-}" ]; then
	gen_url=$PK_URL
	[ "${GEN_ENDPOINT:-}" = virtuoso ] && gen_url=$V_URL
	log "generating queries (placeholders on $gen_url)"
	python3 "$here/gen.py" --data "$NT" --endpoint "$gen_url" --graph "$GRAPH" --name "$NAME" \
		--out "$here/queries/$NAME" --prefixes "$here/prefixes.txt" --cache "$DATA/$NAME-gen-cache"
	[ -z "${GEN_ONLY:-}" ] || exit 0
fi

log "generated queries: $RUNS timed runs each, timeout ${TIMEOUT}s"
if [ -n "${QUERIES:-}" ]; then
	set -- $QUERIES
else
	set -- "$here/queries/$NAME"/*.rq "$repo"/bench/serve/queries/*.rq
fi
python3 "$here/compare.py" --diffs "$OUT/$NAME-diffs" -n "$RUNS" --timeout "$TIMEOUT" ${SHORT:+--short "$SHORT"} ${SLOW:+--slow "$SLOW"} \
	--title "$NAME ($(wc -l <"$NT") triples)" --md "$OUT/$NAME.md" --json "$OUT/$NAME.json" \
	"perfkb=$PK_URL|$GRAPH" "virtuoso=$V_URL|$GRAPH" -- "$@"
log "done"

if [ -z "${SKIP_WRK:-}" ]; then
	: >"$OUT/$NAME-wrk.txt"
	for q in "$repo"/bench/serve/queries/*.rq; do
		for c in $CLIENTS; do
			for e in "perfkb=$PK_URL" "virtuoso=$V_URL"; do
				line=$(QUERY_FILE=$q GRAPH=$GRAPH wrk -t "${WRK_THREADS:-2}" -c "$c" -d "${DURATION}s" --timeout 30s \
					-s "$repo/bench/serve/post.lua" "${e#*=}" | grep '^WRK' || echo "WRK failed")
				echo "$(basename "$q" .rq) c=$c ${e%%=*}: ${line#WRK }" | tee -a "$OUT/$NAME-wrk.txt"
			done
		done
	done
	log "wrk done"
fi
echo "# perfkb serve peak RSS: $(($(awk '/VmHWM/ {print $2}' /proc/$pk/status) / 1024)) MiB;" \
	"virtuoso peak RSS: $(($(awk '/VmHWM/ {print $2}' /proc/$vpid/status) / 1024)) MiB" | tee -a "$OUT/$NAME-wrk.txt"
