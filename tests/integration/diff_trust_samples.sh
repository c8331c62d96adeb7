#!/bin/sh
# Trust flags from a run's own numbers (docs/analyzer.md, "Trust flags"):
# time-based samples x period against the threads' CPU time as the kernel
# counted it (thread_cpu_ns), the collector's handler time (handler_ns),
# and runs under an emulator (hypervisor qemu-tcg), whose line-level
# differences are not marked significant.  Profiles are crafted with
# ana_mkprofile: 900 samples of cpu-clock@1ms (0.9 s); each case names its line.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"

HOT=$(grep -n 'HOT_LOOP' "$PMCPROF_SRC/tests/progs/ana_work.c" | cut -d: -f1)
# mk NAME [ana_mkprofile options...]: 900 samples of its default event
# (perf::CPU-CLOCK@1000000, in ns) in work_a/work_b, on hypervisor $HV
# (none: a virtualized run is flagged so, which each case would repeat)
HV=none
mk() {
	n=$1; shift
	"$PROGS/ana_mkprofile" -o "$n.pmcp" -b "$PROGS/ana_work" -m hypervisor=$HV \
		-m tid=7 -m thread_name=worker "$@" \
		"main;work_a=600" "main;work_b=300" || fail "ana_mkprofile $n"
}
mk ok -c thread_cpu_ns=950000000 -c handler_ns=9000000

# case_ NAME FLAGS WANT NOT -- mkprofile options: `pmcprof diff ok NAME`
# flags NAME with FLAGS in its trust line, warns WANT (a grep pattern, or
# ""), and does not print NOT.
case_() {
	name=$1 flags=$2 want=$3 not=$4
	shift 4
	line=$(grep -n "^case_ $name " "$0" | head -1 | cut -d: -f1)
	mk "$name" "$@"
	HV=none
	"$PMCPROF" diff --header ok.pmcp "$name.pmcp" >out.txt 2>err.txt
	got=$(grep '^# trust: .*flags:' out.txt | sed -n 2p | sed 's/.*flags: //')
	if [ "$got" = "$flags" ]; then pass "line $line: $name: flags '$flags'"
	else fail "line $line: $name: flags '$flags', got '$got'"; grep '^# trust' out.txt; fi
	if [ -n "$want" ]; then
		if grep -q -- "^# warning: $name.pmcp: $want" out.txt; then pass "line $line: $name: warns '$want'"
		else fail "line $line: $name: warns '$want'"; grep '^# warning' out.txt | head -5; fi
	fi
	if [ -n "$not" ] && grep -q -- "$not" out.txt; then fail "line $line: $name: no '$not'"; fi
}

case_ lost40 samples-lost "lost 40% of the expected samples (0.900 s sampled for 1.500 s of the threads' own CPU time; 1 of 1 threads short, worst tid 7 (worker) at 60%): timer-based sampling in an emulated or overloaded guest" "" \
	-c thread_cpu_ns=1500000000
case_ lost15 none "" "of the expected samples" -c thread_cpu_ns=1058823529
case_ excess samples-excess "80% more sample time than the threads' own CPU time (0.900 s sampled for 0.500 s)" "" \
	-c thread_cpu_ns=500000000
case_ short none "" "of the expected samples" -c thread_cpu_ns=40000000
case_ handler collector-time "the collector's signal handler took 10.0% of the threads' CPU time (0.095 s of 0.950 s)" "" \
	-c thread_cpu_ns=950000000 -c handler_ns=95000000
case_ handler2 none "" "signal handler took" -c thread_cpu_ns=950000000 -c handler_ns=19000000
# a handler's wall time above its thread's CPU time counts as that CPU time, never more
case_ handler_over collector-time "the collector's signal handler took 100.0% of the threads' CPU time (0.950 s of 0.950 s)" "" \
	-c thread_cpu_ns=950000000 -c handler_ns=2000000000
# a thread too short to judge (a pipeline's process) gives no collector-time flag
case_ handler_short none "" "signal handler took" -c thread_cpu_ns=30000000 -c handler_ns=20000000
# CPU time of threads never sampled (raw clone) is named and flagged
case_ unsampled samples-lost "0.950 s of CPU time (50% of the process's) ran in threads the collector did not sample" "" \
	-c thread_cpu_ns=950000000 -c unsampled_thread_cpu_ns=950000000 -c clone_children=1
# ':u' sees user time only: held against thread_user_ns, 0.95 s of 2 s here
U="-e perf::CPU-CLOCK:u@1000000=cpu-clock:u -U ns"
case_ user_ok none "" "of the expected samples" $U -c thread_cpu_ns=2000000000 -c thread_user_ns=950000000
# ... and still flagged when samples are really lost: 0.9 s for 1.5 s of user time
case_ user_lost samples-lost "lost 40% of the expected samples (0.900 s sampled for 1.500 s of the threads' own user time (the events exclude the kernel); 1 of 1 threads short, worst tid 7 (worker) at 60%)" "" \
	$U -c thread_cpu_ns=2000000000 -c thread_user_ns=1500000000
