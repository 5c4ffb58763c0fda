#!/usr/bin/env bash
# Build NVIDIA's R36 nvgpu.ko out of tree for arm64, stock and with gcaps's R36 series, from
# the vendored sources (hwpm, nvidia-oot, nvgpu), against the project's arm64 Linux 6.12 debug
# kernel (tests/vm, VM_ARCH=arm64 VM_KERNEL=debug). See tests/nvgpu-oot/README.md.
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

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
me=nvgpu-oot
line=r36.4.2
series="$root/nvgpu/patches/$line"
jobs=${NVGPU_OOT_JOBS:-2}
out=${1:-}

die() { echo "$me: error: $*" >&2; exit 1; }
say() { echo "$me: $*"; }

# The inputs (their origin: the vendored README.md). One place for the names and sums.
declare -A sums=(
	[nvgpu-oe4t-rel36-21d92882.tar.xz]=8a59987f94b097ef1ac8204838304c580b63c0256e0ccdfb531780596ac9e11e
	[nv-oot-oe4t-rel36-4985c76e.tar.xz]=3b55998887e106b2934e40c4b8907043ff45922dfd5b45e66b684835a2ea7a39
	[hwpm-r36.4.2-d47dc62f.tar.xz]=88009d48f0287c3c4de007059af42f2da82a5d72629a6c508f0a98cf5486bb6d
)
nvgpu_tar=nvgpu-oe4t-rel36-21d92882.tar.xz
oot_tar=nv-oot-oe4t-rel36-4985c76e.tar.xz
hwpm_tar=hwpm-r36.4.2-d47dc62f.tar.xz

# The nvidia-oot modules nvgpu.ko needs, each a subdirectory built with its own Kbuild through
# a wrapper Kbuild at the tree's root (the tree's own Makefile builds all of nvidia-oot):
#   drivers/gpu/host1x        host1x.ko: syncpoints, host1x_* (nvgpu's nvhost/host1x path)
#   drivers/gpu/host1x-nvhost host1x-nvhost.ko: the nvhost_* API on top of host1x
#   drivers/video/tegra/nvmap nvmap.ko: nvgpu's nvmap_* calls (CONFIG_NVGPU_NVMAP_NEXT)
#   drivers/misc/nvsciipc     nvsciipc.ko: nvmap's NvSciIpc* calls (nvmap_sci_ipc.c, built
#                             on a kernel without TEGRA_VPR)
oot_dirs=(drivers/gpu/host1x drivers/gpu/host1x-nvhost drivers/misc/nvsciipc drivers/video/tegra/nvmap)

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

# The kernel: the project's arm64 6.12 debug variant (built or reused from its cache).
export VM_ARCH=arm64
# shellcheck source=tests/vm/lib.sh
. "$root/tests/vm/lib.sh"
variant=debug

declare -a phases=()
phase_done() { phases+=("$(printf '%-22s %8s s' "$1" "$2")"); record_time "nvgpu-oot-$1" "$2" 2>/dev/null; }

for f in "${!sums[@]}"; do
	[[ -f "$src/$f" ]] || die "$src/$f is missing"
	echo "${sums[$f]}  $src/$f" | sha256sum -c --quiet - >/dev/null 2>&1 ||
		die "$src/$f: sha256 is not ${sums[$f]}"
done
[[ -d "$series" ]] || die "$series is missing"
for tool in tar xz sha256sum make patch clang-14 llvm-nm-14 aarch64-linux-gnu-gcc; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

t0=$(now)
nice -n 5 "$root/tests/vm/build-kernel.sh" "$variant"
phase_done kernel "$(elapsed "$t0")"
kb=$(kernel_build_dir "$variant")
mapfile -t kvars < <(variant_makevars "$variant")
kcc="clang-14 --target=aarch64-linux-gnu"   # the kernel's compiler (LLVM=-14), for conftest

