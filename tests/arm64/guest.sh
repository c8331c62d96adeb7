#!/bin/sh
# The hardware-event suite, run inside the arm64 QEMU guest by
# scripts/arm64.sh (busybox sh, in a chroot of the host's / over 9p; /tmp
# is the guest's own).  QEMU's -icount shift=0 makes counts exact: one
# instruction per ns, cycles equal to instructions.  Prints PASS:/FAIL:/
# SKIP:/INFO: lines.  Usage: guest.sh BUILD-ARM64 SRC
B=$1 SRC=$2
P=$B/pmcprof
HW=$B/tests/progs/hw_loop
T=$(mktemp -d /tmp/arm64-test.XXXXXX)
cd "$T" || exit 1
only=$(sed -n 's/.*pmcprof_tests=\([^ ]*\).*/\1/p' /proc/cmdline)
cpu=$(sed -n 's/.*pmcprof_cpu=\([^ ]*\).*/\1/p' /proc/cmdline)

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; }
info() { echo "INFO: $*"; }
# want NAME: whether test NAME runs (PMCPROF_ARM64_TESTS on the host)
want() {
	# the Cortex-A57 boot runs the libpfm4 names only, the max boot the rest
	if [ "${cpu:-max}" = max ]; then [ "$1" != pfm ] || return 1
	else [ "$1" = pfm ] || return 1; fi
	[ -z "$only" ] || echo "$1" | grep -q -- "$only" || return 1
	echo "INFO: $1 starts at $(cut -d' ' -f1 /proc/uptime) s guest time, $(cat /sys/class/rtc/rtc0/since_epoch 2>/dev/null) s RTC"
}
show() { sed 's/^/    | /' "$1" | head -n "${2:-15}"; }
# count EVENT FILE: the value of EVENT in a `stat -x ,` output
count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
# share FUNC DIR: FUNC's self percentage in DIR's flat CSV report
share() {
	"$P" report --no-inline --csv "$2" 2>/dev/null | awk -F, -v f="$1" '
	NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "self_pct") s = i; if ($i == "function") n = i } }
	NR > 1 && $n == f { print $s; exit }'
}
# incl FUNC DIR: FUNC's inclusive percentage (perf's attribution of inlines)
incl() {
	"$P" report --no-inline --csv "$2" 2>/dev/null | awk -F, -v f="$1" '
	NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "incl_pct") s = i; if ($i == "function") n = i } }
	NR > 1 && $n == f { print $s; exit }'
}
# within A B D: |A - B| <= D (decimals)
within() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; if (x < 0) x = -x; exit !(x <= d) }'; }

# ---- the machine: PMU, hypervisor, counters ----
if want probe; then
	"$P" probe >probe.txt 2>&1
	if grep -q 'PMU: *Arm PMUv3 (armv8_pmuv3[^)]*): [1-9][0-9]* general counters' probe.txt; then
		pass "probe: Arm PMUv3 from sysfs, its general counters counted"
	else
		fail "probe: no Arm PMUv3 line"; show probe.txt
	fi
	if grep -q 'Hypervisor: *QEMU-TCG' probe.txt; then
		pass "probe: QEMU's emulated CPU detected (dummy-virt, MIDR implementer 0)"
	else
		fail "probe: hypervisor not QEMU-TCG"; show probe.txt
	fi
	grep -E '^(CPU|Hypervisor|PMU|user read):' probe.txt | sed 's/^/INFO: /'
fi

