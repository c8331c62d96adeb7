#!/bin/sh
# Peak memory of merging many thread profiles: 1000 files of the same
# 20k-context tree (threads running the same code), merged by one
# `pmcprof report`, against the peak for one of those files and for a
# single file holding 10x the contexts.  Memory should follow distinct
# contexts, not files: 1000 files should cost about what one file costs.
# (--no-cache: libdw's memory for the DWARF is included.)  With --by thread
# each thread keeps counts only for the contexts it has: 1000 threads that
# all ran the same 20k contexts hold 20M counts (threads x contexts is the
# data itself), while 1000 threads that each ran their own share of a
# 200k-context tree cost about what the merged tree costs.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
progs=$PMCPROF_BUILD/tests/progs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
if [ ! -x /usr/bin/time ]; then
	echo "skipped: /usr/bin/time not installed (Debian package time)"
	exit 0
fi

"$progs/ana_mkprofile" -o threads -F 1000 -b "$progs/ana_many" -S 20000:200000 || exit 1
"$progs/ana_mkprofile" -o big.pmcp -b "$progs/ana_many" -S 200000:2000000 || exit 1
"$progs/ana_mkprofile" -o disjoint -F 1000 -D -b "$progs/ana_many" -S 200000:2000000 || exit 1
# peak_kb ARGS...: maximum resident set of `pmcprof report ARGS`, in KiB
peak_kb() {
	/usr/bin/time -f '%M %e' -o time.txt "$PMCPROF_BUILD/pmcprof" report -q --no-cache --csv "$@" \
		>/dev/null || exit 1
	cat time.txt
}
set -- $(peak_kb threads/t0.pmcp); one=$1 one_s=$2
set -- $(peak_kb threads); all=$1 all_s=$2
set -- $(peak_kb big.pmcp); big=$1 big_s=$2
set -- $(peak_kb --by thread threads); bythr=$1 bythr_s=$2
set -- $(peak_kb disjoint); dis=$1 dis_s=$2
set -- $(peak_kb --by thread disjoint); disthr=$1 disthr_s=$2
awk -v one="$one" -v all="$all" -v big="$big" -v bythr="$bythr" -v dis="$dis" -v disthr="$disthr" \
    -v one_s="$one_s" -v all_s="$all_s" -v big_s="$big_s" -v bythr_s="$bythr_s" \
    -v dis_s="$dis_s" -v disthr_s="$disthr_s" 'BEGIN {
	printf "%-44s %10s %8s %10s\n", "input", "peak KiB", "seconds", "vs 1 file"
	printf "%-44s %10d %8.2f %9.2fx\n", "1 thread file, 20k contexts", one, one_s, 1
	printf "%-44s %10d %8.2f %9.2fx\n", "1000 thread files merged, 20k contexts", all, all_s, all / one
	printf "%-44s %10d %8.2f %9.2fx\n", "1000 thread files, --by thread", bythr, bythr_s, bythr / one
	printf "%-44s %10d %8.2f %9.2fx\n", "1 file, 200k contexts", big, big_s, big / one
	printf "%-44s %10d %8.2f %9.2fx\n", "1000 threads, own shares of 200k, merged", dis, dis_s, dis / one
	printf "%-44s %10d %8.2f %9.2fx\n", "1000 threads, own shares of 200k, --by thread", disthr, disthr_s, disthr / one
	ok = 1
	if (all > 2 * one) { print "FAILED: merging 1000 files took over 2x the memory of one"; ok = 0 }
	else print "merging 1000 files: memory within 2x of one file"
	if (disthr > 4 * dis) { print "FAILED: --by thread over 4x the merged run when threads differ"; ok = 0 }
	else print "--by thread, threads with their own contexts: within 4x of the merged run"
	exit !ok
}'
