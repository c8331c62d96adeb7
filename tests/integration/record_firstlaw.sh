# The program must not notice, in the classes of issue 21 the collector
# owns: time before main (a linked library's constructor), programs under
# other tools (ASan, valgrind, gdb), memory under RLIMIT_AS, threads made
# without pthread_create, the environment, the collector's own share, and
# the cause of a lost profile.  Each case runs alone and profiled (with
# the kernel sampled where this user may) and compares what the program
# shows.  Programs: tests/progs/rec_firstlaw.c and rec_ctorlib.c, built
# here with cc.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
SRC="$PMCPROF_SRC/tests/progs"
EV=cpu-clock@1000000

command -v cc >/dev/null || { skip "no C compiler (cc) to build the workloads"; exit 0; }
cc -O1 -g -pthread -o fl "$SRC/rec_firstlaw.c" || { fail "cannot build rec_firstlaw.c"; exit 0; }
T() { timeout 120 "$@"; }

# counter FILE NAME: the value of a collector counter in one profile.
counter() { "$INSPECT" counters "$1" | sed -n "s/^$2=//p"; }

# ---- from the first instruction: a linked library's constructor ----
cc -O1 -g -shared -fPIC -o libctorlib.so "$SRC/rec_ctorlib.c" &&
	cc -O1 -g -DWITH_CTORLIB -pthread -o flctor "$SRC/rec_firstlaw.c" -L. -lctorlib \
		-Wl,-rpath,"$PWD" || { fail "cannot build the constructor workload"; exit 0; }
T ./flctor ctor 0.5 >a.txt 2>&1; a=$?
T "$PMCPROF" record -q -e $EV -o ctor -- ./flctor ctor 0.5 >b.txt 2>err.txt; b=$?
check "constructor: same status ($a, $b) and output" [ $a -eq $b ] && cmp -s a.txt b.txt
"$PMCPROF" report --percent-limit 5 ctor >rep.txt 2>&1
share=$(awk '$NF ~ /rec_ctorlib.c/ || $4 == "ctorlib_work" { print int($1); exit }' rep.txt)
check "the constructor's 0.5 s of 1 s is sampled and named (ctorlib_work ${share:-0}%, 50% expected, perf: 43-45%)" \
	[ "${share:-0}" -ge 35 ]
