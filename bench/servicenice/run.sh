#!/usr/bin/env bash
# Times an analyst's federated query on an otherwise idle machine with the
# SERVICE answer read at --service-nice 10 (the default) and at 0, to show
# that reading it on a lowered thread costs nothing when nothing competes
# (issue 30, item 2). A site serves `perfkb sample --sites 1 --triples
# 200000`; a coordinator with that site registered counts every triple
# through SERVICE (the site's whole answer crosses loopback). The two
# settings alternate for ROUNDS rounds; each prints the median wall time of
# 7 queries after one warm-up, and both must answer the same count.
#
#   bench/servicenice/run.sh [ROUNDS]   (default 2; PERFKB=binary to skip the build)
set -euo pipefail
rounds=${1:-2}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
perfkb=${PERFKB:-}
if [ -z "$perfkb" ]; then
	echo "building perfkb"
	go build -o "$work/perfkb" ./cmd/perfkb
	perfkb=$work/perfkb
fi
site=127.0.0.1:${SITE_PORT:-8201}
coord=127.0.0.1:${COORD_PORT:-8202}
"$perfkb" sample --sites 1 --triples 200000 --format ntriples -o "$work/site.nt" 2>/dev/null
"$perfkb" --store "native:$work/site.db" load "$work/site.nt" >/dev/null 2>&1
"$perfkb" --store "native:$work/site.db" serve --addr "$site" >"$work/site.log" 2>&1 &
pids+=($!)
"$perfkb" --store "native:$work/coord.db" sites add site "http://$site/sparql" >/dev/null 2>&1
wait_up() { for _ in $(seq 100); do curl -sf -o /dev/null "http://$1/sparql?query=ASK%7B%7D" && return; sleep 0.1; done; echo "no server on $1" >&2; exit 1; }
wait_up "$site"
q="SELECT (COUNT(*) AS ?n) WHERE { SERVICE <http://$site/sparql> { ?s ?p ?o } }"
counts=()
for round in $(seq "$rounds"); do
	for nice in 10 0; do
		"$perfkb" --store "native:$work/coord.db" serve --addr "$coord" --service-nice "$nice" >"$work/coord.log" 2>&1 &
		cp=$!
		wait_up "$coord"
		curl -sf -o /dev/null --data-urlencode "query=$q" "http://$coord/sparql"
		times=()
		for _ in $(seq 7); do
			start=$(date +%s%N)
			curl -sf -o "$work/answer.json" --data-urlencode "query=$q" "http://$coord/sparql"
			times+=("$((($(date +%s%N) - start) / 1000000))")
		done
		n=$(grep -o '"value":"[0-9]*"' "$work/answer.json" | grep -o '[0-9]*')
		counts+=("$n")
		printf 'round %d --service-nice %2d: median %d ms of 7, count %s\n' "$round" "$nice" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 4p)" "$n"
		kill "$cp"
		wait "$cp" 2>/dev/null || true
	done
done
if [ "$(printf '%s\n' "${counts[@]}" | sort -u | wc -l)" != 1 ]; then
	echo "the settings answered different counts: ${counts[*]}" >&2
	exit 1
fi
