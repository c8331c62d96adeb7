#!/bin/sh
# Attaching to a running process: what it costs the target and the
# profiler, and how big the result is, pmcprof against perf, in one loop.
# The target is record_work depth 30 (fixed work; it prints work_ms, its
# own thread's CPU time for the loop, which is where the kernel's sampling
# cost lands: the timer interrupt, the call chain, the stack copy).  It is
# started held by a shell that execs it once the profiler is attached, so
# every profiler sees the whole job.  cpu-clock at 1 kHz everywhere:
#   pmcprof -p        record -p, default call graph (CFI over the
#                     kernel's 8 KiB stack copy, kernel chain)
#   pmcprof -p fp     record -p --call-graph fp (the kernel's chains only)
#   perf -p           perf record -p (no call graph: its -p default)
#   perf -p -g        perf record -p -g (frame pointers, the kernel's chains)
#   pmcprof -a        record -a (every process, CFI)
#   pmcprof -a fp     record -a --call-graph fp
#   perf -a -g        perf record -a -g
# Figures: the target's slowdown (work_ms over the plain run of the same
# round), the profiler's own CPU time (user+sys, its whole tree), the
# output's size (profile directory vs perf.data); medians of ATT_REPS
# rounds (default 3), configurations alternating within each round.
# Goal: pmcprof's slowdown and CPU below perf's, its output at least 20x
# smaller than perf.data.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
bench_tools attach_vs_perf P T W
REPS=${ATT_REPS:-3}
ITERS=${ATT_ITERS:-500000}
bench_tmp att-bench "$ATT_KEEP"
bench_perf
all_ok=1
[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] || all_ok=0

configs="plain pm-p pm-p-fp"
[ $have_perf = 1 ] && configs="$configs perf-p perf-p-g"
[ $all_ok = 1 ] && configs="$configs pm-a pm-a-fp"
[ $all_ok = 1 ] && [ $have_perf = 1 ] && configs="$configs perf-a-g"

label() {
	case $1 in
	plain) echo "plain" ;; pm-p) echo "pmcprof -p" ;; pm-p-fp) echo "pmcprof -p fp" ;;
	perf-p) echo "perf -p" ;; perf-p-g) echo "perf -p -g" ;;
	pm-a) echo "pmcprof -a" ;; pm-a-fp) echo "pmcprof -a fp" ;; perf-a-g) echo "perf -a -g" ;;
	esac
}

# One run: appends "work_ms profiler_cpu_ms bytes samples" to $tmp/$1.
run() {
	rm -rf "$tmp/o" "$tmp/perf.data" "$tmp/go" "$tmp/t"
	sh -c 'while [ ! -e "$1" ]; do sleep 0.01; done; exec "$2" depth 30 "$3"' sh \
		"$tmp/go" "$W" "$ITERS" >"$tmp/w.out" 2>&1 &
	w=$!
	prof=""
	case $1 in
	pm-p) "$T" "$tmp/t" "$P" record -q -e cpu-clock@1000000 -p $w -o "$tmp/o" 2>"$tmp/err" & prof=$! ;;
	pm-p-fp) "$T" "$tmp/t" "$P" record -q --call-graph fp -e cpu-clock@1000000 -p $w -o "$tmp/o" 2>"$tmp/err" & prof=$! ;;
	perf-p) "$T" "$tmp/t" perf record -q -e cpu-clock -c 1000000 -p $w -o "$tmp/perf.data" 2>"$tmp/err" & prof=$! ;;
	perf-p-g) "$T" "$tmp/t" perf record -q -g -e cpu-clock -c 1000000 -p $w -o "$tmp/perf.data" 2>"$tmp/err" & prof=$! ;;
	pm-a) "$T" "$tmp/t" "$P" record -q -e cpu-clock@1000000 -a -o "$tmp/o" 2>"$tmp/err" & prof=$! ;;
	pm-a-fp) "$T" "$tmp/t" "$P" record -q --call-graph fp -e cpu-clock@1000000 -a -o "$tmp/o" 2>"$tmp/err" & prof=$! ;;
	perf-a-g) "$T" "$tmp/t" perf record -q -g -e cpu-clock -c 1000000 -a -o "$tmp/perf.data" 2>"$tmp/err" & prof=$! ;;
	esac
	[ -n "$prof" ] && sleep 0.5
	touch "$tmp/go"
	wait $w
	# -a runs until told; -p ones end with the target
	case $1 in *-a*) sleep 0.1; pkill -INT -P $prof 2>/dev/null ;; esac
	[ -n "$prof" ] && wait $prof
	wm=$(sed -n 's/^work_ms=//p' "$tmp/w.out")
	pc=0 bytes=0 n=0
	[ -s "$tmp/t" ] && pc=$(awk '{ print $1 + $2 }' "$tmp/t")
	case $1 in
	pm-*)
		bytes=$(cat "$tmp"/o/* 2>/dev/null | wc -c)
		n=$("$P" report --csv "$tmp/o" 2>/dev/null | awk -F, 'NR > 1 { s += $6 } END { print s + 0 }') ;;
	perf-*)
		bytes=$(stat -c %s "$tmp/perf.data")
		n=$(perf script -i "$tmp/perf.data" -G -F ip 2>/dev/null | wc -l) ;;
	esac
	echo "${wm:-0} $pc $bytes $n" >>"$tmp/$1"
}

for r in $(seq "$REPS"); do
	for c in $configs; do
		run "$c"
	done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(cut -d' ' -f1 "$tmp/plain" | median)
echo "target: record_work depth 30 $ITERS, cpu-clock at 1 kHz, median of $REPS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-15s %10s %9s %13s %12s %9s %12s\n' config work_ms slowdown profiler_ms output_kb samples bytes/sample
for c in $configs; do
	wm=$(cut -d' ' -f1 "$tmp/$c" | median)
	pc=$(cut -d' ' -f2 "$tmp/$c" | median)
	by=$(cut -d' ' -f3 "$tmp/$c" | median)
	n=$(cut -d' ' -f4 "$tmp/$c" | median)
	printf '%-15s %10.1f %8.1f%% %13.0f %12.1f %9.0f %12.1f\n' "$(label $c)" "$wm" \
		"$(echo "$wm $base" | awk '{ print ($2 > 0 ? 100 * ($1 / $2 - 1) : 0) }')" "$pc" \
		"$(echo "$by" | awk '{ print $1 / 1024 }')" "$n" \
		"$(echo "$by $n" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')"
	eval "wm_$(echo $c | tr - _)=$wm pc_$(echo $c | tr - _)=$pc by_$(echo $c | tr - _)=$by"
done
if [ $have_perf = 1 ]; then
	echo "size: perf -p -g / pmcprof -p = $(echo "$by_perf_p_g $by_pm_p" | awk '{ printf "%.1fx", $2 ? $1 / $2 : 0 }')," \
	     "perf -p / pmcprof -p = $(echo "$by_perf_p $by_pm_p" | awk '{ printf "%.1fx", $2 ? $1 / $2 : 0 }')" \
	     "${by_pm_a:+, perf -a -g / pmcprof -a = $(echo "$by_perf_a_g $by_pm_a" | awk '{ printf "%.1fx", $2 ? $1 / $2 : 0 }')} (goal: >= 20x)"
fi
