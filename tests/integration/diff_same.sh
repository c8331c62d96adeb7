#!/bin/sh
# False positives: diff of runs of the same program.  20 pairs of synthetic
# runs, each 20000 samples drawn from the same 40 rows (the rows are
# addresses past the code, so each is its own [ana_work+0xOFF] row), so
# any difference is sampling noise.  At the 95% level about 5% of rows
# should be marked significant by its own interval (--fdr off); the rate
# must lie in 2%..8% (800 tests: +-3.9 standard deviations), which catches
# intervals that are too narrow or too wide.  With the default false
# discovery rate control (5%, Benjamini-Hochberg over each diff's rows),
# all rows being alike, a diff flags any row with probability <= 5%: at
# most 4 of the 20 (binomial: P(>= 5) = 0.3%).  With the collector built, two real runs are compared too and
# their rate is printed.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

stacks=""
for k in $(seq 1 40); do
	stacks="$stacks main;0x$(printf '%x' $((0x900000 + 16 * k)))=$((k * k % 97 + 5))"
done
marked=0 rows=0 any=0
for p in $(seq 1 20); do
	# shellcheck disable=SC2086
	"$PROGS/ana_mkprofile" -o "b$p.pmcp" -b "$PROGS/ana_work" -s "$p" -n 20000 $stacks
	# shellcheck disable=SC2086
	"$PROGS/ana_mkprofile" -o "r$p.pmcp" -b "$PROGS/ana_work" -s "$((p + 100))" -n 20000 $stacks
	"$PMCPROF" diff -q --csv --fdr off "b$p.pmcp" "r$p.pmcp" >"d$p.csv" 2>/dev/null
	"$PMCPROF" diff -q --csv "b$p.pmcp" "r$p.pmcp" >"f$p.csv" 2>/dev/null
	any=$((any + $(python3 -c "
import csv
print(int(any(r['significant'] == '1' for r in csv.DictReader(open('f$p.csv', newline='')))))")))
	set -- $(python3 -c "
import csv
rows = list(csv.DictReader(open('d$p.csv', newline='')))
print(sum(r['significant'] == '1' for r in rows), len(rows))")
	marked=$((marked + $1)) rows=$((rows + $2))
done
echo "false-positive rate: $marked of $rows rows marked significant ($((1000 * marked / rows / 10)).$((1000 * marked / rows % 10))%; expected 5%)"
check "each diff compares all 40 rows" test "$rows" -eq 800
check "FDR control: at most 4 of 20 same-program diffs flag any row ($any)" test "$any" -le 4
check "false-positive rate within 2%..8% ($marked / $rows)" \
	test $((100 * marked)) -ge $((2 * rows)) -a $((100 * marked)) -le $((8 * rows))

if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "recorded same-program diff: pmcprof-record is not built yet"
	exit 0
fi
for i in 1 2; do
	"$PMCPROF" record -e cpu-clock@100000 -o "rec$i" -- "$PROGS/ana_work" split 15 >"rec$i.log" 2>&1 ||
		{ fail "pmcprof record failed"; sed 's/^/    | /' "rec$i.log"; exit 0; }
done
"$PMCPROF" diff -q --csv rec1 rec2 >rec.csv
check "recorded: diff exits 0" test $? -eq 0
python3 -c "
import csv
rows = [r for r in csv.DictReader(open('rec.csv', newline='')) if int(r['base_samples']) >= 100]
print('recorded same-program diff: %d of %d rows with >= 100 samples marked significant'
      % (sum(r['significant'] == '1' for r in rows), len(rows)))"
