#!/bin/sh
# Profile size: bytes per sample of a pmcprof profile against perf.data, on
# the same samples.  perf records the workload (tests/bench/recurse: deep,
# recursive stacks) with `perf record -g -e cpu-clock`; perf2pmcp turns that
# very run (`perf script`) into a .pmcp.  Target: <= 8 bytes per sample with
# >= 10000 samples.  BENCH_SECONDS sets the run length (default 3).
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
bin=$PMCPROF_BUILD/tests/bench
secs=${BENCH_SECONDS:-3}
bench_in_tmp

bench_need perf "Debian package linux-perf"
if ! perf record -q -g -e cpu-clock -o perf.data -- "$bin/recurse" "$secs" >run.log 2>&1; then
	echo "skipped: perf record failed (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)):"
	sed 's/^/    /' run.log | tail -3
	exit 0
fi
perf script -i perf.data --show-mmap-events >script.txt 2>/dev/null &&
	perf buildid-list -i perf.data >buildids.txt 2>/dev/null || { echo "perf script failed"; exit 1; }
conv=$("$bin/perf2pmcp" -m command="$bin/recurse $secs" -m "argv=recurse $secs" \
	-m host="$(uname -n)" -m kernel="$(uname -r)" -m pid=0 -m tid=0 \
	-m cpu_model="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" \
	-m backend=perf_event -m call_graph=fp -m start_time="$(date +%s)" \
	script.txt buildids.txt run.pmcp) || { echo "perf2pmcp failed"; exit 1; }
"$PMCPROF_BUILD/pmcprof-dump" run.pmcp >/dev/null || { echo "the profile does not read back"; exit 1; }
zstd -q -19 -o perf.data.zst perf.data 2>/dev/null

set -- $conv	# samples N nodes N modules N bytes N
samples=$2 nodes=$4 pmcp=$8
perf_bytes=$(stat -c %s perf.data)
zst_bytes=$(stat -c %s perf.data.zst 2>/dev/null || echo 0)

echo "workload: recurse $secs s, $samples samples, $nodes CCT nodes"
awk -v s="$samples" -v p="$perf_bytes" -v z="$zst_bytes" -v m="$pmcp" 'BEGIN {
	printf "%-26s %10s %12s %10s\n", "format", "bytes", "bytes/sample", "vs perf"
	printf "%-26s %10d %12.2f %9.1fx\n", "perf.data", p, p / s, 1
	if (z > 0)
		printf "%-26s %10d %12.2f %9.1fx\n", "perf.data | zstd -19", z, z / s, p / z
	printf "%-26s %10d %12.2f %9.1fx\n", "pmcprof .pmcp", m, m / s, p / m
}'
if [ "$samples" -lt 10000 ]; then
	echo "note: fewer than 10000 samples; the 8 bytes/sample target needs a longer run"
elif [ $((pmcp)) -gt $((8 * samples)) ]; then
	echo "FAILED: over the target of 8 bytes/sample"
	exit 1
else
	echo "target <= 8 bytes/sample: met"
fi
