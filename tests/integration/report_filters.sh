# perf's filters and keys: --comm, --pid, --tid (which threads' files),
# --dso, --symbols (which samples; percentages stay of the whole run, as
# perf's), -g caller|callee, multi-key --sort (dso,sym comm,sym pid ...),
# with every output format, and in diff and view.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
W="$PROGS/ana_work"

mkdir p
"$PROGS/ana_mkprofile" -o p/a.pmcp -b "$W" -m thread_name=alpha -m pid=10 -m tid=10 \
	"main;work_a=600" "main;work_b=100"
"$PROGS/ana_mkprofile" -o p/b.pmcp -b "$W" -m thread_name=beta -m pid=10 -m tid=11 "main;work_b=300"
"$PROGS/ana_mkprofile" -o p/c.pmcp -b "$W" -m thread_name=alpha -m pid=20 -m tid=20 "main;work_c=200"
samples() { "$PMCPROF" report "$@" p 2>/dev/null | sed -n 's/^# event: .*: \([0-9]*\) samples$/\1/p'; }
check "no filter: 1200 samples" [ "$(samples)" = 1200 ]
check "--comm alpha: its two threads' 900" [ "$(samples --comm alpha)" = 900 ]
check "--comms beta,alpha (perf's spelling, a list): 1200" [ "$(samples --comms beta,alpha)" = 1200 ]
check "--comm alpha --comm beta (repeated): 1200" [ "$(samples --comm alpha --comm beta)" = 1200 ]
check "--pid 10: 1000" [ "$(samples --pid 10)" = 1000 ]
check "--tid 11: 300" [ "$(samples --tid 11)" = 300 ]
check "--tid 10,20: 900" [ "$(samples --tid 10,20)" = 900 ]
check "--comm alpha --pid 10: both hold (700)" [ "$(samples --comm alpha --pid 10)" = 700 ]
"$PMCPROF" report --comm nobody p >/dev/null 2>none.txt
check "--comm matching nothing: exit 2" [ $? -eq 2 ]
contains "  ... says the threads were left out" "3 profiles of other threads left out" none.txt
"$PMCPROF" report --pid 1x p >/dev/null 2>bad.txt
check "--pid 1x: usage error (1)" [ $? -eq 1 ]

# --symbols: only work_b's samples reach any row; percentages of all 1200
"$PMCPROF" report --symbols work_b --collapsed p >sym.txt
check "--symbols work_b --collapsed: one stack, 400" [ "$(cat sym.txt)" = "main;work_b 400" ]
"$PMCPROF" report --symbols work_b --csv p >sym.csv
check "--symbols --csv: work_b 33.33% of the whole run, main 400 inclusive, nothing else" python3 - sym.csv <<'PY'
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert set(rows) == {"work_b", "main"}, rows.keys()
assert rows["work_b"]["self_samples"] == "400" and abs(float(rows["work_b"]["self_pct"]) - 100 * 400 / 1200) < 0.01
assert rows["main"]["incl_samples"] == "400" and rows["main"]["self_samples"] == "0"
PY
"$PMCPROF" report --symbols work_b --json p >sym.json
check "--symbols --json: the same rows" python3 -c '
import json, sys
d = json.load(open("sym.json"))
names = sorted(r["name"] for r in d["rows"])
assert names == ["main", "work_b"], names' 
"$PMCPROF" report --dso ana_work --collapsed p | awk '{ s += $NF } END { exit s != 1200 }'
check "--dso ana_work (every sample's module): all 1200 in collapsed stacks" [ $? -eq 0 ]
"$PMCPROF" report --comm alpha --tree --csv p >/dev/null &&
	"$PMCPROF" report --comm alpha --flamegraph f.svg -q p &&
	"$PMCPROF" report --comm alpha --speedscope s.json -q p &&
	"$PMCPROF" report --symbols work_a --pprof f.pb.gz -q p
check "filters with --tree --csv, --flamegraph, --speedscope, --pprof: written" [ $? -eq 0 ]
check "  ... the flame graph has alpha's work_a, work_c and 100 of work_b, not beta's 300" \
	sh -c 'grep -q work_a f.svg && grep -q work_c f.svg && grep -q "work_b (ana_work): 100 samples" f.svg'
check "  ... speedscope: alpha's two threads only" python3 -c '
import json; d = json.load(open("s.json")); assert len(d["profiles"]) == 2, len(d["profiles"])'
if command -v go >/dev/null 2>&1; then
	timeout 60 go tool pprof -top f.pb.gz >top.txt 2>/dev/null
	check "  ... pprof (go tool pprof -top): work_a, not work_b" \
		sh -c 'grep -q work_a top.txt && ! grep -q work_b top.txt'
fi

