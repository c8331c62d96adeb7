#!/bin/sh
# make stress: long stress, fault, fuzzing, overhead, sanitizer and valgrind
# runs of pmcprof, each printed as a table.  docs/reliability.md says what
# each row checks and holds the figures of a recorded run.
#
#   PMCPROF_BUILD, PMCPROF_SRC   a configured, built tree (make stress sets them)
#   STRESS_ONLY="a b"     sections to run (default all): scenarios faults
#                         fuzz overhead sanitizers valgrind
#   STRESS_SECONDS=60     the run at the highest sampling rate (seconds)
#   STRESS_FUZZ_RUNS=1000000   executions per fuzz target, but:
#   STRESS_REPORT_FUZZ_RUNS=10000000   executions of fuzz_report (the whole
#                         report path; about 1-3 hours on one idle core)
#   STRESS_REPS=5         interleaved runs per overhead figure (fastest kept)
#   STRESS_SAN_DIR=DIR    where the sanitizer builds go (default
#                         $PMCPROF_BUILD/stress-san; reused when built)
#   STRESS_KEEP=1         keep the work directory (printed at the end)
# Exit status 0 when every row is ok (or skipped), 1 otherwise.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
B=$PMCPROF_BUILD
S=$PMCPROF_SRC
P=$B/tests/progs
PMCPROF=$B/pmcprof
INSPECT=$P/rec_inspect
export PMCPROF_PLUGIN_PATH="$B/plugins/.libs" PMCPROF_CACHE_DIR=
ONLY=${STRESS_ONLY:-scenarios faults fuzz overhead sanitizers valgrind}
LONG=${STRESS_SECONDS:-60}
REPS=${STRESS_REPS:-5}
SAN=${STRESS_SAN_DIR:-$B/stress-san}
LIBDL=$P/.libs/rec_dllib.so
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-stress.XXXXXX")
mounted=
cleanup() {
	for m in $mounted; do umount "$m" 2>/dev/null; done
	if [ -n "${STRESS_KEEP:-}" ]; then echo "work directory kept: $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
status=0
root=0; [ "$(id -u)" = 0 ] && root=1

for f in "$PMCPROF" "$INSPECT" "$P/stress_threads" "$P/stress_procs" "$P/stress_dl" \
	"$P/stress_signals" "$P/ana_mkprofile" "$LIBDL"; do
	[ -e "$f" ] || { echo "run-stress: $f is not built (make check-build)"; exit 1; }
done
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
bad() { status=1; }

# Collector counters summed over a directory's profiles, from the report's
# header: "samples dropped throttled overflows unaccounted".  dropped is
# every dropped_* and lost; unaccounted = overflows the backend saw that
# are neither a sample nor counted as dropped.
counters() {
	"$PMCPROF" report -q --header --top 1 "$1" 2>/dev/null | awk '
	/^# collector:/ {
		for (i = 3; i <= NF; i++)
			if (split($i, kv, "=") == 2)
				v[kv[1]] += kv[2]
	}
	END {
		d = 0
		for (k in v)
			if (k ~ /^dropped_/ || k == "lost")
				d += v[k]
		u = v["overflows"] - v["samples"] - d + v["dropped_reentrant"] + v["lost"]
		top = "-"
		for (k in v)
			if ((k ~ /^dropped_/ || k == "lost") && v[k] > 0 && (top == "-" || v[k] > v[top]))
				top = k
		printf "%d %d %d %d %d %s\n", v["samples"], d, v["throttled"], v["overflows"], u, top
	}'
}

# The pids in a directory's profile names (CMD-HOST-PID-TID[.N].pmcp).
pids_of() {
	ls "$1" 2>/dev/null | sed -n 's/.*-\([0-9][0-9]*\)-[0-9][0-9]*\(\.[0-9]*\)\{0,1\}\.pmcp$/\1/p' |
		sort -u
}
n_profiles() { ls "$1" 2>/dev/null | grep -c '\.pmcp$'; }
# Temporary files left behind (.NAME.tmp.PID.SEQ): a crash mid-write.
n_temps() { ls -A "$1" 2>/dev/null | grep -c '^\..*\.tmp\.'; }

