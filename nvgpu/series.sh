#!/bin/bash
# nvgpu/series.sh [--check]: bring the nvgpu patch series (nvgpu/patches/<line>/*.patch) into
# their `git format-patch` form, or (--check) fail if a checked-in patch is not in it.
#
# Each patch file is the source of its own author, date, subject, description and diff. This
# script rewrites what follows from those and from the patch's place in its line's series:
#   - the mbox "From " line and the "[PATCH n/m]" subject prefix (n: position in the line's
#     series in file-name order, m: the series' length; the file names keep the number the
#     patch has on every line, so a line without 0006 has gaps);
#   - the diffstat after the "---" line (recomputed from the diff);
#   - the signature after the diff ("-- " and this script's name).
# and generates the patches that are the same on every line but for a few lines from one
# template: for each <line>/NNNN-name.sed, <line>/NNNN-name.patch is nvgpu/patches/NNNN-name.patch.in
# with that sed script applied (the per-line values: hunk positions, the line's name). Any
# @TOKEN@ left over is an error.
#
# The diffs are git diffs without "index" lines (so the text does not depend on blob ids):
# `git am` applies them (no 3-way fallback), and so does `patch -p1`. nvgpu/README.md
# ("The patch format") describes the format; tests/nvgpu/run.sh applies each series with both.
#
# --check: writes the generated series into a scratch directory and compares; prints a diff
# and exits 1 if anything differs (run by `make test`'s nvgpu-series-check step).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
patches=$here/patches
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: nvgpu/series.sh [--check]" >&2; exit 2 ;;
esac

die() { echo "nvgpu/series.sh: $*" >&2; exit 1; }

# normalize FILE N M: FILE's patch in its format-patch form, as patch N of M, on stdout.
normalize() {
	awk -v n="$2" -v m="$3" -v file="$1" '
	function fail(msg) { printf "nvgpu/series.sh: %s: %s\n", file, msg > "/dev/stderr"; bad = 1; exit 1 }
	NR == 1 { if ($0 !~ /^From [0-9a-f]+ /) fail("line 1 is not an mbox From line"); next }
	state == 0 && /^From: /    { from = $0; next }
	state == 0 && /^Date: /    { date = $0; next }
	state == 0 && /^Subject: / { subj = $0; sub(/^Subject: (\[PATCH[^]]*\] )?/, "", subj); state = 1; next }
	state == 0 { fail("expected From:, Date: and Subject: before line " NR) }
	state == 1 { if ($0 != "") fail("no blank line after Subject:"); state = 2; next }
	state == 2 && $0 == "---" { state = 3; next }
	state == 2 { msg[nmsg++] = $0; next }
	state == 3 && /^diff --git / { state = 4 }
	state == 3 { next }			# the old diffstat
	state == 4 && $0 == "-- " { state = 5; next }
	state == 4 { diff[ndiff++] = $0; next }
	state == 5 { next }			# the old signature
	END {
		if (bad) exit 1
		if (state < 4) fail("no diff (expected \"---\", a diffstat and \"diff --git\" lines)")
		if (from == "" || date == "" || subj == "") fail("From:, Date: or Subject: missing")
		while (nmsg > 0 && msg[nmsg - 1] == "") nmsg--
		if (nmsg == 0 || msg[nmsg - 1] !~ /^Signed-off-by: /) fail("the description does not end with Signed-off-by:")
		# Diffstat: per file, added and removed lines (hunk lines only), new files.
		nf = 0; hunk = 0
		for (i = 0; i < ndiff; i++) {
			l = diff[i]
			if (l ~ /^diff --git /) {
				name = l; sub(/^diff --git a\/[^ ]+ b\//, "", name)
				f = nf++; fname[f] = name; add[f] = 0; del[f] = 0; created[f] = 0; hunk = 0
			} else if (!hunk && l ~ /^new file mode /) {
				created[f] = substr(l, 15)
			} else if (l ~ /^@@ /) {
				hunk = 1
			} else if (hunk && substr(l, 1, 1) == "+") {
				add[f]++
			} else if (hunk && substr(l, 1, 1) == "-") {
				del[f]++
			}
		}
		namew = 0; maxch = 0; tadd = 0; tdel = 0
		for (f = 0; f < nf; f++) {
			if (length(fname[f]) > namew) namew = length(fname[f])
			if (add[f] + del[f] > maxch) maxch = add[f] + del[f]
			tadd += add[f]; tdel += del[f]
		}
		numw = length(maxch "")
		barw = 72 - namew - numw - 5
		if (barw < 10) barw = 10
		printf "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
		printf "%s\n%s\nSubject: [PATCH %d/%d] %s\n\n", from, date, n, m, subj
		for (i = 0; i < nmsg; i++) print msg[i]
		print "---"
		for (f = 0; f < nf; f++) {
			a = add[f]; d = del[f]
			if (maxch > barw) {
				a = int(a * barw / maxch + 0.5); d = int(d * barw / maxch + 0.5)
				if (add[f] && !a) a = 1
				if (del[f] && !d) d = 1
			}
			bar = ""
			for (k = 0; k < a; k++) bar = bar "+"
			for (k = 0; k < d; k++) bar = bar "-"
			printf(" %-" namew "s | %" numw "d %s\n", fname[f], add[f] + del[f], bar)
		}
		printf " %d file%s changed", nf, nf == 1 ? "" : "s"
		if (tadd) printf ", %d insertion%s(+)", tadd, tadd == 1 ? "" : "s"
		if (tdel) printf ", %d deletion%s(-)", tdel, tdel == 1 ? "" : "s"
		printf "\n"
		for (f = 0; f < nf; f++) if (created[f]) printf " create mode %s %s\n", created[f], fname[f]
		printf "\n"
		for (i = 0; i < ndiff; i++) print diff[i]
		print "-- "
		print "gcaps nvgpu/series.sh"
		print ""
	}' "$1"
}

