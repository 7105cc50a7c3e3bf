#!/bin/sh
# Runs the Jena benchmark runner (building it first if needed).
#   bench/jena/run.sh query --data /tmp/data.nq --query bench/queries/fig629-star.rq --repeat 5
#   bench/jena/run.sh rules --data /tmp/data.nq --rules bench/jena/sample.rules --out /tmp/jena.nt
# JAVA_OPTS defaults to -Xmx16g (the benchmark machine has 24 GiB).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${PERFKB_JENA_BUILD:-/tmp/perfkb-jena-build}
if [ ! -f "$OUT/PerfkbJena.class" ] || [ "$HERE/PerfkbJena.java" -nt "$OUT/PerfkbJena.class" ]; then
  sh "$HERE/build.sh" >&2
fi
CP=$(sh "$HERE/classpath.sh")
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:--Xmx16g} -cp "$OUT:$CP" PerfkbJena "$@"
