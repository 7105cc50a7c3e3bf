#!/bin/sh
# The figures that need a many-core machine, in one bounded run (see the
# "scale" verb in device.sh, which starts this after `device.sh pack` here
# and carrying bench/generated/.devpack there). Steps, in order of worth,
# each under a time limit so that a slow one cannot take the others'
# results with it: load, group, reason, serve. Env: DEADLINE (seconds the
# whole run may take, 540), STEPS (which steps, "load group reason serve"),
# DATA (work dir, /tmp/perfkb-scale), OUT (results, $DATA/results), N1,
# N5, N10 (the three data sizes; smaller ones try the script out; N10=0
# skips the 10M loads).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
pack=$here/.devpack
W=${DATA:-/tmp/perfkb-scale}
OUT=${OUT:-$W/results}
DEADLINE=${DEADLINE:-540}
STEPS=${STEPS:-load group reason serve}
N1=${N1:-1000000} N5=${N5:-5000000} N10=${N10:-10000000}
start=$(date +%s)
mkdir -p "$W/pack" "$W/logs" "$OUT"
S=$OUT/scale.txt
: >"$S"
note() { echo "$*" | tee -a "$S"; }
left() { echo $((DEADLINE - ($(date +%s) - start))); }
stamp() { note "# $(date -u +%H:%M:%S) +$(($(date +%s) - start))s load $(cut -d' ' -f1-3 /proc/loadavg): $*"; }
save() { tar -C "$W" -czf "$OUT/scale.tar.gz" logs $(cd "$W" && ls -d serve-out 2>/dev/null) 2>/dev/null || true; }

# tm NAME CMD...: runs CMD (output appended to $W/logs/NAME.log) and notes
# its wall and CPU time and peak RSS, from wait4's rusage of that child.
tm() {
	_n=$1
	shift
	python3 - "$W/logs/$_n.log" "$_n" "$@" <<'PY' | tee -a "$S"
import os, subprocess, sys, time
log, name, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.time()
with open(log, "ab") as f:
    p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT)
    _, st, ru = os.wait4(p.pid, 0)
print(f"{name}: wall {time.time() - t:.2f} s user {ru.ru_utime:.2f} s sys {ru.ru_stime:.2f} s "
      f"peak RSS {ru.ru_maxrss // 1024} MiB exit {os.waitstatus_to_exitcode(st)}")
PY
}

if [ ! -x "$W/pack/bin/perfkb" ]; then
	python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' "$pack/pack.tar.xz" "$W/pack"
fi
export PATH="$W/pack/bin:$PATH" LD_LIBRARY_PATH="$W/pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VIRTUOSO_HOSTING="$W/pack/hosting"
PK=$W/pack/bin/perfkb
ALT=$W/pack/bin/perfkb-alt
ALT2=$W/pack/bin/perfkb-alt2
stamp "start: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/Mem:/ {print $2}') GiB; $($PK version 2>/dev/null | head -1)"
[ -x "$ALT" ] && note "# perfkb-alt: $($ALT version 2>/dev/null | head -1)"
[ -x "$ALT2" ] && note "# perfkb-alt2: $($ALT2 version 2>/dev/null | head -1)"
pin2=""
if command -v taskset >/dev/null 2>&1; then pin2="taskset -c 0,1"; fi

