#!/bin/sh
# Produces every Jena number of bench/README.md: generates `perfkb sample`
# data under $DATA (default /tmp/perfkb-bench, never inside the repository),
# then runs the benchmark queries and the rule sets through Jena, logging the
# load average before and after each step.
#
#   bench/jena/measure.sh [STEP...]
#
# Steps (default: q1m qb1m r1m s1m q10m qb10m):
#   q1m      all bench/queries/*.rq on 1M triples (median of 5 after 1 warm-up)
#   r1m      rdfs.rules + owl-rl.rules + perfonto.rules on 1M triples + ontology
#   s1m      bench/jena/sample.rules on 1M triples + ontology
#   q10m     all queries on 10M triples
#   r5m      rdfs.rules + owl-rl.rules + perfonto.rules on 5M triples + ontology
#            (needs ~30+ GiB of heap with Jena: does not fit a 24 GiB machine)
#   s5m      bench/jena/sample.rules on 5M triples + ontology
#   qb1m     bench/queries/query-bench/*.rq (perfkb's own BenchmarkQueries) on 1M
#   qb10m    the same on 10M
# Env: DATA, PERFKB (a built perfkb binary; default: go run ./cmd/perfkb),
#      JAVA_OPTS (default -Xmx16g), REPEAT (5), WARMUP (1).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${DATA:-/tmp/perfkb-bench}
REPEAT=${REPEAT:-5}
WARMUP=${WARMUP:-1}
mkdir -p "$DATA"
cd "$ROOT"

perfkb() {
  if [ -n "${PERFKB:-}" ]; then "$PERFKB" "$@"; else go run ./cmd/perfkb "$@"; fi
}

# data N FILE: sample data of about N triples (3 sites), generated once.
data() {
  if [ ! -s "$2" ]; then
    perfkb sample --sites 3 --triples "$1" -o "$2"
  fi
}

step() {
  name=$1; shift
  log="$DATA/jena-$name.log"
  echo "== $name: $*" | tee "$log"
  { echo "# start $(date -u +%FT%TZ) $(uptime)"; } | tee -a "$log"
  "$HERE/run.sh" "$@" 2>&1 | tee -a "$log"
  { echo "# end   $(date -u +%FT%TZ) $(uptime)"; } | tee -a "$log"
}

queries() {
  for q in "$ROOT"/bench/queries/${1:-}*.rq; do printf -- '--query %s ' "$q"; done
}

PERFKB_RULES="--expand-defines --rules rules/rdfs.rules --rules rules/owl-rl.rules --rules rules/perfonto.rules"
ONTO="--data ontology/perfonto.ttl"

STEPS=${*:-q1m qb1m r1m s1m q10m qb10m}
for s in $STEPS; do
  case $s in
    q1m)  data 1000000 "$DATA/sample-1m.nq"
          # shellcheck disable=SC2046
          step q1m query --data "$DATA/sample-1m.nq" $(queries) --repeat "$REPEAT" --warmup "$WARMUP" ;;
    q10m) data 10000000 "$DATA/sample-10m.nq"
          # shellcheck disable=SC2046
          step q10m query --data "$DATA/sample-10m.nq" $(queries) --repeat "$REPEAT" --warmup "$WARMUP" ;;
    qb1m) data 1000000 "$DATA/sample-1m.nq"
          # shellcheck disable=SC2046
          step qb1m query --data "$DATA/sample-1m.nq" $(queries query-bench/) --repeat "$REPEAT" --warmup "$WARMUP" ;;
    qb10m) data 10000000 "$DATA/sample-10m.nq"
          # shellcheck disable=SC2046
          step qb10m query --data "$DATA/sample-10m.nq" $(queries query-bench/) --repeat "$REPEAT" --warmup "$WARMUP" ;;
    r1m)  data 1000000 "$DATA/sample-1m.nq"
          # shellcheck disable=SC2086
          step r1m rules --data "$DATA/sample-1m.nq" $ONTO $PERFKB_RULES --out "$DATA/jena-inferred-perfkbrules-1m.nt" ;;
    r5m)  data 5000000 "$DATA/sample-5m.nq"
          # shellcheck disable=SC2086
          step r5m rules --data "$DATA/sample-5m.nq" $ONTO $PERFKB_RULES --out "$DATA/jena-inferred-perfkbrules-5m.nt" ;;
    s1m)  data 1000000 "$DATA/sample-1m.nq"
          # shellcheck disable=SC2086
          step s1m rules --data "$DATA/sample-1m.nq" $ONTO --rules bench/jena/sample.rules --out "$DATA/jena-inferred-sample-1m.nt" ;;
    s5m)  data 5000000 "$DATA/sample-5m.nq"
          # shellcheck disable=SC2086
          step s5m rules --data "$DATA/sample-5m.nq" $ONTO --rules bench/jena/sample.rules --out "$DATA/jena-inferred-sample-5m.nt" ;;
    *) echo "measure.sh: unknown step $s" >&2; exit 2 ;;
  esac
done