# ---- exact counts ----
# The loop's 2 instructions per iteration plus a constant: the program's
# start (exec's return, ld.so, libc) and exit, in user mode.  The same on
# every run with ASLR off (the guest's /init turns it off).
STAT_CONST_MAX=200000
if want stat; then
	ok=1
	# 1M and 9M: arguments of one length (strtoull's loop counts digits)
	for n in 1000000 9000000; do
		"$P" stat -x , -e instructions:u,cycles:u -- "$HW" loop $n >s$n.csv 2>&1 || ok=0
		"$P" stat -x , -e instructions:u,cycles:u -- "$HW" loop $n >s$n.b.csv 2>&1 || ok=0
	done
	i1=$(count s1000000.csv instructions:u) c1=$(count s1000000.csv cycles:u)
	i2=$(count s9000000.csv instructions:u) c2=$(count s9000000.csv cycles:u)
	i1b=$(count s1000000.b.csv instructions:u)
	info "stat: instructions:u ${i1:-?} (1M), ${i2:-?} (9M); cycles:u ${c1:-?}, ${c2:-?}"
	if [ $ok = 1 ] && [ -n "$i1" ] && [ -n "$i2" ] && [ $((i2 - i1)) -eq 16000000 ] &&
		[ $((i1 - 2000000)) -ge 0 ] && [ $((i1 - 2000000)) -le $STAT_CONST_MAX ]; then
		pass "stat: instructions exact: 9M - 1M iterations = 16,000,000; constant $((i1 - 2000000))"
	else
		fail "stat: instructions not exact (1M: $i1, 9M: $i2)"; show s1000000.csv; show s9000000.csv
	fi
	if [ -n "$i1b" ] && [ "$i1" = "$i1b" ]; then
		pass "stat: the same count on a second run ($i1)"
	else
		fail "stat: runs differ ($i1, $i1b)"
	fi
	if [ -n "$c1" ] && [ "$c1" = "$i1" ] && [ "$c2" = "$i2" ]; then
		pass "stat: cycles:u equal instructions:u under icount"
	else
		fail "stat: cycles:u ($c1, $c2) differ from instructions:u ($i1, $i2)"
	fi
fi

# ---- a known split ----
# spin_a runs 3x spin_b's iterations of the same 2-instruction loop: 75% and
# 25% of the user cycles (the start-up's ~0.1M of 800M is noise below 0.1
# point).
SPLIT_A=300000000 SPLIT_B=100000000
split_check() {	# split_check NAME DIR ERRFILE
	a=$(share spin_a "$2") b=$(share spin_b "$2")
	info "$1: spin_a ${a:-?}%, spin_b ${b:-?}%"
	if [ -n "$a" ] && [ -n "$b" ] && within "$a" 75 1 && within "$b" 25 1; then
		pass "$1: shares within 1 point of 75/25 ($a/$b)"
	else
		fail "$1: shares $a/$b, not 75/25"; show "$3"; "$P" report "$2" 2>&1 | head -n 12 | sed 's/^/    | /'
	fi
	if grep -qi 'fell back\|falling back\|fallback' "$3" ||
		"$P" report --header "$2" 2>/dev/null | grep -qi 'fell back'; then
		fail "$1: a fallback was taken"; show "$3"
	else
		pass "$1: no fallback"
	fi
}
if want record; then
	"$P" record --no-fallback -e cycles@1000000 -o rec1 -- "$HW" split $SPLIT_A $SPLIT_B \
		>rec1.out 2>rec1.err || fail "record cycles@1000000: exit $?"
	split_check "record cycles@1000000" rec1 rec1.err
	"$P" report --header rec1 >rec1.hdr 2>&1
	if grep -qi 'calibrat.*valid' rec1.hdr; then
		pass "record: calibration classified the counter valid"
	else
		fail "record: calibration not valid"; grep -i calibr rec1.hdr | show /dev/stdin
	fi
	grep -iE 'event|calibr|samples' rec1.hdr | head -n 6 | sed 's/^/INFO: /'
	"$P" record --no-fallback -e cycles -o rec2 -- "$HW" split $SPLIT_A $SPLIT_B \
		>rec2.out 2>rec2.err || fail "record cycles: exit $?"
	split_check "record cycles (default period)" rec2 rec2.err
	"$P" report rec2 2>&1 | head -n 3 | sed 's/^/INFO: /'
fi

