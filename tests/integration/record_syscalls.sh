# A sample costs no syscall of ours beyond the signal's return: strace -f
# -c counts every syscall of record and the profiled program, with the
# libunwind call-graph mode and with none (leaf only), in the same test.
# rt_sigreturn counts the samples (these programs have no signal handlers
# of their own); rt_sigprocmask must not grow with them (libunwind's locks
# cost two per unwind step before: 14-24 per sample).
. "$PMCPROF_SRC/tests/lib.sh"
command -v strace >/dev/null || { skip "strace is not installed"; exit 77; }
strace -f -c -o /dev/null true 2>/dev/null || { skip "strace cannot trace here (ptrace refused)"; exit 77; }
EV=cpu-clock@1000000

# calls of syscall NAME in an strace -c table (0 if absent)
calls() { awk -v n="$1" '$NF == n { c = $4 } END { print c + 0 }' "$2"; }
total() { awk '$NF == "total" { print $4 }' "$1"; }

run() {	# name cmd...
	name=$1; shift
	for cg in unwind none; do
		rm -rf out
		strace -f -c -o st.$cg "$PMCPROF" record -e $EV --call-graph=$cg -o out -- "$@" \
			>/dev/null 2>err.$cg
	done
	# a program that calls it itself says how often (own_sigprocmask=N)
	su=$(calls rt_sigreturn st.unwind); mu=$(calls rt_sigprocmask st.unwind)
	sn=$(calls rt_sigreturn st.none); mn=$(calls rt_sigprocmask st.none)
	mu=$((mu - $(sed -n 's/^own_sigprocmask=//p' err.unwind | awk '{ s += $1 } END { print s + 0 }')))
	mn=$((mn - $(sed -n 's/^own_sigprocmask=//p' err.none | awk '{ s += $1 } END { print s + 0 }')))
	tu=$(total st.unwind); tn=$(total st.none)
	check "$name: sampled under strace ($su samples with libunwind, $sn without)" \
		[ "$su" -ge 100 ] && [ "$sn" -ge 100 ]
	# per sample, as a ratio printed in the test's name: never timed
	per=$(awk -v a="$mu" -v b="$mn" -v s="$su" 'BEGIN { printf "%.3f", (a - b) / s }')
	check "$name: rt_sigprocmask $mu with libunwind, $mn leaf only: $per more per sample" \
		[ $((mu - mn)) -le $((su / 20 + 10)) ]
	echo "# $name: syscalls per sample: $(awk -v t="$tu" -v s="$su" 'BEGIN { printf "%.2f", t / s }') with libunwind, $(awk -v t="$tn" -v s="$sn" 'BEGIN { printf "%.2f", t / s }') leaf only"
}

# Our own: libc, a thread that ends, code without unwind tables.
run rec_fds "$PROGS/rec_fds" thread 400
# Coroutines: samples on stacks that are not the thread's.
run rec_coro "$PROGS/rec_coro" 400
rm -rf out
"$PMCPROF" record -e $EV -o out -- "$PROGS/rec_coro" 200 >/dev/null 2>&1
"$PMCPROF" report --header out >rep.txt 2>&1
contains "rec_coro: complete stacks on coroutine stacks" "unwind_failed=0 " rep.txt
# A real interpreter: leaf pcs all over a large function, strcmp through the PLT.
if command -v lua5.4 >/dev/null; then
	cat >work.lua <<'EOF'
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 100000 do t[i] = tostring(i * 7919 % 100003) .. "x" end
table.sort(t)
print(fib(31))
EOF
	run lua5.4 lua5.4 work.lua
else
	skip "lua5.4 is not installed"
fi
