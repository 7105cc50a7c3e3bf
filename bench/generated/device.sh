#!/bin/sh
# The generated benchmark on a lent 16-core machine (BENCHMARKING.md:
# nothing can be installed there, one call may run 10 minutes).
#
# Here (build machine, with virtuoso-opensource and wrk installed):
#   bench/generated/device.sh pack            # -> bench/generated/.devpack/ (git-ignored)
# There, through the device tool (carry ["bench/generated/.devpack"], timeout_s 560):
#   bench/generated/device.sh run             # results under $OUT (the tool's folder)
#   bench/generated/device.sh scale           # the 16-core figures below, under $OUT
#
# pack: a stripped perfkb, virtuoso-t, isql-vt, wrk and every shared library
# ldd lists for them but libc's (lib/, found through LD_LIBRARY_PATH) and
# Virtuoso's plugins in pack.tar.xz, and the SCALEA data set as xz (it needs
# PostgreSQL to generate), ~25 MB together (the carry limit is 64 MiB).
# run: generates the sample data there (perfkb sample, seconds), then
# bench/generated/run.sh on both data sets with the committed queries
# (RUNS=3, TIMEOUT=20 s) and wrk at 16 and 64 clients on the five workload
# queries for the sample only; stays under ~8 minutes at 1M triples
# (estimate: loads ~1 min, 2 x ~100 queries x 8 requests, wrk 100 s).
# scale: the figures that need the cores (~5 minutes), each step bounded
# so that one slow step cannot take the others' results with it:
#   load   durable `perfkb load` of 5M and 10M sample triples on every core,
#          and of 5M on two (taskset), triples/s (issue 24, item 5);
#   group  bench/queries/group-aggregates.rq served at 5M with GOMAXPROCS
#          unset and =1, median of warm requests (issue 24, item 3);
#   reason `perfkb reason` over a 1M store, bench/jena/sample.rules and the
#          shipped rdfs + owl-rl + perfonto sets, explanations on, every core
#          against GOMAXPROCS=1 (issue 25, item 2);
#   serve  the five workload queries against Virtuoso at 1M, one client and
#          wrk at 16 and 64 connections (issue 24, item 2).
# $OUT/scale.txt is written as it goes; the rest is tarred into
# $OUT/scale.tar.gz after each step. PERFKB_BIN (pack) packs that build
# instead of building this checkout; PERFKB_ALT (pack) adds a second
# perfkb build, run beside the first in the group step.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
pack=$here/.devpack
case ${1:-} in
pack)
	rm -rf "$pack"
	stage=$(mktemp -d)
	mkdir -p "$pack" "$stage/bin" "$stage/lib" "$stage/hosting"
	if [ -n "${PERFKB_BIN:-}" ]; then
		cp "$PERFKB_BIN" "$stage/bin/perfkb"
	else
		(cd "$repo" && go build -ldflags "-s -w" -o "$stage/bin/perfkb" ./cmd/perfkb)
	fi
	[ -z "${PERFKB_ALT:-}" ] || cp "$PERFKB_ALT" "$stage/bin/perfkb-alt"
	[ -z "${PERFKB_ALT2:-}" ] || cp "$PERFKB_ALT2" "$stage/bin/perfkb-alt2"
	for b in virtuoso-t isql-vt wrk; do cp "$(command -v $b)" "$stage/bin/"; done
	cp /usr/lib/x86_64-linux-gnu/virtuoso-opensource-7/hosting/*.so "$stage/hosting/" 2>/dev/null || true
	ldd "$stage"/bin/virtuoso-t "$stage"/bin/isql-vt "$stage"/bin/wrk | awk '/=> \// {print $3}' | sort -u |
		grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so' | while read -r l; do cp -L "$l" "$stage/lib/"; done
	tar -C "$stage" -cf - bin lib hosting | xz -T2 -6 >"$pack/pack.tar.xz"
	rm -rf "$stage"
	scalea=${SCALEA_NT:-/tmp/benchgen/scalea.nt}
	if [ -s "$scalea" ] && [ -z "${NO_SCALEA:-}" ]; then xz -T2 -6 -c "$scalea" >"$pack/scalea.nt.xz"; fi
	du -sh "$pack"/*
	;;
run)
	[ -d "$pack" ] || { echo "device.sh run: no $pack (carry it)" >&2; exit 2; }
	work=${DATA:-/tmp/perfkb-device}
	OUT=${OUT:-$work/results}
	mkdir -p "$work/pack" "$OUT"
	# python3's lzma, in case the machine has no xz.
	python3 -c 'import lzma, sys, tarfile, shutil
tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])
with lzma.open(sys.argv[3]) as f, open(sys.argv[4], "wb") as g: shutil.copyfileobj(f, g)' \
		"$pack/pack.tar.xz" "$work/pack" "$pack/scalea.nt.xz" "$work/scalea.nt"
	export PATH="$work/pack/bin:$PATH" LD_LIBRARY_PATH="$work/pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export VIRTUOSO_HOSTING="$work/pack/hosting" PERFKB="$work/pack/bin/perfkb"
	{ nproc; uname -a; grep -m1 'model name' /proc/cpuinfo; free -g; } >"$OUT/machine.txt" 2>&1 || true
	"$PERFKB" sample --sites 3 --triples "${TRIPLES:-1000000}" -o "$work/sample.nt" >"$OUT/sample-gen.log" 2>&1
	export OUT DATA=$work RUNS=${RUNS:-3} TIMEOUT=${TIMEOUT:-20} SLOW=${SLOW:-5} DURATION=${DURATION:-5}
	export VIRTUOSO_BUFFERS=${VIRTUOSO_BUFFERS:-1000000} VIRTUOSO_THREADS_PER_QUERY=${VIRTUOSO_THREADS_PER_QUERY:-16}
	"$here/run.sh" sample "$work/sample.nt" 2>&1 | tee "$OUT/sample.log"
	SKIP_WRK=1 "$here/run.sh" scalea "$work/scalea.nt" 2>&1 | tee "$OUT/scalea.log"
	;;
scale)
	exec sh "$here/device-scale.sh"
	;;
*)
	echo "usage: device.sh pack|run|scale" >&2
	exit 2
	;;
esac
