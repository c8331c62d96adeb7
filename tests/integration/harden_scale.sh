# Short versions of the stress scenarios (tests/stress/run-stress.sh):
# many short threads, a fork/exec process tree and a program with heavy
# signal use of its own, at 10 kHz.  The program's output is unchanged,
# nothing hangs, every process and thread writes one profile that reads.
. "$PMCPROF_SRC/tests/lib.sh"
EV=cpu-clock@100000

# name, expected processes, expected profiles, command (run from $PROGS)
while read -r name procs files cmd; do
	# shellcheck disable=SC2086
	timeout 60 "$PROGS"/$cmd >plain.txt 2>/dev/null
	rm -rf out
	# shellcheck disable=SC2086
	timeout 60 "$PMCPROF" record -e $EV -o out -- "$PROGS"/$cmd >out.txt 2>err.txt
	rc=$?
	check "$name: status $rc (124 = timed out)" [ $rc -eq 0 ]
	check "$name: output unchanged" cmp -s plain.txt out.txt
	n=$(ls out | grep -c '\.pmcp$')
	check "$name: $n profiles (expected $files)" [ "$n" -eq "$files" ]
	p=$(ls out | sed -n 's/.*-\([0-9]*\)-[0-9]*\(\.[0-9]*\)\{0,1\}\.pmcp$/\1/p' | sort -u | wc -l)
	check "$name: $p processes (expected $procs)" [ "$p" -eq "$procs" ]
	check "$name: no temporary file left" [ -z "$(ls -A out | grep '^\.')" ]
	"$PMCPROF" report -q out >/dev/null 2>report.txt
	check "$name: every profile reads" [ $? -eq 0 ]
	"$PMCPROF" report -q --header --top 1 out 2>/dev/null | grep '^# collector:' | tr '\n' ' ' >ctr.txt
	contains "$name: losses are shown (dropped_*, throttled, lost)" \
		"dropped_in_collector=.*throttled=.*lost=" ctr.txt
done <<LIST
200-threads 1 201 stress_threads churn 200 8 25
20-processes 20 39 stress_procs tree 20
own-signals 1 6 stress_signals 4 200 2000
LIST
