#!/bin/sh
# Runs one of Debian's Jena command-line tools. libapache-jena-java ships
# their classes (jena-cmds.jar) but no scripts, so name the class:
#   bench/jena/cmd.sh arq.rupdate --service "http://perfkb:$PERFKB_TOKEN@127.0.0.1:7878/sparql" --update u.ru
#   bench/jena/cmd.sh arq.rsparql --service http://127.0.0.1:7878/sparql --query q.rq
# The classpath is classpath.sh's plus jena-cmds.jar, behind a directory
# ($PERFKB_JENA_BUILD, default /tmp/perfkb-jena-build) with the Xerces
# message bundles Debian's jena-core misplaces (xerces-bundles.sh); without
# them every tool dies in JenaSystem.init with "internal error".
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${PERFKB_JENA_BUILD:-/tmp/perfkb-jena-build}
J=${JENA_JAVA_DIR:-/usr/share/java}
[ $# -ge 1 ] || { echo "usage: cmd.sh CLASS [ARGS...]   (e.g. arq.rupdate --help)" >&2; exit 2; }
[ -f "$J/jena-cmds.jar" ] || { echo "cmd.sh: no $J/jena-cmds.jar (apt-get install libapache-jena-java)" >&2; exit 1; }
sh "$HERE/xerces-bundles.sh" "$OUT"
CP=$(sh "$HERE/classpath.sh")
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} -cp "$OUT:$CP:$J/jena-cmds.jar" "$@"
