#!/bin/bash
# Usage: setup.sh [variant]   (VM_ARCH=x86_64|arm64 from the environment)
# Install everything the kernel build and VM tests need; idempotent and quick when done already.
#   Debian packages (pinned), bindgen-cli (cargo install into $KCACHE/tools/),
#   unpacked linux-source-6.12 ($KCACHE/src/).
# For a 5.10 variant (debug510) also linux-source-5.10 from bullseye, and for VM_ARCH=arm64 the
# cross compiler, qemu-system-arm and an arm64 busybox: fetched with a private apt configuration
# ($KCACHE/apt/: own sources list, package lists and cache; the system's apt sources, lists and
# dpkg architectures stay as they are).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

variant=${1:-}
series=6.12
if [ -n "$variant" ]; then series=$(variant_series "$variant"); fi

# package[=version]; a version pin is checked exactly.
PACKAGES=(
  "$KSRC_PKG=$KSRC_VERSION"
  "rustc-web=$RUST_VERSION" "rust-web-src=$RUST_VERSION"
  "libstd-rust-web-dev=$RUST_VERSION" "libstd-rust-web-1.85=$RUST_VERSION"
  build-essential flex bison bc libelf-dev libssl-dev kmod cpio xz-utils gzip
  pkgconf  # libgcaps: tests/install-test.sh and the VM examples build through pkg-config
  libclang-dev clang-14 lld-14 llvm-14
  qemu-system-x86 busybox-static
  dkms  # tests/dkms-test.sh
)
if [ "$VM_ARCH" = arm64 ]; then
  PACKAGES+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm)
fi

# Clones on one machine share KCACHE: one setup at a time.
mkdir -p "$KCACHE"
exec 8>"$KCACHE/setup.lock"
flock 8

missing=()
for spec in "${PACKAGES[@]}"; do
  name=${spec%%=*}
  want=""; [ "$name" != "$spec" ] && want=${spec#*=}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  case "$have" in
    "install ok installed "*) [ -z "$want" ] || [ "${have##* }" = "$want" ] || missing+=("$spec") ;;
    *) missing+=("$spec") ;;
  esac
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  t0=$(now)
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  record_time apt-install "$(elapsed "$t0")"
fi

if [ ! -x "$BINDGEN" ]; then
  command -v cargo >/dev/null || die "cargo (rustup) is needed to install bindgen-cli"
  log "cargo install bindgen-cli $BINDGEN_VERSION"
  t0=$(now)
  root=$(dirname "$(dirname "$BINDGEN")")
  cargo install --quiet bindgen-cli --version "$BINDGEN_VERSION" --locked \
    --root "$root" --target-dir "$KCACHE/tools/bindgen-build"
  rm -rf "$KCACHE/tools/bindgen-build"
  record_time bindgen-install "$(elapsed "$t0")"
fi

if [ ! -f "$KSRC/Makefile" ]; then
  tarball=/usr/src/$KSRC_PKG.tar.xz
  [ -f "$tarball" ] || die "$tarball missing (package $KSRC_PKG)"
  log "unpacking $tarball"
  t0=$(now)
  tmp=$KCACHE/src/.unpack.$$
  rm -rf "$tmp"; mkdir -p "$tmp"
  tar -C "$tmp" -xf "$tarball"
  rm -rf "$KSRC"; mv "$tmp/$KSRC_PKG" "$KSRC"; rm -rf "$tmp"
  # drop sources of older package versions of this series (6.12; the 5.10 source stays)
  find "$KCACHE/src" -mindepth 1 -maxdepth 1 -name 'linux-6.12.*' ! -path "$KSRC" -exec rm -rf {} +
  record_time untar-source "$(elapsed "$t0")"
fi

