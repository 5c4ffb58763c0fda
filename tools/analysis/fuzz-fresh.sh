#!/bin/bash
# Property tests of the analysis crate with a fresh random seed (not part of
# CI: `cargo test` always uses each file's fixed seed, so CI is
# reproducible). Usage: tools/analysis/fuzz-fresh.sh [CASES] (default 2000).
# A failure prints the seed to rerun with (PROPTEST_RNG_SEED=N) and proptest
# writes the shrunk case to tools/analysis/tests/proptest-regressions/; check that
# file in with the fix, so every later run replays it first.
set -euo pipefail
cd "$(dirname "$0")/../.."
seed=${PROPTEST_RNG_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cases=${1:-2000}
echo "fuzz-fresh: PROPTEST_RNG_SEED=$seed PROPTEST_CASES=$cases"
PROPTEST_RNG_SEED=$seed PROPTEST_CASES=$cases \
    cargo test --release --locked -p gcaps-analysis --test parse_fuzz --test properties
