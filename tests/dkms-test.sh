#!/bin/bash
# Usage: tests/dkms-test.sh <variant>...   (kernel variants of tests/vm, built if need be)
# `dkms add` + `dkms build` of gcaps.ko (module/dkms-source.sh's tree, the root dkms.conf)
# against each variant's kernel build tree, in private DKMS, source and install trees (the
# system's /var/lib/dkms and /usr/src stay untouched). Checks that the module came out for
# that kernel (vermagic) with the host Kbuild picks for it (host A on kernels with
# CONFIG_RUST, host B without). Prints "dkms-test: N passed, M failed".
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/vm/lib.sh"
[ $# -gt 0 ] || die "usage: tests/dkms-test.sh <variant>..."
command -v dkms >/dev/null || die "dkms not installed (tests/vm/setup.sh installs it)"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$REPO_ROOT/dkms.conf")
[ -n "$version" ] || die "no PACKAGE_VERSION in dkms.conf"

passed=0 failed=0
for variant in "$@"; do
  # Built here if no other step has (it waits for a build under way and reuses it).
  "$VM_DIR/build-kernel.sh" "$variant"
  kb=$(kernel_build_dir "$variant")
  kver=$(cat "$kb/include/config/kernel.release")
  t=$(mktemp -d)
  trap 'rm -rf "$t"' EXIT
  "$REPO_ROOT/module/dkms-source.sh" "$t/src/gcaps-$version"
  trees=(--dkmstree "$t/dkms" --sourcetree "$t/src" --installtree "$t/lib")
  mkdir -p "$t/dkms" "$t/lib"
  # The kernel's own toolchain: Debian's rustc 1.85 and bindgen for host A, LLVM for a
  # clang-built kernel (what a distribution's headers package would say).
  mapfile -t kvars < <(variant_makevars "$variant")
  export GCAPS_MAKE_ARGS="${kvars[*]}"
  # DKMS adds CC=clang LD=ld.lld for a clang-built kernel: unversioned names, as Debian's
  # clang and lld packages install them; here they point at the -14 tools the kernel used.
  mkdir -p "$t/bin"
  ln -s "$(command -v clang-14)" "$t/bin/clang"; ln -s "$(command -v ld.lld-14)" "$t/bin/ld.lld"
  PATH=$t/bin:$PATH
  want=$(kernel_gcaps_host "$kb")
  t0=$(now)
  ok=1
  if ! dkms "${trees[@]}" add -m gcaps -v "$version" >"$t/add.log" 2>&1; then
    cat "$t/add.log" >&2; ok=0
  elif ! dkms "${trees[@]}" build -m gcaps -v "$version" -k "$kver" --kernelsourcedir "$kb" >"$t/build.log" 2>&1; then
    cat "$t/build.log" >&2
    cat "$t/dkms/gcaps/$version/build/make.log" >&2 2>/dev/null || true
    ok=0
  fi
  if [ "$ok" = 1 ]; then
    ko=$(find "$t/dkms/gcaps/$version/$kver" -name 'gcaps.ko*' | head -n 1)
    if [ -z "$ko" ]; then log "$variant: dkms build left no gcaps.ko"; ok=0
    elif ! modinfo -F vermagic "$ko" | grep -q "^$kver "; then
      log "$variant: gcaps.ko vermagic '$(modinfo -F vermagic "$ko")' is not for $kver"; ok=0
    else
      # (DKMS may have compressed it, as the kernel config asks)
      case "$ko" in
        *.xz) xz -dc "$ko" >"$t/gcaps.ko" ;; *.zst) zstd -qdc "$ko" >"$t/gcaps.ko" ;;
        *.gz) gzip -dc "$ko" >"$t/gcaps.ko" ;; *) cp "$ko" "$t/gcaps.ko" ;;
      esac
      got=$(gcaps_ko_host "$t/gcaps.ko")
      [ "$got" = "$want" ] || { log "$variant: gcaps.ko has host $got, expected $want"; ok=0; }
    fi
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1)); log "dkms build against $variant ($kver, host $want): ok in $(elapsed "$t0") s"
  else
    failed=$((failed + 1)); log "dkms build against $variant ($kver): FAILED"
  fi
  PATH=${PATH#"$t/bin:"}
  rm -rf "$t"; trap - EXIT
done
echo "dkms-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
