#!/usr/bin/env bash
# Installs the Python test oracles (Extra-P, pycubexr, caliper-reader,
# llnl-hatchet) into a virtual environment on Debian's python3, so that the
# tests which compare perfkb with them run instead of skipping. Their
# dependencies come from Debian; the oracles themselves from PyPI, or, where
# PyPI cannot be reached, from source checkouts:
#
#   bench/oracles/install.sh [VENV]                 # from PyPI
#   ORACLE_SRC=DIR bench/oracles/install.sh [VENV]  # from DIR/<name> checkouts
#
# DIR holds git checkouts named extrap, pycubexr, Caliper, hatchet, textX and
# Arpeggio (github.com/extra-p/extrap, extra-p/pycubexr, LLNL/Caliper,
# LLNL/hatchet, textX/textX, textX/Arpeggio). The tests find the environment
# through PERFKB_ORACLE_PYTHON; the script prints the line to export.
set -euo pipefail
venv=${1:-/opt/perfkb-oracles}
export DEBIAN_FRONTEND=noninteractive
deb=(python3-numpy python3-sklearn python3-marshmallow python3-tqdm python3-matplotlib
  python3-packaging python3-pandas python3-pydot python3-yaml python3-multiprocess
  flit cython3 python3-dev python3-setuptools python3-wheel python3-venv python3-pip build-essential)
missing=()
for p in "${deb[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
pip=("$venv/bin/python" -m pip install -q --no-deps --no-build-isolation)
if [ -n "${ORACLE_SRC:-}" ]; then
  "${pip[@]}" "$ORACLE_SRC/Arpeggio" "$ORACLE_SRC/textX" "$ORACLE_SRC/pycubexr" \
    "$ORACLE_SRC/Caliper/python/caliper-reader" "$ORACLE_SRC/extrap" "$ORACLE_SRC/hatchet"
else
  "${pip[@]}" Arpeggio textX pycubexr caliper-reader extrap llnl-hatchet
fi
"$venv/bin/python" -c 'import extrap, pycubexr, caliperreader, hatchet; print("oracles:", extrap.__version__, hatchet.__version__)'
echo "export PERFKB_ORACLE_PYTHON=$venv/bin/python"
