#!/bin/sh
# Benchmark (not a test): the full Fig. 8 sweep set -- six sweeps x 9 points
# x N tasksets (default 1000) x 10 analyses -- in release mode, on all cores.
# Prints tasksets per second and compares the wall time with the 30 s budget.
#
#   tools/gcaps/bench.sh [N] [extra gcaps experiment flags, e.g. -j 1]
#
# Exit status: 0 within budget, 1 over budget, 2 build/run failure.
set -eu
cd "$(dirname "$0")/../.."
N="${1:-1000}"
[ $# -gt 0 ] && shift
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -q -p gcaps || exit 2
BIN="$CARGO_TARGET_DIR/release/gcaps"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
START=$(date +%s.%N)
"$BIN" experiment --sweep all-fig8 -n "$N" --seed 1 --out "$OUT" --quiet "$@" || exit 2
END=$(date +%s.%N)
WALL=$(echo "$END - $START" | bc)
echo "wall time (incl. process start and file output): $WALL s, budget 30 s"
if [ "$(echo "$WALL < 30" | bc)" = 1 ]; then echo "within budget"; else echo "OVER BUDGET"; exit 1; fi
