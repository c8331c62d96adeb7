#!/bin/sh
# Address space (VmSize) and resident memory (VmRSS) the collector adds per
# sampled thread and per process: rec_firstlaw `vm N` keeps N threads alive
# (each computed 20 ms under cpu-clock at 1 kHz), alone and under pmcprof
# record.  Per thread = ((rec33 - rec1) - (plain33 - plain1)) / 32.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
P="$PMCPROF_BUILD/pmcprof"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O1 -pthread -o "$tmp/fl" "$PMCPROF_SRC/tests/progs/rec_firstlaw.c" || exit 1
vm() {	# threads field [record]
	if [ -n "$3" ]; then
		rm -rf "$tmp/o"
		"$P" record -q -e cpu-clock@1000000 -o "$tmp/o" -- "$tmp/fl" vm "$1" 2>/dev/null
	else
		"$tmp/fl" vm "$1"
	fi | sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p"
}
for f in VmSize VmRSS; do
	p1=$(vm 1 $f) p33=$(vm 33 $f) r1=$(vm 1 $f rec) r33=$(vm 33 $f rec)
	awk -v f=$f -v p1="$p1" -v p33="$p33" -v r1="$r1" -v r33="$r33" 'BEGIN {
		per = ((r33 - r1) - (p33 - p1)) / 32
		printf "  %-7s kB: plain %d / %d, pmcprof %d / %d (1 / 33 threads): collector %.0f kB per thread, %d kB per process\n",
			f, p1, p33, r1, r33, per, r1 - p1 - per
	}'
done
