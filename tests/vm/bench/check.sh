#!/usr/bin/env bash
# The VM benchmarks still build (a step of make test; `make vm-bench` runs them): each C one
# compiles as run.sh compiles it, each shell one parses. Prints "vm-bench-check: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")"
passed=0 failed=0
for f in *.c *.sh; do
  [ "$f" = check.sh ] && continue
  case "$f" in
    *.c) gcc -static -O2 -Wall -Wextra -Werror -o /dev/null "$f" && ok=1 || ok=0 ;;
    *.sh) [ -x "$f" ] && sh -n "$f" && ok=1 || ok=0 ;;
  esac
  if [ "$ok" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL  $f does not build"; fi
done
echo "vm-bench-check: $passed passed, $failed failed"
[ "$failed" = 0 ]
