#!/bin/sh
# The header's duration is the run's wall-clock span: examples/hotspots runs
# three threads of 0.5 s CPU time each, so the run's duration must be at
# least 0.5 s and at most the wall time `pmcprof record` took as measured
# here (a sum over threads would be about three times the span).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ] || [ ! -x "$PMCPROF_BUILD/examples/hotspots" ]; then
	skip "pmcprof-record or examples/hotspots not built"
	exit 0
fi
t0=$(date +%s.%N)
if ! "$PMCPROF" record -e cpu-clock -o rec -- "$PMCPROF_BUILD/examples/hotspots" 0.5 >rec.log 2>&1; then
	fail "pmcprof record hotspots"
	sed 's/^/    | /' rec.log
	exit 0
fi
t1=$(date +%s.%N)
"$PMCPROF" report --header rec >rep.txt
check "report exits 0" test $? -eq 0
contains "three thread profiles" "(3 files)" rep.txt
dur=$(sed -n 's/.*duration: \([0-9.]*\) s wall clock.*/\1/p' rep.txt)
check "duration ${dur:-?} s: at least one thread's 0.5 s, at most the $(echo "$t0 $t1" |
	awk '{ printf "%.3f", $2 - $1 }') s record took" \
	awk -v d="${dur:--1}" -v a="$t0" -v b="$t1" 'BEGIN { exit !(d >= 0.5 && d <= b - a) }'
