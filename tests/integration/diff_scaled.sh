#!/bin/sh
# A function doing 1.5x more work: work_b's share of 6:3:1 becomes 4.5 of
# 11.5.  With the same sampling period the run takes 1.15x the samples, so
# the raw ratio of work_b is 1.5 and its share ratio (4.5/11.5)/(3/10) =
# 1.3043.  Over 5 seeded pairs work_b must be marked significant every
# time, and the true value must lie in the interval at least 4 times of 5
# (95% intervals).  With the collector built, a real run doing 1.5x the
# work in work_b is compared with a normal one (share ratio within 0.15).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

sig=0 raw_in=0 share_in=0 delta_in=0
for p in 1 2 3 4 5; do
	"$PROGS/ana_mkprofile" -o "b$p.pmcp" -b "$PROGS/ana_work" -s "$p" -n 20000 \
		"main;work_a=60" "main;work_b=30" "main;work_c=10"
	"$PROGS/ana_mkprofile" -o "r$p.pmcp" -b "$PROGS/ana_work" -s "$((p + 50))" -n 23000 \
		"main;work_a=60" "main;work_b=45" "main;work_c=10"
	for mode in raw share delta; do
		case $mode in delta) opt=--delta ;; *) opt="--ratio $mode" ;; esac
		# shellcheck disable=SC2086
		"$PMCPROF" diff -q --csv $opt "b$p.pmcp" "r$p.pmcp" >"$mode$p.csv"
	done
	set -- $(python3 -c "
import csv
def row(m):
    return [r for r in csv.DictReader(open('%s$p.csv' % m, newline='')) if r['function'] == 'work_b'][0]
true = {'raw': 1.5, 'share': 4.5 / 11.5 / 0.3, 'delta': 100 * (4.5 / 11.5 - 0.3)}
out = [int(all(row(m)['significant'] == '1' for m in true))]
for m, t in true.items():
    r = row(m)
    out.append(int(float(r['ci_low']) <= t <= float(r['ci_high'])
                   and float(r['ci_low']) <= float(r['ratio']) <= float(r['ci_high'])))
print(*out)")
	sig=$((sig + $1)) raw_in=$((raw_in + $2)) share_in=$((share_in + $3)) delta_in=$((delta_in + $4))
done
check "work_b marked significant in all 5 pairs, every mode ($sig)" test "$sig" -eq 5
check "raw ratio 1.5 inside its interval ($raw_in of 5)" test "$raw_in" -ge 4
check "share ratio 1.304 inside its interval ($share_in of 5)" test "$share_in" -ge 4
check "delta +9.13 points inside its interval ($delta_in of 5)" test "$delta_in" -ge 4
"$PMCPROF" diff --width 80 b1.pmcp r1.pmcp >text.txt
contains "text: work_b row marked" "^work_b .*\*" text.txt
check "text: fits 80 columns" awk 'length > 80 { exit 1 }' text.txt

# repeats: each side is 3 runs; spread shown
"$PMCPROF" diff -q --csv b1.pmcp,b2.pmcp,b3.pmcp r1.pmcp,r2.pmcp,r3.pmcp >rep.csv
check "repeats: merged counts and a spread" python3 -c "
import csv
r = [r for r in csv.DictReader(open('rep.csv', newline='')) if r['function'] == 'work_b'][0]
assert int(r['base_samples']) > 17000 and r['spread'] != '' and float(r['spread']) < 0.05, r"

# --ratio raw over repeats compares the mean per repeat, not the sums: a
# base of 2 repeats against 1 run is about 1.5 like a base of one (a sum
# would halve it)
"$PMCPROF" diff -q --csv --ratio raw b1.pmcp r1.pmcp >raw1.csv
"$PMCPROF" diff -q --csv --ratio raw b1.pmcp,b2.pmcp r1.pmcp >raw2.csv
"$PMCPROF" diff -q --csv --ratio raw b1.pmcp r1.pmcp,r2.pmcp,r3.pmcp >raw3.csv
check "--ratio raw: a mean per repeat (2 base repeats, 3 run repeats ~ 1 each)" python3 -c "
import csv
def ratio(f):
    return float([r for r in csv.DictReader(open(f, newline='')) if r['function'] == 'work_b'][0]['ratio'])
one, two, three = ratio('raw1.csv'), ratio('raw2.csv'), ratio('raw3.csv')
print('raw ratios', one, two, three)
assert abs(two - 1.5) < 0.1 and abs(three - 1.5) < 0.1 and abs(two - one) < 0.1, (one, two, three)"

if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "recorded 1.5x diff: pmcprof-record is not built yet"
	exit 0
fi
"$PMCPROF" record -e cpu-clock@100000 -o base -- "$PROGS/ana_work" split 25 >rec1.log 2>&1 &&
"$PMCPROF" record -e cpu-clock@100000 -o more -- "$PROGS/ana_work" split 25 1.5 >rec2.log 2>&1 ||
	{ fail "pmcprof record failed"; cat rec1.log rec2.log | sed 's/^/    | /'; exit 0; }
# Real runs in a VM differ by more than sampling noise (clock speed, steal
# time change every function's count alike); shares cancel that out.
"$PMCPROF" diff -q --csv base more >rec.csv
check "recorded: work_b significant, share ratio 1.304 +- 0.15" python3 -c "
import csv
r = [r for r in csv.DictReader(open('rec.csv', newline='')) if r['function'] == 'work_b'][0]
print('recorded work_b share ratio %s [%s, %s]' % (r['ratio'], r['ci_low'], r['ci_high']))
assert r['significant'] == '1' and abs(float(r['ratio']) - 4.5 / 11.5 / 0.3) < 0.15, r"