# serve_time BIN GOMAXPROCS N QUERY PORT: serves the 5M store, sends the
# query twice to warm up, then N times; notes the median and the server's
# CPU per request.
serve_time() {
	_bin=$1 _p=$2 _n=$3 _q=$4 _port=$5
	if [ "$_p" = all ]; then
		"$_bin" serve --store "native:$W/l5.db" --addr "127.0.0.1:$_port" --log-level warn --timeout 600s >"$W/logs/serve-$_port.log" 2>&1 &
	else
		GOMAXPROCS=$_p "$_bin" serve --store "native:$W/l5.db" --addr "127.0.0.1:$_port" --log-level warn --timeout 600s >"$W/logs/serve-$_port.log" 2>&1 &
	fi
	_pid=$!
	python3 - "$_pid" "$_port" "$_n" "$_q" "$(basename "$_bin") GOMAXPROCS=$_p" <<'PY' | tee -a "$S"
import http.client, json, statistics, sys, time, urllib.parse
pid, port, n, qf, name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
body = urllib.parse.urlencode({"query": open(qf).read()})
hdr = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/sparql-results+json"}
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / 100.0
for _ in range(300):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        c.request("GET", "/sparql?query=ASK%7B%7D"); c.getresponse().read(); break
    except OSError:
        time.sleep(0.1)
def one():
    t = time.perf_counter(); c.request("POST", "/sparql", body, hdr); r = c.getresponse(); d = r.read()
    if r.status != 200: raise SystemExit(f"{name}: HTTP {r.status}: {d[:200]!r}")
    return time.perf_counter() - t, d
_, first = one(); one()
c0, ts = cpu(), []
for _ in range(n):
    ts.append(one()[0])
c1 = cpu()
rows = len(json.loads(first)["results"]["bindings"])
print(f"{name} {qf.rsplit('/', 1)[-1]}: median {statistics.median(ts) * 1000:.1f} ms, min {min(ts) * 1000:.1f}, "
      f"max {max(ts) * 1000:.1f}, server CPU {(c1 - c0) / n * 1000:.0f} ms/request, n={n}, {rows} rows")
PY
	kill "$_pid" 2>/dev/null
	wait "$_pid" 2>/dev/null
}

for step in $STEPS; do
	if [ "$(left)" -lt 30 ]; then
		stamp "skipping $step: $(left) s left"
		continue
	fi
	case $step in
	load)
		stamp "load: generating data"
		tm sample5m "$PK" sample --sites 3 --triples "$N5" -o "$W/s5m.nt"
		[ "$N10" -gt 0 ] && tm sample10m "$PK" sample --sites 3 --triples "$N10" -o "$W/s10m.nt"
		bins=$PK
		[ -x "$ALT" ] && bins="$bins $ALT"
		[ -x "$ALT2" ] && bins="$bins $ALT2"
		for i in 1 2 3; do
			for b in $bins; do
				n=load5m-$(basename "$b")-$i
				rm -rf "$W/l5.db"
				tm "$n" timeout "$(left)" "$b" load --store "native:$W/l5.db" "$W/s5m.nt"
				grep '^loaded' "$W/logs/$n.log" | tail -1 | tee -a "$S"
			done
		done
		[ "$N10" -gt 0 ] && for i in $(seq "${N10_RUNS:-2}"); do
			for b in $bins; do
				n=load10m-$(basename "$b")-$i
				rm -rf "$W/l10.db"
				tm "$n" timeout "$(left)" "$b" load --store "native:$W/l10.db" "$W/s10m.nt"
				grep '^loaded' "$W/logs/$n.log" | tail -1 | tee -a "$S"
			done
		done
		# The 5M store the group step serves is the candidate's.
		rm -rf "$W/l5.db"
		"$PK" load --store "native:$W/l5.db" "$W/s5m.nt" >/dev/null 2>&1
		rm -rf "$W/l10.db" "$W/l2.db"
		tm load5m-2cores timeout "$(left)" env GOMAXPROCS=2 $pin2 "$PK" load --store "native:$W/l2.db" "$W/s5m.nt"
		grep '^loaded' "$W/logs/load5m-2cores.log" | tail -1 | tee -a "$S"
		rm -rf "$W/l2.db" "$W/lp.db"
		"$PK" load --store "native:$W/lp.db" --cpuprofile "$OUT/load16.prof" "$W/s5m.nt" >/dev/null 2>&1
		rm -rf "$W/lp.db"
		"$PK" load --store "native:$W/lp.db" --trace "$W/load16.trace" "$W/s5m.nt" >/dev/null 2>&1 &&
			gzip -c "$W/load16.trace" >"$OUT/load16.trace.gz"
		rm -rf "$W/lp.db"
		# On a terminal, load names its phases: time each one.
		python3 - "$PK" "$W/lp.db" "$W/s5m.nt" <<'PY' | tee -a "$S"
