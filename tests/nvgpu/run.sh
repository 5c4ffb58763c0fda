#!/usr/bin/env bash
# make nvgpu-test: build NVIDIA's nvgpu host POSIX unit framework from the vendored nvgpu
# tarballs (one per Jetson Linux line), stock and with gcaps's patch series
# (nvgpu/patches/<line>/*.patch), and run NVIDIA's own FIFO unit modules and our unit module
# (units/gcaps) on both. See tests/nvgpu/README.md.
#
# Environment:
#   NVGPU_SRC    directory holding nvgpu-<line>.tar.xz and the README.md listing their sha256
#                (default: ../shared/vendor/nvgpu relative to the repository root)
#   NVGPU_LINES  lines to test, space-separated (default: "r35.6.0 r36.4.2")
#   NVGPU_JOBS   make -j for the library build (default 2)
#   CI           when "true", a missing NVGPU_SRC is a failure instead of a SKIP
#
# Output: per nvgpu line, the stock FIFO counts, the patched FIFO counts and the gcaps
# scenario counts, then "nvgpu-test: N passed, M failed" where N and M count nvgpu lines (not
# individual tests): a line passes when its tarball verifies, the series applies without fuzz,
# both trees build, every run exits 0 with "Failing: 0", the stock counts match the recorded
# ones (for a known tarball), the patched tree gives the same FIFO counts as stock, and the
# runlists our unit dumps with nothing bound are identical on both trees.
#
# Test-only patches to NVIDIA's unit framework and modules (unit-patches/all/, unit-patches/<line>/)
# go into every tree of the line. Sourced (loop-fifo.sh), the script only defines its settings and functions.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
patches="$root/nvgpu/patches"	# the gcaps patch series, one directory per line
me="nvgpu-test"

die() { echo "$me: error: $*" >&2; exit 1; }

read -ra lines <<<"${NVGPU_LINES:-r35.6.0 r36.4.2}"
jobs=${NVGPU_JOBS:-2}
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/nvgpu"

# NVIDIA's FIFO unit modules (directories under userspace/units), loaded as one set. The
# runlist/ module is left out: it is an empty placeholder on both lines (its tests were
# removed upstream). A directory missing on a line is skipped (nvs does not exist on R35).
fifo_units=(fifo/channel fifo/channel/gv11b fifo/tsg fifo/tsg/gv11b
	fifo/runlist/gk20a fifo/runlist/gv11b nvs)

# Stock counts (passed skipped) per tarball sha256 prefix, measured with this register file.
# A tarball not listed here is reported without this check (e.g. a user's own nvgpu).
declare -A expect=(
	[4d8f051d8a65]="63 2"   # nvgpu-r35.6.0.tar.xz
	[fc2f09266dbd]="49 20"  # nvgpu-r36.4.2.tar.xz
)

if [[ -n "${NVGPU_SRC:-}" ]]; then
	src=$NVGPU_SRC
	[[ -d "$src" ]] || die "NVGPU_SRC=$src is not a directory"
else
	src="$(cd "$root/.." && pwd)/shared/vendor/nvgpu"
	if [[ ! -d "$src" ]]; then
		if [[ "${CI:-}" == "true" ]]; then
			die "nvgpu sources not found at $src (set NVGPU_SRC); required when CI=true"
		fi
		echo "$me: SKIP: nvgpu sources not found at $src (set NVGPU_SRC to a directory with nvgpu-<line>.tar.xz and its README.md)"
		exit 0
	fi
fi
src=$(cd "$src" && pwd)
[[ -f "$src/README.md" ]] || die "$src/README.md (the tarballs' sha256 list) is missing"
for tool in tar xz sha256sum make gcc; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

now_ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }

# summary_count WORD LOG: N from the runner's last "WORD: N" summary line ("[C]   Passing: 49").
summary_count() {
	sed -n -E "s/^(\[C\] )?[[:space:]]*$1:[[:space:]]*([0-9]+)[[:space:]]*$/\2/p" "$2" | tail -n 1
}

# Copy a file only when its content differs, so make's timestamps stay meaningful.
install_file() {
	if ! cmp -s "$1" "$2"; then
		cp "$1" "$2"
	fi
}

