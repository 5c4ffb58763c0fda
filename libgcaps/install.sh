#!/usr/bin/env bash
# make install / make uninstall: libgcaps (libgcaps.so.0, libgcaps.a, gcaps.h, gcaps.pc), the
# UAPI header (include/linux/gcaps.h) and gcapsctl, under $DESTDIR$PREFIX.
#   libgcaps/install.sh install|uninstall
# Environment: PREFIX (default /usr/local), DESTDIR (default empty), LIBDIR, INCLUDEDIR,
# BINDIR (defaults under PREFIX), CARGO_TARGET_DIR (default target), CARGO_BUILD_TARGET (a
# cross target, e.g. aarch64-unknown-linux-gnu; its linker and C compiler from cargo's own
# CARGO_TARGET_<TRIPLE>_LINKER and CC_<triple>).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:-}
PREFIX=${PREFIX:-/usr/local}
LIBDIR=${LIBDIR:-$PREFIX/lib}
INCLUDEDIR=${INCLUDEDIR:-$PREFIX/include}
BINDIR=${BINDIR:-$PREFIX/bin}
DESTDIR=${DESTDIR:-}
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' libgcaps/capi/Cargo.toml | head -n 1)
SO=libgcaps.so.$VERSION

die() { echo "libgcaps/install.sh: $*" >&2; exit 1; }
case "$PREFIX" in /*) ;; *) die "PREFIX must be an absolute path (got '$PREFIX')" ;; esac

# Every installed path, relative to DESTDIR (uninstall removes exactly these).
files=(
  "$LIBDIR/$SO" "$LIBDIR/libgcaps.so.0" "$LIBDIR/libgcaps.so" "$LIBDIR/libgcaps.a"
  "$LIBDIR/pkgconfig/gcaps.pc" "$INCLUDEDIR/gcaps.h" "$INCLUDEDIR/linux/gcaps.h"
  "$BINDIR/gcapsctl"
)

case "$action" in
  install)
    target=${CARGO_TARGET_DIR:-target}/${CARGO_BUILD_TARGET:+$CARGO_BUILD_TARGET/}release
    cargo build --release --locked -p gcaps-capi -p gcapsctl
    d=$DESTDIR
    install -d "$d$LIBDIR/pkgconfig" "$d$INCLUDEDIR/linux" "$d$BINDIR"
    install -m 0755 "$target/libgcaps.so" "$d$LIBDIR/$SO"
    ln -sf "$SO" "$d$LIBDIR/libgcaps.so.0"
    ln -sf libgcaps.so.0 "$d$LIBDIR/libgcaps.so"
    install -m 0644 "$target/libgcaps.a" "$d$LIBDIR/libgcaps.a"
    install -m 0644 libgcaps/capi/include/gcaps.h "$d$INCLUDEDIR/gcaps.h"
    install -m 0644 uapi/linux/gcaps.h "$d$INCLUDEDIR/linux/gcaps.h"
    install -m 0755 "$target/gcapsctl" "$d$BINDIR/gcapsctl"
    sed -e "s|@PREFIX@|$PREFIX|" -e "s|@LIBDIR@|$LIBDIR|" -e "s|@INCLUDEDIR@|$INCLUDEDIR|" \
        -e "s|@VERSION@|$VERSION|" libgcaps/capi/gcaps.pc.in >"$d$LIBDIR/pkgconfig/gcaps.pc"
    chmod 0644 "$d$LIBDIR/pkgconfig/gcaps.pc"
    for f in "${files[@]}"; do echo "installed $d$f"; done
    ;;
  uninstall)
    for f in "${files[@]}"; do
      if [ -e "$DESTDIR$f" ] || [ -L "$DESTDIR$f" ]; then rm -f "$DESTDIR$f"; echo "removed $DESTDIR$f"; fi
    done
    # Directories we may have created, if now empty.
    rmdir "$DESTDIR$LIBDIR/pkgconfig" "$DESTDIR$INCLUDEDIR/linux" 2>/dev/null || true
    ;;
  *) die "usage: install.sh install|uninstall" ;;
esac
