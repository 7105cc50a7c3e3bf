#!/bin/sh
# Compiles PerfkbJena.java against Debian's Jena jars into $PERFKB_JENA_BUILD
# (default /tmp/perfkb-jena-build), outside the repository.
# Needs: apt-get install -y libapache-jena-java (and a JDK 17 javac).
#
# Workaround for a Debian packaging bug in jena-core 4.5.0-2: the shaded
# Xerces classes were moved from org.apache.jena.ext.xerces.* to xerces.*,
# but their message bundles stayed under org/apache/jena/ext/xerces/. The
# regex parser then cannot load "xerces.impl.xpath.regex.message", every
# built-in XSD pattern facet fails, and JenaSystem.init() dies with
# "RuntimeException: internal error" at XSSimpleTypeDecl.applyFacets1.
# We copy the bundles to the package the classes look in (build dir only).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${PERFKB_JENA_BUILD:-/tmp/perfkb-jena-build}
J=${JENA_JAVA_DIR:-/usr/share/java}
CP=$(sh "$HERE/classpath.sh")
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && unzip -q -o "$J/jena-core.jar" 'org/apache/jena/ext/xerces/*.properties' 'org/apache/jena/ext/xerces/*/*.properties' 'org/apache/jena/ext/xerces/*/*/*.properties' 'org/apache/jena/ext/xerces/*/*/*/*.properties' 2>/dev/null || true)
if [ -d "$TMP/org/apache/jena/ext/xerces" ]; then
  mkdir -p "$OUT/xerces"
  cp -R "$TMP/org/apache/jena/ext/xerces/." "$OUT/xerces/"
fi
javac -nowarn -encoding UTF-8 -d "$OUT" -cp "$CP" "$HERE/PerfkbJena.java"
echo "built $OUT/PerfkbJena.class"