# ---- the same with Debian's arm64 perf, on the same emulated PMU ----
PERF_ROOT=$B/guest/perf
if want perf; then
	if [ ! -x "$PERF_ROOT/usr/bin/perf" ]; then
		skip "perf: Debian's arm64 perf was not fetched (scripts/arm64.sh setup: linux-perf:arm64)"
	else
		perf() {
			LD_LIBRARY_PATH=$PERF_ROOT/usr/lib/aarch64-linux-gnu:$PERF_ROOT/lib/aarch64-linux-gnu \
				PERL5LIB= PYTHONHOME= "$PERF_ROOT/usr/bin/perf" "$@"
		}
		for n in 1000000 9000000; do
			perf stat -x , -e instructions:u,cycles:u -- "$HW" loop $n >/dev/null 2>p$n.csv
		done
		p1=$(awk -F, '$3 ~ /^instructions/ { print $1 }' p1000000.csv)
		p2=$(awk -F, '$3 ~ /^instructions/ { print $1 }' p9000000.csv)
		info "perf stat: instructions:u $p1 (1M), $p2 (9M); pmcprof: ${i1:-?}, ${i2:-?}"
		if [ -n "$p1" ] && [ -n "$p2" ] && [ $((p2 - p1)) -eq 16000000 ]; then
			pass "perf: perf stat agrees: 9M - 1M iterations = 16,000,000 (constant $((p1 - 2000000)))"
		else
			fail "perf: perf stat's counts ($p1, $p2)"; show p1000000.csv
		fi
		perf record -q -e cycles -c 1000000 -o perf.data -- "$HW" split $SPLIT_A $SPLIT_B \
			>/dev/null 2>perf.err
		perf report -i perf.data --stdio --no-children --sort sym 2>/dev/null >perf.txt
		pa=$(awk '$NF == "spin_a" { sub(/%/, "", $1); print $1; exit }' perf.txt)
		pb=$(awk '$NF == "spin_b" { sub(/%/, "", $1); print $1; exit }' perf.txt)
		a=$(share spin_a rec1) b=$(share spin_b rec1)
		info "perf record -e cycles -c 1000000: spin_a ${pa:-?}%, spin_b ${pb:-?}%; pmcprof ${a:-?}%, ${b:-?}%"
		if [ -n "$pa" ] && [ -n "$a" ] && within "$pa" "$a" 1 && within "$pb" "$b" 1; then
			pass "perf: perf record's shares within 1 point of pmcprof's ($pa/$pb vs $a/$b)"
		else
			fail "perf: perf record's shares $pa/$pb, pmcprof's $a/$b"; show perf.err; show perf.txt
		fi
	fi
fi

# ---- call stacks on AArch64: libunwind's CFI walk and the x29 chain ----
# Every sample in spin_a or spin_b was called from main: main's inclusive
# share is all of it when the walk gets out of the leaf.
if want callgraph; then
	for mode in unwind fp; do
		"$P" record -q --call-graph $mode -e cycles@1000000 -o cg$mode -- "$HW" split 30000000 10000000 \
			>/dev/null 2>cg$mode.err
		m=$(incl main cg$mode) a=$(share spin_a cg$mode)
		info "callgraph $mode: main inclusive ${m:-?}%, spin_a self ${a:-?}%"
		if [ -n "$m" ] && within "$m" 100 2 && [ -n "$a" ] && within "$a" 75 3; then
			pass "callgraph $mode: spin_a/spin_b under main (main inclusive $m%)"
		else
			fail "callgraph $mode: main inclusive $m%, spin_a $a%"; "$P" report cg$mode 2>&1 | show /dev/stdin
		fi
	done
fi

# ---- the vdso: clock_gettime's time named in linux-vdso.so.1 ----
if want vdso; then
	"$P" record -q -e cycles@100000 -o vd -- "$B/tests/progs/vdso_loop" 1 >/dev/null 2>vd.err
	"$P" report --csv vd >vd.csv 2>&1
	v=$(awk -F, 'NR > 1 && $3 ~ /vdso/ && $2 !~ /^0x/ { print $2; exit }' vd.csv)
	if [ -n "$v" ]; then
		pass "vdso: samples in the vdso, named ($v)"
	else
		fail "vdso: no named vdso function"; show vd.csv
	fi