# line_dir LINE: verifies nvgpu-LINE.tar.xz against the README's sha256; sets tarball, got
# (its sha256) and dir (the line's cache directory).
line_dir() {
	local line=$1 want
	tarball="$src/nvgpu-$line.tar.xz"
	[[ -f "$tarball" ]] || die "$line: $tarball is missing"
	want=$(grep -E "^[0-9a-f]{64}[[:space:]]+\*?nvgpu-$line\.tar\.xz[[:space:]]*$" "$src/README.md" |
		head -n 1 | cut -c1-64 || true)
	[[ -n "$want" ]] || die "$line: no sha256 for nvgpu-$line.tar.xz in $src/README.md"
	got=$(sha256sum "$tarball" | cut -d' ' -f1)
	[[ "$got" == "$want" ]] || die "$line: sha256 mismatch for $tarball: $got, README says $want"
	dir="$cache_root/$line-${got:0:12}"
}

# series_hash LINE: sets series (the line's patch files) and phash (their hash, which names
# the patched and full-profile copies).
series_hash() {
	local pdir=$patches/$1
	series=("$pdir"/*.patch)
	[[ -f "${series[0]}" ]] || die "$1: no patches in $pdir"
	phash=$(cat "${series[@]}" | sha256sum | cut -c1-12)
}

# run_line LINE: everything for one nvgpu line; prints its result line; non-zero on failure.
run_line() {
	local line=$1 tarball got dir series phash
	line_dir "$line"
	mkdir -p "$dir"
	# One run at a time per cache directory.
	exec {lock}>"$dir/lock"
	flock "$lock"

	# Pristine unpacked sources, never built in.
	local pristine="$dir/src/nvgpu-$line"
	if [[ ! -f "$dir/src.complete" ]]; then
		rm -rf "$dir/src" "$dir/src.tmp" "$dir/build" "$dir/build.complete"
		mkdir -p "$dir/src.tmp"
		tar -xJf "$tarball" -C "$dir/src.tmp" || die "$line: unpacking $tarball failed"
		[[ -d "$dir/src.tmp/nvgpu-$line/userspace" ]] ||
			die "$line: $tarball does not unpack to nvgpu-$line/userspace"
		mv "$dir/src.tmp" "$dir/src"
		touch "$dir/src.complete"
	fi

	# nvgpu's unit build writes objects into userspace/ (and next to the unit sources),
	# so it builds in a copy of the pristine tree that is kept between runs.
	local tree="$dir/build/nvgpu-$line"
	if [[ ! -f "$dir/build.complete" ]]; then
		rm -rf "$dir/build" "$dir/build.tmp"
		mkdir -p "$dir/build.tmp"
		cp -a "$pristine" "$dir/build.tmp/"
		mv "$dir/build.tmp" "$dir/build"
		touch "$dir/build.complete"
	fi

	build_tree "$tree" "$dir/stock" "$line" || return 1
	run_fifo "$tree" "$dir/stock" "$line"
	local stock_passed=$r_passed stock_skipped=$r_skipped
	echo "$me: $line stock FIFO units: $r_passed passed, $r_failed failed, $r_skipped skipped" \
		"(${#r_mods[@]} modules; build $b_secs s, run $r_secs s)"
	check_run "$line stock FIFO units" "$dir/stock/run-fifo.log"
	local e=${expect[${got:0:12}]:-}
	if [[ -n "$e" && "$e" != "$stock_passed $stock_skipped" ]]; then
		die "$line: expected ${e% *} passed and ${e#* } skipped for this tarball (log: $dir/stock/run-fifo.log)"
	fi
	# Our unit on the stock tree: the stock order, and the canonical dump of its runlists.
	run_gcaps "$tree" "$dir/stock" "$line"
	check_run "$line gcaps unit on the stock tree" "$dir/stock/run-gcaps.log"
	local stock_unit=$r_passed

	# The patched tree: pristine + our series, keyed by the series' hash.
	series_hash "$line"
	local pd="$dir/patched-$phash"
	local ptree="$pd/nvgpu-$line"
	patched_copy "$pd" patched
	build_tree "$ptree" "$pd" "$line" || return 1
	run_fifo "$ptree" "$pd" "$line"
	echo "$me: $line patched FIFO units: $r_passed passed, $r_failed failed, $r_skipped skipped" \
		"(patch $phash; build $b_secs s, run $r_secs s)"
	check_run "$line patched FIFO units" "$pd/run-fifo.log"
	if [[ "$r_passed $r_skipped" != "$stock_passed $stock_skipped" ]]; then
		die "$line: the patched tree gives $r_passed passed, $r_skipped skipped; stock $stock_passed, $stock_skipped"
	fi
	run_gcaps "$ptree" "$pd" "$line"
	local g_pass=$r_passed g_fail=$r_failed same=1
	cmp -s "$dir/stock/gcaps-dump.txt" "$pd/gcaps-dump.txt" || same=0
	if [[ $same -eq 1 ]]; then
		g_pass=$((g_pass + 1))
	else
		g_fail=$((g_fail + 1))
	fi
	echo "$me: $line gcaps scenarios: $g_pass passed, $g_fail failed" \
		"(unit tests on the patched tree, plus unbound runlists identical to stock:" \
		"$([[ $same -eq 1 ]] && echo yes || echo NO); on the stock tree $stock_unit passed; run $r_secs s)"
	[[ $same -eq 1 ]] || die "$line: unbound runlists differ from stock: diff $dir/stock/gcaps-dump.txt $pd/gcaps-dump.txt"
	check_run "$line gcaps scenarios" "$pd/run-gcaps.log"
	run_contract "$ptree" "$pd" "$line" ""

	# The full (non-safety) profile, as the L4T kernel build has it: the TSG scheduling setters
	# and recovery exist only there. Our unit alone (NVIDIA's FIFO units assume the safety
	# profile's memory setup), on a third copy, keyed by the series' hash like the patched one.
	local fd="$dir/full-$phash"
	patched_copy "$fd" full
	build_tree "$fd/nvgpu-$line" "$fd" "$line" full || return 1
	run_gcaps "$fd/nvgpu-$line" "$fd" "$line"
	local f_pass=$r_passed f_fail=$r_failed
	same=1
	cmp -s "$dir/stock/gcaps-dump.txt" "$fd/gcaps-dump.txt" || same=0
	if [[ $same -eq 1 ]]; then f_pass=$((f_pass + 1)); else f_fail=$((f_fail + 1)); fi
	echo "$me: $line gcaps scenarios (full profile): $f_pass passed, $f_fail failed" \
		"(the unit on the patched tree built with NVIDIA's non-safety profile, plus unbound runlists" \
		"identical to stock: $([[ $same -eq 1 ]] && echo yes || echo NO); build $b_secs s, run $r_secs s)"
	[[ $same -eq 1 ]] || die "$line: full profile: unbound runlists differ from stock: diff $dir/stock/gcaps-dump.txt $fd/gcaps-dump.txt"
	check_run "$line gcaps scenarios (full profile)" "$fd/run-gcaps.log"
	run_contract "$fd/nvgpu-$line" "$fd" "$line" " (full profile)"
}

# patched_copy DIR KIND: DIR/nvgpu-$line = the pristine tree with the line's series applied
# (once; DIR.complete marks it); other KIND-* copies of this line (an older series) are removed.
patched_copy() {
	local d=$1 kind=$2 p
	[[ -f "$d.complete" ]] && return 0
	rm -rf "$dir/$kind"-* "$d.tmp"
	mkdir -p "$d.tmp"
	cp -a "$pristine" "$d.tmp/"
	for p in "${series[@]}"; do
		# --fuzz=0: the series must apply exactly (offsets only).
		if ! (cd "$d.tmp/nvgpu-$line" && patch -p1 --fuzz=0 --no-backup-if-mismatch \
			-s <"$p") >"$d.tmp.log" 2>&1; then
			cat "$d.tmp.log" >&2
			die "$line: $(basename "$p") does not apply without fuzz"
		fi
	done
	[[ $kind != patched ]] || am_check "$d.tmp/nvgpu-$line"
	mv "$d.tmp" "$d"
	touch "$d.complete"
}

# am_check TREE: the series applied with `git am` to a git repository of the pristine sources
# gives TREE (the series applied with patch), file for file. A BSP maintainer takes the series
# with either; nvgpu/series.sh keeps them in git format-patch form.
am_check() {
	local t=$1 g=$dir/am.tmp
	local git=(git -c user.name=nvgpu-test -c user.email=nvgpu-test@localhost
		-c commit.gpgsign=false -c core.hooksPath=/dev/null)
	rm -rf "$g"
	mkdir -p "$g"
	cp -a "$pristine" "$g/"
	if ! (cd "$g/nvgpu-$line" && "${git[@]}" init -q && "${git[@]}" add -A &&
		"${git[@]}" commit -q -m "nvgpu $line (stock)" &&
		"${git[@]}" am -q --no-3way "${series[@]}") >"$dir/am.log" 2>&1; then
		cat "$dir/am.log" >&2
		die "$line: git am does not apply the series (log: $dir/am.log)"
	fi
	if ! diff -r -x .git "$g/nvgpu-$line" "$t" >"$dir/am.log" 2>&1; then
		cat "$dir/am.log" >&2
		die "$line: git am and patch give different trees (log: $dir/am.log)"
	fi
	rm -rf "$g"
}

# unit_patch PATCH TREE LINE: the files PATCH touches, made from the pristine sources with it
# applied (without fuzz), installed into TREE when their content differs (so a tree built
# before gets them, and make rebuilds only what changed).
unit_patch() {
	local p=$1 tree=$2 line=$3 t f files
	mapfile -t files < <(sed -n 's|^+++ b/||p' "$p")
	t=$(mktemp -d)
	for f in "${files[@]}"; do
		mkdir -p "$t/$(dirname "$f")"
		cp "$pristine/$f" "$t/$f"
	done
	if ! (cd "$t" && patch -p1 --fuzz=0 --no-backup-if-mismatch -s <"$p") >"$t.log" 2>&1; then
		cat "$t.log" >&2
		rm -rf "$t" "$t.log"
		die "$line: $(basename "$p") does not apply without fuzz"
	fi
	for f in "${files[@]}"; do
		install_file "$t/$f" "$tree/$f"
	done
	rm -rf "$t" "$t.log"
}

# build_tree TREE LOGDIR LINE [full]: our register file and unit into TREE, then nvgpu's library,
# runner, FIFO unit modules and our unit (with "full": the non-safety profile, our unit only).
# Sets r_mods (module names of the FIFO set), b_secs.
build_tree() {
	local tree=$1 logs=$2 line=$3 profile=${4:-safety}
	local drv="$tree/drivers/gpu/nvgpu" us="$tree/userspace"
	mkdir -p "$logs"
	if [[ -f "$pristine/drivers/gpu/nvgpu/os/posix/mock-registers.c" ]]; then
		echo "$me: $line: the tree has its own os/posix/mock-registers.c; using it"
	else
		install_file "$here/mock-registers.c" "$drv/os/posix/mock-registers.c"
	fi
	# Test-only patches to NVIDIA's unit framework and modules (unit-patches/all/ for every line,
	# unit-patches/<line>/; tests/nvgpu/README.md), the same on every tree of the line.
	local up
	for up in "$here/unit-patches/all"/*.patch "$here/unit-patches/$line"/*.patch; do
		[[ -f "$up" ]] && unit_patch "$up" "$tree" "$line"
	done
	mkdir -p "$us/units/gcaps"
	local f
	for f in "$here"/units/gcaps/*; do
		install_file "$f" "$us/units/gcaps/$(basename "$f")"
	done
	# The contract unit (patched trees: it builds the series' os/linux/gcaps_link.c).
	local ours=("$us/units/gcaps")
	if [[ -f "$drv/os/linux/gcaps_link.c" ]]; then
		mkdir -p "$us/units/gcaps-contract"
		for f in "$here"/units/gcaps-contract/*; do
			install_file "$f" "$us/units/gcaps-contract/$(basename "$f")"
		done
		# Built afresh every run (three files): its objects depend on this checkout's
		# headers (module/include, tests/contract) and on the host library, which nvgpu's
		# unit makefiles do not track, so a kept object could be of another contract ABI.
		rm -f "$us/units/gcaps-contract"/*.o "$us/units/gcaps-contract"/*.so
		ours+=("$us/units/gcaps-contract")
	fi

	# CC carries -I<common>: R36's common/gr/gr.c includes "gr/obj_ctx_priv.h" relative to it.
	local mk=(nice -n 10 make --no-print-directory -C "$us"
		NVGPU_NEXT_SRC="$here/nvgpu-next" CC="gcc -I$drv/common"
		GCAPS_ROOT="$root" GCAPS_HOST_LIB="$host_lib")
	if [[ $profile == full ]]; then
		mk+=(NV_BUILD_CONFIGURATION_IS_SAFETY=0 NVGPU_FORCE_SAFETY_PROFILE=0)
	fi

	local t0 t1
	t0=$(now_ms)
	if ! "${mk[@]}" -j"$jobs" libnvgpu core >"$logs/build.log" 2>&1; then
		grep -E -A3 "error|Error" "$logs/build.log" | cut -c1-400 | tail -n 20 >&2
		die "$line: building libnvgpu-drv-igpu.so and nvgpu_unit failed (log: $logs/build.log)"
	fi

	local units=() u m
	r_mods=()
	for u in "${fifo_units[@]}"; do
		[[ -f "$us/units/$u/Makefile" && $profile == safety ]] || continue
		m=$(sed -n 's/^MODULE[[:space:]]*=[[:space:]]*//p' "$us/units/$u/Makefile")
		[[ -n "$m" ]] || die "$line: no MODULE in units/$u/Makefile"
		units+=("$us/units/$u")
		r_mods+=("$m")
	done
	# The FIFO common helper library first (the modules link against it), then the modules.
	if ! "${mk[@]}" UNITS="$us/units/fifo" units >"$logs/units.log" 2>&1 ||
		! "${mk[@]}" -j"$jobs" UNITS="${units[*]} ${ours[*]}" units >>"$logs/units.log" 2>&1; then
		grep -E -A3 "error|Error" "$logs/units.log" | cut -c1-400 | tail -n 20 >&2
		die "$line: building the unit modules failed (log: $logs/units.log)"
	fi
	t1=$(now_ms)
	b_secs=$(secs $((t1 - t0)))
}

# run_units TREE LOGDIR NAME MODULE...: run nvgpu_unit on exactly these modules (a name filter
# would make it exit 254 even when all pass); sets r_rc, r_passed, r_failed, r_skipped, r_secs.
run_units() {
	local tree=$1 logs=$2 name=$3
	shift 3
	local us="$tree/userspace" load="$logs/load-$name" m
	rm -rf "$load"
	mkdir -p "$load"
	for m in "$@"; do
		[[ -f "$us/build/units/lib$m.so" ]] || die "build/units/lib$m.so was not built ($us)"
		cp "$us/build/units/lib$m.so" "$load/"
	done
	local t0 t1
	t0=$(now_ms)
	unit_exec "$us" "$load" "$logs/run-$name.log" "$logs/gcaps-dump.txt"
	t1=$(now_ms)
	r_secs=$(secs $((t1 - t0)))
	r_passed=$(summary_count Passing "$logs/run-$name.log")
	r_failed=$(summary_count Failing "$logs/run-$name.log")
	r_skipped=$(summary_count Skipped "$logs/run-$name.log")
	if [[ -z "$r_passed" || -z "$r_failed" || -z "$r_skipped" ]]; then
		tail -n 20 "$logs/run-$name.log" >&2
		die "nvgpu_unit $(exit_text $r_rc "$logs/run-$name.log") without a result summary (log: $logs/run-$name.log)"
	fi
}

# unit_exec USERSPACE LOADDIR LOG DUMP: one nvgpu_unit run of the modules in LOADDIR; sets r_rc.
unit_exec() {
	# Coverage counters from an earlier build of a changed file make libgcov complain; each
	# run starts from none.
	find "$1/build" "$1/units" -name '*.gcda' -delete
	r_rc=0
	(cd "$1" && LD_LIBRARY_PATH="build:build/units${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		GCAPS_NVGPU_DUMP="$4" LD_PRELOAD="${r_preload:-}" \
		timeout 600 ./build/nvgpu_unit --num-threads 1 --no-color \
		--unit-load-path "$2") >"$3" 2>&1 || r_rc=$?
}

# exit_text RC LOG: "exited RC", or for a death by signal (the shell's 128 + signal number, up
# to 192; nvgpu_unit itself returns 0, 1 or a negative errno-like code, 254/255 and the like)
# "killed by SIGxxx (exit RC) in <the test the runner had started last>", from the runner's
# "Running <module>.<test>" lines; 124 (timeout's) is "timed out after 600 s in <test>".
exit_text() {
	local rc=$1 t sig
	t=$(sed -n -E 's/^(\[C\] )?Running ([^ ]+).*/\2/p' "$2" | tail -n 1)
	if [[ $rc -eq 124 ]]; then
		echo "timed out after 600 s in ${t:-(no test started)}"
	elif [[ $rc -le 128 || $rc -gt 192 ]] || ! sig=$(kill -l $((rc - 128)) 2>/dev/null); then
		echo "exited $rc"
	else
		echo "killed by SIG$sig (exit $rc) in ${t:-(no test started)}"
	fi
}

run_fifo() { r_preload=; run_units "$1" "$2" fifo "${r_mods[@]}"; }
# Our unit runs with power-count.so preloaded: it counts nvgpu's gk20a_busy()/gk20a_idle()
# (no-ops in the host safety build) for patch 0003's scenarios.
run_gcaps() {
	rm -f "$2/gcaps-dump.txt"
	if [[ ! -f "$2/power-count.so" || "$here/power-count.c" -nt "$2/power-count.so" ]]; then
		gcc -shared -fPIC -O1 -Wall -Werror -o "$2/power-count.so" "$here/power-count.c" -ldl ||
			die "building power-count.so failed"
	fi
	r_preload="$2/power-count.so"
	run_units "$1" "$2" gcaps nvgpu-gcaps
	r_preload=
}

# run_contract TREE LOGDIR LINE LABEL: the backend contract suite (tests/contract) on this tree
# with gcaps's hosted core (units/gcaps-contract), run twice: gcaps loaded with mechanism reload,
# then gate; the counts from the suite's two summaries, in that order.
run_contract() {
	run_units "$1" "$2" contract nvgpu-gcaps-contract
	local sums
	mapfile -t sums < <(sed -n -E \
		's/^contract: ([0-9]+ passed, [0-9]+ failed, [0-9]+ skipped)$/\1/p' "$2/run-contract.log")
	[[ ${#sums[@]} -eq 2 ]] ||
		die "$3: the contract suite printed ${#sums[@]} summaries, not 2 (reload, gate) (log: $2/run-contract.log)"
	echo "$me: $3 contract suite$4: reload ${sums[0]}; gate ${sums[1]} (tests/contract on nvgpu," \
		"gcaps.ko's backend.c and core hosted in the process through patch 0004's adapter; run $r_secs s)"
	check_run "$3 contract suite$4" "$2/run-contract.log"
}

# check_run WHAT LOG: the last run_units exited 0 with no failures.
check_run() {
	[[ $r_rc -eq 0 ]] || die "$1: nvgpu_unit $(exit_text $r_rc "$2") (log: $2)"
	[[ $r_failed -eq 0 ]] || die "$1: $r_failed unit tests failed (log: $2)"
}

# Sourced (loop-fifo.sh): the functions and settings above only.
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0

# gcaps's real core hosted in a process (tests/contract/host), linked into the contract unit.
t0=$(now_ms)
(cd "$root" && nice -n 10 cargo build --quiet --locked --release -p gcaps-contract-host) ||
	die "building gcaps-contract-host failed"
host_lib="${CARGO_TARGET_DIR:-$root/target}/release/libgcaps_contract_host.a"
[[ -f "$host_lib" ]] || die "$host_lib was not built"
echo "$me: gcaps-contract-host built ($(secs $(($(now_ms) - t0))) s)"

npass=0
nfail=0
for line in "${lines[@]}"; do
	# set -e does not act inside a subshell whose status is tested (`|| rc=$?`), so test it
	# after the fact.
	set +e
	(set -e; run_line "$line")
	rc=$?
	set -e
	if [[ $rc -eq 0 ]]; then
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
	fi
done
echo "$me: $npass passed, $nfail failed"
[[ $nfail -eq 0 ]]
