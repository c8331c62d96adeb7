# Threads end (and write their profiles) while other threads dlopen and
# dlclose at 10 kHz sampling: every profile reads.  (The load map's
# unload_seq changed between the profile writer's sizing and filling
# passes, and about 1% of such profiles came out corrupt.)
. "$PMCPROF_SRC/tests/lib.sh"
LIB="$PROGS/.libs/rec_dllib.so"

"$PROGS/stress_dl" 2 200 1000 "$LIB" >plain.txt
timeout 120 "$PMCPROF" record -e cpu-clock@100000 -o out -- "$PROGS/stress_dl" 2 200 1000 "$LIB" \
	>out.txt 2>err.txt
rc=$?
check "dlopen churn with 1000 thread ends: status $rc (124 = timed out)" [ $rc -eq 0 ]
check "  ... the program's output is unchanged" cmp -s plain.txt out.txt
n=$(ls out | grep -c '\.pmcp$')
check "  ... one profile per thread: $n of 1003" [ "$n" -eq 1003 ]
"$PMCPROF" report -q out >/dev/null 2>report.txt
rc=$?
check "  ... every profile reads (report status $rc, $(wc -l <report.txt) complaints)" [ $rc -eq 0 ]
sed 's/^/    | /' report.txt | head -5