fi

# ---- libpmc's user-space read (the self-monitoring paper's protocol) ----
# kv KEY FILE: KEY's value in hw_selfread's key=value line
kv() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"; }
SR_N=1000000 SR_READS=20000
if want selfread; then
	ua=/proc/sys/kernel/perf_user_access
	if [ ! -w $ua ]; then
		skip "selfread: no $ua (kernel before 5.17)"
	else
		echo 1 >$ua && "$B/tests/progs/hw_selfread" instructions:u $SR_N $SR_READS >on.txt 2>&1
		echo 0 >$ua && "$B/tests/progs/hw_selfread" instructions:u $SR_N $SR_READS >off.txt 2>&1
		info "selfread, perf_user_access=1: $(cat on.txt)"
		info "selfread, perf_user_access=0: $(cat off.txt)"
		if [ "$(kv cap_user_rdpmc on.txt)" = 1 ] && [ "$(kv index on.txt)" -gt 0 ] &&
			[ "$(kv page_read on.txt)" = 0 ]; then
			pass "selfread: user access on: cap_user_rdpmc, index $(kv index on.txt), width $(kv pmc_width on.txt), seqlock read succeeds"
		else
			fail "selfread: user access on, but no user-page read"; show on.txt
		fi
		d=$(kv pe_delta on.txt) r=$(kv read_delta on.txt)
		if [ -n "$d" ] && [ $((d - 2 * SR_N)) -ge 0 ] && [ $((d - 2 * SR_N)) -le 1000 ] &&
			[ $((r - 2 * SR_N)) -ge 0 ] && [ $((r - 2 * SR_N)) -le 1000 ]; then
			pass "selfread: the user-space delta matches read()'s ($d vs $r for $((2 * SR_N)))"
		else
			fail "selfread: deltas $d (user page) and $r (read()) are not 2N + a few hundred"
		fi
		d=$(kv pe_delta off.txt)
		if [ "$(kv index off.txt)" = 0 ] && [ "$(kv page_read off.txt)" = -11 ] && [ -n "$d" ] &&
			[ $((d - 2 * SR_N)) -ge 0 ] && [ $((d - 2 * SR_N)) -le 1000 ]; then
			pass "selfread: user access off: index 0, the page read says EAGAIN, read() gives $d"
		else
			fail "selfread: fallback to read() with user access off"; show off.txt
		fi
		# two events in one kernel group, user access off: one read() of
		# PERF_FORMAT_GROUP reads both at one instant, so under icount
		# (cycles = instructions) their deltas are identical
		"$B/tests/progs/hw_selfread" instructions:u,cycles:u $SR_N 1000 >grp.txt 2>&1
		info "selfread, group of 2, perf_user_access=0: $(cat grp.txt)"
		d=$(kv pe_delta grp.txt) d1=$(kv pe_delta1 grp.txt)
		if [ -n "$d" ] && [ "$d" = "$d1" ] && [ $((d - 2 * SR_N)) -ge 0 ] &&
			[ $((d - 2 * SR_N)) -le 1000 ]; then
			pass "group: instructions and cycles in one read(): the same delta $d"
		else
			fail "group: group read deltas $d and $d1"; show grp.txt
		fi
		pn=$(kv pe_ns on.txt) rn=$(kv read_ns on.txt)
		if [ -n "$pn" ] && [ -n "$rn" ] && [ "$pn" -lt "$rn" ]; then
			pass "selfread: the user-space read costs less than read() ($pn vs $rn guest ns)"
		else
			fail "selfread: the user-space read ($pn ns) is not cheaper than read() ($rn ns)"
		fi
	fi
fi