# Two cache stages, each keyed by its inputs, so that a change of the series rebuilds only the
# patched nvgpu.ko: base/ (conftest, hwpm, nvidia-oot, stock nvgpu.ko; keyed by the tarballs,
# the kernel, the test-only build fixes and this script) and gcaps/ (the patched nvgpu.ko;
# keyed by the base key, the series and gcaps's contract headers in module/include).
base_key=$({
	for f in "${!sums[@]}"; do echo "$f ${sums[$f]}"; done | sort
	echo "kernel $(basename "$kb")"
	cat "$0"
	find "$here/patches" -type f 2>/dev/null | sort | xargs -r cat
} | sha256sum | cut -c1-12)
gcaps_key=$({
	echo "base $base_key"
	find "$series" "$root/module/include" -type f | sort | xargs cat
} | sha256sum | cut -c1-12)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/nvgpu-oot"
base="$cache/$line-base-$base_key"
pat="$cache/$line-gcaps-$gcaps_key"
mkdir -p "$cache"
# Stage dirs unused for a week go (each holds a built nvgpu tree).
find "$cache" -mindepth 1 -maxdepth 1 -type d -mtime +7 ! -path "$base" ! -path "$pat" \
	-exec rm -rf {} + 2>/dev/null || true
hwpm="$base/hwpm-r36.4.2"
oot="$base/nv-oot-oe4t-rel36"
conftest="$base/conftest"
ko_stock="$base/nvgpu-oe4t-rel36/drivers/gpu/nvgpu/nvgpu.ko"
ko_gcaps="$pat/nvgpu-oe4t-rel36/drivers/gpu/nvgpu/nvgpu.ko"