# The generated series of every line, into $1 (one directory per line).
generate() {
	local out=$1 d line s t p i n
	for d in "$patches"/*/; do
		line=$(basename "$d")
		mkdir -p "$out/$line"
		for s in "$d"*.sed; do
			[ -e "$s" ] || continue
			t=$patches/$(basename "$s" .sed).patch.in
			[ -f "$t" ] || die "$s: no template $t"
			sed -f "$s" "$t" >"$out/$line/$(basename "$s" .sed).patch"
			if grep -n '@[A-Z][A-Z0-9_]*@' "$out/$line/$(basename "$s" .sed).patch" >&2; then
				die "$s leaves the tokens above of $t unset"
			fi
		done
		for p in "$d"*.patch; do
			[ -e "$p" ] || continue
			[ -e "$out/$line/$(basename "$p")" ] || cp "$p" "$out/$line/"
		done
		mapfile -t series < <(ls "$out/$line"/*.patch)
		n=${#series[@]}
		for i in "${!series[@]}"; do
			normalize "${series[$i]}" $((i + 1)) "$n" >"${series[$i]}.new"
			mv "${series[$i]}.new" "${series[$i]}"
		done
	done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generate "$tmp"
rc=0
for d in "$tmp"/*/; do
	line=$(basename "$d")
	for p in "$d"*.patch; do
		dst=$patches/$line/$(basename "$p")
		if cmp -s "$p" "$dst"; then
			continue
		fi
		if [ "$check" = 1 ]; then
			echo "nvgpu/series.sh: $line/$(basename "$p") is not current (run nvgpu/series.sh):" >&2
			diff -u "$dst" "$p" >&2 || true
			rc=1
		else
			cp "$p" "$dst"
			echo "nvgpu/series.sh: wrote $line/$(basename "$p")"
		fi
	done
done
exit "$rc"
