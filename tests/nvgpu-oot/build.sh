#!/usr/bin/env bash
# Build NVIDIA's R36 nvgpu.ko out of tree for arm64, stock and with gcaps's R36 series, from
# the vendored sources (hwpm, nvidia-oot, nvgpu), against the project's arm64 Linux 6.12 kernel
# for them (tests/vm, VM_ARCH=arm64 VM_KERNEL=oot: GCC, lockdep, KASAN). See
# tests/nvgpu-oot/README.md.
#
# Usage: build.sh [OUT]   OUT: a directory to copy the modules the VM loads into (nvhwpm.ko,
#                         host1x.ko, host1x-nvhost.ko, nvsciipc.ko, nvmap.ko and the patched
#                         nvgpu.ko)
#
# Environment:
#   NVGPU_OOT_SRC      directory holding the three tarballs and their README.md
#                      (default: ../shared/vendor/l4t-r36 relative to the repository root)
#   NVGPU_OOT_JOBS     make -j (default 2)
#   NVGPU_OOT_REBUILD  1: rebuild even when the cache holds a finished build of this key
#   CI                 when "true", missing sources are a failure instead of a SKIP
#
# Output: each phase's time, the module sizes, modpost's result, the gcaps symbol check and the
# warnings of stock vs patched; the last line is "nvgpu-oot: PASS" or an error. The builds are
# cached under ${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/nvgpu-oot/ (two stages, below).
set -euo pipefail

# shellcheck source=tests/nvgpu-oot/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:-}

if [[ -n "${NVGPU_OOT_SRC:-}" ]]; then
	src=$NVGPU_OOT_SRC
	[[ -d "$src" ]] || die "NVGPU_OOT_SRC=$src is not a directory"
else
	src="$(cd "$root/.." && pwd)/shared/vendor/l4t-r36"
	if [[ ! -d "$src" ]]; then
		[[ "${CI:-}" != "true" ]] || die "R36 out-of-tree sources not found at $src (set NVGPU_OOT_SRC); required when CI=true"
		say "SKIP: R36 out-of-tree sources not found at $src (set NVGPU_OOT_SRC)"
		exit 0
	fi
fi
src=$(cd "$src" && pwd)

declare -a phases=()
phase_done() { phases+=("$(printf '%-22s %8s s' "$1" "$2")"); record_time "nvgpu-oot-$1" "$2" 2>/dev/null; }

for f in "${!sums[@]}"; do
	[[ -f "$src/$f" ]] || die "$src/$f is missing"
	echo "${sums[$f]}  $src/$f" | sha256sum -c --quiet - >/dev/null 2>&1 ||
		die "$src/$f: sha256 is not ${sums[$f]}"
done
[[ -d "$series" ]] || die "$series is missing"
for tool in tar xz sha256sum make patch llvm-nm-14 aarch64-linux-gnu-gcc; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

t0=$(now)
nice -n 5 "$root/tests/vm/build-kernel.sh" "$variant"
phase_done kernel "$(elapsed "$t0")"
nvgpu_oot_paths
mkdir -p "$cache"
# Stage dirs unused for a week go (each holds a built nvgpu tree).
find "$cache" -mindepth 1 -maxdepth 1 -type d -mtime +7 ! -path "$base" ! -path "$pat" \
	-exec rm -rf {} + 2>/dev/null || true

# Stage 1 (base/): conftest, hwpm, the part of nvidia-oot nvgpu needs, stock nvgpu.ko.
exec 8>"$base.lock"
flock 8
if [[ -f "$base/.done" && "${NVGPU_OOT_REBUILD:-0}" != 1 ]]; then
	say "base up to date: $base"
