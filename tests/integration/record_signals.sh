# The program's own signal handling keeps working; crashes, signals and
# every way of ending write profiles (partial after a signal) and keep the
# exit status.  A raw exit_group or SIGKILL runs no code of ours: the
# watcher (collector/watch.c) writes those.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
EV=cpu-clock@1000000

"$PROGS/rec_signals" 400 >plain.txt
"$PMCPROF" record -e $EV -o sig -- "$PROGS/rec_signals" 400 >prof.txt 2>err.txt
check "own handlers: every queued RT signal arrived with its value (exit 0)" [ $? -eq 0 ]
cat prof.txt
t0=$(sed -n 's/.*prof_ticks=\([0-9]*\).*/\1/p' plain.txt)
t1=$(sed -n 's/.*prof_ticks=\([0-9]*\).*/\1/p' prof.txt)
check "own SIGPROF itimer: $t1 ticks profiled vs $t0 alone" \
	awk -v a="$t1" -v b="$t0" 'BEGIN { exit !(b > 0 && a >= 0.7 * b && a <= 1.3 * b) }'
contains "a handler on the sampling signal is refused, with a warning" "keeping pmcprof's" err.txt
f=$(ls sig/*.pmcp)
n=$("$INSPECT" stacks "$f" | awk '/:burn_signals( |;)/{ s += $NF } END { print s + 0 }')
check "the program is profiled ($n samples in burn_signals)" [ "$n" -gt 200 ]
n=$("$INSPECT" stacks "$f" | awk '/:burn_blocked( |;)/{ s += $NF } END { print s + 0 }')
check "sigprocmask(all) does not hide a thread ($n samples in burn_blocked)" [ "$n" -gt 40 ]
check "the stripped mask is counted" [ "$("$INSPECT" counter "$f" mask_stripped)" -ge 1 ]

# mode, expected status, partial, files
while read -r mode status partial files; do
	rm -rf end
	"$PMCPROF" record -e $EV -o end -- "$PROGS/rec_exit" "$mode" 60 >/dev/null 2>err.txt
	rc=$?
	check "$mode: status $rc (expected $status)" [ "$rc" -eq "$status" ]
	n=$(ls end/*.pmcp 2>/dev/null | wc -l)
	check "$mode: $n profiles (expected $files)" [ "$n" -eq "$files" ]
	for f in end/*.pmcp; do
		[ -e "$f" ] || continue
		check "$mode: partial=$partial" [ "$("$INSPECT" partial "$f")" = "$partial" ]
		s=$("$INSPECT" counter "$f" samples)
		check "$mode: samples written ($s)" [ "$s" -gt 20 ]
		r=$("$INSPECT" meta "$f" end_reason)
		case $mode in
		segv|overflow) want="signal SIGSEGV" ;; abort) want="signal SIGABRT" ;;
		term) want="signal SIGTERM" ;; int) want="signal SIGINT" ;;
		main-pthread-exit) want="thread_exit exit" ;;
		rawexit7) want=exit_group ;; kill9) want="signal SIGKILL" ;; *) want=exit ;;
		esac
		case " $want " in *" $r "*) pass "$mode: end_reason '$r'" ;; *) fail "$mode: end_reason '$r', expected '$want'" ;; esac
	done
	case $status in 1[3-9][0-9]) contains "$mode: the launcher names the signal" "killed by signal $((status - 128))" err.txt ;; esac
done <<LIST
return 0 0 1
exit3 3 0 1
_exit4 4 0 1
_Exit5 5 0 1
thread-exit6 6 0 2
main-pthread-exit 0 0 2
segv 139 1 1
overflow 139 1 1
abort 134 1 1
term 143 1 1
int 130 1 1
rawexit7 7 0 2
kill9 137 1 2
LIST

# SIGKILL of a program that lives in the kernel (rec_inkernel reads
# /dev/zero with every signal blocked by the raw call, so no handler of
# ours ever takes a record: with dd a rare user-mode sample would, and the
# check could pass without the watcher): its samples wait in the rings
# (kernel mode: the silent twin's), and the watcher must take them before
# it writes the profile, without a system call on descriptors that are
# not its own (no fd_lost).  Where the kernel may be sampled; the watcher
# is x86-64's.
if [ "$(uname -m)" != x86_64 ]; then
	skip "SIGKILL in the kernel: the watcher is x86-64 only"
elif ! kernel_sampled; then
	skip "SIGKILL in the kernel: not root and perf_event_paranoid is $paranoid"
elif ! perf_event_usable cpu-clock; then
	skip "SIGKILL in the kernel: perf_event cpu-clock unusable here ($(head -c 200 probe.err))"
else
	rm -rf kk
	"$PMCPROF" record -e $EV -o kk -- "$PROGS/rec_inkernel" >/dev/null 2>err.txt &
	rec=$!
	pid=$(child_pid $rec rec_inkernel)
	wait_cpu "$pid" 1 300
	kill -9 "$pid" 2>/dev/null
	wait $rec
	f=$(ls kk/*.pmcp 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		fail "SIGKILL in the kernel: no profile salvaged"
	else
		"$PMCPROF" report --header kk >kk.txt 2>&1
		"$PMCPROF" report --csv kk >kk.csv 2>/dev/null
		check "SIGKILL in the kernel: end_reason 'signal SIGKILL'" \
			[ "$("$INSPECT" meta "$f" end_reason)" = "signal SIGKILL" ]
		if grep -q "kernel_frames: callchain" kk.txt; then
			k=$("$INSPECT" counter "$f" kernel_samples)
			s=$("$INSPECT" counter "$f" samples)
			check "SIGKILL in the kernel: the rings' records are in the profile ($k kernel-mode of $s samples)" \
				[ "$k" -ge 5 ]
			ks=$(awk -F, '$2 ~ /^\[k\] / { s += $6 } END { print s + 0 }' kk.csv)
			check "SIGKILL in the kernel: $ks samples in kernel functions in the report" [ "$ks" -ge 5 ]
			check "SIGKILL in the kernel: under the program's read_zero (unwound from the records)" \
				grep -q ',read_zero,' kk.csv
		else
			skip "SIGKILL in the kernel: no kernel chains here ($(grep kernel_frames kk.txt))"
		fi
		check "SIGKILL in the kernel: the watcher counts no lost descriptor (fd_lost $("$INSPECT" counter "$f" fd_lost))" \
			[ "$("$INSPECT" counter "$f" fd_lost)" = 0 ]
	fi
fi