# ---------------------------------------------------------------------------
# Scenarios: the program's output must not change, nothing hangs, every
# process and thread writes its profile, and every loss is counted.
# scenario NAME TIMEOUT PROCS PROFILES EVENT CMD...
scenario() {
	name=$1 limit=$2 eprocs=$3 efiles=$4 ev=$5
	shift 5
	d=$tmp/scen-$name
	mkdir -p "$d"
	timeout "$limit" "$@" >"$d/plain.out" 2>"$d/plain.err"
	prc=$?
	t0=$(now)
	timeout "$limit" "$PMCPROF" record -e "$ev" -o "$d/prof" -- "$@" >"$d/prof.out" 2>"$d/prof.err"
	rc=$?
	secs=$(since "$t0")
	files=$(n_profiles "$d/prof")
	procs=$(pids_of "$d/prof" | wc -l)
	"$PMCPROF" report -q "$d/prof" >/dev/null 2>"$d/report.err"
	rrc=$?
	# shellcheck disable=SC2046
	set -- $(counters "$d/prof")
	samples=$1 dropped=$2 throttled=$3 overflows=$4 unacc=$5 top=$6
	same=no
	cmp -s "$d/plain.out" "$d/prof.out" && same=yes
	why=
	[ $rc -eq 124 ] && why="$why timeout;"
	[ $rc -ne "$prc" ] && why="$why status $rc (alone $prc);"
	[ "$procs" -ne "$eprocs" ] && why="$why processes;"
	[ "$files" -ne "$efiles" ] && why="$why profiles;"
	[ $rrc -ne 0 ] && why="$why report status $rrc;"
	[ "$(n_temps "$d/prof")" -ne 0 ] && why="$why temp files left;"
	[ $same = no ] && why="$why output differs;"
	# Nothing lost silently: 1 in 1000 overflows may race a thread's end.
	[ "$unacc" -gt $((overflows / 1000 + 2)) ] && why="$why $unacc overflows unaccounted;"
	"$PMCPROF" report -q --header --top 1 "$d/prof" 2>/dev/null | grep -q '^# collector:.*throttled=' ||
		why="$why report shows no throttled counter;"
	result=ok
	[ -n "$why" ] && { result="FAIL:$why"; bad; }
	printf '%-22s %-6s %9s %11s %10s %8s %9s %7s %5s\n' "$name" "${result%%:*}" \
		"$procs/$eprocs" "$files/$efiles" "$samples" "$dropped" "$throttled" "$secs" "$same"
	[ -n "$why" ] && echo "    $name:$why (logs in $d)"
	# A loss above 1% is named (it is counted, and report marks it HIGH).
	[ "$dropped" -gt $((samples / 100)) ] && notes="$notes  $name: $dropped dropped, mostly $top
"
	# For the notes below the table.
	eval "r_${name%%-*}_samples=$samples r_${name%%-*}_secs=$secs r_${name%%-*}_over=$overflows"
	eval "r_${name%%-*}_unacc=$unacc"
}