e=$(counter ctor/*.pmcp early_samples)
check "its samples are counted as taken before the collector started (early_samples ${e:-none})" \
	[ "${e:-0}" -ge 200 ]
lacks "no trust warning about lost or excess samples" "lost .*% of the expected\|more sample time" rep.txt
# A constructor that closes everything and reuses the numbers: the early
# counter's descriptor is not the collector's any more, it leaves it be.
if cc -O1 -shared -fPIC -o libctorclose.so "$SRC/rec_ctorclose.c" &&
	cc -O1 -pthread -o flfds "$SRC/rec_firstlaw.c" -Wl,--no-as-needed -L. -lctorclose \
		-Wl,-rpath,"$PWD"; then
	T ./flfds fds >a.txt 2>&1
	T "$PMCPROF" record -q -e $EV -o fds -- ./flfds fds >b.txt 2>err.txt
	check "a constructor's descriptors on our numbers stay open ($(cat b.txt))" cmp -s a.txt b.txt
else
	fail "cannot build the descriptor workload"
fi

# ---- programs under other tools ----
if cc -fsanitize=address -O1 -g -o flasan "$SRC/rec_firstlaw.c" 2>/dev/null &&
	./flasan work 0.1 >/dev/null 2>&1; then
	T ./flasan work 0.3 >a.txt 2>&1; a=$?
	T "$PMCPROF" record -q -e $EV -o asan -- ./flasan work 0.3 >b.txt 2>err.txt; b=$?
	check "ASan program: same status ($a, $b) and output" [ $a -eq $b ] && cmp -s a.txt b.txt
	lacks "ASan program: no link-order refusal" "does not come first" err.txt
	lacks "ASan program: no leak reported in the collector" "LeakSanitizer" err.txt
	"$PMCPROF" report asan >rep.txt 2>&1
	contains "ASan program: profiled (main_work named)" "main_work" rep.txt
	# Its children do not inherit the ASan runtime.
	T "$PMCPROF" record -q -e $EV -o asan2 -- ./flasan env >b.txt 2>/dev/null
	lacks "ASan program: the runtime is not left in LD_PRELOAD for its children" \
		"^LD_PRELOAD=.*libasan" b.txt
else
	skip "ASan: cc -fsanitize=address does not build or run here"
fi

if command -v valgrind >/dev/null; then
	VG="valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=9"
	T $VG ./fl work 0.1 >a.txt 2>va.txt; a=$?
	T "$PMCPROF" record -q -e $EV -o vg -- $VG ./fl work 0.1 >b.txt 2>vb.txt; b=$?
	check "valgrind: same status ($a, $b) and output" [ $a -eq $b ] && cmp -s a.txt b.txt
	lacks "valgrind: no unhandled system call" "unhandled" vb.txt
	contains "valgrind: the collector says it stands aside" "runs under valgrind: not profiled" vb.txt
else
	skip "valgrind is not installed"
fi

if command -v gdb >/dev/null; then
	norm() { sed -e 's/process [0-9]*/process N/g' -e 's/0x[0-9a-f]*/0xA/g' -e '/^\[/d' "$1"; }
	T gdb -nx -batch -ex run -ex bt --args ./fl work 0.2 >a.txt 2>/dev/null; a=$?
	T "$PMCPROF" record -q -e $EV -o gdb -- gdb -nx -batch -ex run -ex bt --args ./fl work 0.2 \
		>b.txt 2>err.txt; b=$?
	check "gdb: same status ($a, $b), no stop at the sampling signal" [ $a -eq $b ]
	cat err.txt >>b.txt
	lacks "gdb: the program is never stopped by our signal" "SIG3[0-9]\|SIG4[0-9]\|SIGRT" b.txt
	grep -v '^pmcprof' b.txt >b2.txt; mv b2.txt b.txt
	T gdb -nx -batch -ex run -ex bt --args ./fl work 0.2 >a.txt 2>&1
	norm a.txt >an.txt; norm b.txt >bn.txt
	check "gdb: same output" cmp -s an.txt bn.txt
else
	skip "gdb is not installed"
fi

# ---- memory under RLIMIT_AS ----
for n in 16 64; do
	(ulimit -v 524288; T ./fl aslimit $n) >a.txt 2>&1; a=$?
	(ulimit -v 524288; T "$PMCPROF" record -q -e $EV -o as$n -- ./fl aslimit $n) >b.txt 2>err.txt; b=$?
	ma=$(sed -n 's/^allocated \([0-9]*\) MiB/\1/p' a.txt)
	mb=$(sed -n 's/^allocated \([0-9]*\) MiB/\1/p' b.txt)
	ta=$(sed -n 's/^threads \([0-9]*\) of.*/\1/p' a.txt)
	tb=$(sed -n 's/^threads \([0-9]*\) of.*/\1/p' b.txt)
	check "RLIMIT_AS 512 MiB, $n threads: every thread made (alone $ta, profiled $tb)" \
		[ "${ta:-0}" -eq $n ] && [ "${tb:-0}" -eq $n ]
	check "RLIMIT_AS 512 MiB, $n threads: the program gets >= 90% of its memory (alone ${ma:-?} MiB, profiled ${mb:-?} MiB)" \
		[ -n "$ma" ] && [ -n "$mb" ] && [ $((mb * 10)) -ge $((ma * 9)) ]
done

# ---- every thread: raw clone ----
for mode in rawthread rawclone; do
	T ./fl $mode 0.4 >a.txt 2>&1; a=$?
	T "$PMCPROF" record -q -e $EV -o $mode -- ./fl $mode 0.4 >b.txt 2>err.txt; b=$?
	check "$mode: same status ($a, $b) and output" [ $a -eq $b ] && cmp -s a.txt b.txt
	"$PMCPROF" report $mode >rep.txt 2>&1
	contains "$mode: the report names the CPU time it could not sample" \
		"ran in threads the collector did not sample" rep.txt
	u=$(sed -n 's/.*# warning:.* \([0-9.]*\) s of CPU time (\([0-9]*\)%.*/\2/p' rep.txt)
	check "$mode: about half the CPU time is named unsampled (${u:-?}%)" \
		[ "${u:-0}" -ge 30 ] && [ "${u:-0}" -le 70 ]
done

# ... and none named for a program of pthreads alone, however short they are
T "$PMCPROF" record -q -e $EV -o churn -- "$PROGS/rec_churn" 200 >/dev/null 2>&1
"$PMCPROF" report churn >rep.txt 2>&1
lacks "200 short pthreads: no CPU time called unsampled" "did not sample" rep.txt

# ---- the environment ----
env -i ./fl env >a.txt
env -i "$PMCPROF" record -q -e $EV -o envi -- ./fl env >b.txt 2>err.txt
n=$(wc -l <b.txt)
check "env -i: the program sees at most LD_PRELOAD and one marker ($n lines)" [ "$n" -le 2 ]
lacks "env -i: no PMCPROF_* settings in its environment" "^PMCPROF_" b.txt
T "$PMCPROF" record -q -e $EV -o envi2 -- env -i ./fl env >b.txt 2>err.txt
n=$(wc -l <b.txt)
check "env -i under record: the exec'd program sees at most two variables ($n)" [ "$n" -le 2 ]
n=$(ls envi2/*.pmcp 2>/dev/null | wc -l)
check "env -i under record: the exec'd program is still profiled ($n profiles)" [ "$n" -ge 2 ]

# ---- the collector's own share: a pipeline of short processes ----
cat >pipe.sh <<'EOF'
for i in 1 2 3 4 5 6 7 8 9 10; do echo $i | sed s/1/2/ | tr 2 3 | cut -c1 | grep -c . ; done | sort | uniq -c
EOF
sh pipe.sh >a.txt
T "$PMCPROF" record -q -e $EV -o pipe -- sh pipe.sh >b.txt 2>err.txt
check "pipeline: same output" cmp -s a.txt b.txt
over=0
for f in pipe/*.pmcp; do
	h=$(counter "$f" handler_ns); c=$(counter "$f" thread_cpu_ns)
	[ -n "$h" ] && [ -n "$c" ] && [ "$h" -gt "$c" ] && over=$((over + 1))
done
check "pipeline: no profile's handler time exceeds its thread's CPU time ($over do)" [ $over -eq 0 ]
"$PMCPROF" report pipe >rep.txt 2>&1
lacks "pipeline: no collector-time flag" "signal handler took" rep.txt

# ---- lost profiles name their cause ----
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p jail
	for m in setuid "chroot $PWD/jail" nofile; do
		set -- $m
		T ./fl lost $m >a.txt 2>&1; a=$?
		T "$PMCPROF" record -q -e $EV -o lost$1 -- ./fl lost $m >b.txt 2>err.txt; b=$?
		check "lost ($1): same status ($a, $b) and output" [ $a -eq $b ] && cmp -s a.txt b.txt
		case $1 in
		setuid) want="changed its user (setuid)" ;;
		chroot) want="changed its root directory (chroot)" ;;
		nofile) want="descriptor limit (RLIMIT_NOFILE 4)" ;;
		esac
		contains "lost ($1): record names the cause" "lost its profiles: .*$want" err.txt
		lacks "lost ($1): not blamed on a raw exit" "raw exit_group or SIGKILL" err.txt
	done
	(ulimit -n 4; T ./fl work 0.1) >a.txt 2>&1; a=$?
	(ulimit -n 4; T "$PMCPROF" record -q -e $EV -o nofile4 -- ./fl work 0.1) >b.txt 2>err.txt; b=$?
	check "ulimit -n 4 before record: the program runs as alone ($a, $b)" [ $a -eq $b ] && cmp -s a.txt b.txt
else
	skip "lost profiles: setuid and chroot need root"
fi
