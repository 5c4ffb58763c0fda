#!/bin/sh
# Harness self-test: runs after st-bgchild, st-hang and st-modleft and passes only if nothing
# they left behind survived: no child still writing its tick file, no module still loaded; and
# only if it runs in a new empty directory of its own (st-pass left a file in its own).
set -u
[ "$(pwd)" = /tmp/st-survivors ] || { echo "st-survivors: cwd $(pwd), want /tmp/st-survivors"; exit 1; }
[ -z "$(ls -A)" ] || { echo "st-survivors: files of earlier tests in its directory: $(ls -A)"; exit 1; }
ticks="/tmp/st-bgchild-group.ticks /tmp/st-bgchild-session.ticks /tmp/st-hang.ticks"
for f in $ticks; do
  [ -s "$f" ] || { echo "st-survivors: $f missing: its writer never ran"; exit 1; }
done
# shellcheck disable=SC2086
a=$(cat $ticks | wc -l); sleep 1
# shellcheck disable=SC2086
b=$(cat $ticks | wc -l)
if [ "$a" != "$b" ]; then
  echo "st-survivors: a child of an earlier test is still running ($a -> $b ticks)"; exit 1
fi
if grep -q '^vmfixture ' /proc/modules; then echo "st-survivors: vmfixture still loaded"; exit 1; fi
echo "st-survivors: nothing survived"