if want scenarios; then
	echo "== Scenarios ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r))"
	printf '%-22s %-6s %9s %11s %10s %8s %9s %7s %5s\n' scenario result processes profiles \
		samples dropped throttled seconds same
	zlib=$(ls /lib/x86_64-linux-gnu/libz.so.1 /usr/lib/x86_64-linux-gnu/libz.so.1 \
		/lib64/libz.so.1 2>/dev/null | head -1)
	rate0=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)
	notes=
	scenario threads-1000 300 1 1001 cpu-clock@100000 "$P/stress_threads" churn 1000 8 25
	scenario procs-200 300 200 399 cpu-clock@100000 "$P/stress_procs" tree 200
	scenario dlopen-10kHz 300 1 505 cpu-clock@100000 "$P/stress_dl" 4 3000 500 "$LIBDL" $zlib
	scenario signals-10kHz 300 1 10 cpu-clock@100000 "$P/stress_signals" 8 2000 20000
	scenario maxrate-"$LONG"s $((LONG * 3 + 60)) 1 3 cpu-clock@10000 \
		"$P/stress_threads" spin 2 "$LONG"
	scenario pagefaults-p1 $((LONG + 60)) 1 3 page-faults@1 \
		"$P/stress_threads" faults 2 $(((LONG + 3) / 4))
	rate1=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)
	printf '%s' "$notes"
	awk -v s="${r_maxrate_samples:-0}" -v t="${r_maxrate_secs:-1}" -v o="${r_maxrate_over:-0}" \
		-v u="${r_maxrate_unacc:-0}" -v r0="$rate0" -v r1="$rate1" 'BEGIN {
		printf "  maxrate: cpu-clock@10000 (10 us, the kernel'"'"'s floor for cpu-clock): %.1f k samples/s per thread;\n", s / t / 2 / 1000
		printf "  %d overflows, %d unaccounted; kernel.perf_event_max_sample_rate %s before, %s after\n", o, u, r0, r1
	}'
	echo
fi

# ---------------------------------------------------------------------------
# Faults: the program never notices; no profile is corrupt or half-written.
fault_row() {	# name result details
	printf '%-18s %-5s %s\n' "$1" "$2" "$3"
	[ "$2" = ok ] || [ "$2" = skip ] || bad
}

# Every profile in DIR reads (the report's exit status), none is a temp file.
all_read() {
	[ "$(n_temps "$1")" -eq 0 ] && { [ "$(n_profiles "$1")" -eq 0 ] ||
		"$PMCPROF" report -q "$1" >/dev/null 2>&1; }
}

# case_dir NAME [SUBDIR...]: d=$tmp/NAME, made with its SUBDIRs.
case_dir() {
	d=$tmp/$1
	shift
	mkdir -p "$d"
	for _s; do mkdir -p "$d/$_s"; done
}

# tmpfs_on NAME SIZE ROW WHAT: case_dir NAME with a tmpfs of SIZE on
# $d/mnt; where this cannot mount one (not root), false after a skipped
# row: "needs root to WHAT".
tmpfs_on() {
	case_dir "$1" mnt
	if [ $root = 1 ] && mount -t tmpfs -o size="$2" pmcprof-stress "$d/mnt" 2>/dev/null; then
		mounted="$mounted $d/mnt"
		return 0
	fi
	fault_row "$3" skip "needs root to $4"
	return 1
}

# unnoticed: record exited 0 ($rc) and the program wrote the same as
# alone ($d/out against $d/plain).
unnoticed() { [ "$rc" -eq 0 ] && cmp -s "$d/plain" "$d/out"; }

# Start `stress_procs fan` under record in the background; waits for the
# pid file.  fan_start DIR K T SECONDS
fan_start() {
	"$PMCPROF" record -e cpu-clock@1000000 -o "$1/prof" -- "$P/stress_procs" fan "$2" "$3" "$4" \
		"$1/pids" >"$1/out" 2>"$1/err" &
	fan_pid=$!
	for _ in $(seq 100); do grep -q ready "$1/pids" 2>/dev/null && return 0; sleep 0.05; done
	return 1
}

