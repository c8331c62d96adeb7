#!/bin/sh
# pmcprof vm: the same program natively and in a throwaway QEMU guest
# (KVM where /dev/kvm boots a stock kernel, TCG otherwise), then diff and
# the viewer's compare mode.  The program has phases of known character
# (tests/progs/vm_phases.c).  TCG is emulation, so ratio checks stay loose:
# what must hold is that both sides ran the same thing, every phase is
# there, and the comparison says what it can and cannot be trusted with.
. "$PMCPROF_SRC/tests/lib.sh"
no_guests

command -v "${PMCPROF_QEMU:-qemu-system-x86_64}" >/dev/null 2>&1 ||
	{ skip "qemu-system-x86_64 is not installed (Debian: qemu-system-x86)"; exit 77; }
ls /boot/vmlinuz-* >/dev/null 2>&1 ||
	{ skip "no kernel image in /boot/vmlinuz-* (Debian: linux-image-amd64)"; exit 77; }
[ -r "$(ls /boot/vmlinuz-* | sort -V | tail -n 1)" ] ||
	{ skip "the kernel image in /boot is not readable by this user"; exit 77; }
[ -x "$PROGS/vm_phases" ] || { fail "tests/progs/vm_phases not built"; exit 1; }
dump() { sed 's/^/    | /' "$1" | head -${2:-30}; }

# ---- a missing package is named ----
PMCPROF_QEMU=/nonexistent/qemu-system-x86_64 $PMCPROF vm -o miss -- true >/dev/null 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "install Debian's qemu-system-x86 package" err.txt; then
	pass "no QEMU: exit 2 naming the qemu-system-x86 package"
else fail "no QEMU: exit 2 naming qemu-system-x86 (status $rc)"; dump err.txt; fi
$PMCPROF vm -k /nonexistent/vmlinuz-1 -o miss2 -- true >/dev/null 2>err.txt
if grep -q "linux-image-amd64" err.txt; then pass "no kernel: names linux-image-amd64"
else fail "no kernel: names linux-image-amd64"; dump err.txt; fi
$PMCPROF vm --smp x -- true >/dev/null 2>err.txt
[ $? -eq 1 ] && pass "a bad option is a usage error" || fail "a bad option is a usage error"

# ---- the comparison ----
t0=$(date +%s)
$PMCPROF vm -s 1 -o cmp -- "$PROGS/vm_phases" 0.2 >out.txt 2>err.txt
rc=$?
t1=$(date +%s)
echo "    pmcprof vm took $((t1 - t0)) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
sed -n 's/^pmcprof vm: vm: /    /p' err.txt
if [ $rc -ne 0 ]; then
	fail "pmcprof vm ran (status $rc)"; dump err.txt; dump cmp/vm/console.txt
	exit 1
fi
pass "pmcprof vm ran both sides and diffed them"
accel=$(cat cmp/accel)
case $accel in
tcg) grep -q 'guest: QEMU TCG (emulation' err.txt && pass "it says plainly it used TCG (emulation)" ||
	{ fail "it says which accelerator it used"; dump err.txt; }
     hv=QEMU-TCG ;;
kvm) grep -q 'guest: QEMU KVM (hardware virtualization)' err.txt &&
	pass "it says plainly it used KVM" || fail "it says which accelerator it used"
     hv=KVM ;;
*) fail "cmp/accel names the accelerator: '$accel'"; hv=none ;;
esac
if [ -e /sys/module/kvm_pvm ] && [ "$accel" = tcg ]; then
	grep -q 'kvm_pvm' err.txt && pass "the KVM probe failed and names kvm_pvm" ||
		{ fail "the KVM probe's reason names kvm_pvm"; dump err.txt; }
fi

