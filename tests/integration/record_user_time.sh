#!/bin/sh
# An event that excludes the kernel (':u', what an unprivileged user at
# perf_event_paranoid 2 gets by default) never samples time in system
# calls: its samples are held against the threads' user time
# (thread_user_ns), not their whole CPU time, so a program that spends
# half its time in the kernel is not flagged "samples-lost".  One thread
# writes its own profile, the other's is written for it at exit (the
# counter read from /proc).  The same profiles without thread_user_ns (an
# older collector) still read, and are not judged.  Runs as nobody.
# tests/integration/diff_trust_samples.sh has the crafted cases (':u' with
# samples really lost, ':k', the kernel_frames fallback).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=
INSPECT="$PROGS/rec_inspect"

need_nobody "user time"

# 1.5 s of CPU time in the main thread, about half of it in read(2).
nobody "$PMCPROF" record -o sys -- "$PROGS/rec_systime" 1.5 >rec.out 2>rec.err
check "record as nobody exits 0" [ $? -eq 0 ]
"$PMCPROF" report --header sys >rep.txt 2>rep.err
check "report exits 0" [ $? -eq 0 ]
contains "the default event is cpu-clock:u" "events_used: perf::CPU-CLOCK:u@" rep.txt

# Each profile: user time below the CPU time by a large kernel share, and
# samples x period that the old rule (against the CPU time) finds short.
n=0 good=0 short=0
for f in sys/*.pmcp; do
	n=$((n + 1))
	cpu=$("$INSPECT" counter "$f" thread_cpu_ns) user=$("$INSPECT" counter "$f" thread_user_ns)
	got=$("$INSPECT" weight "$f" 0)
	echo "    $(basename "$f"): thread_cpu_ns=$cpu thread_user_ns=${user:-absent} weight=$got"
	[ -n "$user" ] && [ "$user" -gt 0 ] && [ $((user * 10)) -lt $((cpu * 8)) ] && good=$((good + 1))
	[ -n "$got" ] && [ $((got * 10)) -lt $((cpu * 8)) ] && short=$((short + 1))
done
check "both threads record thread_user_ns, under 80% of thread_cpu_ns ($good of $n)" \
	[ "$n/$good" = 2/2 ]
check "the samples fall short of the CPU time (the old rule would flag $short of $n)" \
	[ "$short" -ge 1 ]

# Against the user time: judged, not flagged.
contains "the samples are held against the user time" \
	"^# trust: cpu time [0-9.]* s (kernel, per thread), user [0-9.]* s; samples [0-9.]* s ([0-9.]*% of expected from the user time, [12] threads\\? judged)" rep.txt
lacks "no samples-lost warning" "lost .* of the expected samples" rep.txt
lacks "the raw counter is not repeated on the collector lines" "thread_user_ns=" rep.txt
lacks "no samples flag" "^# trust: .*flags: .*samples-" rep.txt

# An older collector's profiles: no thread_user_ns.  They read; a ':u'
# event is then not judged (no coverage), rather than judged against the
# CPU time.
mkdir old
for f in sys/*.pmcp; do
	(cd old && "$INSPECT" drop "../$f" thread_user_ns "$(basename "$f")")
done
check "profiles without thread_user_ns written" [ "$(ls old | wc -l)" -eq 2 ]
"$PMCPROF" report --header old >old.txt 2>old.err
check "report of the older profiles exits 0" [ $? -eq 0 ]
contains "their CPU time is still shown" "^# trust: cpu time [0-9.]* s (kernel, per thread)" old.txt
lacks "no user time" "^# trust: .*, user " old.txt
lacks "no coverage" "of expected" old.txt
lacks "no samples-lost warning" "lost .* of the expected samples" old.txt
exit 0
