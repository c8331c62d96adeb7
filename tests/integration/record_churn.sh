# Threads come and go fast under a high sampling rate: 300 short threads
# 8 at a time, a fork in the middle whose child has threads of its own, and
# an exit() while 4 threads still burn.  Every thread's profile is written
# once and reads; nothing hangs.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"

timeout 120 "$PMCPROF" record -e cpu-clock@50000 -o out -- "$PROGS/rec_churn" 300 >out.txt 2>err.txt
rc=$?
check "churn: exit 0 (124 = timed out): $rc" [ $rc -eq 0 ]
n=$(ls out/*.pmcp | wc -l)
# main + 300 + 4 still running, and the child's main + 8
check "churn: 314 profiles ($n)" [ "$n" -eq 314 ]
child=$(sed -n 's/.*child=\([0-9]*\).*/\1/p' out.txt)
n=$(ls out/*-"$child"-*.pmcp | wc -l)
check "churn: the forked child wrote its own 9 ($n)" [ "$n" -eq 9 ]
bad=0 work=0 exits=0
for f in out/*.pmcp; do
	"$INSPECT" partial "$f" >/dev/null 2>&1 || { bad=$((bad + 1)); continue; }
	"$INSPECT" stacks "$f" | grep -q ':churn_work' && work=$((work + 1))
	[ "$("$INSPECT" meta "$f" end_reason)" = exit ] && exits=$((exits + 1))
done
check "churn: every profile reads ($bad bad)" [ "$bad" -eq 0 ]
check "churn: almost every thread was sampled in churn_work ($work of 313)" [ "$work" -ge 300 ]
# The parent's main and its 4 running threads, and the child's main.
check "churn: threads alive at exit() were written by it ($exits)" [ "$exits" -eq 6 ]
