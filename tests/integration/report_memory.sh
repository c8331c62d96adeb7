#!/bin/sh
# Peak memory (tests/progs/ana_query).  First, tree queries on one set, on a
# 100k-context profile over ana_work's dozen functions, whose whole
# bottom-up tree has about 900k nodes.  The whole bottom-up tree must cost
# the same whether or not other queries came first (the viewer's order: the
# top-down tree, then bottom-up roots, then every level), and memory must
# follow the tree's size.  Bounds are generous (several times what is
# needed); an address-space limit keeps a regression from taking the machine.
. "$PMCPROF_SRC/tests/lib.sh"

"$PROGS/ana_mkprofile" -o big.pmcp -b "$PROGS/ana_work" -S 100000:1000000 ||
	{ fail "ana_mkprofile"; exit 0; }
# peak LETTERS: the last line's "rows peak_kib" of ana_query
peak() {
	(ulimit -v 3000000; "$PROGS/ana_query" big.pmcp "$1") >"q-$1.txt" 2>&1 ||
		{ sed 's/^/    | /' "q-$1.txt"; echo "0 0"; return; }
	awk 'END { print $3, $5 }' "q-$1.txt"
}
set -- $(peak b); rows=$1 fresh=$2
set -- $(peak tlrb); rows2=$1 after=$2
echo "whole bottom-up tree: $rows rows, peak $fresh KiB fresh, $after KiB after t, l, r"
check "bottom-up tree on a fresh set: done ($rows rows)" test "$rows" -gt 100000
check "the same rows after other queries ($rows2)" test "$rows2" -eq "$rows"
check "fresh set: peak $fresh KiB under 400 MiB" test "$fresh" -lt 409600
check "after top-down, lines and roots: peak $after KiB within 1.5x of fresh ($fresh KiB)" \
	test $((after * 2)) -le $((fresh * 3))
check "memory follows the tree: $((fresh * 1024 / (rows + 1))) bytes per row, under 600" \
	test $((fresh * 1024 / (rows + 1))) -lt 600

# --by thread keeps per-thread counts only for the contexts each thread has:
# 200 threads each with its own share of a 50k-context tree cost about what
# the merged tree costs, not 200 times it.
"$PROGS/ana_mkprofile" -o threads -F 200 -D -b "$PROGS/ana_work" -S 50000:500000 ||
	{ fail "ana_mkprofile -F -D"; exit 0; }
merged=$( (ulimit -v 3000000; "$PROGS/ana_query" threads f) | awk 'END { print $5 }')
split=$( (ulimit -v 3000000; "$PROGS/ana_query" -b thread threads f) | awk 'END { print $5 }')
check "--by thread, threads with their own contexts: peak ${split:-?} KiB within 3x of merged (${merged:-?} KiB)" \
	test "${split:-0}" -gt 0 -a "${merged:-0}" -gt 0 -a "${split:-0}" -le $((${merged:-0} * 3))
