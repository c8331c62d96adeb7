#!/bin/sh
# Analyzer throughput: `pmcprof report --csv` (read, merge, symbolize every
# distinct address with libdw, aggregate, write every row) on synthetic
# profiles of 100k distinct calling contexts over the 512 functions of
# tests/progs/ana_many.  Peer: `pmcprof dump` of the same file (read and
# print the raw tree, no symbols), measured in the same run.  Timed cold
# (--no-cache: libdw opens and walks the DWARF) and warm (symbol cache).
# Targets: >= 5M samples/s at 10M samples; <= 1 s end to end for 1M samples
# (both cold).  The JSON rows (written by libyajl's streaming generator)
# are timed against the CSV of the same rows, and the peak memory of the
# whole tree as JSON against the same tree as text: streaming output must
# not grow with the rows (target: JSON's peak within 10% of text's).
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
progs=$PMCPROF_BUILD/tests/progs
bench_in_tmp
export PMCPROF_CACHE_DIR="$tmp/symbols"


"$progs/ana_mkprofile" -o 10m.pmcp -b "$progs/ana_many" -S 100000:10000000 || exit 1
"$progs/ana_mkprofile" -o 1m.pmcp -b "$progs/ana_many" -S 100000:1000000 || exit 1
r10=$(best "$PMCPROF_BUILD/pmcprof" report -q --no-cache --csv 10m.pmcp) || exit 1
r1=$(best "$PMCPROF_BUILD/pmcprof" report -q --no-cache --csv 1m.pmcp) || exit 1
t10=$(best "$PMCPROF_BUILD/pmcprof" report -q --no-cache --tree --depth 3 10m.pmcp) || exit 1
w10=$(best "$PMCPROF_BUILD/pmcprof" report -q --csv 10m.pmcp) || exit 1
j10=$(best "$PMCPROF_BUILD/pmcprof" report -q --json 10m.pmcp) || exit 1
# peak resident memory (KiB) of the whole tree, as text and as JSON
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
mt=$(peak "$PMCPROF_BUILD/pmcprof" report -q --tree --min-pct 0 10m.pmcp)
mj=$(peak "$PMCPROF_BUILD/pmcprof" report -q --tree --min-pct 0 --json 10m.pmcp)
d10=""
if [ -x "$PMCPROF_BUILD/pmcprof-dump" ]; then
	d10=$(best "$PMCPROF_BUILD/pmcprof-dump" 10m.pmcp) || exit 1
fi
echo "profiles: 100000 contexts, 512 functions x 4 addresses, $(stat -c %s 10m.pmcp) bytes"
awk -v r10="$r10" -v r1="$r1" -v t10="$t10" -v w10="$w10" -v d10="$d10" -v j10="$j10" \
	-v mt="$mt" -v mj="$mj" 'BEGIN {
	printf "%-40s %8s %14s %9s\n", "command", "seconds", "samples/s", "vs dump"
	row("report --csv, 10M samples, cold", r10, 1e7)
	row("report --csv, 10M samples, warm cache", w10, 1e7)
	row("report --json, 10M samples, warm cache", j10, 1e7)
	row("report --tree --depth 3, 10M, cold", t10, 1e7)
	row("report --csv, 1M samples, cold", r1, 1e6)
	if (d10 != "")
		row("dump (raw read + print), 10M samples", d10, 1e7)
	printf "JSON rows vs CSV rows (warm): %.2fx the time\n", j10 / w10
	printf "peak memory, whole tree: text %.1f MiB, JSON %.1f MiB (%.2fx)\n", mt / 1024, mj / 1024, mj / mt
	ok = 1
	if (mj > 1.1 * mt) { print "FAILED: JSON output grows memory over 10% beyond text"; ok = 0 }
	else print "target JSON peak memory within 10% of the text report: met"
	if (1e7 / r10 < 5e6) { print "FAILED: under 5M samples/s"; ok = 0 }
	else print "target >= 5M samples/s: met"
	if (r1 > 1.0) { print "FAILED: over 1 s for 1M samples"; ok = 0 }
	else print "target <= 1 s end to end for 1M samples: met"
	exit !ok
}
function row(name, s, n) {
	printf "%-40s %8.3f %14.0f %9s\n", name, s, n / s, d10 != "" ? sprintf("%.1fx", s / d10) : "-"
}'
