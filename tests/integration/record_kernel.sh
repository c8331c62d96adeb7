#!/bin/sh
# Kernel frames.  dd reading /dev/zero spends nearly all its time in the
# kernel: where the kernel may be sampled (root, CAP_PERFMON, paranoid <= 1)
# its profile must show kernel functions with perf's [k] mark under the
# syscall site, and the user-space read wrapper must no longer take that
# time; PMCPROF_KERNEL=leaf gives the [kernel] leaf instead, and
# PMCPROF_KERNEL=off (what an unprivileged user gets: exclude_kernel) and
# ':u' say in the report that kernel time was not sampled; the cputimer
# backend says it cannot see the kernel; ':k' samples only the kernel, and
# is refused for a user who may not sample it.  perf, when present, is run
# on the same workload for the kernel's share.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=

DD="dd if=/dev/zero of=/dev/null bs=64k count=150000"

# share FILE.csv PYTHON-EXPR-over-rows: prints the value
share() {
	python3 - "$1" "$2" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
k = sum(float(r['self_pct']) for r in rows if r['function'].startswith('[k] '))
leaf = sum(float(r['self_pct']) for r in rows if r['function'] == '[kernel]')
read = sum(float(r['self_pct']) for r in rows if r['function'] in ('__libc_read', 'read', '__GI___libc_read'))
names = ' '.join(r['function'].replace(' ', '_') for r in rows)
print(eval(sys.argv[2]))
EOF
}

rec() {	# label, event-or-empty, env..., then the run
	label=$1; ev=$2; shift 2
	rm -rf "$label"	# record refuses to add to an existing run
	env "$@" "$PMCPROF" record -o "$label" ${ev:+-e "$ev"} -- $DD >"$label.out" 2>&1
	st=$?
	"$PMCPROF" report --csv "$label" >"$label.csv" 2>"$label.err"
	"$PMCPROF" report --header "$label" >"$label.txt" 2>&1
	return $st
}

# cputimer sees no kernel: it says so (in the profile and the report).
rec ct CPUTIME
check "cputimer: record ok" test $st -eq 0
contains "cputimer: profile says kernel_frames: charged_to_user" "kernel_frames: charged_to_user" ct.txt
contains "cputimer: report notes that kernel time is charged to user code" \
	"cannot see the kernel: time spent in the kernel" ct.txt

if ! perf_event_usable cpu-clock:u; then
	skip "kernel frames: perf_event cpu-clock:u unusable here ($(head -c 200 probe.err))"
	exit 0
fi

kernel_ok=yes
if ! kernel_sampled; then
	kernel_ok=
	skip "kernel frames: not root and perf_event_paranoid is $paranoid"
