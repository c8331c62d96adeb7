# Every thread gets a profile, and each one's own hot function is in it.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"

"$PMCPROF" record -e cpu-clock@1000000 -o out -- "$PROGS/rec_threads" 64 40 >threads.txt 2>err.txt
check "64 threads: exit 0" [ $? -eq 0 ]
n=$(ls out/*.pmcp | wc -l)
check "64 threads + main: 65 profiles ($n)" [ "$n" -eq 65 ]
missing=0 wrong=0
while read -r line; do
	tid=${line#tid=}; tid=${tid%% *}; hot=${line##*hot=}
	f=$(ls out/*-"$tid".pmcp 2>/dev/null)
	if [ -z "$f" ]; then missing=$((missing + 1)); continue; fi
	"$INSPECT" stacks "$f" | grep -q ":$hot\( \|;\)" || { wrong=$((wrong + 1)); echo "tid $tid: no $hot"; }
done <threads.txt
check "every thread has its own profile (missing: $missing)" [ "$missing" -eq 0 ]
check "each thread's hot function is in its tree (wrong: $wrong)" [ "$wrong" -eq 0 ]
total=0
for f in out/*.pmcp; do
	s=$("$INSPECT" counter "$f" samples); total=$((total + s))
	[ "$("$INSPECT" partial "$f")" = 0 ] || fail "$f is partial"
done
# 64 x 40 ms + main, at 1 kHz of CPU time: ~2600 samples.
check "samples add up to the CPU time ($total, ~2600)" [ "$total" -gt 1800 -a "$total" -lt 3400 ]