# ---- more events than counters: multiplexed, scaled ----
# 8 instructions:u + cycles:u on 6 general counters and the cycle counter:
# each runs part of the time (running/enabled < 100%) and its value is
# scaled up to the whole; on a loop of constant rate the scaled values
# land within 2% of the exact count.
if want mux; then
	n=50000000 ev=instructions:u
	for k in 2 3 4 5 6 7 8; do ev=$ev,instructions:u; done
	"$P" stat -x , -e $ev,cycles:u -- "$HW" loop $n >mux.csv 2>&1
	truth=$((2 * n + 79545))
	bad=$(awk -F, -v t=$truth 'NF >= 5 { n++; d = $1 - t; if (d < 0) d = -d
		if (!($5 < 100 && $5 > 0) || d > t * 0.02) b++ } END { print (n == 9 ? b + 0 : "rows " n) }' mux.csv)
	if [ "$bad" = 0 ]; then
		pass "mux: 9 events on 7 counters: each ran part of the time, scaled within 2% of $truth"
	else
		fail "mux: multiplexed values ($bad)"; show mux.csv
	fi
	awk -F, '{ printf "INFO: mux: %s %s (running %s%%)\n", $3, $1, $5 }' mux.csv | head -n 3
fi

# ---- the first law with hardware events: no short read, no EINTR ----
# 20000 one-byte reads from /dev/zero, each checked by the program (exit 3
# on a short read or an error), sampled at cycles@100000 (~400 samples,
# many inside read()): kernel-mode samples go to the ring without a signal.
if want firstlaw; then
	"$HW" read 20000; alone=$?
	"$P" record -q -e cycles@100000 -o fl -- "$HW" read 20000 >fl.out 2>fl.err; prof=$?
	ns=$("$P" report --csv fl 2>/dev/null | awk -F, 'NR > 1 { s += $6 } END { print s + 0 }')
	if [ $alone = 0 ] && [ $prof = 0 ] && [ "$ns" -gt 100 ]; then
		pass "firstlaw: 20000 checked reads, exit 0 alone and profiled ($ns samples)"
	else
		fail "firstlaw: exit $alone alone, $prof profiled, $ns samples"; show fl.err
	fi
	"$P" report fl 2>&1 | sed -n '2,3p' | sed 's/^/INFO: firstlaw: /'
	# kernel frames: as root, the kernel part of the samples in read()
	if "$P" report fl 2>&1 | grep -q '\[k\] read_zero'; then
		pass "kernel frames: [k] read_zero under read() (kallsyms of the arm64 kernel)"
	else
		fail "kernel frames: no [k] read_zero"; "$P" report fl 2>&1 | show /dev/stdin
	fi
fi

# ---- a general-purpose counter's overflows (QEMU: at most the tick) ----
# QEMU raises a general-purpose counter's overflow interrupt only when it
# next looks (about 250/s here), so instructions@1000000 gets about a
# quarter of the samples its count implies: the trust check must say so
# (samples x period against the final count the collector records), and
# must not on the cycle counter, which overflows on time.
if want gpcap; then
	"$P" record -q -e instructions@1000000 -o gp -- "$HW" split 150000000 50000000 >/dev/null 2>&1
	"$P" report --header gp >gp.hdr 2>&1
	grep -E '^# event:|samples the counts imply' gp.hdr | sed 's/^/INFO: gpcap: /'
	if grep -q 'of the samples the counts imply are missing' gp.hdr &&
		grep -q '^# trust:.*flags:.*samples-lost' gp.hdr; then
		pass "gpcap: instructions@1000000 under-sampled, flagged samples-lost by the trust check"
	else
		fail "gpcap: the general-purpose counter's missing samples are not flagged"; show gp.hdr 40
	fi
	if [ -d rec1 ]; then
		if "$P" report --header rec1 2>&1 | grep -q 'samples the counts imply'; then
			fail "gpcap: cycles@1000000 (the cycle counter) flagged as under-sampled"
		else
			pass "gpcap: cycles@1000000 on the cycle counter is not flagged"
		fi
	fi
