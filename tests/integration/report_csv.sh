#!/bin/sh
# Machine-readable output: the CSV parses with Python's csv module, has the
# documented columns, and gives back exactly the counts the profile holds
# (percentages consistent with them); JSON parses and agrees; metrics are
# blank on a division by zero; collapsed stacks are FlameGraph lines.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

# two events, known counts; a file name that needs quoting in CSV
"$PROGS/ana_mkprofile" -o 'a,"b".pmcp' -b "$PROGS/ana_work" -e perf::CYCLES@100000 -e perf::INSTRUCTIONS@100000 \
	"main;work_a=600,300" "main;work_b=300,600" "main;work_c=100,0"
"$PMCPROF" report --csv --metric 'CPI=cycles/instructions' 'a,"b".pmcp' >out.csv
check "report --csv exits 0" test $? -eq 0
check "CSV: parses, documented columns, counts round-trip" python3 - out.csv <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
cols = ("event,function,module,file,line,self_samples,self_pct,incl_samples,incl_pct,"
        "self_value,incl_value,run,inlined_into,depth,run_trust").split(",")
assert list(rows[0].keys()) == cols, rows[0].keys()
want = {("work_a", "perf::CYCLES"): 600, ("work_b", "perf::CYCLES"): 300, ("work_c", "perf::CYCLES"): 100,
        ("work_a", "perf::INSTRUCTIONS"): 300, ("work_b", "perf::INSTRUCTIONS"): 600,
        ("work_c", "perf::INSTRUCTIONS"): 0}
tot = {"perf::CYCLES": 1000, "perf::INSTRUCTIONS": 900}
seen = 0
for r in rows:
    k = (r["function"], r["event"])
    assert r["run"] == 'a,"b".pmcp', r["run"]
    if k in want:
        seen += 1
        assert int(r["self_samples"]) == want[k], (k, r)
        assert abs(float(r["self_pct"]) - 100.0 * want[k] / tot[k[1]]) < 1e-4, (k, r)
        assert int(r["incl_samples"]) == want[k] and float(r["self_value"]) == want[k]
        assert r["file"].endswith("ana_work.c") and int(r["line"]) > 0
    if r["function"] == "main" and r["event"] == "perf::CYCLES":
        assert int(r["incl_samples"]) == 1000 and float(r["incl_pct"]) == 100.0
    if r["event"] == "CPI":
        assert r["self_samples"] == "" and r["self_pct"] == ""
        cpi = {"work_a": 2.0, "work_b": 0.5}
        if r["function"] in cpi:
            assert abs(float(r["self_value"]) - cpi[r["function"]]) < 1e-9, r
        if r["function"] == "work_c":
            assert r["self_value"] == "", r      # 100 / 0: blank
assert seen == 6, seen
PY

"$PMCPROF" report --json 'a,"b".pmcp' >out.json
check "JSON: parses and agrees" python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["events"] == ["perf::CYCLES", "perf::INSTRUCTIONS"] and [r["label"] for r in d["runs"]] == ['a,"b".pmcp']
by = {r["name"]: r for r in d["rows"]}
assert by["work_a"]["values"][0]["self_samples"] == 600
assert by["work_b"]["values"][1]["self_samples"] == 600
assert abs(by["work_c"]["values"][0]["self_pct"] - 10.0) < 1e-9
PY

"$PMCPROF" report --collapsed -e instructions 'a,"b".pmcp' | sort >out.folded
printf 'main;work_a 300\nmain;work_b 600\n' >want.folded
check "collapsed: FlameGraph lines for the chosen event" cmp -s out.folded want.folded

"$PMCPROF" report --csv --tree 'a,"b".pmcp' >tree.csv
check "tree CSV: depth column" python3 -c "
import csv
rows = list(csv.DictReader(open('tree.csv', newline='')))
d = {(r['function'], r['event']): r['depth'] for r in rows}
assert d[('main', 'perf::CYCLES')] == '1' and d[('work_a', 'perf::CYCLES')] == '2', d"

# bottom-up: a root is a function with its own (self) and inclusive
# samples; under it, each caller with the part that came through it
"$PROGS/ana_mkprofile" -o bu.pmcp -b "$PROGS/ana_work" \
	"main;work_a=600" "main;hot_lines;work_a=200" "main;hot_lines=50" "main;work_b=150"
"$PMCPROF" report --csv --tree=bottom-up bu.pmcp >bu.csv
check "bottom-up tree CSV: roots carry their self, callers their part" python3 - bu.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
got, path = [], []
for r in rows:
    d = int(r["depth"])
    path[d - 1:] = [r["function"]]
    got.append((" <- ".join(path), int(r["self_samples"]), int(r["incl_samples"])))
want = [
    ("work_a", 800, 800),                           # sorted by self
    ("work_a <- main", 600, 600),
    ("work_a <- hot_lines", 200, 200),
    ("work_a <- hot_lines <- main", 200, 200),
    ("work_b", 150, 150),
    ("work_b <- main", 150, 150),
    ("hot_lines", 50, 250),                         # its own 50; 250 with work_a under it
    ("hot_lines <- main", 50, 250),
    ("main", 0, 1000),
]
assert got == want, "\n".join(map(str, got))
PY
"$PMCPROF" report --tree=bottom-up bu.pmcp >bu.txt
contains "bottom-up text: Self% first, work_a's own 80%" "^ *80.00  *80.00  *800  work_a" bu.txt

# --lines --function F: F's rows of --lines, the same bytes
"$PMCPROF" report --csv --lines bu.pmcp >lines.csv
"$PMCPROF" report --csv --lines --function ana_work:work_a bu.pmcp >lines_a.csv
check "--lines --function: exactly work_a's rows of --lines" python3 - lines.csv lines_a.csv <<'PY'
import sys
full = open(sys.argv[1], newline="").read().split("\r\n")
one = open(sys.argv[2], newline="").read().split("\r\n")
mine = [l for l in full[1:] if l.split(",")[1:2] == ["work_a"]]
assert len(mine) >= 1 and one[0] == full[0] and one[1:] == mine + [""], (one, mine)
PY
"$PMCPROF" report --lines --function no_such bu.pmcp >/dev/null 2>err.txt
check "--lines --function unknown: exit 1" test $? -eq 1
"$PMCPROF" report --function work_a bu.pmcp >/dev/null 2>err.txt
check "--function without --lines: usage error" test $? -eq 1

# (a ',' in a diff argument separates repeats, so a plain name here)
cp 'a,"b".pmcp' plain.pmcp
"$PMCPROF" diff --csv plain.pmcp plain.pmcp >diff.csv
check "diff CSV: documented columns" python3 -c "
import csv
rows = list(csv.DictReader(open('diff.csv', newline='')))
cols = ('event,function,module,file,line,run,base,run_event,base_samples,run_samples,base_pct,run_pct,'
        'mode,ratio,ci_low,ci_high,significant,spread,presence,inlined_into,run_trust,base_trust,withheld').split(',')
assert list(rows[0].keys()) == cols, rows[0].keys()
assert all(float(r['ratio']) == 1.0 and r['significant'] == '0' for r in rows)
assert all(r['run_event'] == r['event'] for r in rows)"