case_ user_excess samples-excess "80% more sample time than the threads' own user time (the events exclude the kernel) (0.900 s sampled for 0.500 s)" "" \
	$U -c thread_cpu_ns=800000000 -c thread_user_ns=500000000
# the modifier as libpfm4 also takes it, and ':u' with ':k' (both modes: CPU time)
case_ user_eq1 none "" "of the expected samples" -e perf::CPU-CLOCK:u=1@1000000 -U ns \
	-c thread_cpu_ns=2000000000 -c thread_user_ns=950000000
case_ user_k samples-lost "lost 55% of the expected samples (0.900 s sampled for 2.000 s of the threads' own CPU time;" "" -e perf::CPU-CLOCK:u:k@1000000 -U ns \
	-c thread_cpu_ns=2000000000 -c thread_user_ns=950000000
# PMCPROF_KERNEL=off keeps the name; the profile's kernel_frames says it
case_ user_off none "" "of the expected samples" -m kernel_frames=excluded \
	-c thread_cpu_ns=2000000000 -c thread_user_ns=950000000
# ':k' sees system time: CPU minus user time
K="-e perf::CPU-CLOCK:k@1000000=cpu-clock:k -U ns"
case_ sys_ok none "" "of the expected samples" $K -c thread_cpu_ns=2000000000 -c thread_user_ns=1050000000
case_ sys_lost samples-lost "lost 40% of the expected samples (0.900 s sampled for 1.500 s of the threads' own system time (the events count only the kernel);" "" \
	$K -c thread_cpu_ns=2000000000 -c thread_user_ns=500000000
# a profile from before thread_user_ns: a ':u' event is not judged at all
case_ user_old none "" "of the expected samples" $U -c thread_cpu_ns=2000000000
# the kernel's user/system split follows its ticks: 0.3 s of user time in
# 6 s of CPU time is too coarse to judge (it would say 200% more)
case_ user_coarse none "" "sample time" $U -c thread_cpu_ns=6000000000 -c thread_user_ns=300000000
"$PMCPROF" report --header user_ok.pmcp >out.txt 2>err.txt
contains "report: the user time, and the samples held against it" \
	"^# trust: cpu time 2.000 s (kernel, per thread), user 0.950 s; samples 0.900 s (94.7% of expected from the user time, 1 thread judged)" out.txt
"$PMCPROF" report --header user_old.pmcp >out.txt 2>err.txt
check "report: a ':u' profile without thread_user_ns reads (exit 0)" [ $? -eq 0 ]
if grep -q '^# trust: cpu time 2.000 s (kernel, per thread); flags\|^# trust: cpu time 2.000 s (kernel, per thread)$' out.txt &&
   ! grep -q 'of expected' out.txt; then
	pass "report: without thread_user_ns, the CPU time and no coverage"
else fail "report: without thread_user_ns"; grep '^# trust' out.txt; fi
HV=qemu-tcg
case_ tcg "samples-lost;emulated;virtualized" "ran under an emulator (QEMU-TCG): not representative of hardware virtualization, and its per-line and per-instruction attribution is unreliable" "" \
	-c thread_cpu_ns=2000000000

# view: the trust flags lead its warning line
"$PMCPROF" view --snapshot 160x12 ok.pmcp tcg.pmcp >view.txt 2>&1
contains "view's header leads with the emulated run's flags" "^! tcg.pmcp: samples-lost;emulated" view.txt

# an old profile without thread_cpu_ns: no trust figures, no flags, no error
mk old
"$PMCPROF" report --header old.pmcp >out.txt 2>err.txt
if [ $? -eq 0 ] && ! grep -q '^# trust:' out.txt && ! grep -q 'warning' out.txt; then
	pass "a profile without thread_cpu_ns: no trust line, no warning"
else fail "a profile without thread_cpu_ns"; sed 's/^/    | /' out.txt | head; fi
"$PMCPROF" report --header ok.pmcp >out.txt 2>err.txt
contains "report shows the CPU time, samples and handler" \
	"^# trust: cpu time 0.950 s (kernel, per thread); samples 0.900 s (94.7% of expected, 1 thread judged)" out.txt
contains "report shows the handler's share and no flags" \
	"^# trust: collector handler 0.009 s (0.9% of the CPU time); flags: none" out.txt
if grep -q 'thread_cpu_ns=\|handler_ns=' out.txt; then fail "raw counters not repeated on the collector lines"
else pass "raw counters not repeated on the collector lines"; fi

