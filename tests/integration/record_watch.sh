# The watcher (collector/watch.c) writes the profiles of a process that
# ended where no code of the collector runs, and the program cannot tell it
# is there: no child, no descriptor, no second process of its name, a
# pipe's EOF on time, a signal to the process group for the program only.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
EV=cpu-clock@1000000

command -v setsid >/dev/null || { skip "setsid is missing (util-linux)"; exit 0; }
# Its own session: the program signals its whole process group.
setsid -w "$PROGS/rec_watch" 150 >alone.txt 2>&1
a=$?
setsid -w "$PMCPROF" record -e $EV -o o -- "$PROGS/rec_watch" 150 >prof.txt 2>err.txt
b=$?
check "same exit status alone ($a) and profiled ($b)" [ "$a" -eq 0 ] && [ "$b" -eq 0 ]
check "same output alone and profiled" cmp -s alone.txt prof.txt
sed 's/^/    /' prof.txt
contains "no children, whatever wait() asks" "wait(__WALL): no children" prof.txt
contains "one process of its name" "processes named like this one: 1" prof.txt
contains "the reader saw EOF" "1000 bytes, then EOF" prof.txt
contains "SIGTERM to the group reached the program's handler" "handled" prof.txt
n=$(ls o/*.pmcp 2>/dev/null | wc -l)
check "a profile for the program and one for its forked reader ($n)" [ "$n" -eq 2 ]

# Left by a raw exit_group with a thread still running, one process after
# another (a shell runs them: the watchers are not the shell's children).
rm -rf o
"$PMCPROF" record -e $EV -o o -- sh -c "$PROGS/rec_exit rawexit7 40; $PROGS/rec_exit rawexit7 40; exit \$?" \
	>/dev/null 2>err.txt
check "raw exit_group twice under sh: sh's status 7" [ $? -eq 7 ]
n=$(ls o/rec_exit-*.pmcp 2>/dev/null | wc -l)
check "every thread of both processes has a profile ($n of 4)" [ "$n" -eq 4 ]
lacks "no process reported lost" "ended without writing" err.txt
for f in o/rec_exit-*.pmcp; do
	[ -e "$f" ] || continue
	# sh reaps its child at once, often before the watcher could read how
	# it ended (docs/collector.md, "The watcher").
	r=$("$INSPECT" meta "$f" end_reason)
	case $r in exit_group|"exit_group or SIGKILL") pass "$f: end_reason '$r'" ;;
	*) fail "$f: end_reason '$r'" ;; esac
	# another process cannot read a thread's CPU or user time: absent
	if "$INSPECT" counter "$f" thread_cpu_ns >/dev/null || "$INSPECT" counter "$f" thread_user_ns >/dev/null
	then fail "$f: written by the watcher, yet has thread_cpu_ns or thread_user_ns"
	else pass "$f: no thread_cpu_ns, no thread_user_ns"; fi
done
check "no temporary file left" [ -z "$(ls -A o | grep -v -e '\.pmcp$' -e '^symbols$')" ]
u=$(unaccounted o)
check "raw exit_group: every overflow is a sample or a named loss ($u unaccounted)" [ "$u" -le 0 ]
# Watchers leave just after their process (a watcher whose process wrote
# its own profiles is not waited for).  Other tests may run meanwhile:
# only this run's count (a watcher's command line is its program's).
ours() {
	n=0
	for w in $(pgrep -x pmcprof-watch); do
		case $(tr '\0' ' ' <"/proc/$w/cmdline" 2>/dev/null) in
		"$PROGS/rec_exit rawexit7 40 "*|"sh -c $PROGS/rec_exit rawexit7 40;"*) n=$((n + 1)) ;;
		esac
	done
	echo $n
}
# 10 s: a leaked watcher stays for good, an exiting one may wait for a
# loaded machine's CPU.
for i in $(seq 200); do [ "$(ours)" -eq 0 ] && break; sleep 0.05; done
check "no watcher of this run left running after 10 s" [ "$(ours)" -eq 0 ]

# SIGKILL from outside, while two threads run.
rm -rf o
"$PMCPROF" record -e $EV -o o -- "$PROGS/rec_exit" rawexit7 100000 >/dev/null 2>err.txt &
rec=$!
pid=$(child_pid $rec rec_exit)
# Killed once both threads have burned 30 ms (a fixed sleep from the exec
# could end it before a loaded machine ran them).
wait_cpu "$pid" 2 30
kill -9 "$pid" 2>/dev/null
wait $rec
rc=$?
check "SIGKILL: the launcher dies of it too (status $rc)" [ "$rc" -eq 137 ]
n=$(ls o/*.pmcp 2>/dev/null | wc -l)
check "SIGKILL: both threads have a profile ($n)" [ "$n" -eq 2 ]
for f in o/*.pmcp; do
	[ -e "$f" ] || continue
	check "SIGKILL: $f is partial, end_reason 'signal SIGKILL'" \
		[ "$("$INSPECT" partial "$f")" = 1 ] && [ "$("$INSPECT" meta "$f" end_reason)" = "signal SIGKILL" ]
	check "SIGKILL: $f has its samples" [ "$("$INSPECT" counter "$f" samples)" -gt 5 ]
done
# A thread killed inside the handler took an overflow it could not count.
u=$(unaccounted o)
check "SIGKILL: every overflow counted, but one per thread at most ($u)" [ "$u" -le 2 ]
