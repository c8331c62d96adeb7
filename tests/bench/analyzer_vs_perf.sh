#!/bin/sh
# `pmcprof report` against `perf report --stdio --no-children` on the same
# workload (tests/progs/ana_work split), sampled by each tool every 100 us
# of CPU time with call stacks.  Three figures: perf report on its
# perf.data; pmcprof report on that very run converted with perf2pmcp
# (same samples); pmcprof report on a run recorded by `pmcprof record`
# (skipped until the collector is built).  pmcprof is timed cold
# (--no-cache: every module's DWARF opened and decompressed) and warm (the
# symbol cache filled by an earlier report of the same binaries, as for any
# second look at a run).  Target: pmcprof >= 5x faster (warm).
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
progs=$PMCPROF_BUILD/tests/progs
units=${BENCH_UNITS:-60}
bench_in_tmp
export PMCPROF_CACHE_DIR="$tmp/symbols"

bench_need perf "Debian package linux-perf"
if ! perf record -q -g -e cpu-clock -c 100000 -o perf.data -- "$progs/ana_work" split "$units" >perf.log 2>&1; then
	echo "skipped: perf record failed:"
	sed 's/^/    /' perf.log | tail -3
	exit 0
fi
perf_s=$(best -q perf report -i perf.data --stdio --no-children) || exit 1
samples=$(perf report -i perf.data --stdio --no-children 2>/dev/null | sed -n 's/^# Samples: *\([0-9kKM.]*\).*/\1/p' | head -1)
same_s=""
if [ -x "$PMCPROF_BUILD/tests/bench/perf2pmcp" ]; then
	perf script -i perf.data --show-mmap-events >script.txt 2>/dev/null &&
	perf buildid-list -i perf.data >buildids.txt 2>/dev/null &&
	"$PMCPROF_BUILD/tests/bench/perf2pmcp" script.txt buildids.txt same.pmcp >/dev/null &&
	same_cold=$(best -q "$PMCPROF_BUILD/pmcprof" report --no-cache same.pmcp) &&
	same_s=$(best -q "$PMCPROF_BUILD/pmcprof" report same.pmcp)
fi
rec_s=""
if [ -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	"$PMCPROF_BUILD/pmcprof" record -e cpu-clock@100000 -o rec -- "$progs/ana_work" split "$units" \
		>rec.log 2>&1 && rec_cold=$(best -q "$PMCPROF_BUILD/pmcprof" report --no-cache rec) &&
		rec_s=$(best -q "$PMCPROF_BUILD/pmcprof" report rec)
fi
echo "workload: ana_work split $units, cpu-clock every 100 us, perf samples: $samples"
awk -v p="$perf_s" -v s="$same_s" -v sc="$same_cold" -v r="$rec_s" -v rc="$rec_cold" 'BEGIN {
	printf "%-52s %8s %10s\n", "command", "seconds", "perf / it"
	printf "%-52s %8.3f %9.1fx\n", "perf report --stdio --no-children", p, 1
	if (s != "") {
		printf "%-52s %8.3f %9.1fx\n", "pmcprof report, same samples (perf2pmcp), cold", sc, p / sc
		printf "%-52s %8.3f %9.1fx\n", "pmcprof report, same samples (perf2pmcp), warm", s, p / s
	} else print "pmcprof report, same samples: skipped (no perf2pmcp)"
	if (r != "") {
		printf "%-52s %8.3f %9.1fx\n", "pmcprof report, pmcprof record run, cold", rc, p / rc
		printf "%-52s %8.3f %9.1fx\n", "pmcprof report, pmcprof record run, warm", r, p / r
	} else print "pmcprof report on a pmcprof recording: skipped (pmcprof-record not built)"
	t = r != "" ? r : s
	if (t == "") exit 0
	if (p / t < 5) { print "FAILED: under 5x faster than perf report (warm)"; exit 1 }
	print "target >= 5x faster than perf report (warm cache): met"
}'