if want faults; then
	echo "== Faults"
	printf '%-18s %-5s %s\n' fault result details

	# SIGKILL of one process of the run, then of the run's only process.
	case_dir kill-child
	fan_start "$d" 4 2 2 && sleep 0.5
	victim=$(head -1 "$d/pids")
	kill -KILL "$victim" 2>/dev/null
	wait $fan_pid
	rc=$?
	n=$(n_profiles "$d/prof")
	v=$(ls "$d/prof" | grep -c -- "-$victim-")
	# The victim's watcher writes its profiles (collector/watch.c).
	if [ $rc -eq 0 ] && [ "$n" -eq 13 ] && [ "$v" -eq 3 ] && all_read "$d/prof" &&
	   grep -q 'children=4 exited=3 killed=1' "$d/out"; then r=ok; else r=FAIL; fi
	fault_row sigkill-child $r "1 of 4 children killed: $n profiles (expected 13: root + 4 x 3), $v of the victim (3), all read, no temp files"

	case_dir kill-root
	# In a subshell that reports the status: the shell would announce the kill.
	("$PMCPROF" record -e cpu-clock@100000 -o "$d/prof" -- "$P/stress_threads" spin 4 30 \
		>/dev/null 2>"$d/err"; echo $? >"$d/rc") 2>/dev/null &
	sleep 1
	# The program by name, not the launcher; not `pgrep -f`, which also
	# matches the watcher (it shares the program's memory).
	kill -KILL $(pgrep -x stress_threads) 2>/dev/null
	wait
	rc=$(cat "$d/rc")
	n=$(n_profiles "$d/prof")
	if [ $rc -eq 137 ] && [ "$n" -eq 5 ] && [ "$(n_temps "$d/prof")" -eq 0 ] &&
	   grep -q 'killed by signal 9' "$d/err"; then r=ok; else r=FAIL; fi
	fault_row sigkill-program $r "record exits $rc (137 expected), says so; $n profiles (5: main + 4, by the watcher), no temp files"

	# Disk full: a 24 KiB tmpfs (root), else a file-size limit.
	if tmpfs_on full 24k disk-full "mount a small tmpfs"; then
		"$P/stress_procs" fan 4 2 0.3 "$d/pids0" >"$d/plain" 2>/dev/null
		"$PMCPROF" record -e cpu-clock@1000000 -o "$d/mnt/prof" -- "$P/stress_procs" fan 4 2 0.3 \
			"$d/pids" >"$d/out" 2>"$d/err"
		rc=$?
		n=$(n_profiles "$d/mnt/prof")
		nf=$(grep -c 'No space left on device' "$d/err")
		if unnoticed && [ "$nf" -gt 0 ] && [ "$n" -gt 0 ] && all_read "$d/mnt/prof"; then
			r=ok; else r=FAIL; fi
		fault_row disk-full $r "24 KiB tmpfs, 5 processes x 3 threads: $n written, ENOSPC reported for $nf processes, all read, output same"
		umount "$d/mnt" && mounted=
	fi
	case_dir fsize
	"$P/stress_threads" churn 50 4 25 >"$d/plain" 2>/dev/null
	(ulimit -f 1; "$PMCPROF" record -e cpu-clock@100000 -o "$d/prof" -- "$P/stress_threads" churn 50 4 25 \
		>"$d/out" 2>"$d/err")
	rc=$?
	n=$(n_profiles "$d/prof")
	if unnoticed && grep -q 'File too large' "$d/err" && all_read "$d/prof"; then
		r=ok; else r=FAIL; fi
	fault_row rlimit-fsize $r "ulimit -f 1, 51 threads: status $rc, $n written (only those under the limit), EFBIG reported, no SIGXFSZ"

	# Read-only mid-run: the tmpfs is remounted read-only under 2000 threads.
	if tmpfs_on rofs 64m read-only "remount a tmpfs read-only"; then
		"$P/stress_threads" churn 2000 4 20 >"$d/plain" 2>/dev/null
		"$PMCPROF" record -e cpu-clock@200000 -o "$d/mnt/prof" -- "$P/stress_threads" churn 2000 4 20 \
			>"$d/out" 2>"$d/err" &
		rec=$!
		# Mid-run whatever the load (a fixed 0.5 s could come before the
		# output directory or the first profile, or after the last): once
		# 100 are written, the program stopped meanwhile (tests/remount-ro.sh).
		for _ in $(seq 1200); do
			[ "$(n_profiles "$d/mnt/prof")" -ge 100 ] && break
			sleep 0.05
		done
		ro=no
		sh "$S/tests/remount-ro.sh" "$d/mnt" "$(pgrep -x stress_threads -P $rec)" && ro=yes
		n0=$(n_profiles "$d/mnt/prof")
		wait $rec
		rc=$?
		n=$(n_profiles "$d/mnt/prof")
		nf=$(sed -n 's/^pmcprof: \([0-9]*\) profiles of process .* could not be written/\1/p' "$d/err")
		if [ $ro = yes ] && unnoticed && grep -q 'Read-only file system' "$d/err" &&
		   [ $((n + ${nf:-0})) -eq 2001 ] && all_read "$d/mnt/prof"; then r=ok; else r=FAIL; fi
		fault_row read-only $r "remounted ro ($ro) with $n0 written: $n written + ${nf:-0} counted as not written = 2001 threads, all read, no temp files"
		umount "$d/mnt" && mounted=
	fi

	# The output directory disappears mid-run.
	case_dir gone
	"$P/stress_threads" churn 2000 4 20 >"$d/plain" 2>/dev/null
	# Threads that opened the directory before it moved may still add to
	# it: remove what is there now, the rest after the run.
	(sleep 0.5; mv "$d/prof" "$d/prof.old" && rm -rf "$d/prof.old" 2>/dev/null) &
	"$PMCPROF" record -e cpu-clock@200000 -o "$d/prof" -- "$P/stress_threads" churn 2000 4 20 \
		>"$d/out" 2>"$d/err"
	rc=$?
	wait
	rm -rf "$d/prof.old"
	if unnoticed && [ ! -e "$d/prof" ] &&
	   grep -q "cannot write profiles into $d/prof: No such file or directory" "$d/err"; then
		r=ok; else r=FAIL; fi
	fault_row dir-deleted $r "directory removed after 0.5 s under 2000 threads: status $rc, output same, one clear line, not recreated"

	# The analyzer: 10 000 files, 100 of them truncated.
	case_dir tenk all good
	t0=$(now)
	"$P/ana_mkprofile" -o "$d/all" -b "$P/ana_work" -F 10000 -S 200:1000 >/dev/null 2>&1
	gen=$(since "$t0")
	i=0
	for f in $(ls "$d/all" | awk 'NR % 100 == 7'); do
		sz=$(stat -c %s "$d/all/$f")
		case $((i % 4)) in 0) cut=0 ;; 1) cut=20 ;; 2) cut=40 ;; *) cut=$((sz / 2)) ;; esac
		truncate -s $cut "$d/all/$f"
		i=$((i + 1))
	done
	t0=$(now)
	/usr/bin/time -f '%M' -o "$d/rss" "$PMCPROF" report -q --top 5 "$d/all" >"$d/out" 2>"$d/err"
	rc=$?
	secs=$(since "$t0")
	nerr=$(grep -c 'truncated\|not a pmcprof profile' "$d/err")
	# The same report over the good files only must give the same total.
	ls "$d/all" | awk 'NR % 100 != 7' | sed "s|^|$d/all/|" >"$d/list"
	# shellcheck disable=SC2046
	"$PMCPROF" report -q --top 5 $(cat "$d/list") >"$d/good.out" 2>/dev/null
	t_all=$(sed -n 's/^# event: .*: \([0-9]*\) samples$/\1/p' "$d/out")
	t_good=$(sed -n 's/^# event: .*: \([0-9]*\) samples$/\1/p' "$d/good.out")
	if [ $rc -eq 2 ] && [ "$nerr" -eq 100 ] && [ -n "$t_all" ] && [ "$t_all" = "$t_good" ] &&
	   awk -v s="$secs" 'BEGIN { exit !(s < 120) }'; then r=ok; else r=FAIL; fi
	fault_row analyzer-10k $r "10000 files (made in ${gen}s), 100 truncated: $nerr reported, status $rc, $t_all samples = the 9900 good ones' $t_good; ${secs}s, $(tail -1 "$d/rss" 2>/dev/null) KiB peak"
	echo
