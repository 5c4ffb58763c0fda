#!/usr/bin/env bash
# `make install` / `make uninstall` into a temporary DESTDIR: every file lands where gcaps.pc
# says, a C program builds through pkg-config against the installed library (shared and
# static) and runs, the C example builds, and uninstall leaves nothing behind.
# Prints "install-test: N passed, M failed" (counted by tests/run-all.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root prefix=/usr
passed=0 failed=0
check() { # check NAME COMMAND...: one counted check
  local name=$1; shift
  if "$@" >"$tmp/out" 2>&1; then passed=$((passed + 1)); echo "ok   $name"
  else failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$tmp/out"; fi
}
pc() { PKG_CONFIG_PATH=$root$prefix/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config "$@"; }
runs_ok() { [ "$("$@")" = "gcaps.h: ok" ]; }

check "make install" make -s install DESTDIR="$root" PREFIX="$prefix"
check "installed files" test -f "$root/usr/lib/libgcaps.so.0.1.0" -a -L "$root/usr/lib/libgcaps.so.0" \
  -a -L "$root/usr/lib/libgcaps.so" -a -f "$root/usr/lib/libgcaps.a" \
  -a -f "$root/usr/include/gcaps.h" -a -f "$root/usr/include/linux/gcaps.h" \
  -a -x "$root/usr/bin/gcapsctl" -a -f "$root/usr/lib/pkgconfig/gcaps.pc"
check "SONAME libgcaps.so.0" sh -c "readelf -d '$root/usr/lib/libgcaps.so.0.1.0' | grep -q 'SONAME.*\[libgcaps.so.0\]'"
check "pkg-config paths" sh -c "[ \"\$(PKG_CONFIG_PATH='$root$prefix/lib/pkgconfig' PKG_CONFIG_SYSROOT_DIR='$root' pkg-config --cflags --libs gcaps | sed 's/ *\$//')\" = '-I$root/usr/include -L$root/usr/lib -lgcaps' ]"

prog=libgcaps/capi/tests/header.c
# shellcheck disable=SC2046
check "cc via pkg-config (shared)" cc -Wall -Wextra -Werror -o "$tmp/shared" "$prog" $(pc --cflags --libs gcaps)
check "shared program runs" env LD_LIBRARY_PATH="$root/usr/lib" sh -c "runs_ok() { [ \"\$(\"\$@\")\" = 'gcaps.h: ok' ]; }; runs_ok '$tmp/shared'"
check "shared program needs libgcaps.so.0" sh -c "readelf -d '$tmp/shared' | grep -q 'NEEDED.*\[libgcaps.so.0\]'"
# shellcheck disable=SC2046
check "cc via pkg-config --static" cc -Wall -Wextra -Werror -o "$tmp/static" "$prog" $(pc --cflags gcaps) \
  -Wl,-Bstatic $(pc --libs-only-L --libs-only-l gcaps) -Wl,-Bdynamic $(pc --static --libs-only-l gcaps | sed 's/-lgcaps//')
check "static program runs without the .so" runs_ok "$tmp/static"
check "static program does not need libgcaps.so" sh -c "! readelf -d '$tmp/static' | grep -q libgcaps"
check "C++ via pkg-config" c++ -Wall -Wextra -Werror -x c++ -o "$tmp/cxx" "$prog" -x none $(pc --cflags --libs gcaps)
cp -r examples/c "$tmp/example-c"
if [ -f module/simgpu/gcaps_simgpu.h ]; then
  check "C example via its Makefile" env PKG_CONFIG_PATH="$root$prefix/lib/pkgconfig" \
    PKG_CONFIG_SYSROOT_DIR="$root" make -s -C "$tmp/example-c" SIMGPU_INCLUDE="$PWD/module/simgpu"
else
  echo "skip C example (module/simgpu/gcaps_simgpu.h not merged yet)"
fi
check "installed gcapsctl" sh -c "'$root/usr/bin/gcapsctl' --version | grep -q '^gcapsctl '"
check "make uninstall" make -s uninstall DESTDIR="$root" PREFIX="$prefix"
check "nothing left" sh -c "[ -z \"\$(find '$root' ! -type d)\" ]"

echo "install-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
