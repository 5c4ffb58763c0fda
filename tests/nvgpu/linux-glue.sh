#!/usr/bin/env bash
# tests/nvgpu/linux-glue.sh: compile the nvgpu series' Linux glue (os/linux/gcaps_link.c and
# gcaps_linux.c of nvgpu/patches/<line>) with -Werror against a real Linux 5.10 arm64 kernel
# build (the JetPack 5 kernel line and the Jetson's architecture; tests/vm's debug510 arm64
# kernel, built or reused through tests/vm/build-kernel.sh) and nvgpu's own
# headers from the patched tree, then check the objects:
#   - no static reference to gcaps.ko (gcaps_backend_register only through symbol_get(), so
#     nvgpu.ko loads without gcaps.ko and either can be unloaded first);
#   - every other undefined symbol is the kernel's (its Module.symvers / vmlinux) or a function
#     defined in the patched nvgpu tree (so the real nvgpu.ko link resolves it).
# nvgpu's own os/linux code needs the L4T kernel's Tegra headers, so only the glue files are
# built here; the rest of the series is proven by tests/nvgpu/run.sh on nvgpu's host build.
# Needs the nvgpu sources unpacked by tests/nvgpu/run.sh (same NVGPU_SRC and cache).
# Prints "nvgpu-linux-glue: N passed, M failed" (N, M: nvgpu lines).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export VM_ARCH=arm64
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh"
me=nvgpu-linux-glue
read -ra lines <<<"${NVGPU_LINES:-r35.6.0 r36.4.2}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/nvgpu"

# The kernel: built here if no other step has (it waits for a build under way and reuses it).
"$VM_DIR/build-kernel.sh" debug510
kb=$(kernel_build_dir debug510)
kver=$(cat "$kb/include/config/kernel.release")
command -v aarch64-linux-gnu-gcc >/dev/null || die "$me: aarch64-linux-gnu-gcc missing (tests/vm/setup.sh)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for line in "${lines[@]}"; do
	fail() { echo "$me: $line: FAIL: $*"; failed=$((failed + 1)); }
	mapfile -t srcs < <(ls -d "$cache_root/$line"-*/src/"nvgpu-$line" 2>/dev/null)
	if [ "${#srcs[@]}" -ne 1 ] || [ ! -f "${srcs[0]}/../../src.complete" ]; then
		fail "expected one unpacked $cache_root/$line-*/src/nvgpu-$line (run tests/nvgpu/run.sh first)"
		continue
	fi
	tree=$work/$line
	mkdir -p "$tree/drivers/gpu"
	cp -a "${srcs[0]}/drivers/gpu/nvgpu" "$tree/drivers/gpu/"
	ok=1
	for p in "$REPO_ROOT/nvgpu/patches/$line"/*.patch; do
		patch -d "$tree" -p1 -s --fuzz=0 <"$p" >"$work/$line-patch.log" 2>&1 ||
			{ fail "$(basename "$p") does not apply: $(head -n 1 "$work/$line-patch.log")"; ok=0; break; }
	done
	[ "$ok" = 1 ] || continue
	n=$tree/drivers/gpu/nvgpu
	obj=$work/$line-obj
	mkdir -p "$obj"
	ln -s "$n/os/linux/gcaps_link.c" "$n/os/linux/gcaps_linux.c" "$obj/"
	# The flags nvgpu's Makefile gives these files (GCAPS_SRC set), plus -Werror.
	cat >"$obj/Kbuild" <<-EOF
		obj-m := gcapsglue.o
		gcapsglue-y := gcaps_link.o gcaps_linux.o
		ccflags-y += -Werror -I$n/include -I$n -I$n/os/linux
		ccflags-y += -DCONFIG_NVGPU_GCAPS -I$REPO_ROOT/module/include
		ccflags-y += -DCONFIG_TEGRA_GK20A -DCONFIG_GK20A
	EOF
	if ! make -s -C "$kb" M="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		gcaps_link.o gcaps_linux.o >"$work/$line-build.log" 2>&1; then
		sed -n '1,20p' "$work/$line-build.log" >&2
		fail "the glue does not build against Linux $kver arm64"
		continue
	fi
	# Undefined symbols: none of gcaps's; the rest the kernel's or defined in the tree.
	mapfile -t undef < <(aarch64-linux-gnu-nm -u "$obj/gcaps_link.o" "$obj/gcaps_linux.o" |
		awk 'NF == 2 { print $2 }' | sort -u)
	nv=0
	for s in "${undef[@]}"; do
		case "$s" in
		gcaps_*) fail "static reference to gcaps.ko's $s (use symbol_get)"; ok=0 ;;
		*)
			if grep -qw "$s" "$kb/Module.symvers" || grep -q " [TtDdBbRr] $s\$" "$kb/System.map"; then
				continue
			fi
			if grep -rqE "^([a-z][^;]*[ *])?$s\([^;]*$" --include=*.c "$n/common" "$n/os/linux" "$n/hal"; then
				nv=$((nv + 1))
			else
				fail "$s is neither the kernel's nor defined in the patched tree"; ok=0
			fi
			;;
		esac
	done
	[ "$ok" = 1 ] || continue
	echo "$me: $line: gcaps_link.o, gcaps_linux.o built with -Werror against Linux $kver arm64;" \
		"$nv nvgpu functions, each defined in the patched tree; no static reference to gcaps"
	passed=$((passed + 1))
done
echo "$me: $passed passed, $failed failed"
[ "$failed" = 0 ]