fi

# ---------------------------------------------------------------------------
if want fuzz; then
	runs=${STRESS_FUZZ_RUNS:-1000000}
	FUZZ_RUNS_fuzz_report=${STRESS_REPORT_FUZZ_RUNS:-10000000}
	export FUZZ_RUNS_fuzz_report
	echo "== Fuzzing ($runs executions per target, $FUZZ_RUNS_fuzz_report of fuzz_report; tests/fuzz/run-fuzz.sh)"
	PMCPROF_BUILD=$B sh "$S/tests/fuzz/run-fuzz.sh" "$runs" >"$tmp/fuzz.txt" 2>&1
	rc=$?
	cat "$tmp/fuzz.txt"
	if [ $rc -eq 77 ]; then
		echo "  (skipped: no fuzzer runtime)"
	elif [ $rc -ne 0 ]; then
		bad
	fi
	echo
fi

# ---------------------------------------------------------------------------
# Overhead at 1 kHz: the workload's own thread CPU time, profiled vs
# alone, fastest of REPS interleaved runs (other load only adds time).
if want overhead; then
	units=40000
	echo "== Overhead at 1 kHz (cpu-clock@1000000; stress_threads work, $units units in all; fastest of $REPS interleaved runs)"
	printf '%8s %10s %12s %9s %9s %12s\n' threads plain_ms profiled_ms overhead samples ns/sample
	for t in 1 2 16; do
		u=$((units / t))
		d=$tmp/over-$t
		mkdir -p "$d"
		: >"$d/plain"
		: >"$d/prof"
		for r in $(seq "$REPS"); do
			"$P/stress_threads" work $t $u 2>&1 >/dev/null | sed -n 's/^cpu_ms=//p' >>"$d/plain"
			rm -rf "$d/o$r"
			"$PMCPROF" record -e cpu-clock@1000000 -o "$d/o$r" -- "$P/stress_threads" work $t $u \
				2>&1 >/dev/null | sed -n "s/^cpu_ms=\(.*\)/\1 $r/p" >>"$d/prof"
		done
		p0=$(sort -n "$d/plain" | head -1)
		set -- $(sort -n -k1 "$d/prof" | head -1)
		p1=$1
		s=$(counters "$d/o$2" | cut -d' ' -f1)
		awk -v t=$t -v a="$p0" -v b="$p1" -v s="$s" 'BEGIN {
			printf "%8d %10.1f %12.1f %8.2f%% %9d %12.0f\n", t, a, b, 100 * (b - a) / a, s,
				(s > 0 ? (b - a) * 1e6 / s : 0) }'
	done
	echo
