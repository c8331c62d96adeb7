#!/bin/sh
# What keeping the names of the sampled addresses costs (record's last step,
# `pmcprof archive`; docs/analyzer.md, "Kept names"): the size of
# DIR/symbols against the profile directory's, and the time the step adds
# to record's wall time, on two runs: `g++ -O2 -c` of a header-heavy file
# (report_gpp.sh's; cc1plus is 30 MB and stripped, libc has DWARF where
# libc6-dbg is installed) and record_work with 64 threads.  Each is recorded
# with --no-archive, then archived by hand: with an empty symbol cache (the
# first record of a program) and with the cache that run filled (the next
# ones).  Targets: size <= max(10% of the profile directory, 1 MiB); time
# <= 5% of record's wall time.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
bench_tools archive_cost P W
bench_need g++
bench_in_tmp
sed -n '/^cat >heavy.cc/,/^CC$/p' "$PMCPROF_SRC/tests/bench/report_gpp.sh" | sed '1d;$d' >heavy.cc
export PMCPROF_CACHE_DIR="$tmp/cache"

now() { date +%s.%N; }
bytes() { du -sb "$1" 2>/dev/null | cut -f1; }

# measure NAME CMD...: record CMD (--no-archive), archive it cold and warm
measure() {
	name=$1
	shift
	t0=$(now)
	"$P" record -q --no-archive -e cpu-clock@1000000 -o "$name" -- "$@" >/dev/null 2>&1 ||
		{ echo "$name: record failed"; return; }
	t1=$(now)
	prof=$(bytes "$name")
	rm -rf cache
	t2=$(now)
	"$P" archive -q "$name" >/dev/null
	t3=$(now)
	kept=$(bytes "$name/symbols")
	rm -rf "$name/symbols"
	t4=$(now)
	"$P" archive -q "$name" >/dev/null
	t5=$(now)
	awk -v n="$name" -v rec="$(echo "$t1 - $t0" | bc)" -v cold="$(echo "$t3 - $t2" | bc)" \
		-v warm="$(echo "$t5 - $t4" | bc)" -v prof="$prof" -v kept="$kept" 'BEGIN {
		goal = prof / 10 > 1048576 ? prof / 10 : 1048576
		printf "%-8s %9.2f %10.0f %10.0f %6.1f%% %6s %8.3f %5.1f%% %8.3f %5.1f%% %s\n", n, rec,
			prof / 1024, kept / 1024, 100 * kept / prof, kept <= goal ? "met" : "missed",
			cold, 100 * cold / rec, warm, 100 * warm / rec,
			cold <= rec / 20 ? "met" : (warm <= rec / 20 ? "met warm" : "missed")
	}'
}

echo "kept names (DIR/symbols) against the profile directory (KiB) and record's wall time (s)"
printf "%-8s %9s %10s %10s %7s %6s %8s %6s %8s %6s %s\n" run "record s" "profile" "kept" \
	"share" "size" "cold s" "of rec" "warm s" "of rec" "time"
measure gpp g++ -O2 -c heavy.cc -o heavy.o
measure threads64 "$W" threads 64 300
echo "size goal: <= max(10% of the profile directory, 1 MiB); time goal: <= 5% of record"
