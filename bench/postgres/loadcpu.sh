#!/bin/bash
# One perfkb load of FILE.nt into a new database of a local PostgreSQL
# cluster, with the CPU each side spent:
#
#   PGDATA=/path/to/cluster PGPORT=5432 PGUSER=postgres bench/postgres/loadcpu.sh PERFKB_BINARY DBNAME FILE.nt
#
# Prints the load average, the wall time, perfkb's CPU (user + system) and
# PostgreSQL's: the postmaster's children's CPU (/proc, cutime + cstime)
# before and after, which counts the backends and parallel workers that
# exited (the load's connections end with perfkb). The database is
# created first and dropped afterwards. Needs createdb/dropdb on PATH and
# nothing else running on the cluster.
set -eu
BIN=$1 DB=$2 NT=$3
: "${PGDATA:?set PGDATA to the data directory of the cluster}" "${PGPORT:=5432}" "${PGUSER:=postgres}"
PM=$(head -1 "$PGDATA/postmaster.pid")
tick=$(getconf CLK_TCK)
pgcpu() { awk -v t="$tick" '{ printf "%.2f", ($16 + $17) / t }' "/proc/$PM/stat"; }
createdb -h 127.0.0.1 -p "$PGPORT" -U "$PGUSER" "$DB"
sleep 1
before=$(pgcpu) load=$(cut -d' ' -f1 /proc/loadavg)
out=$({ /usr/bin/time -f "%e %U %S" "$BIN" --store "postgres://$PGUSER@127.0.0.1:$PGPORT/$DB?sslmode=disable" \
	load --graph http://perfkb.example/bench "$NT" >/dev/null; } 2>&1 | tail -1)
sleep 2
after=$(pgcpu)
set -- $out
awk -v b="$BIN" -v l="$load" -v w="$1" -v u="$2" -v s="$3" -v p0="$before" -v p1="$after" \
	'BEGIN { printf "%s load=%s wall=%s s perfkb_cpu=%.2f s pg_cpu=%.2f s\n", b, l, w, u + s, p1 - p0 }'
dropdb -h 127.0.0.1 -p "$PGPORT" -U "$PGUSER" "$DB"
