#!/bin/sh
# JIT code named from the perf map the JIT writes (/tmp/perf-PID.map, the
# format of perf's jit-interface.txt): Node with --perf-basic-prof, a hot
# JavaScript function on top by name.  The map is read at report time; a
# copy beside the profile serves a report elsewhere once /tmp's is gone.
# A synthetic profile checks the parser: later lines win, bad lines are
# skipped, control bytes are not shown.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"

# synthetic: frames in no module at absolute addresses, pid 4242
pid=4242
while [ -e "/tmp/perf-$pid.map" ]; do pid=$((pid + 1)); done
cp "$PROGS/ana_work" app
"$PROGS/ana_mkprofile" -o syn.pmcp -b app -m pid=$pid \
	"main;?0x7f0000001010=50" "main;?0x7f0000002008=30" "main;?0x7f0000009000=20"
printf '7f0000001000 100 LazyCompile:*old_name /x.js:1\nnot a line\n7f0000001000 100 JS:*fresh /x.js:1\n7f0000002000 10 lua:bad\001name\n' >"perf-$pid.map"
"$PMCPROF" report --csv syn.pmcp >syn.csv 2>syn.err
cat >rows.py <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    print(r['self_samples'], r['function'])
PY
python3 rows.py syn.csv >syn.txt
contains "perf map beside the profile: the later line wins" "^50 JS:\*fresh /x.js:1$" syn.txt
contains "perf map: control bytes shown as ?" "^30 lua:bad?name$" syn.txt
contains "perf map: an address in no entry stays unnamed" "^20 \[" syn.txt

need_cmd node
need_record
cat >hot.js <<'JS'
function hotLoop(n) { let x = 0; for (let i = 0; i < n; i++) { x = (x * 31 + i) % 1000003; } return x; }
function driver() { let s = 0; for (let k = 0; k < 40; k++) s += hotLoop(2000000); return s; }
console.log(driver());
JS
"$PMCPROF" record -e cpu-clock@1000000 --call-graph=fp -o node -- node --perf-basic-prof hot.js \
	>node.out 2>node.err || { fail "record node failed"; sed 's/^/    | /' node.err; exit 0; }
npid=$(ls node | sed -n 's/^node-[^-]*-\([0-9]*\)-\1\.pmcp$/\1/p' | head -1)
map="/tmp/perf-$npid.map"
if [ -z "$npid" ] || [ ! -s "$map" ]; then
	fail "node wrote no perf map ($map)"; ls node; exit 0
fi
"$PMCPROF" report --csv node >node.csv 2>/dev/null
python3 rows.py node.csv >node.txt
check "node: the hot JS function by name on top (>50% self)" python3 -c "
import csv, sys
rows = sorted(((int(r['self_samples']), r['function']) for r in csv.DictReader(open('node.csv', newline=''))), reverse=True)
tot = sum(n for n, _ in rows)
sys.exit(0 if 'hotLoop' in rows[0][1] and rows[0][0] * 2 > tot else 1)"
# elsewhere: the map copied beside the profile, /tmp's gone
mv "$map" node/
cp node/"perf-$npid.map" node/"perf-$npid.map.orig"
"$PMCPROF" report --csv node >node2.csv 2>/dev/null
check "node: a perf map copied beside the profile is used" grep -q 'hotLoop' node2.csv
rm -f node/"perf-$npid.map"
"$PMCPROF" report --csv node >node3.csv 2>/dev/null
check "node: the lines record kept (node/symbols) name it" grep -q 'hotLoop' node3.csv
check "node: record kept only the map's lines that were sampled" \
	test "$(wc -l <"node/symbols/perf-$npid.map")" -lt "$(wc -l <"node/perf-$npid.map.orig")"
rm -f node/symbols/"perf-$npid.map"
"$PMCPROF" report --csv node >node4.csv 2>/dev/null
if grep -q 'hotLoop' node4.csv; then fail "no perf map: still named?"; else pass "no perf map: JIT code unnamed"; fi
