# Programs that notice a careless profiler (issue 11): each runs alone and
# under `pmcprof record`, with the same exit status and the same output
# (which carries a checksum the program computes over its own memory), and
# the accounting holds: every overflow is a sample or a named loss, and
# every process/thread has a profile (or the launcher names why not).
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
H="$PROGS/rec_hostile"
EV=cpu-clock@200000

# compare NAME FILES REASON CG ARGS...: alone vs profiled.
compare() {
	name=$1 files=$2 reason=$3 cg=$4; shift 4
	rm -rf o
	"$@" >alone.txt 2>/dev/null
	a=$?
	"$PMCPROF" record --call-graph "$cg" -e $EV -o o -- "$@" >prof.txt 2>err.txt
	b=$?
	check "$name: status $b profiled, $a alone" [ "$a" -eq "$b" ]
	if cmp -s alone.txt prof.txt; then pass "$name: same output ($(tail -1 alone.txt))"
	else fail "$name: output differs"; diff alone.txt prof.txt | head -5 | sed 's/^/    | /'; fi
	n=$(ls o/*.pmcp 2>/dev/null | wc -l)
	check "$name: $n profiles (expected $files)" [ "$n" -eq "$files" ]
	t=$(ls -a o | grep -c '^\.[^.]')
	check "$name: no temporary file left ($t)" [ "$t" -eq 0 ]
	for f in o/*.pmcp; do
		[ -e "$f" ] || continue
		r=$("$INSPECT" meta "$f" end_reason)
		case "|$reason|" in *"|$r|"*) ;; *) fail "$name: end_reason '$r', expected '$reason'"; return ;; esac
	done
	pass "$name: end_reason $reason"
	u=$(unaccounted o)
	check "$name: every overflow is a sample or a named loss ($u unaccounted)" [ "$u" -le 0 ]
}

# ---- stacks: the handler never runs on the program's stack ----
for cg in unwind fp none; do
	compare "64 KiB thread stack ($cg)" 2 "exit|thread_exit" $cg "$H" smallstack
	compare "ucontext coroutines on 16 KiB ($cg)" 1 exit $cg "$H" coro
	compare "own sigaltstack ($cg)" 1 exit $cg "$H" altstack
done
compare "own sigaltstack (cputimer)" 1 exit unwind "$H" altstack
grep -q "on the program's stack" prof.txt && grep -q "reported back ours" prof.txt
check "the program's sigaltstack is its own: handlers run there, it reads it back" [ $? -eq 0 ]

# ---- signals at their default action: profiles, then the same death ----
# Linux's numbers (x86, arm, riscv); glibc's SIGRTMIN is 34.
while read -r s n; do
	compare "SIG$s" 1 "signal SIG$s" unwind "$H" kill "$n"
done <<LIST
HUP 1
QUIT 3
TRAP 5
USR1 10
USR2 12
ALRM 14
STKFLT 16
XCPU 24
XFSZ 25
VTALRM 26
PROF 27
PWR 30
SYS 31
RTMIN+6 40
LIST
contains "a program asking sees SIG_DFL" "disposition SIG_DFL" prof.txt
compare "SIGPIPE" 1 "signal SIGPIPE" unwind "$H" pipe
# The producer in `yes | head`: dies of SIGPIPE, its profile written.
rm -rf y
"$PMCPROF" record -e $EV -o y -- sh -c 'yes | head -c 300000000 | wc -c' >yes.txt 2>yerr.txt
check "yes | head: status $?, output $(cat yes.txt)" [ "$(cat yes.txt)" = 300000000 ]
n=$(for f in y/*.pmcp; do "$INSPECT" meta "$f" end_reason; done | grep -c "signal SIGPIPE")
check "yes | head: the producer's profile says SIGPIPE ($n)" [ "$n" -ge 1 ]

# ---- exit() from several threads at once ----
compare "exit() from 2 threads at once" 3 exit unwind "$H" exitrace 2
compare "exit() from 32 threads at once" 33 exit unwind "$H" exitrace 32

# ---- masks and jumps ----
compare "siglongjmp out of a SIGALRM handler" 1 exit unwind "$H" longjmp
s=$("$INSPECT" counter o/*.pmcp samples)
# 400 ms of CPU at 200 us: 2000 periods; a wedged handler kept ~120.
check "siglongjmp: sampling goes on ($s samples of ~2000)" [ "$s" -ge 800 ]
rm -rf oc
"$PMCPROF" record -b cputimer -e CPUTIME@500 -o oc -- "$H" longjmp >/dev/null 2>&1
s=$("$INSPECT" counter oc/*.pmcp samples)
o=$("$INSPECT" counter oc/*.pmcp timer_overruns)
# 400 ms at 500 us: ~800 periods, folded by the tick into signals.
check "siglongjmp (cputimer): sampling goes on ($s samples + $o overruns of ~800)" \
	[ $((s + o)) -ge 320 ]
compare "sigtimedwait/sigwaitinfo/sigwait/signalfd on full sets" 1 exit unwind "$H" sigwait

# ---- seccomp: sampling stops before the filter, the program never dies of it ----
for m in strict kill eperm syscall; do
	compare "seccomp $m" 1 seccomp unwind "$H" seccomp-$m
	s=$("$INSPECT" counter o/*.pmcp samples)
	# 100 ms before the filter at 200 us: ~500.
	check "seccomp $m: the time before it is profiled ($s samples)" [ "$s" -gt 150 ]
done

# libseccomp loads its filter through syscall(SYS_seccomp, ...).
if printf '#include <seccomp.h>\n' | ${CC:-cc} -E - >/dev/null 2>&1 &&
	${CC:-cc} -O2 -g -I"$PMCPROF_SRC/tests/progs" -o libsc \
		"$PMCPROF_SRC/tests/progs/rec_libseccomp.c" -lseccomp 2>/dev/null; then
	compare "libseccomp kill filter" 1 seccomp unwind ./libsc
	# The filter outlives an exec: the new image's collector must make no
	# system call at all (one profile: the parent's, "seccomp").
	compare "libseccomp kill filter, then exec under it" 1 seccomp unwind ./libsc exec
else
	skip "libseccomp: no <seccomp.h> or libseccomp here (Debian: libseccomp-dev)"
fi

# ---- programs we did not write ----
third() {	# NAME COMMAND...: status and output alone and profiled
	rm -rf o
	sh -c "$2" >alone.txt 2>/dev/null
	a=$?
	"$PMCPROF" record -e $EV -o o -- sh -c "$2" >prof.txt 2>err.txt
	b=$?
	check "$1: status $b profiled, $a alone" [ "$a" -eq "$b" ]
	check "$1: same output ($(tail -c 60 alone.txt | tr '\n' ' '))" cmp -s alone.txt prof.txt
	n=$(ls o/*.pmcp 2>/dev/null | wc -l)
	check "$1: $n profiles, every process's" [ "$n" -ge 2 ]
}
if command -v xz >/dev/null; then
	third "xz round trip" "seq 1 60000 | xz -3 -T2 | xz -d | cksum"
else skip "xz: not installed (xz-utils)"; fi
if command -v sqlite3 >/dev/null; then
	third "sqlite3" "sqlite3 :memory: 'create table t(a); with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000) insert into t select x * 7 % 1000 from c; select count(*), sum(a), count(distinct a) from t;'"
else skip "sqlite3: not installed"; fi
third "yes | head (the producer dies of SIGPIPE)" "yes pmcprof | head -c 300000 | cksum"
if command -v zstd >/dev/null; then
	third "zstd round trip" "seq 1 200000 | zstd -3 -T2 | zstd -d | cksum"
else skip "zstd: not installed"; fi
if command -v lua5.4 >/dev/null; then
	third "lua5.4" "lua5.4 -e 'local t = {} for i = 1, 300000 do t[i] = (i * 7919) % 1000 end table.sort(t) local s = 0 for i = 1, #t, 97 do s = s + t[i] end print(s)'"
else skip "lua5.4: not installed"; fi

# ---- high rates: the handler throttles itself ----
rm -rf o
timeout 120 "$PMCPROF" record -e cpu-clock@10000 -e task-clock@10000 -o o -- "$H" deep 100 \
	>prof.txt 2>err.txt
rc=$?
check "3000-deep stacks at two 10 us events: finishes (status $rc)" [ "$rc" -eq 0 ]
u=$(unaccounted o)
check "throttled: every overflow is a sample or a named loss ($u unaccounted)" [ "$u" -le 0 ]
echo "    throttle: dropped_throttled=$("$INSPECT" counter o/*.pmcp dropped_throttled)" \
	"throttle_period_raised=$("$INSPECT" counter o/*.pmcp throttle_period_raised)"

# ---- Go with cgo (64 goroutines) ----
if ! command -v go >/dev/null 2>&1; then
	skip "Go with cgo: no go compiler here (Debian: golang-go)"
	exit 0
fi
export GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off CGO_ENABLED=1
if ! go build -o go_cgo "$PMCPROF_SRC/tests/progs/go_cgo/main.go" 2>gobuild.txt; then
	fail "Go with cgo: go build failed"; sed 's/^/    | /' gobuild.txt | head; exit 0
fi
./go_cgo >alone.txt
a=$?
for cg in unwind fp none; do
	rm -rf o
	"$PMCPROF" record --call-graph $cg -e $EV -o o -- ./go_cgo >prof.txt 2>err.txt
	b=$?
	check "Go with cgo ($cg): status $b, alone $a" [ "$a" -eq "$b" ]
	check "Go with cgo ($cg): same output" cmp -s alone.txt prof.txt
	# Go's runtime leaves by a raw exit_group: the watcher writes them.
	n=$(ls o/*.pmcp 2>/dev/null | wc -l)
	check "Go with cgo ($cg): $n profiles (one per thread)" [ "$n" -ge 2 ]
	r=$("$INSPECT" meta "$(ls o/*.pmcp | head -1)" end_reason)
	check "Go with cgo ($cg): end_reason '$r' (exit_group)" [ "$r" = exit_group ]
	lacks "Go with cgo ($cg): no profile lost" "ended without writing" err.txt
	check "Go with cgo ($cg): no temporary file left" [ -z "$(ls -A o | grep -v -e '\.pmcp$' -e '^symbols$')" ]
	"$PMCPROF" report --csv o >rep.csv 2>rep.err
	# The Go and the C (cgo) side both by name.
	contains "Go with cgo ($cg): Go code by name" "main\.main\.func1\|main\.goBurn" rep.csv
	contains "Go with cgo ($cg): cgo code by name" "c_burn" rep.csv
done

# Debian's own go command (dynamically linked, not ours): it leaves by a
# raw exit_group too.
rm -rf o
go env GOROOT GOARCH >alone.txt 2>/dev/null
a=$?
"$PMCPROF" record -e $EV -o o -- go env GOROOT GOARCH >prof.txt 2>err.txt
b=$?
check "go env (Debian's go): status $b, alone $a" [ "$a" -eq "$b" ]
check "go env: same output" cmp -s alone.txt prof.txt
n=$(ls o/go-*.pmcp 2>/dev/null | wc -l)
check "go env: $n profiles written by the watcher" [ "$n" -ge 1 ]
r=$("$INSPECT" meta "$(ls o/go-*.pmcp | head -1)" end_reason)
check "go env: end_reason '$r' (exit_group)" [ "$r" = exit_group ]