# CSV and JSON carry the flags
"$PMCPROF" diff --csv ok.pmcp lost40.pmcp >d.csv 2>/dev/null
"$PMCPROF" report --json lost40.pmcp >r.json 2>/dev/null
python3 - d.csv r.json <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = rows and all(r['run_trust'] == 'samples-lost' and r['base_trust'] == '' and r['withheld'] == '0' for r in rows)
print('%s: diff --csv: run_trust samples-lost, base_trust empty, withheld 0 (%d rows)' % ('PASS' if ok else 'FAIL', len(rows)))
j = json.load(open(sys.argv[2]))
t = j['trust'][0]
ok = t['flags'] == ['samples-lost'] and abs(t['coverage'] - 0.6) < 1e-9 and abs(t['cpu_time'] - 1.5) < 1e-9 \
     and t['threads_judged'] == 1 and t['threads_short'] == 1 and t['emulator'] is None \
     and t['basis'] == ['cpu'] and abs(t['expected_time'] - 1.5) < 1e-9 and t['user_time'] is None
print('%s: report --json: trust %s' % ('PASS' if ok else 'FAIL', t))
PY
"$PMCPROF" report --json user_lost.pmcp >r.json 2>/dev/null
python3 - r.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))['trust'][0]
ok = t['flags'] == ['samples-lost'] and t['basis'] == ['user'] and abs(t['user_time'] - 1.5) < 1e-9 \
     and abs(t['expected_time'] - 1.5) < 1e-9 and abs(t['cpu_time'] - 2) < 1e-9 and abs(t['coverage'] - 0.6) < 1e-9
print('%s: report --json: a \':u\' run held against user time %s' % ('PASS' if ok else 'FAIL', t))
PY

# lines: the same function, its samples on another line in the guest
"$PROGS/ana_mkprofile" -o lnat.pmcp -b "$PROGS/ana_work" -m hypervisor=kvm \
	"main;hot_lines:$HOT=700" "main;hot_lines=300" || fail "ana_mkprofile lnat"
for hv in qemu-tcg kvm; do
	"$PROGS/ana_mkprofile" -o "l$hv.pmcp" -b "$PROGS/ana_work" -m hypervisor=$hv \
		"main;hot_lines:$HOT=300" "main;hot_lines=700" || fail "ana_mkprofile l$hv"
	"$PMCPROF" diff --header --lines lnat.pmcp "l$hv.pmcp" >l.txt 2>/dev/null
	"$PMCPROF" diff --lines --csv lnat.pmcp "l$hv.pmcp" >l.csv 2>/dev/null
	"$PMCPROF" diff --header lnat.pmcp "l$hv.pmcp" >f.txt 2>/dev/null
	sig=$(grep -c ',1,[^,]*,both,' l.csv)
	if [ $hv = qemu-tcg ]; then
		if grep -v '^#' l.txt | grep -q '?$' && ! grep -v '^#' l.txt | grep -q '\*$' &&
		   grep -q '^# ?: the interval excludes 1, but not marked significant: lines against a run under an emulator' l.txt
		then pass "lines against QEMU-TCG: '?' instead of '*', and the footer says why"
		else fail "lines against QEMU-TCG: '?' instead of '*'"; sed 's/^/    | /' l.txt | grep -v '^    | # [a-z]*:' | head -20; fi
		python3 -c "
import csv,sys
r=list(csv.DictReader(open('l.csv')))
ok=r and all(x['significant']=='0' for x in r) and any(x['withheld']=='1' for x in r)
print(('PASS' if ok else 'FAIL')+': lines --csv: significant 0, withheld 1 against QEMU-TCG')"
	else
		if grep -v '^#' l.txt | grep -q '\*$' && ! grep -q '^# ?:' l.txt
		then pass "lines against KVM: differences marked '*' as usual"
		else fail "lines against KVM: marked '*'"; sed 's/^/    | /' l.txt | head -20; fi
	fi
done

# ---- real profiles: every thread records its CPU time and handler time ----
"$PMCPROF" record -e cpu-clock -o real -- "$PROGS/busy" 3 0.15 >busy.txt 2>err.txt
n=0 good=0
for f in real/*.pmcp; do
	n=$((n + 1))
	"$PMCPROF" dump "$f" >d.txt 2>/dev/null
	cpu=$(sed -n 's/^ *thread_cpu_ns = //p' d.txt) h=$(sed -n 's/^ *handler_ns = //p' d.txt)
	[ -n "$cpu" ] && [ -n "$h" ] && [ "$cpu" -gt 0 ] && [ "$h" -lt "$cpu" ] && good=$((good + 1))
done
if [ $n -ge 3 ] && [ $good -eq $n ]; then pass "record: all $n threads carry thread_cpu_ns > handler_ns"
else fail "record: $good of $n threads carry thread_cpu_ns > handler_ns"; sed 's/^/    | /' d.txt | tail -12; fi
"$PMCPROF" report --header real >out.txt 2>/dev/null
if grep -q '^# trust: cpu time .* samples .*% of expected, [0-9]* threads judged' out.txt; then
	pass "report of a real run checks its samples against the threads' CPU time"
	grep '^# trust' out.txt | sed 's/^/    /'	# the figures, not asserted: the host is loaded
else fail "report of a real run: trust line"; grep '^#' out.txt | tail -5; fi
exit 0
