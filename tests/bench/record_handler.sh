#!/bin/sh
# What one sample costs inside the collector's handler, timed by the
# handler itself (the collector built with COLL_TIMING), for stacks of
# depth 10, 20 and 50, both unwinding modes, at 1 kHz and 10 kHz of
# cpu-clock.  "rearm" is the backend's pmc_group_rearm alone (perf_event:
# a ring-buffer drain, an ioctl only every 128 samples), "own" the handler
# without it: the collector's
# work.  Ratios are against the 2 us target (at depth 20).
: "${PMCPROF_BUILD:?}"
W="$PMCPROF_BUILD/tests/bench/record_work"
P="$PMCPROF_BUILD/pmcprof"
I="$PMCPROF_BUILD/tests/progs/rec_inspect"
C="$PMCPROF_BUILD/tests/bench/.libs/libpmcprof-collector-timed.so"
for f in "$W" "$P" "$I" "$C"; do
	[ -e "$f" ] || { echo "record_handler: $f not built (make check builds it)"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

printf '  %-6s %-6s %-7s %6s %9s %9s %9s %9s %9s %9s %9s\n' rate depth mode runs "p50 ns" "p99 ns" \
	"rearm p50" "own p50" "own p99" "p50/2us" "own/2us"
for rate in 1k 10k; do
	p=1000000; [ $rate = 10k ] && p=100000
	for depth in 10 20 50; do
		for mode in fp unwind; do
			rm -rf "$tmp/o"
			PMCPROF_COLLECTOR="$C" "$P" record -e cpu-clock@$p --call-graph=$mode -o "$tmp/o" \
				-- "$W" depth $depth 60000 >/dev/null 2>"$tmp/err" ||
				{ echo "record_handler: record failed"; cat "$tmp/err"; exit 1; }
			f=$(ls "$tmp"/o/*.pmcp)
			n=$("$I" counter "$f" handler_runs)
			p50=$("$I" counter "$f" handler_ns_p50)
			p99=$("$I" counter "$f" handler_ns_p99)
			r50=$("$I" counter "$f" rearm_ns_p50)
			o50=$("$I" counter "$f" own_ns_p50)
			o99=$("$I" counter "$f" own_ns_p99)
			awk -v rate=$rate -v d=$depth -v m=$mode -v n="$n" -v a="$p50" -v b="$p99" -v r="$r50" \
				-v o="$o50" -v o9="$o99" 'BEGIN {
				printf "  %-6s %-6s %-7s %6d %9d %9d %9d %9d %9d %9.2f %9.2f\n", rate, d, m, n, a, b, r, o, o9, a / 2000, o / 2000
			}'
		done
	done
done
echo "(histogram resolution 10 ns; the kernel's signal delivery is not included)"