fi

# ---- the unit-test programs, on arm64 with a PMU (PMCPROF_ARM64_UNIT=1) ----
# One line each; their own FAIL lines indented below.
UNIT_LIST=$B/guest/out/unit-tests.txt
if [ -s "$UNIT_LIST" ] && want unit; then
	PMCPROF_PLUGIN_PATH=$B/plugins/.libs PMCPROF_BUILD=$B PMCPROF_SRC=$SRC
	export PMCPROF_PLUGIN_PATH PMCPROF_BUILD PMCPROF_SRC
	for u in $(cat "$UNIT_LIST"); do
		(cd "$T" && timeout 300 "$B/$u") >unit.out 2>&1
		rc=$?
		p=$(grep -c '^PASS: ' unit.out) f=$(grep -c '^FAIL: ' unit.out) k=$(grep -c '^SKIP: ' unit.out)
		if [ $f -eq 0 ] && [ $p -gt 0 ] && { [ $rc -eq 0 ] || [ $rc -eq 77 ]; }; then
			pass "unit ${u##*/}: $p passed, $k skipped"
		else
			fail "unit ${u##*/}: $p passed, $f failed, exit $rc"
			grep -E '^FAIL: ' unit.out | head -n 10 | sed 's/^/    | /'
		fi
		grep '^SKIP: ' unit.out | head -n 3 | sed 's/^SKIP: /INFO: unit skip: /'
	done
fi

# ---- libpfm4's arm64 names (the Cortex-A57 boot) ----
# libpfm4 picks its Arm PMU tables from /proc/cpuinfo's implementer and
# part; on QEMU's cortex-a57 model it has arm_cortex_a57's events, counted
# by the same emulated PMU.
if want pfm; then
	"$P" list --names 2>&1 | grep -E '^arm_[a-z0-9_]+::[A-Z_0-9]+$' | sort -u >pfm.txt
	"$P" list 2>&1 | sed -n '/^libpfm4 PMUs present/,/^$/p' | sed 's/^/INFO: pfm: /' | head -n 6
	info "pfm: $(wc -l <pfm.txt) arm events listed, e.g. $(grep -m 3 -E 'INST_RETIRED|CPU_CYCLES' pfm.txt | tr '\n' ' ')"
	ev=$(grep -m 1 '::INST_RETIRED$' pfm.txt)
	if [ -z "$ev" ]; then
		fail "pfm: libpfm4 lists no Arm INST_RETIRED on $(grep -m 1 'CPU part' /proc/cpuinfo)"
	else
		"$P" stat -x , -e "$ev:u" -- "$HW" loop 1000000 >pf1.csv 2>&1
		"$P" stat -x , -e "$ev:u" -- "$HW" loop 9000000 >pf9.csv 2>&1
		a=$(awk -F, 'NF >= 5 { print $1; exit }' pf1.csv) b=$(awk -F, 'NF >= 5 { print $1; exit }' pf9.csv)
		info "pfm: $ev:u $a (1M), $b (9M)"
		if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -eq 16000000 ]; then
			pass "pfm: $ev:u (libpfm4's name) counts exactly: 9M - 1M iterations = 16,000,000"
		else
			fail "pfm: $ev:u counts $a and $b"; show pf1.csv
		fi
	fi
	"$P" probe >probe57.txt 2>&1
	grep -E '^(CPU|Hypervisor|PMU):' probe57.txt | sed 's/^/INFO: pfm: /'
	# a real part's MIDR: KVM or a TCG model, which the guest cannot tell
	if grep -q '^Hypervisor: *QEMU (virtual machine' probe57.txt; then
		pass "probe: QEMU's virt machine with a Cortex-A57 MIDR is QEMU, not claimed KVM or TCG"
	else
		fail "probe: hypervisor on -cpu cortex-a57"; show probe57.txt
	fi
fi

rm -rf "$T"
exit 0
