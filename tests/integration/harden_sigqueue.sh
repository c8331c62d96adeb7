# When the user's queue of pending signals is full (RLIMIT_SIGPENDING is
# per user: any of the user's processes can fill it), the kernel sends a
# plain SIGIO instead of the counter's overflow signal.  Its default action
# used to kill the profiled program; now the collector counts it
# (dropped_queue_full) and the program runs on.  A limit of 0 makes every
# overflow a SIGIO.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"

if ! command -v prlimit >/dev/null; then
	skip "no prlimit"
	exit 0
fi
"$PROGS/stress_threads" work 2 2000 >plain.txt 2>/dev/null
prlimit --sigpending=0 "$PMCPROF" record -e cpu-clock@100000 -o out -- \
	"$PROGS/stress_threads" work 2 2000 >out.txt 2>err.txt
rc=$?
check "signal queue full: the program ends normally (status $rc; 157 = SIGIO)" [ $rc -eq 0 ]
check "  ... with its own output" cmp -s plain.txt out.txt
n=$(ls out | grep -c '\.pmcp$')
check "  ... every thread's profile is written ($n of 3)" [ "$n" -eq 3 ]
d=0
for f in out/*.pmcp; do d=$((d + $("$INSPECT" counter "$f" dropped_queue_full))); done
check "  ... and the lost samples are counted (dropped_queue_full = $d)" [ "$d" -gt 0 ]

# The program's own SIGIO handler still gets SIGIO.
"$PMCPROF" record -e cpu-clock@1000000 -o own -- sh -c 'trap "echo got SIGIO" IO; kill -IO $$; exit 0' \
	>own.txt 2>err.txt
contains "a program's own SIGIO handler runs" "got SIGIO" own.txt
# A program that leaves SIGIO at its default still dies of a SIGIO sent to it.
"$PMCPROF" record -e cpu-clock@1000000 -o dfl -- sh -c 'kill -IO $$; sleep 1; exit 0' >/dev/null 2>err.txt
rc=$?
check "a SIGIO the program is sent still ends it (status $rc)" [ $rc -eq $((128 + 29)) ]
