#!/bin/sh
# The noise floor: the same program recorded natively twice, 3 repeats
# each, then diffed.  With repeats, each interval comes from the repeats'
# own spread (never narrower than the counts'), and '*' controls the false
# discovery rate (5%, Benjamini-Hochberg) over the rows shown: on a busy,
# virtualized machine nothing real differs between the two sets, so at
# most what chance allows may be flagged (at most 1 row: a rate of 5% over
# the rows of >= 2% is below 1).  --noise-floor splits the base's repeats
# in two and says the same of them; the table output (--table) carries
# the runs' virtualization; without repeats, diff says run-to-run
# variance is not covered.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"

[ -x "$PROGS/vm_phases" ] || { fail "tests/progs/vm_phases not built"; exit 1; }
t0=$(date +%s)
for i in 1 2 3 4 5 6; do
	timeout 120 "$PMCPROF" record -q -o "r$i" -- "$PROGS/vm_phases" 0.5 >"r$i.out" 2>"r$i.err" ||
		{ fail "record $i"; sed 's/^/    | /' "r$i.err"; exit 1; }
done
echo "    6 recordings took $(($(date +%s) - t0)) s"
"$PMCPROF" diff --min-pct 2 --noise-floor --label A r1,r3,r5 r2,r4,r6 >d.txt 2>d.err
check "diff of native against native with repeats exits 0" test $? -eq 0
rows=$(grep -cv '^#\|^Function' d.txt)
flagged=$(grep -v '^#' d.txt | grep -c '\*')
echo "    $flagged of $rows rows flagged; $(grep '^# noise floor' d.txt)"
check "native against native: at most 1 of $rows rows flagged ($flagged)" test "$flagged" -le 1
contains "the intervals say they come from the repeats" "^# 95% intervals: the wider of the repeats' spread" d.txt
contains "the flags say what they control" "^# \*: significant at FDR 5% over [0-9]* comparisons (Benjamini-Hochberg)" d.txt
contains "the noise floor: the base's repeats split in two" "^# noise floor: A's 3 repeats, odd against even: [0-1] of [0-9]* rows flagged at FDR 5%" d.txt
"$PMCPROF" diff --min-pct 2 r1 r2 >one.txt 2>/dev/null
contains "without repeats, run-to-run variance is said not to be covered" \
	"^# 95% intervals: sample counts only; run-to-run variance not covered" one.txt
"$PMCPROF" diff --table --json --min-pct 2 r1,r3,r5 r2,r4,r6 >t.json 2>/dev/null
python3 - t.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ok = t['fdr'] == 0.05 and len(t['runs']) == 2 and t['rows'] and all(
    len(r['cells']) == 1 and r['base_pct'] >= 2 for r in t['rows'])
print('%s: --table --json: %d rows of >= 2%% of the base, one cell each, fdr %s' % (
    'PASS' if ok else 'FAIL', len(t['rows']), t['fdr']))
virt = [r['virtualization'] for r in t['runs']]
flags = [r['trust'] for r in t['runs']]
ok = all((v is None) == ('virtualized' not in f) for v, f in zip(virt, flags))
print('%s: each run says what it ran on (%s), flagged virtualized exactly when it did (%s)' % (
    'PASS' if ok else 'FAIL', virt[0], flags[0]))
PY
# --only kernel keeps only [k] rows, --only user none of them
"$PMCPROF" diff --only kernel r1 r2 >k.txt 2>/dev/null
"$PMCPROF" diff --only user r1 r2 >u.txt 2>/dev/null
if grep -v '^#\|^Function' k.txt | grep -qv '^\[k\] ' || grep -q '^\[k\] ' u.txt; then
	fail "--only kernel / user split the rows"; head -5 k.txt u.txt
else pass "--only kernel shows only [k] rows, --only user none"; fi
# view names each run as --label says (repeats a/1,a/2 would read "2")
"$PMCPROF" view --snapshot 140x6 --label native --label again r1,r3,r5 r2,r4,r6 >v.txt 2>&1
contains "view --label names the runs in its header" "^compare: base native vs again" v.txt
exit 0
