#!/bin/sh
# Compiles PerfkbJena.java against Debian's Jena jars into $PERFKB_JENA_BUILD
# (default /tmp/perfkb-jena-build), outside the repository.
# Needs: apt-get install -y libapache-jena-java (and a JDK 17 javac).
# The build directory also gets the Xerces message bundles that Debian's
# jena-core misplaces (xerces-bundles.sh says why).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${PERFKB_JENA_BUILD:-/tmp/perfkb-jena-build}
CP=$(sh "$HERE/classpath.sh")
mkdir -p "$OUT"
sh "$HERE/xerces-bundles.sh" "$OUT"
javac -nowarn -encoding UTF-8 -d "$OUT" -cp "$CP" "$HERE/PerfkbJena.java"
echo "built $OUT/PerfkbJena.class"
