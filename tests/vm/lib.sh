# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# Common settings for the VM test harness; sourced by the other scripts in tests/vm/.
# Two places: KCACHE (kernel source, tools, kernel builds) is shared by every clone on the
# machine and lives outside the work tree, so repeated runs reuse the kernel and a fresh machine
# builds it; VMWORK (module builds, runs) belongs to this clone (target/vm, git-ignored).

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$VM_DIR/../.." && pwd)
KCACHE=${KCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/kernel}
VMWORK=${VMWORK:-$REPO_ROOT/target/vm}

# Pinned toolchain (proven with Linux 6.12 + CONFIG_RUST; see ../shared/facts/kernel-build/).
KSRC_PKG=linux-source-6.12
KSRC_VERSION=6.12.117-1~deb12u1          # bookworm-security
RUST_VERSION=1.85.0+dfsg3-1~deb12u3      # bookworm main; NOT the 1.9x from -security
BINDGEN_VERSION=0.69.5                   # >= 0.65.1 needed; Debian's 0.60 is too old

KSRC=$KCACHE/src/linux-$KSRC_VERSION
BINDGEN=$KCACHE/tools/bindgen-$BINDGEN_VERSION/bin/bindgen

# Debian's rustc-web 1.85 (/usr/bin) must build the kernel and modules: rustup's rustc (first in
# PATH) has no rust-src and rejects the kernel's flags.
KMAKEVARS=(RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc "BINDGEN=$BINDGEN")

# Kernel variants: config fragments (tests/vm/kernel/*.config, merged in order on top of
# tinyconfig) and toolchain. RUST + KASAN needs clang, so the debug kernel is built with LLVM=-14.
variant_fragments() {
  case "$1" in
    fast)  echo "base.config fast.config" ;;
    debug) echo "base.config lockdep.config kasan.config preempt.config detectors.config debug.config" ;;
    rt)    echo "base.config lockdep.config preempt-rt.config detectors.config rt.config" ;;
    *) die "unknown kernel variant '$1' (fast|debug|rt)" ;;
  esac
}
variant_toolchain() {
  case "$1" in
    fast|rt) echo gcc ;;
    debug) echo llvm ;;
    *) die "unknown kernel variant '$1' (fast|debug|rt)" ;;
  esac
}
# make arguments for a toolchain (gcc|llvm)
toolchain_makevars() {
  if [ "$1" = llvm ]; then echo "LLVM=-14"; fi
}

log() { printf '[vm] %s\n' "$*" >&2; }
die() { printf '[vm] ERROR: %s\n' "$*" >&2; exit 1; }

# Elapsed-time helper: `t0=$(now)`, later `elapsed "$t0"` -> "12.3"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# Append "<step> <seconds>" to the timing log (used for the README's numbers).
record_time() {
  mkdir -p "$KCACHE"
  printf '%s %s %s\n' "$(date -u +%FT%TZ)" "$1" "$2" >>"$KCACHE/timings.log"
  log "$1 took $2 s"
}

# Bump when the kernel build recipe changes in a way that needs fresh build dirs.
KBUILD_RECIPE_REV=1

# Cache key of a kernel variant: source package version, rustc, bindgen, C toolchain, recipe
# revision and the content of the variant's config fragments. Needs setup.sh to have run.
kernel_key() {
  local variant=$1 tc f
  tc=$(variant_toolchain "$variant")
  {
    echo "recipe $KBUILD_RECIPE_REV"
    echo "source $KSRC_PKG $KSRC_VERSION"
    /usr/bin/rustc --version
    "$BINDGEN" --version
    echo "toolchain $tc"
    if [ "$tc" = llvm ]; then clang-14 --version | head -n1; else gcc --version | head -n1; fi
    for f in $(variant_fragments "$variant"); do
      echo "fragment $f"; cat "$VM_DIR/kernel/$f"
    done
  } | sha256sum | cut -c1-12
}
kernel_build_dir() { echo "$KCACHE/build-$1-$(kernel_key "$1")"; }