fi

# ---------------------------------------------------------------------------
# Sanitizers: the collector and the test programs built with ASan+UBSan,
# and with TSan, running the multi-threaded, fork/exec and dlopen records.
san_build() {	# name cflags: configure $SAN/name once, bring it up to date
	dir=$SAN/$1
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ]; then
		(cd "$dir" && "$S/configure" -q CFLAGS="-g -O1 -fno-omit-frame-pointer $2" \
			LDFLAGS="$2" >build.log 2>&1) || return 1
	fi
	# Not check-build: a statically linked test program cannot link a
	# sanitizer runtime.
	(cd "$dir" && make -j2 all tests/progs/rec_threads tests/progs/rec_fork tests/progs/rec_exit \
		tests/progs/rec_dllib.la tests/progs/stress_threads tests/progs/stress_procs \
		tests/progs/stress_dl tests/progs/stress_signals tests/progs/rec_hostile >>build.log 2>&1)
}

# san_run BUILD NAME PRELOAD OPTVAR PROFILES CMD...: one record under a
# sanitizer; reports go to log files, counted afterwards.  The program's
# status must be the one it has under the same sanitizer alone (TSan, for
# one, loses queued realtime signals by itself).
san_run() {
	sb=$1 name=$2 pre=$3 optvar=$4 eprof=$5
	shift 5
	d=$tmp/san-$(basename "$sb")-$name
	mkdir -p "$d"
	env "$optvar=$SAN_EXTRA" timeout 600 "$@" >"$d/alone.out" 2>&1
	arc=$?
	t0=$(now)
	env LD_PRELOAD="$pre" "$optvar=log_path=$d/san:$SAN_EXTRA" \
		UBSAN_OPTIONS="log_path=$d/ubsan:print_stacktrace=1" \
		timeout 600 "$sb/pmcprof" record -e cpu-clock@1000000 -o "$d/prof" -- "$@" \
		>"$d/out" 2>"$d/err"
	rc=$?
	n=$(n_profiles "$d/prof")
	errs=$(cat "$d"/san.* "$d"/ubsan.* 2>/dev/null |
		grep -c 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|WARNING: ThreadSanitizer')
	r=ok
	{ [ $rc -ne $arc ] || [ "$n" -lt "$eprof" ] || [ "$errs" -ne 0 ]; } && { r=FAIL; bad; }
	printf '%-10s %-16s %-5s %6s %9s %8s %7s\n' "$(basename "$sb")" "$name" "$r" "$rc/$arc" \
		"$n/$eprof" "$errs" "$(since "$t0")"
	[ "$errs" -ne 0 ] && cat "$d"/san.* "$d"/ubsan.* 2>/dev/null |
		grep -m 3 -A 4 'ERROR:\|runtime error:\|WARNING: ThreadSanitizer' | sed 's/^/    | /'
}

san_suite() {	# build-dir preload option-variable
	sb=$1 pre=$2 ov=$3 sp=$1/tests/progs
	san_run "$sb" threads "$pre" "$ov" 5 "$sp/stress_threads" work 4 2000
	san_run "$sb" churn-200 "$pre" "$ov" 201 "$sp/stress_threads" churn 200 8 25
	san_run "$sb" fork-exec "$pre" "$ov" 39 "$sp/stress_procs" tree 20
	san_run "$sb" fork-kinds "$pre" "$ov" 8 "$sp/rec_fork" "$sp/rec_exit"
	san_run "$sb" dlopen "$pre" "$ov" 103 "$sp/stress_dl" 2 300 100 "$sp/.libs/rec_dllib.so"
	san_run "$sb" signals "$pre" "$ov" 6 "$sp/stress_signals" 4 200 2000
	# The hostile programs of tests/integration/record_hostile.sh.
	# (ASan's redzones do not fit in 64 KiB: the program alone overflows.)
	san_run "$sb" small-stack "$pre" "$ov" 2 "$sp/rec_hostile" smallstack 256
	san_run "$sb" coroutines "$pre" "$ov" 1 "$sp/rec_hostile" coro
	san_run "$sb" own-altstack "$pre" "$ov" 1 "$sp/rec_hostile" altstack
	san_run "$sb" sigpipe "$pre" "$ov" 1 "$sp/rec_hostile" pipe
	san_run "$sb" exit-race-8 "$pre" "$ov" 9 "$sp/rec_hostile" exitrace 8
	san_run "$sb" siglongjmp "$pre" "$ov" 1 "$sp/rec_hostile" longjmp
	san_run "$sb" sigwait "$pre" "$ov" 1 "$sp/rec_hostile" sigwait
	# Written by the watcher (collector/watch.c), instrumented code on a
	# dead thread's thread pointer: ASan only (a TSan build has no
	# watcher, its runtime's state is per thread).
	case $sb in */asan) san_run "$sb" raw-exit-group "$pre" "$ov" 2 "$sp/rec_exit" rawexit7 200 ;; esac
	# (No seccomp rows: LeakSanitizer's exit check needs /proc and clone,
	# which the filters forbid; the program alone fails the same way.)
}

