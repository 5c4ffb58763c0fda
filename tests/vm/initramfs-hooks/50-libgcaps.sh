#!/bin/bash
# Initramfs hook (tests/vm/initramfs-hooks/, run by run.sh): libgcaps as an application on the
# device sees it. Runs only when a selected test has the line "vmtest-needs=libgcaps".
#   /usr/lib/libgcaps.so*, /usr/include, /usr/lib/pkgconfig  `make install PREFIX=/usr`
#   /bin/gcapsctl                                         (installed binary)
#   /bin/gpu_segment       the C example, built with pkg-config against the installed library
#   /bin/gpu_segment_rs    the Rust example
#   /bin/libgcaps-device   libgcaps's device tests (cargo test binary, tests/device.rs)
#   /bin/gcapsctl-observe  checks gcapsctl's stats/trace output (gcapsctl's tests/observe.rs)
#   /bin/gcapsctl-calibrate checks the update costs and gcapsctl calibrate's output (gcapsctl's
#                          tests/calibrate.rs)
#   /bin/libgcaps-unit     libgcaps's unit tests (cargo test --lib): the UAPI's ioctl numbers,
#                          sizes and bindgen layouts against the C compiler, on the VM's arch
#   the dynamic loader, libc and the other shared libraries these need: the build host's on
#   x86_64; on arm64 (everything cross-built for aarch64-unknown-linux-gnu with
#   aarch64-linux-gnu-gcc) the cross libc's from $CROSS_SYSROOT/lib, found through each
#   ELF file's NEEDED entries
# Usage: 50-libgcaps.sh WORKDIR; prints gen_init_cpio lines on stdout, logs on stderr.
# Environment: VM_ARCH (tests/vm/lib.sh).
set -euo pipefail
work=$1
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../lib.sh"
grep -qs 'vmtest-needs=libgcaps' "$work"/tests/* || exit 0
repo=$REPO_ROOT

# The VM's C compiler (vm_cc: the host's gcc, or the cross gcc on arm64) builds the C example;
# on arm64 cargo cross-builds for RUST_TARGET_ARM64 and links with it.
cc=$(vm_cc)
# Its builds run in a copy of the checkout kept in the cache beside the kernels
# (~/.cache/gcaps/vm-userspace: src/ and cargo's target/), one build at a time (a lock). The
# copy is updated by content: a file is written only when its bytes differ from the checkout's,
# and then gets a new mtime, so cargo (which judges a workspace crate by file times) rebuilds
# exactly what changed, whatever the clone's path or its files' times. A missing cache only
# costs the build.
ucache=$(dirname "$KCACHE")/vm-userspace
mkdir -p "$ucache/src"
exec 8>"$ucache/.lock"
flock 8
find "$ucache" -mindepth 1 -maxdepth 1 -type d ! -name src ! -name target -exec rm -rf {} +
# The checkout's files: tracked and untracked, not ignored (so not target/).
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) | sort -z >"$ucache/files.new"
while IFS= read -r -d '' f; do
  [ -f "$repo/$f" ] || continue   # deleted in the work tree, still in the index
  cmp -s "$repo/$f" "$ucache/src/$f" || install -D -m "$(stat -c %a "$repo/$f")" "$repo/$f" "$ucache/src/$f"
done <"$ucache/files.new"
(cd "$ucache/src" && find . -type f -printf '%P\0' | sort -z) |
  comm -z -23 - "$ucache/files.new" | (cd "$ucache/src" && xargs -0 -r rm -f)
repo=$ucache/src
export CARGO_TARGET_DIR=$ucache/target
if [ "$VM_ARCH" = arm64 ]; then
  export CARGO_BUILD_TARGET=$RUST_TARGET_ARM64
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$cc CC_aarch64_unknown_linux_gnu=$cc \
    AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
fi
# test_binary PACKAGE CARGO-TEST-SELECTOR...: build one test binary, print its path (of the
# artifacts cargo reports, the one built with the test profile: not the package's programs).
test_binary() {
  local pkg=$1; shift
  cargo test --release --locked -p "$pkg" "$@" --no-run --message-format=json \
    | grep '"test":true' | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1
}

root=$work/libgcaps-root
rm -rf "$root"
{
  DESTDIR=$root PREFIX=/usr "$repo/libgcaps/install.sh" install
  cd "$repo"
  cargo build --release --locked -p gcaps-example
  for t in "libgcaps --test device:libgcaps-device" "gcapsctl --test observe:gcapsctl-observe" \
           "gcapsctl --test calibrate:gcapsctl-calibrate" \
           "libgcaps --lib:libgcaps-unit"; do
    read -r -a sel <<<"${t%%:*}"
    b=$(test_binary "${sel[@]}")
    [ -x "$b" ] || { echo "50-libgcaps.sh: no test binary for '${t%%:*}'" >&2; exit 1; }
    install -D -m 0755 "$b" "$root/bin/${t#*:}"
  done
  install -D -m 0755 "$CARGO_TARGET_DIR/${CARGO_BUILD_TARGET:+$CARGO_BUILD_TARGET/}release/gpu_segment_rs" \
    "$root/bin/gpu_segment_rs"
  mv "$root/usr/bin/gcapsctl" "$root/bin/gcapsctl"
  cp -r examples/c "$work/example-c"
  PKG_CONFIG_PATH=$root/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
    make -s -C "$work/example-c" CC="$cc" SIMGPU_INCLUDE="$repo/module/simgpu"
  install -m 0755 "$work/example-c/gpu_segment" "$root/bin/gpu_segment"
} >&2

echo "dir /usr 0755 0 0"
echo "dir /usr/lib 0755 0 0"
echo "dir /usr/lib/pkgconfig 0755 0 0"
echo "dir /usr/include 0755 0 0"
echo "dir /usr/include/linux 0755 0 0"
( cd "$root" && find usr bin ! -type d ) | while read -r f; do
  if [ -L "$root/$f" ]; then echo "slink /$f $(readlink "$root/$f") 0777 0 0"
  else echo "file /$f $root/$f $(stat -c %a "$root/$f") 0 0"; fi
done
# Shared libraries of the dynamic programs (libgcaps itself excluded).
if [ "$VM_ARCH" = arm64 ]; then
  # The cross libc's libraries, the closure of the programs' NEEDED entries, all in /lib (the
  # loader's PT_INTERP is /lib/ld-linux-aarch64.so.1, and /lib is on its search path).
  echo "dir /lib 0755 0 0"
  declare -A seen=()
  todo=("$root"/bin/*)
  while [ ${#todo[@]} -gt 0 ]; do
    f=${todo[0]}; todo=("${todo[@]:1}")
    for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
      case "$n" in libgcaps.so*) continue ;; esac
      [ -z "${seen[$n]:-}" ] || continue
      seen[$n]=1
      [ -e "$CROSS_SYSROOT/lib/$n" ] || { echo "50-libgcaps.sh: $f needs $n, not in $CROSS_SYSROOT/lib" >&2; exit 1; }
      l=$(readlink -f "$CROSS_SYSROOT/lib/$n")
      todo+=("$l")
      echo "file /lib/$n $l 0755 0 0"
    done
  done
  exit 0
fi
# x86_64: at their host paths, as ldd finds them.
declare -A dirs=()
libs=$(for b in "$root"/bin/*; do
  LD_LIBRARY_PATH=$root/usr/lib ldd "$b" 2>/dev/null | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | grep -v libgcaps | sort -u)
for l in $libs; do
  d=${l%/*}
  while [ -n "$d" ] && [ -z "${dirs[$d]:-}" ]; do dirs[$d]=1; d=${d%/*}; done
done
printf '%s\n' "${!dirs[@]}" | sort | grep -vx -e /usr -e /usr/lib | while read -r d; do echo "dir $d 0755 0 0"; done
for l in $libs; do echo "file $l $(readlink -f "$l") 0755 0 0"; done
