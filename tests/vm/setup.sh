#!/bin/bash
# Install everything the kernel build and VM tests need; idempotent and quick when done already.
#   Debian packages (pinned), bindgen-cli (cargo install into $KCACHE/tools/),
#   unpacked linux-source-6.12 ($KCACHE/src/).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

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
  # drop sources of older package versions
  find "$KCACHE/src" -mindepth 1 -maxdepth 1 -name 'linux-*' ! -path "$KSRC" -exec rm -rf {} +
  record_time untar-source "$(elapsed "$t0")"
fi

# Host B of gcaps.ko (module/gcaps/object.sh): rustup's freestanding targets and rust-src.
if command -v rustup >/dev/null; then
  for t in x86_64-unknown-none aarch64-unknown-none-softfloat; do
    rustup target list --installed | grep -qx "$t" || { log "rustup target add $t"; rustup target add "$t" >/dev/null; }
  done
  rustup component list --installed | grep -q '^rust-src' || { log "rustup component add rust-src"; rustup component add rust-src >/dev/null; }
fi