if want sanitizers; then
	echo "== Sanitizers (gcc; builds in $SAN)"
	printf '%-10s %-16s %-5s %6s %9s %8s %7s\n' build test result status profiles reports seconds
	echo "(status: profiled/alone; profiles: written/expected; reports: sanitizer reports)"
	# Known false positives, each for a reason outside pmcprof:
	# - ASan: a sampling signal that lands in the parent between vfork's
	#   return and ASan's unpoisoning of the stack the child used makes
	#   libunwind's (uninstrumented) sigprocmask buffer look poisoned;
	# - TSan: ld.so allocates and frees under its own locks, which TSan
	#   does not see.
	printf 'interceptor_via_lib:libunwind.so\ninterceptor_via_lib:libunwind-x86_64.so\n' >"$tmp/asan.supp"
	printf 'called_from_lib:ld-linux-x86-64.so.2\n' >"$tmp/tsan.supp"
	if san_build asan "-fsanitize=address,undefined"; then
		SAN_EXTRA=detect_leaks=1:suppressions=$tmp/asan.supp san_suite "$SAN/asan" "$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS
	else
		echo "asan       (build failed: $SAN/asan/build.log)"; bad
	fi
	# TSan: the runtime is not preloaded (the programs link it, so the
	# collector comes first and a thread's TSan state exists before the
	# collector's thread start runs), and its start-up must not install
	# handlers through the collector's sigaction before TSan is ready.
	if san_build tsan "-fsanitize=thread"; then
		SAN_EXTRA=suppressions=$tmp/tsan.supp:report_signal_unsafe=0:handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0:handle_sigtrap=0 \
			san_suite "$SAN/tsan" "" TSAN_OPTIONS
	else
		echo "tsan       (build failed: $SAN/tsan/build.log)"; bad
	fi
	echo
