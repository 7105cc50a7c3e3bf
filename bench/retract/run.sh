#!/usr/bin/env bash
# Times the command-line retraction of one experiment of ~70 (issue 25,
# item 3) against what a user does without it: drop the experiment's graph
# and recompute the closure. The data are `perfkb sample --sites 6
# --triples 200000` with vienna's experiment 2 (every quad whose subject is
# the experiment or under it) moved into a graph of its own, loaded and
# closed by `perfkb reason`. Each trial starts from a copy of that store;
# the two ways alternate. Both must end with the same inferred graph
# (compared sorted), or the script fails.
#
#   bench/retract/run.sh [TRIALS]     (default 5; PERFKB=binary to skip the build)
#
# It prints CPU seconds (user + system, /usr/bin/time) per command and the
# ratio of each pair.
set -euo pipefail
trials=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
perfkb=${PERFKB:-}
if [ -z "$perfkb" ]; then
	echo "building perfkb"
	go build -o "$work/perfkb" ./cmd/perfkb
	perfkb=$work/perfkb
fi
exp=http://perfkb.example/site/vienna/exp/2
graph=urn:x-perfkb:bench:vienna-exp-2
"$perfkb" sample --sites 6 --triples 200000 -o "$work/all.nq" >/dev/null
awk -v s="<$exp>" -v u="<$exp/" -v g="<$graph>" '
	index($0, s) == 1 || index($0, u) == 1 { sub(/<[^>]*> \.$/, g " ."); n++ }
	{ print }
	END { if (n == 0) exit 1; print n " quads of " NR " moved into " g > "/dev/stderr" }' "$work/all.nq" >"$work/moved.nq" 2>"$work/moved.txt"
cat "$work/moved.txt"
"$perfkb" --store "native:$work/base" load "$work/moved.nq" >/dev/null
"$perfkb" --store "native:$work/base" reason >/dev/null

# cpu CMD...: runs CMD and prints its user + system CPU seconds.
cpu() {
	if ! /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err"; then
		cat "$work/err" >&2
		return 1
	fi
	awk '{ printf "%.3f", $1 + $2 }' "$work/time"
}

printf "%-6s %-22s %-12s %-22s %s\n" trial "drop-graph --retract" "drop-graph" "drop + reason --reset" "ratio"
for i in $(seq "$trials"); do
	rm -rf "$work/a" "$work/b"
	cp -a "$work/base" "$work/a"
	cp -a "$work/base" "$work/b"
	sync
	r=$(cpu "$perfkb" --store "native:$work/a" drop-graph --retract "$graph")
	d=$(cpu "$perfkb" --store "native:$work/b" drop-graph "$graph")
	c=$(cpu "$perfkb" --store "native:$work/b" reason --reset)
	t=$(awk -v d="$d" -v c="$c" 'BEGIN { printf "%.3f", d + c }')
	printf "%-6s %-22s %-12s %-22s 1/%.1f\n" "$i" "$r" "$d" "$t" "$(awk -v r="$r" -v t="$t" 'BEGIN { print t / r }')"
	if [ "$i" = 1 ]; then
		"$perfkb" --store "native:$work/a" export --graph urn:x-perfkb:inferred | LC_ALL=C sort >"$work/a.nq"
		"$perfkb" --store "native:$work/b" export --graph urn:x-perfkb:inferred | LC_ALL=C sort >"$work/b.nq"
		if ! cmp -s "$work/a.nq" "$work/b.nq"; then
			echo "the retraction and the recompute left different inferred graphs:" >&2
			diff "$work/a.nq" "$work/b.nq" | head -20 >&2
			exit 1
		fi
		echo "       same inferred graph both ways: $(wc -l <"$work/a.nq") triples"
	fi
done
