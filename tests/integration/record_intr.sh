#!/bin/sh
# No signal while the program is in the kernel (perf_event, kernel sampled:
# root, CAP_PERFMON or perf_event_paranoid <= 1).  A sample taken in kernel
# mode is the kernel's ring record, so reads and writes are never cut short
# and waits never fail with EINTR: each case runs alone and profiled, and
# what the program can see (bytes, short transfers, EINTRs) must be the same.
# Sampling at 100 us makes a signal inside a system call likely where there
# is one.  Then the kernel's word on late signals: a thread that computes
# with every signal blocked (raw rt_sigprocmask) gets its share, counted as
# signal_late; and kernel frames still appear ([k] read_zero under dd).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=
R="$PROGS/rec_intr"
EV=cpu-clock@100000

if ! perf_event_usable cpu-clock; then
	skip "record_intr: the perf_event backend is unusable here ($(head -c 200 probe.err))"
	exit 0
fi
kernel=yes
if ! kernel_sampled; then
	kernel=
	skip "record_intr: the kernel is not sampled here (not root, perf_event_paranoid $paranoid): no kernel-mode samples to test"
fi

# same NAME CMD...: alone and profiled, the same status and stdout.
same() {
	name=$1; shift
	timeout 60 "$@" >alone.out 2>/dev/null; a=$?
	rm -rf "p.$name"
	timeout 120 "$PMCPROF" record -q -o "p.$name" -e "$EV" -- "$@" >prof.out 2>prof.err; p=$?
	if [ $a -eq 77 ]; then
		skip "$name: $(cat alone.out)"
	elif [ $a -eq $p ] && cmp -s alone.out prof.out; then
		pass "$name: the same alone and profiled: $(head -c 120 alone.out)"
	else
		fail "$name: alone status $a '$(head -c 120 alone.out)', profiled status $p '$(head -c 120 prof.out)'"
		sed 's/^/    | /' prof.err | head -5
	fi
}

# dd: the bytes in the file, and dd's own record counts.
dd_same() {
	name=$1; shift
	rm -f f; timeout 60 dd "$@" of=f 2>alone.err; a=$?
	a="$a $(stat -c %s f) $(grep records alone.err | tr '\n' ' ')"
	rm -f f; rm -rf "p.$name"
	timeout 120 "$PMCPROF" record -q -o "p.$name" -e "$EV" -- dd "$@" of=f 2>prof.err; p=$?
	p="$p $(stat -c %s f) $(grep records prof.err | tr '\n' ' ')"
	if [ "$a" = "$p" ]; then
		pass "$name: the same alone and profiled: $a"
	else
		fail "$name: alone '$a', profiled '$p'"
	fi
}

if [ -n "$kernel" ]; then
	dd_same dd_zero if=/dev/zero bs=4M count=20
	dd_same dd_urandom if=/dev/urandom bs=1M count=20
	same getrandom "$R" getrandom 40
	same pipe "$R" pipe 10
	same socket "$R" socket 10
	same epoll "$R" epoll 2000
	same poll "$R" poll 2000
	same nanosleep "$R" nanosleep 300
	same pause "$R" pause 100
	same io_uring "$R" uring 300

	# The kernel's samples are there, under dd's read.
	"$PMCPROF" report --header p.dd_zero >dd.txt 2>&1
	"$PMCPROF" report --tree=bottom-up --no-header --width 200 p.dd_zero >dd.tree 2>/dev/null
	contains "dd_zero: [k] read_zero is sampled" "\[k\] read_zero" dd.tree
	if grep -Eo "kernel_samples=[0-9]+" dd.txt | awk -F= '{ exit !($2 > 0) }'; then
		pass "dd_zero: kernel-mode samples come from the ring ($(grep -Eo 'kernel_samples=[0-9]+' dd.txt))"
	else
		fail "dd_zero: no kernel_samples in the header"
		sed 's/^/    | /' dd.txt | head -30
	fi
	# dd stays in the kernel: its ring fills, and what it could not hold
	# is named (placed with its neighbours, or dropped), never silent.
	contains "dd_zero: ring losses are named in the header" "ring_lost_placed=" dd.txt
	contains "dd_zero: ... and losses without neighbours too" "dropped_ring_full=" dd.txt
fi

# Blocked signals: the thread's function gets its share where the kernel
# took the samples.  Both threads burn the same CPU time.
rm -rf blk
if timeout 120 "$PMCPROF" record -q -o blk -- "$R" blocked 400 >blk.out 2>blk.err; then
	"$PMCPROF" report --csv blk >blk.csv 2>/dev/null
	"$PMCPROF" report --header blk >blk.txt 2>&1
	shares=$(python3 - blk.csv <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
get = lambda f: sum(float(r['self_pct']) for r in rows if r['function'] == f)
print(get('blocked_work'), get('free_work'), get('syscall'))
EOF
)
	set -- $shares
	if python3 -c "import sys; b, f = $1, $2; sys.exit(not (f > 0 and b > 0.6 * f))"; then
		pass "blocked: blocked_work $1% against free_work $2% (syscall $3%)"
	else
		fail "blocked: blocked_work $1% against free_work $2% (syscall $3%)"
		sed 's/^/    | /' blk.txt | head -40
	fi
	if grep -Eo "signal_late=[0-9]+" blk.txt | awk -F= '{ exit !($2 > 0) }'; then
		pass "blocked: the late signals are counted ($(grep -Eo 'signal_late=[0-9]+' blk.txt))"
	else
		fail "blocked: no signal_late in the header"
	fi
else
	fail "blocked: record failed ($(head -c 200 blk.err))"
fi
# Blocked far longer than a batch of credits lasts (the kernel stops the
# event) and than the ring holds (its losses not yet told): once the
# signal is unblocked, sampling goes on.  It used to stop for good.
rm -rf bl
if timeout 120 "$PMCPROF" record -q -o bl -e cpu-clock@1000000 -- "$R" blocklong 600 >bl.out 2>bl.err; then
	"$PMCPROF" report --csv bl >bl.csv 2>/dev/null
	"$PMCPROF" report --header bl >bl.txt 2>&1
	fs=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(int(sum(float(r["self_samples"]) for r in rows if r["function"] == "free_work")))' bl.csv)
	if [ "${fs:-0}" -ge 200 ]; then
		pass "blocked 300 ms: sampling goes on after ($fs samples in the 600 ms of free_work)"
	else
		fail "blocked 300 ms: sampling goes on after (${fs:-0} samples in the 600 ms of free_work)"
		sed 's/^/    | /' bl.txt | head -40
	fi
else
	fail "blocked 300 ms: record failed ($(head -c 200 bl.err))"
fi
