# Short versions of the fault scenarios (tests/stress/run-stress.sh): a
# SIGKILL of one process of the run and of the run's only process (their
# watchers write their profiles), a full
# disk and a read-only remount (as root: a small tmpfs), and the analyzer
# given truncated files among good ones.  The program never notices; no
# profile is corrupt or half-written.
. "$PMCPROF_SRC/tests/lib.sh"
EV=cpu-clock@1000000
mnt=
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

no_temps() { [ -z "$(ls -A "$1" 2>/dev/null | grep '^\.')" ]; }

# SIGKILL of one child of three (2 threads each).
"$PMCPROF" record -e $EV -o kill -- "$PROGS/stress_procs" fan 3 2 0.5 pids >out.txt 2>err.txt &
rp=$!
for _ in $(seq 400); do grep -q ready pids 2>/dev/null && break; sleep 0.05; done
victim=$(head -1 pids)
# Killed once its two threads have run 20 ms of their 500 (CPU time, so
# a loaded machine cannot stretch that past their end): a fixed sleep
# could kill it before they started, leaving no profile, or after.
wait_cpu "$victim" 2 20
kill -KILL "$victim"
wait $rp
check "SIGKILL of a child: the run goes on (status $?)" [ $? -eq 0 ]
contains "  ... the parent saw it killed" "children=3 exited=2 killed=1" out.txt
# No code of the victim's runs after SIGKILL: its watcher writes them.
v=$(ls kill | grep -c -- "-$victim-")
check "  ... the killed process's threads have profiles too ($v of 3)" [ "$v" -eq 3 ]
for f in kill/*-"$victim"-*.pmcp; do
	[ -e "$f" ] || continue
	r=$("$PROGS/rec_inspect" meta "$f" end_reason)
	case $r in "signal SIGKILL"|"exit_group or SIGKILL") pass "  ... $f: end_reason '$r'" ;;
	*) fail "  ... $f: end_reason '$r'" ;; esac
done
n=$(ls kill | grep -c '\.pmcp$')
check "  ... all profiles: $n (root + 3 x 3 = 10)" [ "$n" -eq 10 ]
check "  ... no temporary file left" no_temps kill
"$PMCPROF" report -q kill >/dev/null 2>&1
check "  ... and they all read" [ $? -eq 0 ]

# SIGKILL of the program itself (in a subshell: the shell would announce it).
("$PMCPROF" record -e $EV -o killed -- "$PROGS/stress_threads" spin 2 20 >/dev/null 2>err.txt &
 echo $! >rec.pid; wait $!; echo $? >rc.txt) &
# By name and parent: `pgrep -f` would match the watcher as well (it
# shares the program's memory, command line included), and another
# test's stress_threads is not ours to kill.  Once both threads have run:
# a fixed sleep could come before a loaded machine started the program.
for _ in $(seq 400); do
	pid=$(pgrep -x stress_threads -P "$(cat rec.pid 2>/dev/null)")
	[ -n "$pid" ] && break
	sleep 0.05
done
wait_cpu "$pid" 2 20
kill -KILL "$pid" 2>/dev/null
wait
check "SIGKILL of the program: record dies the same way ($(cat rc.txt))" [ "$(cat rc.txt)" -eq 137 ]
contains "  ... and says so" "killed by signal 9" err.txt
n=$(ls killed | grep -c '\.pmcp$')
check "  ... its watcher wrote its threads' profiles ($n)" [ "$n" -ge 2 ]
check "  ... each one 'signal SIGKILL'" [ -z "$(for f in killed/*.pmcp; do
	"$PROGS/rec_inspect" meta "$f" end_reason; done | grep -v '^signal SIGKILL$')" ]
check "  ... no temporary file" no_temps killed

# Disk full, then read-only, on a small tmpfs.
mkdir m
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=24k pmcprof-test m 2>/dev/null; then
	mnt=$PWD/m
	"$PROGS/stress_procs" fan 4 2 0.2 pids0 >plain.txt
	"$PMCPROF" record -e $EV -o m/full -- "$PROGS/stress_procs" fan 4 2 0.2 pids >out.txt 2>err.txt
	check "disk full: the program's status (0: $?)" [ $? -eq 0 ]
	check "  ... and output" cmp -s plain.txt out.txt
	contains "  ... the collector says why" "No space left on device" err.txt
	n=$(ls m/full | grep -c '\.pmcp$')
	check "  ... some were written ($n)" [ "$n" -gt 0 ]
	check "  ... none half-written" no_temps m/full
	"$PMCPROF" report -q m/full >/dev/null 2>&1
	check "  ... and those read" [ $? -eq 0 ]
	umount m && mount -t tmpfs -o size=16m pmcprof-test m
	"$PROGS/stress_threads" churn 400 4 20 >plain.txt
	"$PMCPROF" record -e cpu-clock@200000 -o m/ro -- "$PROGS/stress_threads" churn 400 4 20 \
		>out.txt 2>err.txt &
	rec=$!
	# Mid-run for certain, whatever the machine's speed or load: once 20
	# profiles are written, with the program stopped (a sleep could come
	# before the first write or after the last; tests/remount-ro.sh).
	for _ in $(seq 1200); do
		[ "$(ls m/ro 2>/dev/null | grep -c '\.pmcp$')" -ge 20 ] && break
		sleep 0.05
	done
	ro=no
	sh "$PMCPROF_SRC/tests/remount-ro.sh" m "$(pgrep -x stress_threads -P $rec)" && ro=yes
	n=$(ls m/ro | grep -c '\.pmcp$')
	wait $rec
	rc=$?
	check "read-only mid-run: remounted with $n of 401 profiles written ($ro)" [ $ro = yes ]
	check "read-only mid-run: the program's status ($rc)" [ $rc -eq 0 ]
	check "  ... and output" cmp -s plain.txt out.txt
	n=$(ls m/ro | grep -c '\.pmcp$')
	contains "  ... the collector says why ($n written before)" "Read-only file system" err.txt
	"$PMCPROF" report -q m/ro >/dev/null 2>&1
	check "  ... what was written reads" [ $? -eq 0 ]
	check "  ... none half-written" no_temps m/ro
else
	skip "disk full and read-only (needs root to mount a tmpfs)"
fi

# The analyzer: 500 files, 10 of them cut short in different places.
"$PROGS/ana_mkprofile" -o many -b "$PROGS/ana_work" -F 500 -S 50:200 >/dev/null 2>&1
mkdir good
i=0
for f in $(ls many | awk 'NR % 50 == 3'); do
	sz=$(stat -c %s "many/$f")
	case $((i % 5)) in 0) cut=0 ;; 1) cut=7 ;; 2) cut=40 ;; 3) cut=$((sz / 2)) ;; *) cut=$((sz - 1)) ;; esac
	truncate -s $cut "many/$f"
	i=$((i + 1))
done
for f in $(ls many | awk 'NR % 50 != 3'); do ln "many/$f" "good/$f"; done
timeout 60 "$PMCPROF" report -q --top 3 many >all.txt 2>err.txt
check "500 files, 10 truncated: status 2 ($?)" [ $? -eq 2 ]
check "  ... each bad file named once ($(wc -l <err.txt))" [ "$(grep -c 'many/t[0-9]*\.pmcp: ' err.txt)" -eq 10 ]
"$PMCPROF" report -q --top 3 good >good.txt 2>/dev/null
a=$(sed -n 's/^# event: .*: \([0-9]*\) samples$/\1/p' all.txt)
g=$(sed -n 's/^# event: .*: \([0-9]*\) samples$/\1/p' good.txt)
check "  ... the other 490 are merged ($a samples, alone $g)" [ "${a:-none}" = "$g" ]
