#!/bin/sh
# tests/citation-check.sh: fails if code, a doc or a comment cites a file outside the
# repository: the development notes (`shared/facts`) or an absolute path of a development
# machine (/work/..., /root/...). A fact the code relies on is stated in docs/ with its public
# source instead (docs/nvgpu-facts.md, docs/analysis.md). Run by `make test` (citation-check).
cd "$(dirname "$0")/.." || exit 2
pattern='shared/facts\|/work/\|/root/'
hits=$(git ls-files -- module tools libgcaps uapi docs README.md tests nvgpu examples Makefile Kbuild .ci |
	grep -v '^tests/citation-check\.sh$' |
	tr '\n' '\0' | xargs -0 grep -n -- "$pattern" 2>/dev/null)
if [ -n "$hits" ]; then
	printf '%s\n' "$hits" >&2
	echo "citation-check: the lines above cite shared/facts or a development machine's path; state the fact in docs/ with its public source" >&2
	exit 1
fi
echo "citation-check: no citation of shared/facts or of a development machine's path"
