#!/bin/sh
# Issue 25's Done-when 1 in one command: perfkb `reason` against Apache Jena
# 4.5's GenericRuleReasoner (forward RETE) on the same data and rules, with
# perfkb's explanations on and off, the closures compared, and the ratios
# printed.
#
#   bench/jena/reason-vs-jena.sh [RULES...]
#
# RULES: rule files both engines read (default bench/jena/sample.rules; the
# shipped sets are rules/rdfs.rules rules/owl-rl.rules rules/perfonto.rules,
# which Jena needs about 11 GiB of heap for at 1M). Env:
#   TRIPLES    size of the `perfkb sample` data (default 1000000)
#   DATA       work directory, never inside the repository (default /tmp/perfkb-rvj)
#   PERFKB     a built perfkb binary (default: built into $DATA)
#   JAVA_OPTS  Jena's heap (default -Xmx10g)
#
# Each perfkb run reasons over a fresh copy of one loaded native store and
# is timed whole (/usr/bin/time: opening the store, the rounds, writing the
# derived triples and records, the findings query). Jena's figures are its
# materialization (bind + prepare) as the harness reports them: wall,
# process CPU and the process's peak RSS; its parse and load of the files
# are not counted. The closure check exports perfkb's inferred graph and
# its rules-internal graph (the shipped sets' helper triples in
# urn:x-perfkb:rules#, which Jena keeps among its deductions) as N-Triples
# and asks the harness whether they are isomorphic to Jena's deductions
# that were not asserted. The load average is printed before
# and after: the ratios mean something only on a quiet machine.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TRIPLES=${TRIPLES:-1000000}
DATA=${DATA:-/tmp/perfkb-rvj}
JAVA_OPTS=${JAVA_OPTS:--Xmx10g}
export JAVA_OPTS
mkdir -p "$DATA"
if [ $# -eq 0 ]; then set -- "$HERE/sample.rules"; fi
RULEARGS=""
for r in "$@"; do
  case $r in /*) ;; *) r="$PWD/$r" ;; esac
  RULEARGS="$RULEARGS --rules $r"
done
cd "$ROOT"
if [ -z "${PERFKB:-}" ]; then
  PERFKB="$DATA/perfkb"
  go build -o "$PERFKB" ./cmd/perfkb
fi
echo "# start $(date -u +%FT%TZ) $(uptime)"
NQ="$DATA/sample-$TRIPLES.nq"
BASE="$DATA/base-$TRIPLES.db"
if [ ! -s "$NQ" ]; then
  "$PERFKB" sample --sites 4 --seed 2 --triples "$TRIPLES" -o "$NQ"
fi
if [ ! -d "$BASE" ]; then
  "$PERFKB" --store "native:$BASE" load "$NQ" >/dev/null
fi

# perfkb NAME [FLAGS]: reason over a fresh copy of the store; prints
# "NAME wall user sys rss_kib" into $DATA/times.
: >"$DATA/times"
perfkb_run() {
  name=$1; shift
  rm -rf "$DATA/run.db"
  cp -r "$BASE" "$DATA/run.db"
  # shellcheck disable=SC2086
  /usr/bin/time -f "$name %e %U %S %M" -a -o "$DATA/times" \
    "$PERFKB" --store "native:$DATA/run.db" reason $RULEARGS --limit 0 "$@" >"$DATA/$name.out"
  tail -n 1 "$DATA/times"
}
perfkb_run derivations
internal=""
if "$PERFKB" --store "native:$DATA/run.db" graphs | grep -q '<urn:x-perfkb:rules-internal>'; then
  internal="--graph urn:x-perfkb:rules-internal"
fi
# shellcheck disable=SC2086
"$PERFKB" --store "native:$DATA/run.db" export --graph urn:x-perfkb:inferred $internal --format ntriples -o "$DATA/perfkb.nt"
perfkb_run noderivations --no-derivations
rm -rf "$DATA/run.db"

# shellcheck disable=SC2086
"$HERE/run.sh" rules --data "$NQ" --data "$ROOT/ontology/perfonto.ttl" $RULEARGS \
  --expand-defines --exclude-asserted --out "$DATA/jena.nt" | tee "$DATA/jena.out"
echo "# end   $(date -u +%FT%TZ) $(uptime)"

"$HERE/run.sh" compare --a "$DATA/perfkb.nt" --b "$DATA/jena.nt" | tee "$DATA/compare.out" || true

awk -v jena="$(grep '^reason mode=' "$DATA/jena.out")" '
function field(s, k,   m) { if (match(s, k "=[0-9.]+")) { m = substr(s, RSTART, RLENGTH); sub(/.*=/, "", m); return m + 0 } return -1 }
{ wall[$1] = $2; cpu[$1] = $3 + $4; rss[$1] = $5 / 1024 }
END {
  jw = field(jena, "reason_ms") / 1000; jc = field(jena, "process_cpu_ms") / 1000; jr = field(jena, "peak_rss_mb")
  printf "jena    materialization %.1f s wall, %.1f s process CPU, peak RSS %.0f MiB, %d deductions not asserted\n", jw, jc, jr, field(jena, "deductions_not_asserted")
  for (n in wall) {
    printf "perfkb  %-14s %.1f s wall, %.1f s CPU, peak RSS %.0f MiB: jena/perfkb wall %.1fx, CPU %.1fx; perfkb/jena RSS %.2f\n", n, wall[n], cpu[n], rss[n], jw / wall[n], jc / cpu[n], rss[n] / jr
  }
}' "$DATA/times"
grep -q '^isomorphic: yes' "$DATA/compare.out" && echo "closure: identical to Jena's" || { echo "closure: DIFFERS from Jena's (see $DATA/compare.out)"; exit 1; }
