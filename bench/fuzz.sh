#!/bin/sh
# Short fuzzing of every Go fuzz target: bench/fuzz-all.sh with FUZZTIME
# 60s unless set. See bench/fuzz-all.sh for the options.
#
#   bench/fuzz.sh
#   FUZZTIME=30s bench/fuzz.sh FuzzTurtle      # only the named targets
FUZZTIME=${FUZZTIME:-60s}
export FUZZTIME
exec "$(dirname "$0")/fuzz-all.sh" "$@"
