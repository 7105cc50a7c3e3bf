#!/bin/bash
# Quiet window: issue 28 items 1 and 2 with binary $1 (merged) and $2 (base).
set -u
export PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/tmp/lead/pg/data PGPORT=56500 PGUSER=postgres
cd /work/main
for i in 1 2 3; do
  bench/postgres/loadcpu.sh "$1" l$i /tmp/lead/sample1m.nt
  [ $i -lt 3 ] && bench/postgres/loadcpu.sh "$2" b$i /tmp/lead/sample1m.nt
done
dropdb -h 127.0.0.1 -p 56500 -U postgres --if-exists q1 2>/dev/null; createdb -h 127.0.0.1 -p 56500 -U postgres q1
PERFKB="${3:-$1}" PERFKB_STORE='postgres://postgres@127.0.0.1:56500/q1?sslmode=disable' \
  QUERIES="bench/serve/queries/*.rq" SKIP_WRK=1 RUNS=7 PK_PORT=56581 V_HTTP=56592 V_SQL=56593 \
  DATA=/tmp/lead/q28 OUT=/tmp/lead/q28/out bench/generated/run.sh sample /tmp/lead/sample1m.nt
