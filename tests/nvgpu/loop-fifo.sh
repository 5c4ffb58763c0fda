#!/usr/bin/env bash
# tests/nvgpu/loop-fifo.sh LINE stock|patched N: run NVIDIA's FIFO unit set (run.sh's
# load-fifo directory: exactly the modules run.sh ran) N times on the tree run.sh last built,
# and count the runs that passed, died by a signal (per signal) or failed otherwise. For chance
# failures such as the nvs unit's worker race (tests/nvgpu/README.md). Run run.sh for the line
# first; the same environment (NVGPU_SRC, XDG_CACHE_HOME) finds the same trees.
#
# Environment: LOOP_CORE=1 keeps a core dump of each run killed by a signal (ulimit -c
# unlimited; the kernel's core_pattern must write a plain file in the current directory, e.g.
# "core", as it is by default). Each failed run's log (and core) go to
# <logdir>/loop-fifo/run-<i>.log (core-<i>); the directory is emptied at the start.
# Exit status 0 only if all N runs passed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=run.sh
source "$here/run.sh"
me="loop-fifo"

[[ $# -eq 3 && ($2 == stock || $2 == patched) && $3 =~ ^[1-9][0-9]*$ ]] ||
	die "usage: $0 LINE stock|patched N"
line=$1 kind=$2 n=$3
line_dir "$line"
if [[ $kind == stock ]]; then
	tree=$dir/build/nvgpu-$line logs=$dir/stock
else
	series_hash "$line"
	tree=$dir/patched-$phash/nvgpu-$line logs=$dir/patched-$phash
fi
us=$tree/userspace load=$logs/load-fifo
[[ -d $load && -x $us/build/nvgpu_unit ]] ||
	die "$line $kind: no FIFO set at $load (run NVGPU_LINES=$line tests/nvgpu/run.sh first)"
# Shared: several loops (stock and patched) at once, never while run.sh rebuilds the trees.
exec {lock}>"$dir/lock"
flock -s "$lock"

out=$logs/loop-fifo
rm -rf "$out"
mkdir -p "$out"
if [[ "${LOOP_CORE:-}" == 1 ]]; then
	ulimit -c unlimited
fi
declare -A sigs=()
passed=0 signalled=0 failed=0
t0=$(now_ms)
for ((i = 1; i <= n; i++)); do
	rm -f "$us"/core "$us"/core.*
	log=$out/run-$i.log
	unit_exec "$us" "$load" "$log" /dev/null
	f=$(summary_count Failing "$log")
	if [[ $r_rc -eq 0 && "$f" == 0 ]]; then
		passed=$((passed + 1))
		rm -f "$log"
		continue
	fi
	if [[ $r_rc -gt 128 && $r_rc -le 192 ]] && s=$(kill -l $((r_rc - 128)) 2>/dev/null); then
		signalled=$((signalled + 1))
		sigs[$s]=$((${sigs[$s]:-0} + 1))
		c=$(ls -t "$us"/core "$us"/core.* 2>/dev/null | head -n 1 || true)
		[[ -z "$c" ]] || mv "$c" "$out/core-$i"
	else
		failed=$((failed + 1))
	fi
	echo "$me: $line $kind run $i: nvgpu_unit $(exit_text "$r_rc" "$log"), Failing: ${f:-none} (log: $log)"
done
by=""
for s in "${!sigs[@]}"; do by+=" SIG$s ${sigs[$s]}"; done
echo "$me: $line $kind FIFO units: $n runs, $passed passed, $signalled killed by a signal${by:+ (${by# })}," \
	"$failed failed otherwise ($(secs $(($(now_ms) - t0))) s)"
[[ $passed -eq $n ]]
