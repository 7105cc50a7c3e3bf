#!/bin/sh
# vendor-charts.sh fetches the pinned chart libraries of the workbench from
# the npm registry and copies their built files, licences and versions into
# server/web/vendor/{uplot,d3,d3-flame-graph}/. The result is committed, so
# running perfkb needs no Node.js, no build step and no CDN; run this script
# only to change a version.
#
#   sh server/web/vendor-charts.sh      # needs npm and the registry
#
# uPlot draws the scaling curves and the across-process statistics; the
# flame graph of the call tree is d3-flame-graph, which needs d3 as the
# global d3 (its UMD build), so d3's single-file build comes too.
set -eu

UPLOT_VERSION=1.6.32          # uplot, MIT, https://github.com/leeoniya/uPlot
D3_VERSION=7.9.2              # d3, ISC, https://github.com/d3/d3
FLAMEGRAPH_VERSION=5.0.0      # d3-flame-graph, Apache-2.0, https://github.com/spiermar/d3-flame-graph

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
echo '{"private": true}' > package.json
# --ignore-scripts: nothing from the registry runs on this machine.
npm install --silent --ignore-scripts --no-audit --no-fund --save-exact \
  "uplot@$UPLOT_VERSION" "d3@$D3_VERSION" "d3-flame-graph@$FLAMEGRAPH_VERSION"

# vendor PACKAGE VERSION DIR FILE...: copy FILEs (paths inside the package)
# with the package's LICENSE and a VERSION line into vendor/DIR.
vendor() {
  pkg=$1 want=$2 dir=$3
  shift 3
  got=$(node -p "require('./node_modules/$pkg/package.json').version")
  [ "$got" = "$want" ] || { echo "vendor-charts.sh: got $pkg $got, want $want" >&2; exit 1; }
  out="$here/vendor/$dir"
  rm -rf "$out"
  mkdir -p "$out"
  for f in "$@"; do cp "node_modules/$pkg/$f" "$out/"; done
  cp "node_modules/$pkg/LICENSE" "$out/LICENSE"
  lic=$(node -p "require('./node_modules/$pkg/package.json').license")
  echo "$pkg $want ($lic) from registry.npmjs.org, vendored by server/web/vendor-charts.sh" > "$out/VERSION"
  echo "vendored $pkg $want into $out"
}

vendor uplot "$UPLOT_VERSION" uplot dist/uPlot.iife.min.js dist/uPlot.min.css
vendor d3 "$D3_VERSION" d3 dist/d3.min.js
vendor d3-flame-graph "$FLAMEGRAPH_VERSION" d3-flame-graph dist/d3-flamegraph.umd.min.js dist/d3-flamegraph.css
