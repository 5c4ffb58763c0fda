#!/bin/sh
# Usage: module/dkms-source.sh <dir>
# Assembles gcaps.ko's DKMS source tree in <dir> (normally /usr/src/gcaps-<version>): the
# root dkms.conf and what the module's build reads (module/gcaps, module/core/src,
# module/policy/src, module/include, uapi), without build products. `make dkms-install`
# then runs `dkms install` on it.
set -eu
dst=${1:?usage: module/dkms-source.sh <dir>}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dst"
cp "$root/dkms.conf" "$dst/"
cd "$root"
for d in module/gcaps module/core/src module/policy/src module/include uapi; do
  find "$d" \( -path '*/target' -o -name '.cargo-target' \) -prune -o -type f \
    ! -name '*.o' ! -name '*.ko' ! -name '*.cmd' ! -name '*.mod' ! -name '*.mod.c' \
    ! -name 'modules.order' ! -name 'Module.symvers' -print \
    | while IFS= read -r f; do mkdir -p "$dst/$(dirname "$f")"; cp "$f" "$dst/$f"; done
done
