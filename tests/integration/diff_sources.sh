#!/bin/sh
# The VM-vs-native workflow across sample sources: the same program
# recorded with cpu-clock (perf_event; what a VM without a vPMU falls back
# to) and with CPUTIME (the cputimer backend).  diff and view compare each
# run's own event by share: the hot functions come out near 1, not "gone";
# raw counts of different events are refused.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

# ~1.2 s each; work_a/b/c do 6:3:1 in short interleaved rounds
"$PMCPROF" record -e cpu-clock@250000 -o clock -- "$PROGS/ana_work" split 80 >/dev/null 2>rec1.txt ||
	{ skip "record -e cpu-clock failed here: $(tail -1 rec1.txt)"; exit 77; }
"$PMCPROF" record -e CPUTIME@250 -o cputime -- "$PROGS/ana_work" split 80 >/dev/null 2>rec2.txt ||
	{ skip "record -e CPUTIME failed here: $(tail -1 rec2.txt)"; exit 77; }

"$PMCPROF" diff --header clock cputime >out.txt 2>err.txt
check "diff of a cpu-clock and a CPUTIME run: exit 0" test $? -eq 0
contains "the events that differ are warned about" "warning: event perf::CPU-CLOCK was sampled in clock but not in cputime" out.txt
contains "so are the backends" "warning: backend differs: 'perf_event' in clock, 'cputimer' in cputime" out.txt
contains "a note names each run's compared event" \
	"compared on different events (each run's 1st sampled event): perf::CPU-CLOCK in clock, CPUTIME in cputime" out.txt
if grep -Eq '^work_[abc] .*(gone|new)' out.txt; then
	fail "hot functions are matched, not gone/new"; sed 's/^/    | /' out.txt | tail -8
else
	pass "hot functions are matched, not gone/new"
fi

# share ratios near 1: within twice the interval's half-width (in log) of 1,
# and within [0.5, 2] whatever the interval
"$PMCPROF" diff -q --csv clock cputime >share.csv 2>/dev/null
python3 - >near.txt <<'EOF'
import csv, math
rows = {r['function']: r for r in csv.DictReader(open('share.csv', newline=''))}
for f in ('work_a', 'work_b', 'work_c'):
    r = rows.get(f)
    if not r or r['presence'] != 'both' or r['run_event'] != 'CPUTIME' or r['event'] != 'perf::CPU-CLOCK':
        print(f, 'bad', r)
        continue
    x, lo, hi = float(r['ratio']), float(r['ci_low']), float(r['ci_high'])
    h = (math.log(hi) - math.log(lo)) / 2
    print(f, 'ok' if abs(math.log(x)) < 2 * h and 0.5 < x < 2 else 'far', x, lo, hi)
EOF
for f in work_a work_b work_c; do
	if grep -q "^$f ok" near.txt; then pass "$f: share ratio near 1 ($(grep "^$f" near.txt))"
	else fail "$f: share ratio near 1 ($(grep "^$f" near.txt))"; fi
done

"$PMCPROF" diff --ratio raw clock cputime >out.txt 2>err.txt
check "--ratio raw across different events is refused (exit 1)" test $? -eq 1
contains "and says what to use" "raw counts of different events do not compare: use --ratio share" err.txt
"$PMCPROF" diff --delta clock cputime >out.txt 2>err.txt
check "--delta across different events works (shares)" test $? -eq 0
# -e names the run's event too: the base is compared on its own
"$PMCPROF" diff -e CPUTIME clock cputime >out.txt 2>err.txt
contains "-e CPUTIME: the base compares its own first event" "perf::CPU-CLOCK in clock, CPUTIME in cputime" out.txt

# the viewer's compare mode: the same pairing, the same ratios
"$PMCPROF" view --snapshot 120x24 clock cputime >view.txt 2>err.txt
contains "view: the title names each run's event" "compare: base clock (perf::CPU-CLOCK) vs cputime (CPUTIME)" view.txt
if grep -Eq '(0\.[89][0-9]|1\.[01][0-9]) \[.*work_a' view.txt; then pass "view: work_a compares near 1"
else fail "view: work_a compares near 1"; sed 's/^/    | /' view.txt; fi
