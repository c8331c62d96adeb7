#!/bin/sh
# An inlined function keeps one row per function it was inlined into, in
# report, diff and view: kern is inlined into f_a, f_b and f_c, and the
# second run doubles f_b's work, so kern-in-f_b grows and the other two
# shrink (one merged kern row would show a ratio of 1).  With --no-inline
# the inlined code is charged to f_a, f_b and f_c as perf report does.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "pmcprof-record is not built"
	exit 0
fi
W="$PROGS/inl_work"
"$PMCPROF" record -e cpu-clock@500000 -o base -- "$W" 1 60 >/dev/null 2>&1 &&
	"$PMCPROF" record -e cpu-clock@500000 -o run -- "$W" 2 60 >/dev/null 2>&1 ||
	{ fail "record failed"; exit 0; }

# report: three kern rows, one per caller
"$PMCPROF" report --csv run >rep.csv
check "report: kern once per caller (inlined_into f_a, f_b, f_c)" python3 -c "
import csv, sys
rows = sorted(r['inlined_into'] for r in csv.DictReader(open('rep.csv', newline=''))
              if r['function'] == 'kern')
sys.exit(0 if rows == ['f_a', 'f_b', 'f_c'] else 1)"

# diff: kern-in-f_b grows, the others shrink, each significantly
"$PMCPROF" diff --csv base run >diff.csv
cat >check_diff.py <<'PY'
import csv, sys
want = sys.argv[2]
rows = {r['inlined_into']: r for r in csv.DictReader(open(sys.argv[1], newline=''))
        if r['function'] == want}
if want != 'kern':	# --no-inline: the callers themselves
    rows = {r['function']: r for r in csv.DictReader(open(sys.argv[1], newline=''))
            if r['function'] in ('f_a', 'f_b', 'f_c')}
ok = sorted(rows) == ['f_a', 'f_b', 'f_c']
ok = ok and float(rows['f_b']['ratio']) > 1.2 and rows['f_b']['significant'] == '1'
ok = ok and all(float(rows[f]['ratio']) < 0.9 for f in ('f_a', 'f_c'))
for k, r in sorted(rows.items()):
    print('   ', k, r['ratio'], r['significant'])
sys.exit(0 if ok else 1)
PY
check "diff --csv: kern in f_b x1.5, in f_a and f_c x0.75, apart" python3 check_diff.py diff.csv kern
"$PMCPROF" diff --width 120 base run >diff.txt
contains "diff: text names the caller" "kern \[inlined into f_b\]" diff.txt
"$PMCPROF" diff --json base run >diff.json
check "diff --json: inlined_into" python3 -c "
import json, sys
d = json.load(open('diff.json'))
sys.exit(0 if sorted(c for r in d['rows'] if r['name'] == 'kern' for c in r['inlined_into']) == ['f_a', 'f_b', 'f_c'] else 1)"

# --no-inline: no kern row; f_b grows
"$PMCPROF" report --no-inline --csv run >noinl.csv
check "report --no-inline: kern charged to its callers" python3 -c "
import csv, sys
rows = {r['function']: float(r['self_pct']) for r in csv.DictReader(open('noinl.csv', newline=''))}
sys.exit(0 if 'kern' not in rows and rows.get('f_b', 0) > 40 and rows.get('f_a', 0) > 15 else 1)"
"$PMCPROF" diff --no-inline --csv base run >diffnoinl.csv
check "diff --no-inline: f_b x1.5, f_a and f_c x0.75" python3 check_diff.py diffnoinl.csv callers
if perf record -q -e cpu-clock -o perf.data "$W" 2 60 >/dev/null 2>&1 &&
   perf report -i perf.data --stdio --no-children -g none --no-inline --sort sym 2>/dev/null |
	awk '$1 ~ /%$/ && $1 + 0 >= 10 { print $3 }' | sort >perf.txt && [ -s perf.txt ]; then
	python3 -c "
import csv
for r in csv.DictReader(open('noinl.csv', newline='')):
    if float(r['self_pct']) >= 10: print(r['function'])" | sort >ours.txt
	check "report --no-inline: the functions over 10% are perf report's ($(tr '\n' ' ' <perf.txt))" \
		cmp -s perf.txt ours.txt
else
	skip "perf cannot record cpu-clock here: --no-inline not compared with perf"
fi

# view: the same rows apart, and --no-inline
"$PMCPROF" view --snapshot=150x12 base run >view.txt 2>&1
check "view: kern once per caller" test "$(grep -c 'kern (inlined in f_[abc])' view.txt)" = 3
"$PMCPROF" view --no-inline --snapshot=150x12 base run >viewnoinl.txt 2>&1
if grep -qw 'kern' viewnoinl.txt || ! grep -q ' f_b ' viewnoinl.txt; then
	fail "view --no-inline: kern charged to its callers"; sed 's/^/    | /' viewnoinl.txt
else
	pass "view --no-inline: kern charged to its callers"
fi
