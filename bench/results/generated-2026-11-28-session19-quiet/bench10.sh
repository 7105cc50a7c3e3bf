#!/bin/bash
# usage: bench.sh BIN PORT  -> prints per query: server min/median ms (curl time_total), CLI min wall & cpu of 5, ASK min
BIN=$1; PORT=$2; STORE=native:/tmp/clicol/s10m; QD=/work/main/bench/serve/queries
echo "== $BIN load $(cat /proc/loadavg)"
ask=$(for i in 1 2 3 4 5; do /usr/bin/time -f "%e %U %S" $BIN --store $STORE query -e 'ASK {}' 2>&1 >/dev/null | tail -1; done | sort -n | head -1)
echo "ASK min wall/user/sys: $ask"
for q in $QD/*.rq; do
  r=$(for i in 1 2 3 4 5; do /usr/bin/time -f "%e %U %S" $BIN --store $STORE query --query $q 2>&1 >/dev/null | tail -1; done | sort -n | head -1)
  echo "CLI $(basename $q) min wall/user/sys: $r"
done
$BIN --store $STORE serve --addr 127.0.0.1:$PORT >/tmp/clicol/serve.$PORT.log 2>&1 &
SP=$!
for i in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:$PORT/ && break; sleep 0.2; done
for q in $QD/*.rq; do
  for i in 1 2; do curl -s -o /dev/null --data-urlencode query@$q -H 'Accept: application/sparql-results+json' http://127.0.0.1:$PORT/sparql; done
  t=$(for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_total}\n' --data-urlencode query@$q -H 'Accept: application/sparql-results+json' http://127.0.0.1:$PORT/sparql; done | sort -n | tr '\n' ' ')
  echo "SRV $(basename $q) sorted 5: $t"
done
echo "serve RSS: $(grep -E "VmRSS|RssAnon|RssFile" /proc/$SP/status | tr -s " \t\n" " ")"
sleep 12; echo "serve RSS 12 s later: $(grep -E "VmRSS|RssAnon|RssFile" /proc/$SP/status | tr -s " \t\n" " ")"
kill $SP; wait $SP 2>/dev/null
echo "== end load $(cat /proc/loadavg)"
