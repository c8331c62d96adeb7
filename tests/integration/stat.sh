# pmcprof stat: counts over a whole run, threads summed, status passed through.
. "$PMCPROF_SRC/tests/lib.sh"

# Within 5% of the program's own CPU-time measurement (the program's
# figure is taken just before exit; a few ms of startup/teardown are extra).
# perf's task-clock also counts time the hypervisor stole from the task
# (the program's own CPU clock does not): the machine's steal over the run
# (all CPUs, an upper bound) may come on top.
steal_ms() { awk '$1 == "cpu" { print $9 * 10 }' /proc/stat; }
within() {	# name measured truth pct [steal_ms]
	[ -n "$2" ] && [ -n "$3" ] || { fail "$1 (no figure: '$2' vs '$3')"; return; }
	awk -v m="$2" -v t="$3" -v p="$4" -v st="${5:-0}" 'BEGIN {
		lo = t * (1 - p / 100); hi = t * (1 + p / 100) + st; exit !(m >= lo && m <= hi) }' &&
		pass "$1 ($2 vs $3 ms)" || fail "$1 ($2 vs $3 ms, more than $4% apart; steal ${5:-0} ms)"
}

s0=$(steal_ms)
"$PMCPROF" stat -x , -o counts.csv -e task-clock -- "$PROGS/busy" 1 0.6 >out.txt 2>err.txt
check "stat exits 0 on success" [ $? -eq 0 ]
st1=$(( $(steal_ms) - s0 ))
ms=$(awk -F, '$3 == "task-clock" { print $1 }' counts.csv)
truth=$(sed -n 's/^cpu_ms=//p' out.txt)
within "task-clock of a busy loop matches its own CPU time" "$ms" "$truth" 5 "$st1"

s0=$(steal_ms)
"$PMCPROF" stat -x , -o counts8.csv -e task-clock -- "$PROGS/busy" 8 0.15 >out8.txt 2>&1
st8=$(( $(steal_ms) - s0 ))
ms8=$(awk -F, '$3 == "task-clock" { print $1 }' counts8.csv)
truth8=$(sed -n 's/^cpu_ms=//p' out8.txt)
within "8 threads counted and summed" "$ms8" "$truth8" 5 "$st8"

"$PMCPROF" stat -e task-clock -- sh -c "$PROGS/busy 1 0.2 >/dev/null; $PROGS/busy 1 0.2 >/dev/null" 2>tree.txt
ms_tree=$(awk '/task-clock/ { gsub(",", "", $1); print $1 }' tree.txt)
check "child processes are counted too (~400 ms: $ms_tree)" awk -v m="$ms_tree" 'BEGIN { exit !(m > 360 && m < 600) }'
contains "human output names the command" "Performance counter stats for 'sh -c" tree.txt

"$PMCPROF" stat -e task-clock -- "$PROGS/busy" 1 0.01 7 >/dev/null 2>&1
check "exit status passed through" [ $? -eq 7 ]
"$PMCPROF" stat -e task-clock -- sh -c 'kill -TERM $$' >/dev/null 2>&1
check "death by signal passed through (143)" [ $? -eq 143 ]

"$PMCPROF" stat -b cputimer -- "$PROGS/busy" 2 0.2 >ct.txt 2>ctcounts.txt
ct=$(awk '/CPUTIME/ { print $1 }' ctcounts.txt)
truth_ct=$(sed -n 's/^cpu_ms=//p' ct.txt)
within "cputimer backend: CPUTIME from whole-tree rusage" "$ct" "$truth_ct" 5

"$PMCPROF" stat -e cyclez -- true 2>bad.txt
check "a bad event is a usage error (1)" [ $? -eq 1 ]
contains "bad event named with a suggestion" "did you mean 'cycles'" bad.txt
"$PMCPROF" stat -e task-clock -- /nonexistent/program 2>nx.txt
check "a missing program exits 127" [ $? -eq 127 ]
contains "a missing program is named" "cannot run '/nonexistent/program'" nx.txt

if "$PMCPROF" probe | grep -q 'hardware events do not open'; then
	"$PMCPROF" stat -e cycles,instructions -- true 2>ns.txt
	check "no PMU: cycles,instructions exits 0, as perf stat" [ $? -eq 0 ]
	check "no PMU: two <not supported> rows, no replacement counted" \
		[ "$(grep -c '<not supported> *\(cycles\|instructions\)' ns.txt)" -eq 2 ]
	check "no PMU: no cpu-clock row without --fallback" sh -c '! grep -q "msec cpu-clock" ns.txt'
	contains "no PMU: stderr names the option that would replace it" "--fallback counts cpu-clock" ns.txt
	"$PMCPROF" stat --fallback -e cycles -- true 2>fb.txt
	contains "--fallback: cycles falls back openly" "cpu-clock" fb.txt
	contains "--fallback: a cpu-clock row" "msec cpu-clock" fb.txt
	"$PMCPROF" stat --no-fallback -e cycles -- true 2>nfb.txt
	check "--no-fallback: an error instead (2)" [ $? -eq 2 ]
	contains "--no-fallback says why" "no hardware PMU" nfb.txt
