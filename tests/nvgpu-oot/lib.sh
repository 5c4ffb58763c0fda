# shellcheck shell=bash
# What build.sh and mutate.sh share: the inputs, the cache stages and their paths, the build
# commands (as NVIDIA's top-level Makefile of the R36 out-of-tree package runs them) and the
# checks of a build. Sourced; the caller has `set -euo pipefail`.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
me=nvgpu-oot
line=r36.4.2
series="$root/nvgpu/patches/$line"
jobs=${NVGPU_OOT_JOBS:-2}

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

# The kernel: the project's arm64 6.12 variant for these drivers (tests/vm, VM_KERNEL=oot).
export VM_ARCH=arm64
# shellcheck source=tests/vm/lib.sh
. "$root/tests/vm/lib.sh"
variant=oot

# nvgpu_oot_paths: the kernel build and the two cache stages of this checkout. The stages are
# keyed by their inputs, so that a change of the series rebuilds only the patched nvgpu.ko:
# base/ (conftest, hwpm, nvidia-oot, stock nvgpu.ko; keyed by the tarballs, the kernel, the
# test-only build fixes and these scripts) and gcaps/ (the patched nvgpu.ko; keyed by the base
# key, the series and gcaps's contract headers in module/include).
nvgpu_oot_paths() {
	kb=$(kernel_build_dir "$variant")
	mapfile -t kvars < <(variant_makevars "$variant")
	# the kernel's compiler, for conftest (as NVIDIA's Makefile: $(CROSS_COMPILE)gcc)
	kcc=aarch64-linux-gnu-gcc
	base_key=$({
		for f in "${!sums[@]}"; do echo "$f ${sums[$f]}"; done | sort
		echo "kernel $(basename "$kb")"
		cat "$here/lib.sh" "$here/build.sh"
		if [[ -d "$here/patches" ]]; then find "$here/patches" -type f | sort | xargs -r cat; fi
	} | sha256sum | cut -c1-12)
	gcaps_key=$({
		echo "base $base_key"
		find "$series" "$root/module/include" -type f | sort | xargs cat
	} | sha256sum | cut -c1-12)
	cache="${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/nvgpu-oot"
	base="$cache/$line-base-$base_key"
	pat="$cache/$line-gcaps-$gcaps_key"
	hwpm="$base/hwpm-r36.4.2"
	oot="$base/nv-oot-oe4t-rel36"
	conftest="$base/conftest"
	ko_stock="$base/nvgpu-oe4t-rel36/drivers/gpu/nvgpu/nvgpu.ko"
	ko_gcaps="$pat/nvgpu-oe4t-rel36/drivers/gpu/nvgpu/nvgpu.ko"
}

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
# build_oot <log>: the part of nvidia-oot nvgpu needs. nvidia-oot's root Makefile and
# drivers/Makefile build every driver; a root Kbuild takes their flags and include paths and
# names only the subdirectories of oot_dirs.
build_oot() {
	{
		echo "# Written by gcaps's tests/nvgpu-oot/lib.sh: the part of nvidia-oot nvgpu.ko needs."
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
	kmake "$1" M="$oot" srctree.nvidia-oot="$oot" srctree.hwpm="$hwpm" \
		srctree.nvconftest="$conftest" \
		KBUILD_EXTRA_SYMBOLS="$hwpm/drivers/tegra/hwpm/Module.symvers" modules
}
# build_nvgpu <tree root> <log> [make args...]: nvgpu.ko, as NVIDIA's top-level Makefile does
build_nvgpu() {
	local tree=$1 logf=$2; shift 2
	kmake "$logf" M="$tree/drivers/gpu/nvgpu" \
		srctree.nvidia="$oot" srctree.nvidia-oot="$oot" srctree.nvconftest="$conftest" \
		KBUILD_EXTRA_SYMBOLS="$oot/Module.symvers $hwpm/drivers/tegra/hwpm/Module.symvers" \
		"$@" modules
}

# check_builds: the checks of the cached builds, each a failure (fail=1) with its result line
# in modpost_res, sym_res, warn_res; deps is what the patched nvgpu.ko depends on.
check_builds() {
	fail=0
	# modpost: no error and no undefined symbol in any build; its warnings (stock nvgpu has a
	# section mismatch of NVIDIA's) are compared below with the compiler's.
	local modpost static new
	modpost=$(grep -hE 'ERROR: modpost:|undefined!' "$base"/logs/hwpm.log "$base"/logs/nvidia-oot.log \
		"$base"/logs/nvgpu-stock.log "$pat"/logs/nvgpu-gcaps.log || true)
	if [[ -n "$modpost" ]]; then
		echo "$modpost" >&2; fail=1; modpost_res="FAIL: $(wc -l <<<"$modpost") modpost errors"
	else
		modpost_res="no error, no undefined symbol ($(cat "$base"/logs/hwpm.log "$base"/logs/nvidia-oot.log \
			"$base"/logs/nvgpu-stock.log | grep -c 'WARNING: modpost:' || true) warnings in the stock builds)"
	fi
	# gcaps is found at run time by symbol_get: the patched nvgpu.ko must not reference a
	# gcaps symbol statically (it would need gcaps.ko loaded first and pin it).
	static=$(llvm-nm-14 -u "$ko_gcaps" | grep -E ' gcaps_' || true)
	if [[ -n "$static" ]]; then
		echo "$static" >&2; fail=1; sym_res="FAIL: undefined gcaps symbols: $(echo $static)"
	else
		sym_res="no undefined gcaps_* symbol"
	fi
	# symbol_get(x) names x in the module's strings (its __symbol_get argument).
	grep -qx 'gcaps_backend_register' <(strings "$ko_gcaps") ||
		{ fail=1; sym_res="$sym_res; FAIL: no symbol_get of gcaps_backend_register"; }
	! grep -q 'gcaps_backend_register' <(strings "$ko_stock") ||
		{ fail=1; sym_res="$sym_res; FAIL: the stock nvgpu.ko names gcaps"; }
	deps=$(modinfo -F depends "$ko_gcaps")
	[[ ",$deps," != *,gcaps,* ]] || { fail=1; sym_res="$sym_res; FAIL: depends on gcaps"; }

	# Compiler and modpost warnings, stock vs patched, with the tree prefix removed.
	warnings() { grep -E 'warning:|WARNING: modpost:' "$1" | sed -e "s|$2/||g" | sort -u || true; }
	warnings "$base/logs/nvgpu-stock.log" "$base" >"$pat/logs/warnings-stock.txt"
	warnings "$pat/logs/nvgpu-gcaps.log" "$pat" >"$pat/logs/warnings-gcaps.txt"
	new=$(comm -13 "$pat/logs/warnings-stock.txt" "$pat/logs/warnings-gcaps.txt")
	if [[ -n "$new" ]]; then
		echo "$new" >&2; fail=1; warn_res="FAIL: $(wc -l <<<"$new") new warnings from the series"
	else
		warn_res="stock $(wc -l <"$pat/logs/warnings-stock.txt"), patched $(wc -l <"$pat/logs/warnings-gcaps.txt"), none new"
	fi
}