import os, pty, re, sys, time
pk, db, nt = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(pk, [pk, "load", "--store", "native:" + db, nt])
t0, buf, phase, since = time.time(), b"", None, 0.0
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    buf += d
    *lines, buf = re.split(rb"[\r\n]", buf)
    for l in lines:
        l = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", l).decode(errors="replace").strip()
        if not l:
            continue
        name = re.split(r"\d", l, 1)[0].strip()
        if name != phase:
            now = time.time() - t0
            if phase is not None:
                print(f"load phase {phase!r}: {now - since:.2f} s")
            phase, since = name, now
os.waitpid(pid, 0)
print(f"load phase {phase!r} (last line) ended; whole run {time.time() - t0:.2f} s")
PY
		rm -rf "$W/lp.db"
		;;
	group)
		[ -d "$W/l5.db" ] || { stamp "group: no 5M store"; continue; }
		q=$repo/bench/queries/group-aggregates.rq
		stamp "group: $q at 5M"
		serve_time "$PK" all 15 "$q" 18301
		[ -x "$ALT" ] && serve_time "$ALT" all 15 "$q" 18302
		serve_time "$PK" 1 5 "$q" 18303
		[ -x "$ALT" ] && serve_time "$ALT" 1 5 "$q" 18304
		serve_time "$PK" all 15 "$q" 18305
		[ -x "$ALT" ] && serve_time "$ALT" all 15 "$q" 18306
		"$PK" query --store "native:$W/l5.db" --cpuprofile "$OUT/group16.prof" "$q" >/dev/null 2>&1
		;;
	reason)
		stamp "reason: 1M store"
		"$PK" sample --sites 4 --seed 2 --triples "$N1" -o "$W/r1m.nq" >/dev/null 2>&1
		rm -rf "$W/r1m.db"
		"$PK" load --store "native:$W/r1m.db" "$W/r1m.nq" >/dev/null 2>&1
		for rs in sample shipped; do
			if [ $rs = sample ]; then
				set -- --rules "$repo/bench/jena/sample.rules"
			else
				set -- --rules "$repo/rules/rdfs.rules" --rules "$repo/rules/owl-rl.rules" --rules "$repo/rules/perfonto.rules"
			fi
			for p in all 1 all 1; do
				rm -rf "$W/run.db"
				cp -r "$W/r1m.db" "$W/run.db"
				if [ $p = all ]; then
					tm "reason-$rs-P$p" timeout "$(left)" "$PK" --store "native:$W/run.db" reason "$@" --limit 0
				else
					tm "reason-$rs-P$p" timeout "$(left)" env GOMAXPROCS=$p "$PK" --store "native:$W/run.db" reason "$@" --limit 0
				fi
				grep -h 'rules over' "$W/logs/reason-$rs-P$p.log" | tail -1 | tee -a "$S"
			done
		done
		rm -rf "$W/run.db"
		cp -r "$W/r1m.db" "$W/run.db"
		"$PK" --store "native:$W/run.db" reason "$@" --limit 0 --cpuprofile "$OUT/reason16.prof" >/dev/null 2>&1
		rm -rf "$W/run.db"
		;;
	serve)
		stamp "serve: the five workload queries against Virtuoso at 1M"
		"$PK" sample --sites 3 --triples "$N1" -o "$W/s1m.nt" >/dev/null 2>&1
		t=$(($(left) - 15))
		DATA=$W/serve OUT=$W/serve-out PERFKB=$PK RUNS=3 TIMEOUT=60 DURATION=${DURATION:-5} WRK_THREADS=4 \
			QUERIES="$repo/bench/serve/queries/*.rq" VIRTUOSO_BUFFERS=1000000 VIRTUOSO_THREADS_PER_QUERY=16 \
			timeout "$t" sh "$here/run.sh" sample1m "$W/s1m.nt" >"$W/logs/serve.log" 2>&1
		note "serve: exit $?"
		cat "$W/serve-out/sample1m-wrk.txt" "$W/serve-out/sample1m.md" 2>/dev/null | tee -a "$S" >/dev/null
		;;
	esac
	save
done
stamp "done"
save
