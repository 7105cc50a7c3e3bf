#!/bin/sh
# Works around a Debian packaging bug in jena-core 4.5.0-2 (bookworm): the
# shaded Xerces classes were moved from org.apache.jena.ext.xerces.* to
# xerces.*, but their message bundles stayed under org/apache/jena/ext/xerces/.
# The regex parser then cannot load "xerces.impl.xpath.regex.message", every
# built-in XSD pattern facet fails, and JenaSystem.init() dies with
# "RuntimeException: internal error" at XSSimpleTypeDecl.applyFacets1 — in
# our own runner and in Debian's command-line tools (arq.rupdate, …) alike.
#
# Copies the .properties bundles out of jena-core.jar into DIR/xerces/, the
# package the classes look in; put DIR on the classpath. No Jena class is
# changed. Usage: xerces-bundles.sh DIR
set -eu
OUT=$1
J=${JENA_JAVA_DIR:-/usr/share/java}
[ -f "$OUT/xerces/impl/xpath/regex/message.properties" ] && exit 0
command -v unzip >/dev/null 2>&1 || { echo "xerces-bundles.sh: needs unzip" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && unzip -q -o "$J/jena-core.jar" 'org/apache/jena/ext/xerces/*.properties' 'org/apache/jena/ext/xerces/*/*.properties' 'org/apache/jena/ext/xerces/*/*/*.properties' 'org/apache/jena/ext/xerces/*/*/*/*.properties' 2>/dev/null || true)
if [ -d "$TMP/org/apache/jena/ext/xerces" ]; then
  mkdir -p "$OUT/xerces"
  cp -R "$TMP/org/apache/jena/ext/xerces/." "$OUT/xerces/"
fi
