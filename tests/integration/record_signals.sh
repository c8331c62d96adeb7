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
