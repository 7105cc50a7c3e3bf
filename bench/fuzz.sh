#!/bin/sh
# Runs every Go fuzz target of the parsers (RDF syntaxes, SPARQL, rules,
# SPARQL results, converter inputs) for FUZZTIME each (default
# 60s), one after the other, with FUZZPARALLEL workers (default 1). A
# crasher is saved under the package's testdata/fuzz/<Target>/ and makes
# the script fail; it then runs as a regression test in plain `go test`.
# FUZZMINIMIZE (default 2s) caps the time spent minimizing each input that
# widens coverage: Go's default (60s) can eat a whole short run, leaving a
# target only a handful of executions.
#
#   FUZZTIME=10m bench/fuzz.sh
#   FUZZTIME=30s bench/fuzz.sh FuzzTurtle      # only the named targets
set -eu
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-60s}
FUZZPARALLEL=${FUZZPARALLEL:-1}
FUZZMINIMIZE=${FUZZMINIMIZE:-2s}
targets="./kb/rdfio:FuzzTurtle ./kb/rdfio:FuzzTriG ./kb/rdfio:FuzzRDFXML ./kb/rdfio:FuzzNTriples ./kb/rdfio:FuzzNQuads ./kb/rdfio:FuzzJSONLD ./query/syntax:FuzzParseQuery ./query/syntax:FuzzParseUpdate ./reasoner:FuzzParseProgram ./query/results:FuzzReaders ./convert/sensor:FuzzMessages ./convert/sensor:FuzzMapperDepth ./convert/tau:FuzzParse ./convert/trace:FuzzReadText ./convert/chrometrace:FuzzRead ./convert/pprof:FuzzRead ./convert/cube:FuzzConvert ./convert/hpctoolkit:FuzzConvert ./convert/hpctoolkit:FuzzExperimentXML ./convert/caliper:FuzzRead ./convert/otlp:FuzzConvert"
status=0
for t in $targets; do
	pkg=${t%%:*}
	name=${t#*:}
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	if ! grep -q "func $name(" "$pkg"/*_test.go 2>/dev/null; then
		echo "fuzz: $name not found in $pkg, skipped" >&2
		continue
	fi
	echo "== $pkg $name for $FUZZTIME"
	if ! go test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" -parallel "$FUZZPARALLEL"; then
		status=1
	fi
done
exit $status