else
	rm -rf "$base"
	mkdir -p "$base/logs"
	t0=$(now)
	tar -C "$base" -xJf "$src/$hwpm_tar"
	tar -C "$base" -xJf "$src/$oot_tar"
	tar -C "$base" -xJf "$src/$nvgpu_tar"
	for d in "$hwpm" "$oot" "$base/nvgpu-oe4t-rel36"; do
		[[ -d "$d" ]] || die "unpacking did not give $d"
	done
	apply_dir "$here/patches/hwpm" "$hwpm" "$base/logs/patch.log"
	apply_dir "$here/patches/nvidia-oot" "$oot" "$base/logs/patch.log"
	apply_dir "$here/patches/nvgpu" "$base/nvgpu-oe4t-rel36" "$base/logs/patch.log"
	phase_done unpack "$(elapsed "$t0")"

	# conftest: NVIDIA's compile tests of the kernel's API, with the kernel's compiler.
	t0=$(now)
	mkdir -p "$conftest/nvidia"
	cp -a "$oot/scripts/conftest/." "$conftest/nvidia/"
	if ! nice -n 5 make -j"$jobs" ARCH=arm64 src="$conftest/nvidia" obj="$conftest/nvidia" \
		CC="$kcc" LD=aarch64-linux-gnu-ld NV_KERNEL_SOURCES="$KSRC" NV_KERNEL_OUTPUT="$kb" \
		-f "$conftest/nvidia/Makefile" >"$base/logs/conftest.log" 2>&1; then
		tail -n 20 "$base/logs/conftest.log" >&2
		die "conftest failed (log: $base/logs/conftest.log)"
	fi
	phase_done conftest "$(elapsed "$t0")"

	t0=$(now)
	kmake "$base/logs/hwpm.log" M="$hwpm/drivers/tegra/hwpm" srctree.hwpm="$hwpm" \
		srctree.nvconftest="$conftest" modules
	phase_done hwpm "$(elapsed "$t0")"

	t0=$(now)
	build_oot "$base/logs/nvidia-oot.log"
	phase_done nvidia-oot "$(elapsed "$t0")"

	t0=$(now)
	build_nvgpu "$base/nvgpu-oe4t-rel36" "$base/logs/nvgpu-stock.log"
	phase_done nvgpu-stock "$(elapsed "$t0")"
	touch "$base/.done"
fi
flock -u 8

# Stage 2 (gcaps/): nvgpu.ko with the series and GCAPS_SRC (the checkout patch 0004 reads
# module/include/ from).
exec 7>"$pat.lock"
flock 7
if [[ -f "$pat/.done" && "${NVGPU_OOT_REBUILD:-0}" != 1 ]]; then
	say "patched nvgpu up to date: $pat"
else
	rm -rf "$pat"
	mkdir -p "$pat/logs"
	t0=$(now)
	tar -C "$pat" -xJf "$src/$nvgpu_tar"
	apply_dir "$here/patches/nvgpu" "$pat/nvgpu-oe4t-rel36" "$pat/logs/patch.log"
	n=0
	for p in "$series"/*.patch; do
		patch -d "$pat/nvgpu-oe4t-rel36" -p1 --fuzz=0 -s <"$p" >>"$pat/logs/patch.log" 2>&1 ||
			die "series: $(basename "$p") does not apply without fuzz (see $pat/logs/patch.log)"
		n=$((n + 1))
	done
	say "series $line: $n patches applied (patch -p1 --fuzz=0)"
	build_nvgpu "$pat/nvgpu-oe4t-rel36" "$pat/logs/nvgpu-gcaps.log" GCAPS_SRC="$root"
	phase_done nvgpu-gcaps "$(elapsed "$t0")"
	touch "$pat/.done"
fi

# Checks (of the cached builds too: they are cheap).
check_builds
echo "$me: kernel $(cat "$kb/include/config/kernel.release") ($(basename "$kb"))"
echo "$me: modules (bytes):"
mods=("$hwpm/drivers/tegra/hwpm/nvhwpm.ko")
for d in "${oot_dirs[@]}"; do mods+=("$oot/$d/$(basename "$d").ko"); done
mods+=("$ko_stock" "$ko_gcaps")
for ko in "${mods[@]}"; do
	[[ -f "$ko" ]] || { fail=1; echo "  missing: $ko"; continue; }
	printf '  %10d  %s\n' "$(stat -c %s "$ko")" "${ko#"$cache"/}"
done
echo "$me: nvgpu.ko depends on: $deps"
echo "$me: modpost: $modpost_res"
echo "$me: symbols: $sym_res"
echo "$me: warnings: $warn_res"
[[ ${#phases[@]} == 0 ]] || { echo "$me: phases:"; printf '  %s\n' "${phases[@]}"; }
[[ $fail == 0 ]] || die "checks failed (logs: $base/logs, $pat/logs)"
if [[ -n "$out" ]]; then
	mkdir -p "$out"
	for ko in "${mods[@]}"; do [[ $ko == "$ko_stock" ]] || cp "$ko" "$out/"; done
	say "copied $(( ${#mods[@]} - 1 )) modules to $out"
fi
say PASS
