#!/bin/sh
# vendor.sh fetches the pinned YASGUI release from the npm registry and copies
# its built files and the licences of everything bundled into them into
# server/web/vendor/yasgui/. The result is committed, so running perfkb needs
# no Node.js and no build step; run this script only to change the version.
#
#   sh server/web/vendor.sh            # needs npm and network access to the registry
set -eu

YASGUI_VERSION=4.6.2   # @zazuko/yasgui, MIT, https://github.com/zazuko/Yasgui

here=$(cd "$(dirname "$0")" && pwd)
out="$here/vendor/yasgui"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
echo '{"private": true}' > package.json
# --ignore-scripts: nothing from the registry runs on this machine.
npm install --silent --ignore-scripts --no-audit --no-fund --save-exact "@zazuko/yasgui@$YASGUI_VERSION"

pkg=node_modules/@zazuko/yasgui
got=$(node -p "require('./$pkg/package.json').version")
[ "$got" = "$YASGUI_VERSION" ] || { echo "vendor.sh: got @zazuko/yasgui $got, want $YASGUI_VERSION" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
cp "$pkg/build/yasgui.min.js" "$pkg/build/yasgui.min.css" "$out/"

# The npm package ships no LICENSE file; its package.json says MIT. This is
# the text of LICENSE in https://github.com/zazuko/Yasgui (the source of the
# package), kept beside the built files as the MIT licence requires.
cat > "$out/LICENSE" <<'MIT'
@zazuko/yasgui, @zazuko/yasqe, @zazuko/yasr, @zazuko/yasgui-utils
(https://github.com/zazuko/Yasgui; originally TriplyDB/Yasgui)

The MIT License (MIT)

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
THE SOFTWARE.
MIT

# The bundle contains its dependencies (CodeMirror, DataTables, jQuery, …):
# keep each installed package's name, version, licence and licence text.
{
  echo "Third-party packages installed with @zazuko/yasgui@$YASGUI_VERSION (bundled into yasgui.min.js)."
  echo
  for dir in $(find node_modules -name package.json -path '*node_modules/*/package.json' -not -path '*/node_modules/*/node_modules/*/*/package.json' | sort); do
    d=$(dirname "$dir")
    name=$(node -p "try{const p=require('./$dir'); p.name && p.version ? p.name+'@'+p.version : ''}catch(e){''}")
    [ -n "$name" ] || continue
    lic=$(node -p "try{const p=require('./$dir'); typeof p.license==='string' ? p.license : JSON.stringify(p.license||p.licenses||'UNKNOWN')}catch(e){'UNKNOWN'}")
    echo "=============================================================================="
    echo "$name ($lic)"
    echo "=============================================================================="
    for f in "$d"/LICENSE* "$d"/LICENCE* "$d"/license* "$d"/COPYING*; do
      [ -f "$f" ] && cat "$f" && echo
    done
  done
} > "$out/THIRD-PARTY-LICENSES.txt"

cat > "$out/VERSION" <<V
@zazuko/yasgui $YASGUI_VERSION from registry.npmjs.org, vendored by server/web/vendor.sh
V
echo "vendored @zazuko/yasgui $YASGUI_VERSION into $out"
ls -l "$out"
