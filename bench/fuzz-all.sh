#!/bin/sh
# Runs every Go fuzz target in the repository (found by grepping the
# _test.go files for `func FuzzX(`, so a new target is never left out) for
# FUZZTIME each (default 10m), one after the other, each with one worker
# (-parallel 1: the machines this runs on are shared). For every target it
# prints one line: package, target, executions, new interesting inputs,
# and the result (ok, FAIL, or "did not run" when a target named on the
# command line does not exist). A crasher is saved by `go test` under the
# package's testdata/fuzz/<Target>/ (it then runs as a regression test in
# plain `go test`); the script commits nothing and exits nonzero when any
# target failed.
#
# FUZZMINIMIZE (default 2s) caps the time spent minimizing each input that
# widens coverage: Go's default (60s) can eat most of a short run, leaving
# a target a handful of executions. FUZZLOG (default a temporary folder)
# keeps each target's full `go test` output as <pkg>_<Target>.log.
#
#   bench/fuzz-all.sh                              # all targets, 10m each
#   FUZZTIME=30s bench/fuzz-all.sh FuzzReadAnswer ./kb/rdfio:FuzzTurtle   # these, in this order
#                       # (a bare name runs that target in every package having it)
#   bench/fuzz-all.sh -l                           # list the targets
set -u
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10m}
FUZZMINIMIZE=${FUZZMINIMIZE:-2s}
FUZZLOG=${FUZZLOG:-$(mktemp -d "${TMPDIR:-/tmp}/fuzz-all.XXXXXX")}
mkdir -p "$FUZZLOG"
status=0

# all: "./pkg:Target" for every fuzz target, in path order.
all=$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*(' . |
	sed -e 's|^\(.*\)/[^/]*_test\.go:func \(Fuzz[A-Za-z0-9_]*\)(|\1:\2|' | sort -u)

if [ "${1:-}" = "-l" ]; then
	echo "$all"
	exit 0
fi

if [ $# -gt 0 ]; then
	targets=""
	for arg in "$@"; do
		case $arg in
		*:*) found=$(echo "$all" | grep -x -- "$arg" || true) ;;
		*) found=$(echo "$all" | grep -- ":$arg\$" || true) ;;
		esac
		if [ -z "$found" ]; then
			printf '%-24s %-22s %s\n' "-" "$arg" "did not run (no such target)"
			status=1
			continue
		fi
		for f in $found; do
			case " $targets " in *" $f "*) ;; *) targets="$targets $f" ;; esac
		done
	done
else
	targets=$all
fi

echo "fuzz-all: FUZZTIME=$FUZZTIME FUZZMINIMIZE=$FUZZMINIMIZE logs in $FUZZLOG"
for t in $targets; do
	pkg=${t%%:*}
	name=${t#*:}
	log="$FUZZLOG/$(echo "$pkg" | sed 's|^\./||; s|/|_|g')_$name.log"
	start=$(date +%s)
	if go test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" \
		-fuzzminimizetime "$FUZZMINIMIZE" -parallel 1 >"$log" 2>&1; then
		result=ok
	else
		result=FAIL
		status=1
	fi
	secs=$(($(date +%s) - start))
	# The last progress line holds the totals:
	# "fuzz: elapsed: 10m0s, execs: 123 (0/sec), new interesting: 4 (total: 9)"
	last=$(grep '^fuzz: elapsed:' "$log" | tail -n 1)
	execs=$(echo "$last" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
	newi=$(echo "$last" | sed -n 's/.*new interesting: \([0-9]*\).*/\1/p')
	printf '%-24s %-22s execs %-10s new %-6s %5ss %s\n' "$pkg" "$name" "${execs:-?}" "${newi:-?}" "$secs" "$result"
	if [ "$result" = FAIL ]; then
		grep -E -- '--- FAIL|Failing input|panic:|testdata/fuzz' "$log" | head -n 8 | sed 's/^/    /'
	fi
done
exit $status