fi

# ---------------------------------------------------------------------------
# valgrind memcheck: report and view over test profiles, zero errors and
# nothing lost.
if want valgrind; then
	echo "== valgrind memcheck (errors, definitely+indirectly+possibly lost bytes)"
	printf '%-34s %-5s %7s %10s %6s\n' run result errors lost_bytes status
	if ! command -v valgrind >/dev/null; then
		echo "  (skipped: no valgrind)"
	else
		case_dir vg bad
		"$PMCPROF" record -e cpu-clock@100000 -o "$d/prof" -- "$P/stress_threads" work 4 3000 \
			>/dev/null 2>&1
		"$P/ana_mkprofile" -o "$d/many" -b "$P/ana_work" -F 50 -S 500:5000 >/dev/null 2>&1
		cp "$d"/prof/*.pmcp "$d/bad/"
		f=$(ls "$d"/bad/*.pmcp | head -1)
		truncate -s 100 "$f"
		# "STATUS COMMAND ARGS": the status the command must exit with.
		for run in "0 report $d/prof" "0 report --tree $d/prof" "0 report --lines $d/many" \
			"0 report --csv $d/many" "2 report $d/bad" "0 view --snapshot 120x40 $d/prof" \
			"0 view --snapshot 120x40 $d/many"; do
			want=${run%% *}
			run=${run#* }
			cmd=${run%% *}
			# shellcheck disable=SC2086
			valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
				--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
				"$B/pmcprof-$cmd" ${run#* } >/dev/null 2>"$d/vg.log"
			rc=$?
			e=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$d/vg.log" | tail -1)
			l=$(awk '/definitely lost:|indirectly lost:|possibly lost:/ { gsub(",", "", $4); s += $4 } END { print s + 0 }' "$d/vg.log")
			r=ok
			{ [ $rc -ne "$want" ] || [ "${e:-1}" -ne 0 ] || [ "$l" -ne 0 ]; } && { r=FAIL; bad; }
			printf '%-34s %-5s %7s %10s %6s\n' "$(echo "$run" | sed "s|$d/||g")" $r "${e:-?}" "$l" "$rc"
		done
	fi
	echo
fi

[ $status -eq 0 ] && echo "stress: all ok" || echo "stress: FAILURES above"
exit $status
