#!/bin/bash
# Initramfs hook (tests/vm/initramfs-hooks/, run by run.sh): libgcaps as an application on the
# device sees it. Runs only when a selected test has the line "vmtest-needs=libgcaps".
#   /usr/lib/libgcaps.so*, /usr/include, /usr/lib/pkgconfig  `make install PREFIX=/usr`
#   /bin/gcapsctl                                         (installed binary)
#   /bin/gpu_segment       the C example, built with pkg-config against the installed library
#   /bin/gpu_segment_rs    the Rust example
#   /bin/libgcaps-device   libgcaps's device tests (cargo test binary, tests/device.rs)
#   /bin/gcapsctl-observe  checks gcapsctl's stats/trace output (gcapsctl's tests/observe.rs)
#   the dynamic loader, libc and the other shared libraries these need (from the build host)
# Usage: 50-libgcaps.sh WORKDIR; prints gen_init_cpio lines on stdout, logs on stderr.
set -euo pipefail
work=$1
repo=$(cd "$(dirname "$0")/../../.." && pwd)
grep -qs 'vmtest-needs=libgcaps' "$work"/tests/* || exit 0

root=$work/libgcaps-root
rm -rf "$root"
{
  DESTDIR=$root PREFIX=/usr "$repo/libgcaps/install.sh" install
  cd "$repo"
  cargo build --release --locked -p gcaps-example
  dev=$(cargo test --release --locked -p libgcaps --test device --no-run --message-format=json \
        | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
  [ -x "$dev" ] || { echo "50-libgcaps.sh: no device test binary" >&2; exit 1; }
  install -D -m 0755 "$dev" "$root/bin/libgcaps-device"
  obs=$(cargo test --release --locked -p gcapsctl --test observe --no-run --message-format=json \
        | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | grep '/deps/observe-' | tail -n 1)
  [ -x "$obs" ] || { echo "50-libgcaps.sh: no gcapsctl-observe binary" >&2; exit 1; }
  install -D -m 0755 "$obs" "$root/bin/gcapsctl-observe"
  install -D -m 0755 target/release/gpu_segment_rs "$root/bin/gpu_segment_rs"
  mv "$root/usr/bin/gcapsctl" "$root/bin/gcapsctl"
  cp -r examples/c "$work/example-c"
  PKG_CONFIG_PATH=$root/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
    make -s -C "$work/example-c" SIMGPU_INCLUDE="$repo/module/simgpu"
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
# Shared libraries of the dynamic programs, at their host paths (libgcaps itself excluded).
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
