#!/bin/bash
set -u
M=/tmp/lead/perfkb-m
echo "### start $(date -u +%T) load $(cat /proc/loadavg)"
/tmp/lead/q28.sh /tmp/lead/perfkb-pg /tmp/lead/perfkb-nopg $M
echo "### native 1M $(date -u +%T) load $(cat /proc/loadavg)"
rm -rf /tmp/lead/s1m.db
$M load --store native:/tmp/lead/s1m.db --graph http://perfkb.example/bench /tmp/lead/sample1m.nt >/dev/null 2>&1
cd /work/main
REUSE=1 PERFKB=$M PERFKB_STORE=native:/tmp/lead/s1m.db QUERIES="bench/serve/queries/*.rq" SKIP_WRK=1 RUNS=7 \
  PK_PORT=56581 V_HTTP=56592 V_SQL=56593 DATA=/tmp/lead/q28 OUT=/tmp/lead/q28/outnative bench/generated/run.sh sample /tmp/lead/sample1m.nt
echo "### cli 10M $(date -u +%T) load $(cat /proc/loadavg)"
sed "s|QD=/work/wt/clicol|QD=/work/main|" /tmp/clicol/bench.sh > /tmp/lead/bench10.sh
bash /tmp/lead/bench10.sh $M 56590
bash /tmp/lead/bench10.sh $M 56590
echo "### end $(date -u +%T) load $(cat /proc/loadavg)"
