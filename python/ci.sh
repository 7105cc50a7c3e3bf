#!/usr/bin/env bash
# The Python client's CI: install it offline into a throwaway virtual
# environment on Debian's python3 (pandas, nbconvert, ipykernel and pytest
# from Debian packages), run its tests against a real `perfkb serve`, and
# execute the notebook python/examples/tour.ipynb against another serving a
# sample store with scaling series, analyses and findings.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/perfkb-python.XXXXXX)
srv=
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/perfkb" ./cmd/perfkb
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install -q --no-deps --no-build-isolation ./python
"$py" -m ipykernel install --sys-prefix --name python3 >/dev/null

# The tests start their own server.
PERFKB_BIN="$work/perfkb" "$py" -m pytest -q -p no:cacheprovider python/tests

# The notebook's store: one site's sample with the scaling series.
p="$work/perfkb --store native:$work/nb.db"
"$work/perfkb" sample --sites 1 --triples 20000 --scaling -o "$work/s.nq" >/dev/null
$p load "$work/s.nq" >/dev/null
$p analyze >/dev/null
$p reason >/dev/null
$p serve --addr 127.0.0.1:0 >"$work/serve.log" 2>&1 &
srv=$!
url=
for _ in $(seq 1 120); do
  url=$(sed -nE 's#.* at (http://[^ ]*)/ \(query page\).*#\1#p' "$work/serve.log" | head -n1)
  [ -n "$url" ] && break
  sleep 0.5
done
[ -n "$url" ] || { cat "$work/serve.log" >&2; exit 1; }
PERFKB_URL="$url" PYDEVD_DISABLE_FILE_VALIDATION=1 "$py" -m nbconvert --to notebook --execute \
  --output-dir "$work" python/examples/tour.ipynb
echo "python: client tests and notebook ok"
