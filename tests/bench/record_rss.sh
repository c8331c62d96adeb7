#!/bin/sh
# Resident memory the collector adds per sampled thread: record_work runs
# 1 and 33 threads through 64 call paths each (cpu-clock at 10 kHz) and
# reports VmRSS while they are all alive, alone and under pmcprof record.
# Per thread = ((rec33 - rec1) - (plain33 - plain1)) / 32.  Target: <= 4 MiB.
: "${PMCPROF_BUILD:?}"
W="$PMCPROF_BUILD/tests/bench/record_work"
P="$PMCPROF_BUILD/pmcprof"
for f in "$W" "$P"; do
	[ -x "$f" ] || { echo "record_rss: $f not built (make check builds it)"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

rss() {	# threads [record] [field]
	if [ -n "$2" ]; then
		rm -rf "$tmp/o"
		"$P" record -e cpu-clock@100000 -o "$tmp/o" -- "$W" threads "$1" 150 2>/dev/null
	else
		"$W" threads "$1" 150
	fi | sed -n "s/^${3:-rss_kb}=//p"
}
p1=$(rss 1) p33=$(rss 33) r1=$(rss 1 rec) r33=$(rss 33 rec)
awk -v p1="$p1" -v p33="$p33" -v r1="$r1" -v r33="$r33" 'BEGIN {
	per = ((r33 - r1) - (p33 - p1)) / 32
	printf "  VmRSS kB        1 thread  33 threads\n"
	printf "  plain         %10d  %10d\n", p1, p33
	printf "  pmcprof       %10d  %10d\n", r1, r33
	printf "  collector per thread: %.0f kB (%.3f x the 4 MiB target); per process: %d kB\n",
		per, per / 4096, r1 - p1 - per
}'
# The address space (VmSize: what RLIMIT_AS counts), the same way.
p1=$(rss 1 "" vm_kb) p33=$(rss 33 "" vm_kb) r1=$(rss 1 rec vm_kb) r33=$(rss 33 rec vm_kb)
awk -v p1="$p1" -v p33="$p33" -v r1="$r1" -v r33="$r33" 'BEGIN {
	per = ((r33 - r1) - (p33 - p1)) / 32
	printf "  VmSize kB       1 thread  33 threads\n"
	printf "  plain         %10d  %10d\n", p1, p33
	printf "  pmcprof       %10d  %10d\n", r1, r33
	printf "  collector address space per thread: %.0f kB; per process: %d kB\n", per, r1 - p1 - per
}'
