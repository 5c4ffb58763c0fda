# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# Common settings for the VM test harness; sourced by the other scripts in tests/vm/.
# Two places: KCACHE (kernel source, tools, kernel builds) is shared by every clone on the
# machine and lives outside the work tree, so repeated runs reuse the kernel and a fresh machine
# builds it; VMWORK (module builds, runs) belongs to this clone (target/vm, git-ignored).

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$VM_DIR/../.." && pwd)
KCACHE=${KCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/kernel}
VMWORK=${VMWORK:-$REPO_ROOT/target/vm}

# Pinned toolchain (proven here with Linux 6.12 + CONFIG_RUST; tests/vm/README.md).
KSRC_PKG=linux-source-6.12
KSRC_VERSION=6.12.117-1~deb12u1          # bookworm-security
RUST_VERSION=1.85.0+dfsg3-1~deb12u3      # bookworm main; NOT the 1.9x from -security
BINDGEN_VERSION=0.69.5                   # >= 0.65.1 needed; Debian's 0.60 is too old

KSRC=$KCACHE/src/linux-$KSRC_VERSION
BINDGEN=$KCACHE/tools/bindgen-$BINDGEN_VERSION/bin/bindgen

# Linux 5.10 (the JetPack 5 line, variant debug510; no Rust, built with GCC): Debian bullseye's
# linux-source-5.10, fetched by setup.sh with a private apt configuration under $KCACHE/apt/
# (the system's apt sources and state are not touched) and unpacked into $KCACHE/src/.
KSRC510_PKG=linux-source-5.10
KSRC510_VERSION=5.10.223-1               # bullseye (main)
KSRC510_SUITE=bullseye
KSRC510=$KCACHE/src/linux-$KSRC510_VERSION
DEBIAN_MIRROR=http://deb.debian.org/debian
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# arm64 userspace of the VM: bookworm's busybox-static for arm64, fetched the same way.
BUSYBOX_ARM64_VERSION=1:1.35.0-4+deb12u1+b1
BUSYBOX_ARM64_SUITE=bookworm
BUSYBOX_ARM64=$KCACHE/tools/busybox-arm64-${BUSYBOX_ARM64_VERSION#*:}/busybox
# The Rust userspace (libgcaps, gcapsctl, their tests) for the arm64 VM: cross-built by cargo for
# this target (rustup's std for it, setup.sh), linked by aarch64-linux-gnu-gcc against the cross
# libc in CROSS_SYSROOT (libc6-dev-arm64-cross), whose shared libraries go into the initramfs.
RUST_TARGET_ARM64=aarch64-unknown-linux-gnu
CROSS_SYSROOT=/usr/aarch64-linux-gnu

# Target architecture of the VM: x86_64 (every variant) or arm64 (debug: Linux 6.12 + Rust with
# clang-14; debug510: cross gcc), booted in qemu-system-aarch64 -M virt.
VM_ARCH=${VM_ARCH:-x86_64}

# Debian's rustc-web 1.85 (/usr/bin) must build the kernel and modules: rustup's rustc (first in
# PATH) has no rust-src and rejects the kernel's flags.
KMAKEVARS=(RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc "BINDGEN=$BINDGEN")

# Kernel variants: config fragments (tests/vm/kernel/*.config, merged in order on top of
# tinyconfig) and toolchain. RUST + KASAN needs clang, so the debug kernel is built with LLVM=-14.
# fast, debug, rt: Linux 6.12 + Rust, x86_64; debug also arm64 (VM_ARCH=arm64: base-arm64.config,
# rust.config and nvgpu-oot-arm64.config instead of base.config, the same debug fragments,
# clang-14; Rust on arm64 since 6.9).
# debug510: Linux 5.10, GCC, no Rust, x86_64 or arm64 (VM_ARCH): PREEMPT, lockdep, KASAN,
# detectors (the *510*.config fragments: 5.10's options).
# oot: Linux 6.12, GCC, no Rust, arm64 only: what NVIDIA's R36 out-of-tree drivers build
# against (tests/nvgpu-oot; NVIDIA and OE4T build them with GCC), the debug fragments of
# `debug`; gcaps.ko's host there is B, the host of JetPack 6's 5.15.
VARIANTS="fast|debug|rt|debug510|oot"
variant_fragments() {
  case "$1" in
    fast)  echo "base.config fast.config" ;;
    debug) if [ "$VM_ARCH" = arm64 ]; then
             echo "base-arm64.config rust.config nvgpu-oot-arm64.config lockdep.config kasan.config preempt.config detectors.config debug.config"
           else
             echo "base.config lockdep.config kasan.config preempt.config detectors.config debug.config"
           fi ;;
    rt)    echo "base.config lockdep.config preempt-rt.config detectors.config rt.config" ;;
    debug510) echo "base510.config base510-$VM_ARCH.config lockdep.config kasan510.config preempt510.config detectors510.config debug510.config" ;;
    oot) echo "base-arm64.config nvgpu-oot-arm64.config lockdep.config kasan.config preempt.config detectors.config oot.config" ;;
    *) die "unknown kernel variant '$1' ($VARIANTS)" ;;
  esac
}
variant_toolchain() {
  case "$1" in
    fast|rt|debug510|oot) echo gcc ;;
    debug) echo llvm ;;
    *) die "unknown kernel variant '$1' ($VARIANTS)" ;;
  esac
}
# Kernel series of a variant (6.12 or 5.10); checks VM_ARCH against the variant.
variant_series() {
  case "$1" in
    fast|rt) [ "$VM_ARCH" = x86_64 ] || die "variant $1 is x86_64 only (VM_ARCH=$VM_ARCH; arm64: VM_KERNEL=debug or debug510)"
             echo 6.12 ;;
    debug|debug510) case "$VM_ARCH" in x86_64|arm64) ;; *) die "VM_ARCH must be x86_64 or arm64 (got '$VM_ARCH')" ;; esac
                    if [ "$1" = debug ]; then echo 6.12; else echo 5.10; fi ;;
    oot) [ "$VM_ARCH" = arm64 ] || die "variant oot is arm64 only (VM_ARCH=$VM_ARCH)"
         echo 6.12 ;;
    *) die "unknown kernel variant '$1' ($VARIANTS)" ;;
  esac
}
# Whether a variant's kernel has Rust: the 6.12 variants but oot.
variant_rust() { [ "$(variant_series "$1")" = 6.12 ] && [ "$1" != oot ]; }
variant_ksrc() { if [ "$(variant_series "$1")" = 5.10 ]; then echo "$KSRC510"; else echo "$KSRC"; fi; }
# make arguments for a toolchain (gcc|llvm)
toolchain_makevars() {
  if [ "$1" = llvm ]; then echo "LLVM=-14"; fi
}
# make arguments of a variant for the kernel and its modules: toolchain, Rust tools (6.12),
# cross compiler (arm64; with LLVM=-14 it only gives clang its --target=aarch64-linux-gnu)
variant_makevars() {
  toolchain_makevars "$(variant_toolchain "$1")"
  if variant_rust "$1"; then printf '%s\n' "${KMAKEVARS[@]}"; fi
  if [ "$VM_ARCH" = arm64 ]; then printf '%s\n' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-; fi
}
# C compiler for the VM's userspace (static programs) and the kernel's image file
vm_cc() { if [ "$VM_ARCH" = arm64 ]; then echo aarch64-linux-gnu-gcc; else echo gcc; fi; }
kernel_image_target() { if [ "$VM_ARCH" = arm64 ]; then echo Image; else echo bzImage; fi; }
kernel_image() { echo "$1/arch/$([ "$VM_ARCH" = arm64 ] && echo arm64 || echo x86)/boot/$(kernel_image_target)"; }

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
# (5.10 and oot: source, target architecture and compiler; no Rust tools. The 6.12 Rust variants'
# key text is unchanged on x86_64, so their existing build dirs stay valid; on arm64 it adds the
# architecture.)
kernel_key() {
  local variant=$1 tc f
  tc=$(variant_toolchain "$variant")
  {
    echo "recipe $KBUILD_RECIPE_REV"
    if variant_rust "$variant"; then
      echo "source $KSRC_PKG $KSRC_VERSION"
      /usr/bin/rustc --version
      "$BINDGEN" --version
      if [ "$VM_ARCH" != x86_64 ]; then echo "arch $VM_ARCH"; fi
    elif [ "$(variant_series "$variant")" = 6.12 ]; then
      echo "source $KSRC_PKG $KSRC_VERSION"
      echo "arch $VM_ARCH"
    else
      echo "source $KSRC510_PKG $KSRC510_VERSION"
      echo "arch $VM_ARCH"
    fi
    echo "toolchain $tc"
    if [ "$tc" = llvm ]; then clang-14 --version | head -n1; else "$(vm_cc)" --version | head -n1; fi
    for f in $(variant_fragments "$variant"); do
      echo "fragment $f"; cat "$VM_DIR/kernel/$f"
    done
  } | sha256sum | cut -c1-12
}
# Build dir name of a variant: <variant> on x86_64, <variant>-arm64 on arm64.
kernel_build_name() { if [ "$VM_ARCH" = x86_64 ]; then echo "$1"; else echo "$1-$VM_ARCH"; fi; }
kernel_build_dir() { echo "$KCACHE/build-$(kernel_build_name "$1")-$(kernel_key "$1")"; }

# gcaps.ko's host for a kernel build dir, as module/gcaps/Kbuild picks it by default: rust
# (host A) with CONFIG_RUST, c (host B) without.
kernel_gcaps_host() { if grep -qx 'CONFIG_RUST=y' "$1/.config"; then echo rust; else echo c; fi; }
# ko_has_symbol KO REGEX: whether a line of llvm-nm's listing of the module KO matches REGEX
# (llvm-nm reads every architecture). The listing goes into a variable first: `nm | grep -q`
# fails by chance under pipefail, when grep exits before nm has written everything.
ko_has_symbol() {
  local syms
  syms=$(llvm-nm-14 "$1") || die "llvm-nm-14 cannot read $1"
  grep -q "$2" <<<"$syms"
}
# The host a built (uncompressed) gcaps.ko has: only host B's freestanding object defines
# gcaps_rust_load.
gcaps_ko_host() { if ko_has_symbol "$1" ' T gcaps_rust_load$'; then echo c; else echo rust; fi; }