# Test-only build fixes of the vendored sources for this kernel and configuration, one
# directory per tree (patches/<tree>/*.patch, each with its reason in its header).
apply_dir() { # apply_dir <patch dir> <tree> <log>
	local p
	for p in "$1"/*.patch; do
		[[ -e "$p" ]] || continue
		patch -d "$2" -p1 --fuzz=0 -s <"$p" >>"$3" 2>&1 ||
			die "$(basename "$p") does not apply to $2 (see $3)"
	done
}
# kmake <log> <make args...>: an out-of-tree build against the kernel, log kept.
kmake() {
	local logf=$1; shift
	if ! nice -n 5 make -C "$kb" "${kvars[@]}" -j"$jobs" CONFIG_TEGRA_OOT_MODULE=m "$@" \
		>"$logf" 2>&1; then
		grep -E 'error|ERROR' "$logf" | head -n 40 >&2 || true
		die "build failed (log: $logf)"
	fi
}
# build_nvgpu <tree root> <log> [make args...]: nvgpu.ko, as NVIDIA's top-level Makefile does
build_nvgpu() {
	local tree=$1 logf=$2; shift 2
	kmake "$logf" M="$tree/drivers/gpu/nvgpu" \
		srctree.nvidia="$oot" srctree.nvidia-oot="$oot" srctree.nvconftest="$conftest" \
		KBUILD_EXTRA_SYMBOLS="$oot/Module.symvers $hwpm/drivers/tegra/hwpm/Module.symvers" \
		"$@" modules
}

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
		CC="$kcc" NV_KERNEL_SOURCES="$KSRC" NV_KERNEL_OUTPUT="$kb" \
		-f "$conftest/nvidia/Makefile" >"$base/logs/conftest.log" 2>&1; then
		tail -n 20 "$base/logs/conftest.log" >&2
		die "conftest failed (log: $base/logs/conftest.log)"
	fi
	phase_done conftest "$(elapsed "$t0")"

	t0=$(now)
	kmake "$base/logs/hwpm.log" M="$hwpm/drivers/tegra/hwpm" srctree.hwpm="$hwpm" \
		srctree.nvconftest="$conftest" modules
	phase_done hwpm "$(elapsed "$t0")"

	# nvidia-oot's root Makefile and drivers/Makefile build every driver; a root Kbuild
	# takes their flags and include paths and names only the subdirectories nvgpu needs.
	t0=$(now)
	{
		echo "# Written by gcaps's tests/nvgpu-oot/build.sh: the part of nvidia-oot nvgpu.ko needs."
		echo 'LINUXINCLUDE += -I$(srctree.nvconftest)'
		echo 'LINUXINCLUDE += -I$(srctree.nvidia-oot)/include'
		echo 'LINUXINCLUDE += -I$(srctree.nvidia-oot)/drivers/gpu/host1x/hw/'
		echo 'LINUXINCLUDE += -I$(srctree.nvidia-oot)/drivers/video/tegra/host/'
		echo 'LINUXINCLUDE += -I$(srctree.nvidia-oot)/drivers/gpu/host1x/include'
		echo 'LINUXINCLUDE += -I$(srctree.hwpm)/include'
		echo 'subdir-ccflags-y += -Werror'
		echo 'subdir-ccflags-y += -Wmissing-prototypes'
		for d in "${oot_dirs[@]}"; do echo "obj-m += $d/"; done
	} >"$oot/Kbuild"
	kmake "$base/logs/nvidia-oot.log" M="$oot" srctree.nvidia-oot="$oot" srctree.hwpm="$hwpm" \
		srctree.nvconftest="$conftest" \
		KBUILD_EXTRA_SYMBOLS="$hwpm/drivers/tegra/hwpm/Module.symvers" modules
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

# Checks (of the cached builds too: they are cheap). modpost: no undefined symbol, no
# modpost warning, in any build.
fail=0
modpost=$(grep -hE '(ERROR|WARNING): modpost:' "$base"/logs/hwpm.log "$base"/logs/nvidia-oot.log \
	"$base"/logs/nvgpu-stock.log "$pat"/logs/nvgpu-gcaps.log || true)
if [[ -n "$modpost" ]]; then
	echo "$modpost" >&2; fail=1; modpost_res="FAIL: $(wc -l <<<"$modpost") modpost messages"
else
	modpost_res="clean (no undefined symbol, no warning)"
fi
# gcaps is found at run time by symbol_get: the patched nvgpu.ko must not reference a gcaps
# symbol statically (it would need gcaps.ko loaded first and pin it).
static=$(llvm-nm-14 -u "$ko_gcaps" | grep -E ' gcaps_' || true)
if [[ -n "$static" ]]; then
	echo "$static" >&2; fail=1; sym_res="FAIL: undefined gcaps symbols: $(echo $static)"
else
	sym_res="no undefined gcaps_* symbol"
fi
# symbol_get(x) names x in the module's strings (its __symbol_get argument).
grep -qx 'gcaps_backend_register' <(strings "$ko_gcaps") ||
	{ fail=1; sym_res="$sym_res; FAIL: no symbol_get of gcaps_backend_register"; }
grep -q 'gcaps_backend_register' <(strings "$ko_stock") &&
	{ fail=1; sym_res="$sym_res; FAIL: the stock nvgpu.ko names gcaps"; }
deps=$(modinfo -F depends "$ko_gcaps")
[[ ",$deps," != *,gcaps,* ]] || { fail=1; sym_res="$sym_res; FAIL: depends on gcaps"; }

# Compiler warnings, stock vs patched, with the tree prefix removed.
warnings() { grep -E 'warning:' "$1" | sed -e "s|$2/||g" | sort -u || true; }
warnings "$base/logs/nvgpu-stock.log" "$base" >"$pat/logs/warnings-stock.txt"
warnings "$pat/logs/nvgpu-gcaps.log" "$pat" >"$pat/logs/warnings-gcaps.txt"
new=$(comm -13 "$pat/logs/warnings-stock.txt" "$pat/logs/warnings-gcaps.txt")
if [[ -n "$new" ]]; then
	echo "$new" >&2; fail=1; warn_res="FAIL: $(wc -l <<<"$new") new warnings from the series"
else
	warn_res="stock $(wc -l <"$pat/logs/warnings-stock.txt"), patched $(wc -l <"$pat/logs/warnings-gcaps.txt"), none new"
fi

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