# --sort: perf's keys are the rows' identity, columns in their order
"$PMCPROF" report --sort comm,sym --no-header p >cs.txt
check "--sort comm,sym: a Command column, one table over the threads" \
	sh -c 'head -1 cs.txt | grep -q "Self%.*Command *Function *Module"'
check "  ... (alpha, work_a) 50%, (beta, work_b) 25%, (alpha, work_c) 16.67%, (alpha, work_b) 8.33%, in that order" \
	sh -c "awk 'NR > 1 && \$1 + 0 > 1 { print \$1, \$4, \$5 }' cs.txt | tr '\n' ' ' | grep -q '^50.00 alpha work_a 25.00 beta work_b 16.67 alpha work_c 8.33 alpha work_b \$'"
"$PMCPROF" report --sort pid --csv p >pid.csv
check "--sort pid --csv: one row per process, 1000 and 200" \
	sh -c 'grep -q "^\"10\",1000,83.3333\$" pid.csv && grep -q "^\"20\",200,16.6667\$" pid.csv && [ $(wc -l <pid.csv) -eq 3 ]'
"$PMCPROF" report --sort comm --json p >comm.json
check "--sort comm --json: alpha 900, beta 300" python3 -c '
import json; d = json.load(open("comm.json"))
assert {r["comm"]: r["samples"] for r in d["rows"]} == {"alpha": 900, "beta": 300}, d'
"$PMCPROF" report --sort dso,sym --no-header p >ds.txt
check "--sort dso,sym: Module column before Function" sh -c 'head -1 ds.txt | grep -q "Module *Function"'
"$PMCPROF" report --sort sym,dso --no-header p >sd.txt
check "--sort sym,dso: Function before Module" sh -c 'head -1 sd.txt | grep -q "Function *Module"'
"$PMCPROF" report --sort tid,sym --csv p >ts.csv
check "--sort tid,sym --csv: the tid in each row's run column" \
	sh -c 'grep -q ",tid=11," ts.csv && grep -q ",tid=20," ts.csv'
"$PMCPROF" report --sort comm,sym --collapsed p >cc.txt
check "--sort comm,sym --collapsed: the comm is each stack's root" \
	sh -c 'grep -q "^comm=alpha;main;work_a 600\$" cc.txt && grep -q "^comm=beta;main;work_b 300\$" cc.txt'
"$PMCPROF" report --sort pid --by thread p >/dev/null 2>&1
check "--sort pid with another --by: usage error (1)" [ $? -eq 1 ]

# -g: perf's call-graph order
"$PMCPROF" report --tree p >t1.txt; "$PMCPROF" report -g caller p >t2.txt
check "-g caller is the top-down tree" cmp -s t1.txt t2.txt
"$PMCPROF" report --tree=bottom-up p >t3.txt; "$PMCPROF" report -g callee p >t4.txt
check "-g callee is the bottom-up tree" cmp -s t3.txt t4.txt
"$PMCPROF" report --collapsed p >t5.txt; "$PMCPROF" report -g folded p >t6.txt
check "-g folded is --collapsed" cmp -s t5.txt t6.txt
"$PMCPROF" report -g caller,0.5 p >/dev/null && "$PMCPROF" report --call-graph graph,caller,function p >/dev/null
check "-g graph,0.5,caller,function (perf's form): accepted" [ $? -eq 0 ]
"$PMCPROF" report -g address p >/dev/null 2>&1
check "-g address: usage error (1)" [ $? -eq 1 ]

# diff and view take the same filters
"$PMCPROF" diff --comm alpha p p >d.txt 2>&1
check "diff --comm alpha: 900 samples a side" sh -c 'grep -q "^# base: .*: 900 samples" d.txt'
"$PMCPROF" view --snapshot 100x10 --tid 11 p >v.txt 2>&1
check "view --tid 11: work_b only" sh -c 'grep -q work_b v.txt && ! grep -q work_a v.txt'

# On a real run: --dso keeps the samples in that module, shares of the whole
timeout 60 "$PMCPROF" record -q -e cpu-clock -o real -- "$PROGS/busy" 1 0.3 >/dev/null 2>&1
"$PMCPROF" report --csv real >all.csv && "$PMCPROF" report --dso busy --csv real >busy.csv
check "--dso busy on a real run: only busy's samples, burn's share unchanged" python3 - all.csv busy.csv <<'PY'
import csv, sys
a = {r["function"]: r for r in csv.DictReader(open(sys.argv[1]))}
b = list(csv.DictReader(open(sys.argv[2])))
assert b and all(r["module"].endswith("/busy") for r in b if int(r["self_samples"])), b
burn = [r for r in b if r["function"] == "burn"][0]
assert burn["self_pct"] == a["burn"]["self_pct"], (burn["self_pct"], a["burn"]["self_pct"])
PY
