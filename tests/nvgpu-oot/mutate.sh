#!/usr/bin/env bash
# Mutation check of the nvgpu-oot step (tests/nvgpu-oot/README.md): after a successful build.sh,
# each mutation below is applied in place to the cached trees, the affected modules are rebuilt
# incrementally and the step's checks run; every mutation must fail the step (the build stops, or
# check_builds fails). The source is restored and the modules rebuilt after each one, and the
# checks must pass again at the end. Prints one line per mutation: "caught (...)" or "NOT CAUGHT".
set -euo pipefail
# shellcheck source=tests/nvgpu-oot/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
nvgpu_oot_paths
[[ -f "$base/.done" && -f "$pat/.done" ]] || die "no finished build of this checkout: run build.sh first"
ptree="$pat/nvgpu-oe4t-rel36"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$base/logs" "$tmp/base-logs"; cp -a "$pat/logs" "$tmp/pat-logs"
missed=0

# rebuild <log>: nvidia-oot (its part) and the patched nvgpu.ko, incrementally; in a subshell,
# since a failed build ends it (die). nvgpu's Module.symvers goes first: modpost of an external
# module reruns when the kernel's symbols or the module's objects change, not when a
# KBUILD_EXTRA_SYMBOLS file (nvidia-oot's exports) does.
rebuild() {
	rm -f "$ptree/drivers/gpu/nvgpu/Module.symvers"
	( build_oot "$1.oot" && build_nvgpu "$ptree" "$1" GCAPS_SRC="$root" ) >/dev/null 2>&1
}

# mutation <name> <file> <sed expression>: <file> relative to the cache stage directory.
mutation() {
	local name=$1 file=$2 expr=$3 f what
	case "$file" in nvgpu/*) f="$ptree/${file#nvgpu/}" ;; nvidia-oot/*) f="$oot/${file#nvidia-oot/}" ;; esac
	cp "$f" "$tmp/orig"
	sed -i "$expr" "$f"
	if cmp -s "$f" "$tmp/orig"; then echo "$name: sed did not change $file"; missed=1; return; fi
	if ! rebuild "$tmp/$name.log"; then
		what="build failed: $(grep -hm1 -E 'ERROR: modpost|error:' "$tmp/$name.log"* | cut -c1-160)"
	else
		cp "$tmp/$name.log" "$pat/logs/nvgpu-gcaps.log"
		what=""
		check_builds 2>/dev/null
		[[ $fail == 0 ]] || what="checks failed: $modpost_res; $sym_res"
	fi
	if [[ -n "$what" ]]; then echo "$name: caught ($what)"; else echo "$name: NOT CAUGHT"; missed=1; fi
	cp "$tmp/orig" "$f"
	touch "$f"
	rebuild "$tmp/$name.restore.log" || die "$name: the restored trees do not build (log: $tmp/$name.restore.log)"
	rm -rf "$base/logs" "$pat/logs"; cp -a "$tmp/base-logs" "$base/logs"; cp -a "$tmp/pat-logs" "$pat/logs"
}

# S1: patch 0004's attach work calls gcaps_backend_register directly instead of through
# symbol_get(): nvgpu.ko would need gcaps.ko loaded first (modpost: undefined symbol).
mutation S1-static-reference nvgpu/drivers/gpu/nvgpu/os/linux/gcaps_linux.c \
	'0,/reg = symbol_get(gcaps_backend_register);/s//reg = gcaps_backend_register;/'
# X1: a symbol nvgpu.ko uses loses its export in the nvidia-oot module that defines it.
undef=$(llvm-nm-14 -u "$ko_gcaps")
sym=$(awk '$2 ~ /^nvmap_/ { print $2; exit }' <<<"$undef")
[[ -n "$sym" ]] || die "nvgpu.ko uses no nvmap_* symbol"
exp=$(grep -rlE "^EXPORT_SYMBOL(_GPL)?\($sym\);" "$oot/drivers/video/tegra/nvmap" || true)
exp=${exp%%$'\n'*}
[[ -n "$exp" ]] || die "no EXPORT_SYMBOL($sym) in nvmap"
mutation "X1-missing-export-$sym" "nvidia-oot/${exp#"$oot"/}" "/^EXPORT_SYMBOL\(_GPL\)\?($sym);/d"

check_builds
[[ $fail == 0 ]] || die "the restored builds fail the checks"
[[ $missed == 0 ]] || die "a mutation was not caught"
say "mutations: all caught; restored builds pass the checks"