# apt-get with the private configuration: its own sources list, package lists and cache under
# $KCACHE/apt/; amd64 and arm64 package indices (for busybox-static:arm64) without adding arm64
# to dpkg. Only `update` and `download` are used: nothing is installed.
papt() {
  local a=$KCACHE/apt
  apt-get -q -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=/dev/null \
    -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
    -o APT::Architectures::=amd64 -o APT::Architectures::=arm64 "$@"
}
# papt_fetch <package>=<version> <dest dir>: download the .deb and unpack it (dpkg-deb -x) into
# <dest dir>; the package lists are refreshed once per setup run.
papt_fetch() {
  local spec=$1 dest=$2 a=$KCACHE/apt dl
  if [ -z "${papt_updated:-}" ]; then
    mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
    printf '%s\n' \
      "deb [arch=amd64 signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR $KSRC510_SUITE main" \
      "deb [arch=arm64 signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR $BUSYBOX_ARM64_SUITE main" >"$a/sources.list"
    log "apt-get update (private lists: $a/lists)"
    papt update -qq >"$a/update.log" 2>&1 || { cat "$a/update.log" >&2; die "apt-get update with $a/sources.list failed"; }
    papt_updated=1
  fi
  dl=$a/download.$$
  rm -rf "$dl"; mkdir -p "$dl"
  (cd "$dl" && papt download "$spec" >"$a/download.log" 2>&1) \
    || { cat "$a/download.log" >&2; die "apt-get download $spec failed"; }
  rm -rf "$dest"; mkdir -p "$dest"
  dpkg-deb -x "$dl"/*.deb "$dest"
  rm -rf "$dl"
}

if [ "$series" = 5.10 ] && [ ! -f "$KSRC510/Makefile" ]; then
  log "fetching $KSRC510_PKG=$KSRC510_VERSION ($KSRC510_SUITE)"
  t0=$(now)
  tmp=$KCACHE/src/.unpack.$$
  papt_fetch "$KSRC510_PKG=$KSRC510_VERSION" "$tmp/deb"
  tarball=$tmp/deb/usr/src/$KSRC510_PKG.tar.xz
  [ -f "$tarball" ] || die "$KSRC510_PKG $KSRC510_VERSION has no usr/src/$KSRC510_PKG.tar.xz"
  tar -C "$tmp" -xf "$tarball"
  rm -rf "$KSRC510"; mv "$tmp/$KSRC510_PKG" "$KSRC510"; rm -rf "$tmp"
  find "$KCACHE/src" -mindepth 1 -maxdepth 1 -name 'linux-5.10.*' ! -path "$KSRC510" -exec rm -rf {} +
  record_time fetch-source-5.10 "$(elapsed "$t0")"
fi

if [ "$VM_ARCH" = arm64 ] && [ ! -x "$BUSYBOX_ARM64" ]; then
  log "fetching busybox-static:arm64=$BUSYBOX_ARM64_VERSION"
  tmp=$KCACHE/tools/.busybox.$$
  papt_fetch "busybox-static:arm64=$BUSYBOX_ARM64_VERSION" "$tmp"
  if ! readelf -h "$tmp/bin/busybox" | grep -q 'Machine: *AArch64' || readelf -l "$tmp/bin/busybox" | grep -q INTERP; then
    die "busybox-static:arm64 is not a static arm64 binary ($tmp/bin/busybox)"
  fi
  mkdir -p "${BUSYBOX_ARM64%/*}"
  mv "$tmp/bin/busybox" "$BUSYBOX_ARM64"; rm -rf "$tmp"
fi

# rustup's targets: the freestanding ones and rust-src for host B of gcaps.ko
# (module/gcaps/object.sh); for VM_ARCH=arm64 also arm64 Linux's std, for the VM's Rust
# userspace (initramfs-hooks/50-libgcaps.sh).
if command -v rustup >/dev/null; then
  targets=(x86_64-unknown-none aarch64-unknown-none-softfloat)
  [ "$VM_ARCH" = arm64 ] && targets+=("$RUST_TARGET_ARM64")
  for t in "${targets[@]}"; do
    rustup target list --installed | grep -qx "$t" || { log "rustup target add $t"; rustup target add "$t" >/dev/null; }
  done
  rustup component list --installed | grep -q '^rust-src' || { log "rustup component add rust-src"; rustup component add rust-src >/dev/null; }
fi