else
	rec kc cpu-clock
	check "chain: record ok" test $st -eq 0
	contains "chain: profile says kernel_frames: callchain" "kernel_frames: callchain" kc.txt
	k=$(share kc.csv k); read=$(share kc.csv read)
	names=$(share kc.csv names)
	case " $names " in
	*"[k]_read_zero"* | *read_iter* | *clear_user* | *iov_iter* | *"[k]_do_syscall_64"* | *entry_SYSCALL*)
		pass "chain: kernel read path functions shown with [k]" ;;
	*) fail "chain: no kernel read-path function with [k] in: $names" ;;
	esac
	if python3 -c "import sys; sys.exit(not ($k > 50 and $read < 30))"; then
		pass "chain: kernel $k% self, the read wrapper $read% (was ~85% before kernel frames)"
	else
		fail "chain: kernel $k% self, the read wrapper $read%"
		sed 's/^/    | /' kc.txt | head -40
	fi
	# The kernel frames sit under the syscall site: read_zero's callers
	# lead back to dd's user code (libc's read wrapper).
	"$PMCPROF" report --tree=bottom-up --no-header --width 200 kc >kc.tree 2>/dev/null
	if awk '/\[k\] read_zero/ { on = 1 } on && /__libc_read|__GI___libc_read|[^_]read / { ok = 1 } END { exit !ok }' kc.tree; then
		pass "chain: [k] read_zero is called from the user-space read wrapper"
	else
		fail "chain: no user caller under [k] read_zero"
		sed 's/^/    | /' kc.tree | head -30
	fi
	"$PMCPROF" report --collapsed kc >kc.folded 2>/dev/null
	if grep -q ';do_syscall_64_\[k\]' kc.folded; then pass "chain: collapsed stacks carry _[k] frames"
	else fail "chain: collapsed stacks without _[k] frames"; sed 's/^/    | /' kc.folded | head; fi

	"$PMCPROF" view --snapshot=100x14 kc >kc.view 2>&1
	contains "chain: view shows [k] rows" "\[k\] " kc.view
	"$PMCPROF" diff --header kc kc >kc.diff 2>&1
	contains "chain: diff shows [k] rows" "\[k\] " kc.diff

	# Against perf on the same workload: both put most of the time in the kernel.
	if command -v perf >/dev/null && perf record -q -e cpu-clock -g -o perf.data -- $DD >/dev/null 2>&1 &&
		perf report -i perf.data --no-children --stdio -g none --sort sym 2>/dev/null >perf.txt; then
		pk=$(awk '/\[k\]/ { gsub("%", "", $1); s += $1 } END { print s + 0 }' perf.txt)
		if python3 -c "import sys; sys.exit(not ($pk > 50 and $k > 50))"; then
			pass "perf agrees: kernel share perf $pk%, pmcprof $k%"
		else
			fail "perf: kernel share perf $pk%, pmcprof $k%"
		fi
	else
		skip "perf: not usable here"
	fi

	# A kallsyms that does not fit (another kernel's build-id): the kernel
	# symbols record kept name the frames; without them, warn and name
	# addresses.
	[ -r /sys/kernel/notes ] || skip "other kernel: /sys/kernel/notes unreadable, no build-id recorded"
	[ -r /sys/kernel/notes ] && printf '\004\000\000\000\024\000\000\000\003\000\000\000GNU\000AAAAAAAAAAAAAAAAAAAA' >notes
	if [ -r /sys/kernel/notes ]; then
		PMCPROF_KERNEL_NOTES=$PWD/notes "$PMCPROF" report --csv kc >kck.csv 2>kck.err
		check "other kernel: named from the kernel symbols record kept" grep -q 'read_zero' kck.csv
		rm -rf kc/symbols
		PMCPROF_KERNEL_NOTES=$PWD/notes "$PMCPROF" report --csv kc >kcx.csv 2>kcx.err
		contains "other kernel: warned" "recorded on another kernel" kcx.err
		if grep -q '^[^,]*,\[k\] 0xffff' kcx.csv && ! grep -q 'read_zero' kcx.csv; then
			pass "other kernel: kernel frames shown as [k] ADDRESS, not misnamed"
		else
			fail "other kernel: kernel frames named anyway"
		fi
	fi

	# ':k': kernel mode only; the top row is a kernel function.
	rec kk cpu-clock:k
	check "':k': record ok" test $st -eq 0
	contains "':k': the event used keeps :k" "CPU-CLOCK:k" kk.txt
	kk=$(share kk.csv k)
	if python3 -c "import sys; sys.exit(not ($kk > 80))"; then
		pass "':k': $kk% of the samples are in [k] functions"
	else
		fail "':k': only $kk% in [k] functions"
	fi

	# PMCPROF_KERNEL=leaf: kernel-mode samples end in [kernel].
	rec kl cpu-clock PMCPROF_KERNEL=leaf
	leaf=$(share kl.csv leaf); kl=$(share kl.csv k)
	if python3 -c "import sys; sys.exit(not ($leaf > 50 and $kl == 0))"; then
		pass "leaf: [kernel] leaf has $leaf% self, no kernel names"
	else
		fail "leaf: [kernel] $leaf%, [k] $kl%"
	fi
	contains "leaf: report notes the missing chains" "kernel-mode samples end in a" kl.txt
fi

# Not permitted (exclude_kernel, simulated with PMCPROF_KERNEL=off, or ':u'):
# cpu-clock does not sample in kernel mode at all; the report says so.
# (Unprivileged, plain cpu-clock becomes cpu-clock:u: only ':u' then;
# record_paranoid.sh tests that.)
for mode in ${kernel_ok:+off} u; do
	if [ $mode = off ]; then rec ko cpu-clock PMCPROF_KERNEL=off; else rec ko cpu-clock:u; fi
	check "$mode: record ok" test $st -eq 0
	contains "$mode: profile says kernel_frames: excluded" "kernel_frames: excluded" ko.txt
	contains "$mode: report notes that kernel time was not sampled" \
		"time in the kernel was not sampled" ko.txt
	ko=$(share ko.csv "k + leaf")
	check "$mode: no kernel rows ($ko%)" python3 -c "import sys; sys.exit(not ($ko == 0))"
	contains "$mode: no kernel-mode samples counted" "kernel_samples=0" ko.txt
done

# An unprivileged user asking for ':k' is refused, not silently given CPUTIME.
if [ "$(id -u)" -eq 0 ] && [ "$paranoid" -gt 1 ] && command -v setpriv >/dev/null; then
	mkdir -m 777 nobody
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMCPROF" record -o nobody/o -e cpu-clock:k -- true >nk.out 2>&1
	check "unprivileged ':k': refused (exit 2)" test $? -eq 2
	contains "unprivileged ':k': says why" "':k' samples only the kernel" nk.out
else
	skip "unprivileged ':k': needs root at perf_event_paranoid 2 and setpriv"
fi