# the same program, same output, same status on both sides (the first law)
for side in native vm; do
	ls cmp/$side/profiles/*.pmcp >/dev/null 2>&1 && [ "$(cat cmp/$side/cmd.status)" = 0 ] ||
		{ fail "$side: a profile and status 0"; dump cmp/$side/cmd.stderr; }
done
if cmp -s cmp/native/cmd.stdout cmp/vm/cmd.stdout && grep -q checksum cmp/vm/cmd.stdout
then pass "native and guest print the same checksum"
else fail "native and guest print the same checksum"; cat cmp/native/cmd.stdout cmp/vm/cmd.stdout; fi
grep -q "Hypervisor:  $hv " cmp/vm/probe.txt && pass "the guest's probe names the hypervisor: $hv" ||
	{ fail "the guest's probe names the hypervisor $hv"; dump cmp/vm/probe.txt; }
if [ "$accel" = tcg ]; then
	# TCG's -cpu max is "AuthenticAMD" without PMU leaves, and the guest
	# kernel has no core PMU: no counters may be claimed
	grep -q "^PMU:         no core counters" cmp/vm/probe.txt &&
		pass "the guest's probe claims no counters it does not have" ||
		{ fail "the guest's probe and its PMU"; grep PMU cmp/vm/probe.txt; }
fi
grep -q "events_used: perf::CPU-CLOCK@1000000" cmp/diff.txt &&
	! grep -q "warning: event.*period" cmp/diff.txt &&
	pass "both sides sampled cpu-clock every 1 ms (no period warning)" ||
	{ fail "same event and period on both sides"; grep -E 'events_used|period' cmp/diff.txt; }

# every phase on both sides, ratios with intervals (inclusive: the clock
# and system-call phases spend their time in the vDSO, libc and kernel)
$PMCPROF diff --incl --csv cmp/native cmp/vm >incl.csv 2>/dev/null
python3 - incl.csv "$accel" <<'PY'
import csv, sys
rows = {r['function'].split('.')[0]: r for r in csv.DictReader(open(sys.argv[1]))}  # gcc's clones: perf's names (phase_memwalk.constprop.0)
accel = sys.argv[2]
for f in ('phase_compute', 'phase_memwalk', 'phase_faults', 'phase_syscalls', 'phase_clock', 'main'):
    r = rows.get(f)
    if not r or r['presence'] != 'both':
        print('FAIL: %s in both runs: %s' % (f, r and r['presence']))
        continue
    ratio, lo, hi = float(r['ratio']), float(r['ci_low']), float(r['ci_high'])
    # loose: emulation may change a phase's share a lot, not by 50x
    ok = lo <= ratio <= hi and 0.02 < ratio < 50
    print('%s: %s share ratio %.2f [%.2f, %.2f] (native %s%%, guest %s%%)' % (
        'PASS' if ok else 'FAIL', f, ratio, lo, hi, r['base_pct'], r['run_pct']))
r = rows.get('main')
trust = r and r['run_trust'] or ''
want = 'emulated' in trust if accel == 'tcg' else 'emulated' not in trust
print('%s: the guest run is flagged %s in the CSV (run_trust "%s")' % (
    'PASS' if want else 'FAIL', 'emulated' if accel == 'tcg' else 'not emulated', trust))
print('%s: the native run is not flagged emulated (base_trust "%s")' % (
    'PASS' if r and 'emulated' not in r['base_trust'] else 'FAIL', r and r['base_trust']))
PY

# diff's text shows ratios with intervals, and the trust lines
row=$(grep '^phase_compute ' cmp/diff.txt)
case $row in *'['*','*']'*) pass "diff shows phase_compute's ratio with its interval" ;;
	*) fail "diff shows phase_compute's ratio with its interval: '$row'"; dump cmp/diff.txt 60 ;; esac
if grep -q '^# trust: cpu time .* samples .*% of expected' cmp/diff.txt; then
	pass "both runs' samples are checked against the threads' CPU time"
	grep '^# trust:' cmp/diff.txt | sed 's/^/    /'
else fail "trust lines in diff"; dump cmp/diff.txt 60; fi

# per line, nothing is marked significant against an emulated run
if [ "$accel" = tcg ]; then
	grep -q "warning: vm-tcg: ran under an emulator (QEMU-TCG)" cmp/diff.txt &&
		pass "diff warns that the guest ran under an emulator" ||
		{ fail "diff warns about the emulator"; dump cmp/diff.txt 10; }
	$PMCPROF diff --lines --csv cmp/native cmp/vm >lines.csv 2>/dev/null
	python3 - lines.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sig = [r for r in rows if r['significant'] == '1']
held = [r for r in rows if r['withheld'] == '1']
print('%s: %d line rows, none marked significant against QEMU-TCG (%d withheld)' % (
    'FAIL' if sig or not rows else 'PASS', len(rows), len(held)))
PY
	$PMCPROF diff --lines cmp/native cmp/vm >lines.txt 2>/dev/null
	if ! grep -v '^#' lines.txt | grep -q '\*$' &&
	   { ! grep -q '?$' lines.txt || grep -q '^# ?: the interval excludes 1, but not marked' lines.txt; }
	then pass "diff --lines marks no line '*' and says why any '?' is not marked"
	else fail "diff --lines against an emulated run"; dump lines.txt 60; fi
fi

# ---- the guest's kernel named on the host: the guest's record kept its
# kallsyms answers in cmp/vm/symbols; a diff across two kernels shows one
# kernel's own functions as that side's kernel, not new/gone ----
$PMCPROF report --csv cmp/vm >vmrep.csv 2>/dev/null
python3 - vmrep.csv <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r['module'] == '[kernel.kallsyms]' and int(r['self_samples'])]
named = sum(int(r['self_samples']) for r in rows if r['function'].startswith('[k] ') and
            not r['function'].startswith('[k] 0x'))
addr = sum(int(r['self_samples']) for r in rows if r['function'].startswith('[k] 0x'))
if not rows:
    print('SKIP: the guest sampled no kernel function (kernel excluded?)')
else:
    print('%s: the guest kernel named on the host (%d samples named, %d as addresses)' % (
        'PASS' if named and addr * 20 <= named + addr else 'FAIL', named, addr))
PY
if grep -q '^# warning: \[kernel.kallsyms\] is a different build' cmp/diff.txt; then
	lacks "diff across two kernels: no kernel row new or gone" '\[kernel.kallsyms\] .* \(new\|gone\) ' cmp/diff.txt
else
	skip "the guest ran the host's own kernel: no cross-kernel diff to check"
fi

# ---- the viewer's compare mode, in a real terminal ----
if command -v tmux >/dev/null 2>&1; then
	SOCK="$TMP/tmux.sock"
	tm() { tmux -S "$SOCK" "$@"; }
	trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
	tm new-session -d -s v1 -x 160 -y 45 -c "$TMP" \
		"LC_ALL=C.UTF-8 TERM=tmux-256color $PMCPROF view cmp/native cmp/vm; exec sleep 300"
	n=0
	while [ $n -lt 150 ]; do
		tm capture-pane -p -t v1 >screen.txt 2>/dev/null
		grep -q ' phase_compute ' screen.txt && break
		sleep 0.2; n=$((n + 1))
	done
	row=$(grep ' phase_compute ' screen.txt)
	case $row in *[0-9].[0-9]*' ['*','*']'*) pass "view compare mode: phase_compute's ratio with its interval" ;;
		*) fail "view compare mode shows ratios with intervals: '$row'"; dump screen.txt 45 ;; esac
	if [ "$accel" = tcg ]; then
		grep -q '! vm: .*emulated' screen.txt &&
			pass "view's header flags the emulated run" ||
			{ fail "view's header flags the emulated run"; dump screen.txt 8; }
	fi
	tm send-keys -t v1 q
else
	skip "tmux is not installed: no viewer check"
fi
exit 0