fi

# <not counted>: an event enabled but never on a counter (a fake PMU that
# reports running 0, as perf_event does for a multiplexed-out event)
PMCPROF_PLUGIN_PATH="$PMCPROF_BUILD/tests/unit/.libs:${PMCPROF_PLUGIN_PATH:-}" PMC_FAKE_MODE=unscheduled \
	"$PMCPROF" stat -b fakecounter -x , -o nc.csv -e instructions -- true 2>/dev/null
check "never scheduled: perf's <not counted> line (<not counted>,,instructions,0,0.00,,)" \
	grep -qx '<not counted>,,instructions,0,0.00,,' nc.csv
PMCPROF_PLUGIN_PATH="$PMCPROF_BUILD/tests/unit/.libs:${PMCPROF_PLUGIN_PATH:-}" PMC_FAKE_MODE=unscheduled \
	"$PMCPROF" stat -b fakecounter -e instructions -- true 2>nch.txt
contains "  ... and in the text" "<not counted> *instructions" nch.txt

# perf's metric for instructions, with cycles: insn per cycle (the fake
# PMU counts the same number on both: 1.00)
PMCPROF_PLUGIN_PATH="$PMCPROF_BUILD/tests/unit/.libs:${PMCPROF_PLUGIN_PATH:-}" PMC_FAKE_MODE=garbage \
	"$PMCPROF" stat -b fakecounter -x , -o ipc.csv -e cycles,instructions -- true 2>/dev/null
check "-x with cycles and instructions: perf's 'insn per cycle' metric fields" \
	grep -q '^[0-9]*,,instructions,[0-9]*,100.00,1.00,insn per cycle$' ipc.csv

# perf stat's own lines on this machine, field by field: what each event
# is (a count, <not supported>, <not counted>), its unit and name, and
# how many fields; the numbers differ run to run.
perf_shape() {	# file: value-kind,unit,event,NF per line
	awk -F, '{ v = $1 ~ /^</ ? $1 : "N"; print v "," $2 "," $3 "," NF }' "$1"
}
if command -v perf >/dev/null 2>&1 &&
	timeout 20 perf stat -x , -o perf1.csv -e task-clock,cycles,instructions -- true 2>/dev/null &&
	timeout 30 perf stat -x , -r 3 -o perf3.csv -e task-clock,cycles -- true 2>/dev/null; then
	grep -v '^#' perf1.csv | grep -v '^$' >perf1c.csv
	grep -v '^#' perf3.csv | grep -v '^$' >perf3c.csv
	"$PMCPROF" stat -x , -o ours1.csv -e task-clock,cycles,instructions -- true 2>/dev/null
	"$PMCPROF" stat -x , -r 3 -o ours3.csv -e task-clock,cycles -- true 2>/dev/null
	perf_shape perf1c.csv >p1.txt; perf_shape ours1.csv >o1.txt
	perf_shape perf3c.csv >p3.txt; perf_shape ours3.csv >o3.txt
	check "-x: the fields perf stat prints here, in its order ($(tr '\n' ' ' <p1.txt))" cmp -s p1.txt o1.txt
	check "-x -r 3: the fields perf stat prints here, +- % 4th ($(tr '\n' ' ' <p3.txt))" cmp -s p3.txt o3.txt
else
	skip "perf stat cannot run here: no field-by-field comparison"
fi

# perf's spellings: -e a,b and -r N (mean, and +- the standard error as % of it)
s0=$(steal_ms)
"$PMCPROF" stat -x , -r 3 -o rep.csv -e task-clock,page-faults -- "$PROGS/busy" 1 0.2 >rep.txt 2>&1
check "-r 3: exits 0" [ $? -eq 0 ]
strep=$(( $(steal_ms) - s0 ))
check "-e a,b: two events counted" test "$(wc -l <rep.csv)" -eq 2
check "-r 3 -x: the +- % is the 4th field, as perf's" awk -F, '$4 !~ /^[0-9.]+%$/ || NF != 8 { exit 1 }' rep.csv
mean=$(awk -F, '$3 == "task-clock" { print $1 }' rep.csv)
truth=$(sed -n 's/^cpu_ms=//p' rep.txt | awk '{ s += $1; n++ } END { if (n == 3) print s / n }')
within "-r 3: task-clock is the mean of the 3 runs" "$mean" "$truth" 5 "$strep"
"$PMCPROF" stat -r 3 -e task-clock -- true 2>human.txt
contains "-r 3: the header says (3 runs)" "(3 runs):" human.txt
contains "-r 3: each count with ( +- x% )" "task-clock .*( +- *[0-9.]*% )" human.txt
contains "-r 3: elapsed time mean +- its error" "seconds time elapsed  ( +- " human.txt
"$PMCPROF" stat -r 3 -e task-clock -- sh -c 'kill -TERM $$' >/dev/null 2>&1
check "-r 3: a run killed by a signal stops and passes it on (143)" [ $? -eq 143 ]
"$PMCPROF" stat -r 0 -- true >/dev/null 2>&1
check "-r 0: usage error (1)" [ $? -eq 1 ]
