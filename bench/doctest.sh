#!/usr/bin/env bash
# Runs the commands of README.md and of the tutorials in docs/ as written,
# each file in its own fresh copy of the repository's tracked files (what a
# clean clone holds), with the perfkb that `go install ./cmd/perfkb` builds
# from that copy on PATH.
#
# A fenced code block runs when the line before its opening fence is
#   <!-- doctest -->        the block runs in the file's shell script, in
#                           order, under `set -euo pipefail`;
#   <!-- doctest serve -->  the block starts a server that runs until
#                           Ctrl-C: it runs in the background until it prints
#                           its URL, the page and the SPARQL endpoint are
#                           fetched, and it gets the Ctrl-C (SIGINT) and must
#                           stop cleanly ("perfkb: server stopped").
# Blocks without a marker (they need PostgreSQL, an OTF2 build, a store
# another tutorial made, or they run for long) are not run; `go test ./...`
# of the README is what .ci/run does itself.
#
#   bench/doctest.sh                       README.md and every docs/*.md with a marker
#   bench/doctest.sh docs/rules.md         one file
#   DOCTEST_KEEP=1 bench/doctest.sh …      keep the copies (their paths are printed)
#
# Background jobs a block starts (`… serve &`) are stopped when its file ends.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=(README.md)
  for f in docs/*.md; do
    grep -q '^<!-- doctest' "$f" && files+=("$f")
  done
fi

# Every relative link of README.md and docs/*.md must name a file that exists.
links_ok=1
for md in README.md docs/*.md; do
  for target in $(grep -oE '\]\([^)#[:space:]]+' "$md" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
    if [ ! -e "$(dirname "$md")/$target" ]; then
      echo "doctest: $md links to $target, which does not exist" >&2
      links_ok=0
    fi
  done
done
[ "$links_ok" = 1 ] || exit 1

root=$(mktemp -d /tmp/perfkb-doctest.XXXXXX)
cleanup() { [ -n "${DOCTEST_KEEP:-}" ] && echo "doctest: kept $root" || rm -rf "$root"; }
trap cleanup EXIT

# The script of one markdown file: its marked blocks in order.
extract() {
  awk '
    BEGIN { mode = ""; inblock = 0; n = 0 }
    inblock && /^```/ {
      if (mode == "serve") print "DOCTEST_EOF"
      inblock = 0; mode = ""; next
    }
    inblock { print; next }
    /^<!-- doctest serve -->$/ { pending = "serve"; next }
    /^<!-- doctest -->$/ { pending = "run"; next }
    /^```/ {
      if (pending != "") {
        mode = pending; inblock = 1; n++
        printf "doctest_block %d %d\n", n, NR
        if (mode == "serve") print "doctest_serve <<'"'"'DOCTEST_EOF'"'"'"
      }
      pending = ""; next
    }
    { if ($0 !~ /^[[:space:]]*$/) pending = "" }
  ' "$1"
}

prelude='
set -euo pipefail
doctest_block() { echo "doctest: $DOCTEST_FILE block $1 (line $2)" >&2; }
doctest_serve() {
  local script log pid url i
  script=$(mktemp) log=$(mktemp)
  cat >"$script"
  setsid bash -euo pipefail "$script" >"$log" 2>&1 &
  pid=$!
  for i in $(seq 1 1200); do
    url=$(sed -nE "s#.* at (http://[^ ]*)/ \(query page\).*#\1#p" "$log" | head -n1)
    [ -n "$url" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then cat "$log" >&2; echo "doctest: the server exited before serving" >&2; return 1; fi
    sleep 0.5
  done
  [ -n "$url" ] || { cat "$log" >&2; echo "doctest: no URL after 600 s" >&2; kill -INT -- -"$pid"; return 1; }
  curl -fsS -o /dev/null "$url/"
  curl -fsS -o /dev/null -G "$url/sparql" --data-urlencode "query=ASK { ?s ?p ?o }"
  kill -INT -- -"$pid"
  # `go run` exits 1 after an interrupt whatever its program does, so the
  # clean stop is read from the last line the server prints.
  wait "$pid" || true
  if ! grep -q "^perfkb: server stopped" "$log"; then cat "$log" >&2; echo "doctest: the server did not stop cleanly on Ctrl-C" >&2; return 1; fi
  echo "doctest: served at $url, stopped with Ctrl-C" >&2
}
trap '\''for j in $(jobs -p); do kill "$j" 2>/dev/null || true; done; wait 2>/dev/null || true'\'' EXIT
'

export GOBIN="$root/bin" PATH="$root/bin:$PATH"
status=0
for f in "${files[@]}"; do
  dir="$root/$(echo "$f" | tr / _)"
  mkdir -p "$dir"
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$dir"
  (cd "$dir" && go install ./cmd/perfkb)
  script="$dir/.doctest.sh"
  { echo "$prelude"; echo "DOCTEST_FILE=$f"; extract "$f"; } >"$script"
  if ! grep -q '^doctest_block' "$script"; then
    echo "doctest: $f has no marked block" >&2
    status=1
    continue
  fi
  start=$(date +%s)
  if (cd "$dir" && bash "$script" </dev/null); then
    echo "doctest: $f ok in $(($(date +%s) - start)) s" >&2
  else
    echo "doctest: $f FAILED" >&2
    status=1
  fi
done
exit $status
