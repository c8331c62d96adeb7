# record -p/-t from outside: a multithreaded program of ours, a static
# binary, a program that forks and execs while attached, detach by SIGINT
# and by --duration, and the target's own output and status unchanged.
. "$PMCPROF_SRC/tests/lib.sh"
T="$PROGS/att_target"
INSPECT="$PROGS/rec_inspect"

if ! "$PMCPROF" stat -e cpu-clock -- true >/dev/null 2>&1; then
	skip "attach: perf_event cannot count here"; exit 0
fi

# start_target OUT ARGS...: the target in the background, once it said ready.
start_target() {
	_out=$1; shift
	"$@" >"$_out" 2>&1 &
	TPID=$!
	for _i in $(seq 100); do grep -q ready "$_out" && return 0; sleep 0.05; done
	return 1
}

# -- a multithreaded program: every thread, its hot functions, its exit --
start_target t.out "$T" threads 3 4
ls -l /proc/"$TPID"/fd | awk '{ print $9, $10, $11 }' >fd.before
cat /proc/"$TPID"/limits >lim.before
# a JIT's perf map (written here for it): copied beside the profiles
echo "7f0000001000 40 jitted_thing" >/tmp/perf-"$TPID".map
timeout 30 "$PMCPROF" record -p "$TPID" -o thr --duration 1.5 2>thr.err
check "-p: exit 0" [ $? -eq 0 ]
ls -l /proc/"$TPID"/fd | awk '{ print $9, $10, $11 }' >fd.after
cat /proc/"$TPID"/limits >lim.after
check "-p: the target's descriptors are as before" cmp -s fd.before fd.after
check "-p: the target's limits are as before" cmp -s lim.before lim.after
check "-p: the JIT map is copied beside the profiles" cmp -s /tmp/perf-"$TPID".map thr/perf-"$TPID".map
rm -f /tmp/perf-"$TPID".map
wait "$TPID"; st=$?
check "the target exits 0 after being attached to ($st)" [ "$st" -eq 0 ]
check "the target printed only its own output" [ "$(cat t.out)" = ready ]
n=$(ls thr/*.pmcp 2>/dev/null | wc -l)
check "-p: one profile per worker thread ($n, 3 or 4)" [ "$n" -ge 3 -a "$n" -le 4 ]
contains "-p: says what it watched" "profiling process $TPID for 1.5 s" thr.err
contains "-p: says where the profiles are" "profiles in " thr.err
"$PMCPROF" report --csv thr >thr.csv 2>/dev/null
contains "-p: hot_two in the report" ",hot_two," thr.csv
contains "-p: hot_one in the report" ",hot_one," thr.csv
f=$(ls thr/*.pmcp | head -1)
check "-p: the profile says how it was taken" [ "$("$INSPECT" meta "$f" attach)" = pid ]
check "-p: thread CPU time recorded" [ "$("$INSPECT" counter "$f" thread_cpu_ns)" -gt 0 ]
"$PMCPROF" dump "$f" >dump.txt 2>&1
contains "-p: the load map has build-ids" "att_target .*build-id=[0-9a-f]\{40\}" dump.txt
"$PMCPROF" report --header thr >hdr.txt 2>&1
contains "-p: trust is judged from the threads' CPU time" "trust: cpu time" hdr.txt
# Exports read it as any profile.
"$PMCPROF" report --collapsed thr >coll.txt 2>/dev/null
contains "-p: collapsed stacks" "hot_two" coll.txt
"$PMCPROF" report --pprof thr.pb.gz thr >/dev/null 2>&1
check "-p: pprof export" [ -s thr.pb.gz ]

# -- -t: one thread only --
start_target t2.out "$T" threads 2 3
tid=$(ls /proc/"$TPID"/task | sort -n | tail -1)
timeout 30 "$PMCPROF" record -t "$tid" -o one --duration 1 2>one.err
check "-t: exit 0" [ $? -eq 0 ]
wait "$TPID"
check "-t: exactly that thread's profile" [ "$(ls one/*.pmcp | wc -l)" -eq 1 ] && [ -n "$(ls one/*-"$tid".pmcp 2>/dev/null)" ]

# -- a static binary (no LD_PRELOAD could reach it) --
start_target s.out "$PROGS/att_target_static" threads 2 3
timeout 30 "$PMCPROF" record -p "$TPID" -o stat --duration 1 2>s.err
check "static: exit 0" [ $? -eq 0 ]
wait "$TPID"; st=$?
check "static: target exits 0 ($st)" [ "$st" -eq 0 ]
"$PMCPROF" report --csv stat >s.csv 2>/dev/null
contains "static: its functions are named" ",hot_two,.*att_target_static" s.csv

# -- fork and exec while attached: followed until all have ended --
start_target fe.out "$T" forkexec 2.4
timeout 30 "$PMCPROF" record -p "$TPID" -o fe 2>fe.err
check "fork+exec: exit 0" [ $? -eq 0 ]
wait "$TPID"; st=$?
check "fork+exec: target exits 0 ($st)" [ "$st" -eq 0 ]
contains "fork+exec: stops when the processes end" "ended" fe.err
"$PMCPROF" report --csv fe >fe.csv 2>/dev/null
contains "fork+exec: the parent" ",parent_work," fe.csv
contains "fork+exec: the forked child" ",child_work," fe.csv
contains "fork+exec: the image it exec'd" ",after_exec_work," fe.csv
n=$(ls fe/*.pmcp | wc -l)
check "fork+exec: parent, child before and after exec ($n profiles)" [ "$n" -ge 3 ]
# the ended threads' CPU time (read as the run went) lets the report judge them
"$PMCPROF" report --header fe >fe.hdr 2>&1
contains "fork+exec: ended threads are judged against their CPU time" "threads judged" fe.hdr
contains "fork+exec: no trust flag but the machine's own (virtualized)" "trust: flags: \\(none\\|virtualized\\)$" fe.hdr

# -- detach by SIGINT (Ctrl-C): profiles written, the target goes on --
start_target i.out "$T" threads 2 4
timeout 30 "$PMCPROF" record -p "$TPID" -o int 2>int.err &
rp=$!
# SIGINT once it is attached and sampling (it says so as it starts its
# counters, its SIGINT handler in place): not after a fixed second.
for i in $(seq 400); do grep -q "profiling process" int.err && break; sleep 0.05; done
sleep 1
kill -INT "$rp"
wait "$rp"; rc=$?
check "SIGINT: record exits 0 ($rc)" [ "$rc" -eq 0 ]
check "SIGINT: the target still runs" kill -0 "$TPID"
check "SIGINT: profiles written" [ "$(ls int/*.pmcp 2>/dev/null | wc -l)" -ge 2 ]
contains "SIGINT: says it was stopped" "stopped by a signal" int.err
wait "$TPID"; st=$?
check "SIGINT: the target exits 0 ($st)" [ "$st" -eq 0 ]
check "SIGINT: the target saw nothing ($(cat i.out))" [ "$(cat i.out)" = ready ]

# -- call stacks without frame pointers: CFI over the kernel's stack copy --
start_target nf.out "$PROGS/att_target_nofp" threads 1 3
timeout 30 "$PMCPROF" record -p "$TPID" -o nofp --duration 1 2>nf.err
check "no frame pointers: exit 0" [ $? -eq 0 ]
wait "$TPID"
"$PMCPROF" report --collapsed nofp >nf.txt 2>/dev/null
contains "no frame pointers: the thread's whole stack (CFI)" "start_thread;worker;hot_two" nf.txt
cfi=0 failed=0
for f in nofp/*.pmcp; do
	cfi=$((cfi + $("$INSPECT" counter "$f" stack_copy_unwound)))
	failed=$((failed + $("$INSPECT" counter "$f" unwind_failed)))
done
check "no frame pointers: stacks unwound from the copy ($cfi, $failed failed)" [ "$cfi" -gt 0 -a "$failed" -le $((cfi / 20)) ]

# -- an attached run beside a launched one: diff matches their functions --
"$PMCPROF" record -q -e cpu-clock -o launched -- "$T" threads 2 1 >/dev/null 2>&1
"$PMCPROF" diff launched thr >diff.txt 2>&1
check "diff launched vs attached: exit 0" [ $? -eq 0 ]
check "diff: hot_two matched in both (a ratio, not new/gone)" \
	sh -c "grep '^hot_two ' diff.txt | grep -qv ' new \| gone '"
# the vdso under the loader's name in both (not [vdso] from /proc/PID/maps)
lacks "diff: the vdso is one module in both" "\[vdso\]" diff.txt
