#!/usr/bin/env bash
# make nvgpu-test: build NVIDIA's nvgpu host POSIX unit framework from the vendored nvgpu
# tarballs (one per Jetson Linux line) and run NVIDIA's own FIFO unit modules on it.
# This is the stock baseline: no gcaps patch is applied yet (issue 19). See tests/nvgpu/README.md.
#
# Environment:
#   NVGPU_SRC    directory holding nvgpu-<line>.tar.xz and the README.md listing their sha256
#                (default: ../shared/vendor/nvgpu relative to the repository root)
#   NVGPU_LINES  lines to test, space-separated (default: "r35.6.0 r36.4.2")
#   NVGPU_JOBS   make -j for the library build (default 2)
#   CI           when "true", a missing NVGPU_SRC is a failure instead of a SKIP
#
# Output: one line per nvgpu line, then "nvgpu-test: N passed, M failed" where N and M count
# nvgpu lines (not individual tests): a line passes when its tarball verifies, the library,
# runner and units build, the runner exits 0 with "Failing: 0", and, for a tarball whose
# stock counts are recorded below, the passed/skipped counts match them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
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

# run_line LINE: everything for one nvgpu line; prints its result line; non-zero on failure.
run_line() {
	local line=$1
	local tarball="$src/nvgpu-$line.tar.xz"
	[[ -f "$tarball" ]] || die "$line: $tarball is missing"

	local want got
	want=$(grep -E "^[0-9a-f]{64}[[:space:]]+\*?nvgpu-$line\.tar\.xz[[:space:]]*$" "$src/README.md" |
		head -n 1 | cut -c1-64 || true)
	[[ -n "$want" ]] || die "$line: no sha256 for nvgpu-$line.tar.xz in $src/README.md"
	got=$(sha256sum "$tarball" | cut -d' ' -f1)
	[[ "$got" == "$want" ]] || die "$line: sha256 mismatch for $tarball: $got, README says $want"

	local dir="$cache_root/$line-${got:0:12}"
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

	local drv="$tree/drivers/gpu/nvgpu"
	if [[ -f "$pristine/drivers/gpu/nvgpu/os/posix/mock-registers.c" ]]; then
		echo "$me: $line: the tree has its own os/posix/mock-registers.c; using it"
	else
		install_file "$here/mock-registers.c" "$drv/os/posix/mock-registers.c"
	fi

	local us="$tree/userspace"
	# CC carries -I<common>: R36's common/gr/gr.c includes "gr/obj_ctx_priv.h" relative to it.
	local mk=(nice -n 10 make --no-print-directory -C "$us"
		NVGPU_NEXT_SRC="$here/nvgpu-next" CC="gcc -I$drv/common")

	local t0 t1 t2
	t0=$(now_ms)
	if ! "${mk[@]}" -j"$jobs" libnvgpu core >"$dir/build.log" 2>&1; then
		tail -n 20 "$dir/build.log" >&2
		die "$line: building libnvgpu-drv-igpu.so and nvgpu_unit failed (log: $dir/build.log)"
	fi

	local units=() mods=() u m
	for u in "${fifo_units[@]}"; do
		[[ -f "$us/units/$u/Makefile" ]] || continue
		m=$(sed -n 's/^MODULE[[:space:]]*=[[:space:]]*//p' "$us/units/$u/Makefile")
		[[ -n "$m" ]] || die "$line: no MODULE in units/$u/Makefile"
		units+=("$us/units/$u")
		mods+=("$m")
	done
	# The FIFO common helper library first (the modules link against it), then the modules.
	if ! "${mk[@]}" UNITS="$us/units/fifo" units >"$dir/units.log" 2>&1 ||
		! "${mk[@]}" -j"$jobs" UNITS="${units[*]}" units >>"$dir/units.log" 2>&1; then
		tail -n 20 "$dir/units.log" >&2
		die "$line: building the FIFO unit modules failed (log: $dir/units.log)"
	fi
	t1=$(now_ms)

	# nvgpu_unit loads every .so in --unit-load-path; a name filter would make it exit 254
	# even when all pass, so the load directory holds exactly the wanted modules.
	local load="$dir/load-fifo"
	rm -rf "$load"
	mkdir -p "$load"
	for m in "${mods[@]}"; do
		[[ -f "$us/build/units/lib$m.so" ]] || die "$line: build/units/lib$m.so was not built"
		cp "$us/build/units/lib$m.so" "$load/"
	done

	# Coverage counters from an earlier build of a changed file make libgcov complain; each
	# run starts from none.
	find "$us/build" "$us/units" -name '*.gcda' -delete

	local rc=0
	(cd "$us" && LD_LIBRARY_PATH="build:build/units${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		timeout 600 ./build/nvgpu_unit --num-threads 1 --no-color \
		--unit-load-path "$load") >"$dir/run.log" 2>&1 || rc=$?
	t2=$(now_ms)

	local passed failed skipped
	passed=$(summary_count Passing "$dir/run.log")
	failed=$(summary_count Failing "$dir/run.log")
	skipped=$(summary_count Skipped "$dir/run.log")
	if [[ -z "$passed" || -z "$failed" || -z "$skipped" ]]; then
		tail -n 20 "$dir/run.log" >&2
		die "$line: nvgpu_unit exited $rc without a result summary (log: $dir/run.log)"
	fi

	echo "$me: $line stock FIFO units: $passed passed, $failed failed, $skipped skipped" \
		"(${#mods[@]} modules; build $(secs $((t1 - t0))) s, run $(secs $((t2 - t1))) s)"

	[[ $rc -eq 0 ]] || die "$line: nvgpu_unit exited $rc (log: $dir/run.log)"
	[[ $failed -eq 0 ]] || die "$line: $failed unit tests failed (log: $dir/run.log)"
	local e=${expect[${got:0:12}]:-}
	if [[ -n "$e" && "$e" != "$passed $skipped" ]]; then
		die "$line: expected ${e% *} passed and ${e#* } skipped for this tarball (log: $dir/run.log)"
	fi
}

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
