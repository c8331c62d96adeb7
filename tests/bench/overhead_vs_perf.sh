#!/bin/sh
# CPU overhead of pmcprof record against perf record -g, side by side in
# one run, on three workloads: lua5.4 on tests/bench/work.lua (one thread,
# a Debian interpreter), zstd -T2 on generated text (two worker threads,
# a Debian binary) and record_work depth 30 (ours).  Event cpu-clock at
# 1 kHz and 10 kHz for both (pmcprof -e cpu-clock@PERIOD with its default
# call graph, libunwind; perf -g, frame pointers walked in the kernel);
# pmcprof twice: with its default realtime signal (pmcprof-*) and with
# --signal 5 (trap-*: the kernel's synchronous SIGTRAP, no interrupt per
# sample).
# The figure is user+sys of the whole process tree (the profiler, the
# program and its threads) over the plain run of the same round; runs
# alternate, the median of OVH_REPS rounds (default 5) is shown, with
# the load average.  "us/sample" is the extra CPU per sample taken.
# Goal: pmcprof's overhead below perf's at both rates on every workload.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
bench_tools overhead_vs_perf P I T W
REPS=${OVH_REPS:-5}
bench_tmp ovh-bench "$OVH_KEEP"
bench_perf
bench_text "$tmp/data.txt"	# zstd's input

workloads=""
command -v lua5.4 >/dev/null && workloads="$workloads lua"
command -v zstd >/dev/null && workloads="$workloads zstd"
workloads="$workloads work"
cmd() {	# workload
	case $1 in
	lua) echo "lua5.4 $PMCPROF_SRC/tests/bench/work.lua 16" ;;
	zstd) echo "zstd -q -f -T2 -6 $tmp/data.txt -o $tmp/data.zst" ;;
	work) echo "$W depth 30 50000" ;;
	esac
}
configs="plain pmcprof-1k trap-1k pmcprof-10k trap-10k"
[ $have_perf = 1 ] && configs="plain pmcprof-1k trap-1k perf-1k pmcprof-10k trap-10k perf-10k"

# One run of config c on workload w: appends "cpu_ms samples" to $tmp/w.c.
run() {	# workload config
	c=$(cmd "$1")
	s=0
	case $2 in
	plain) $T "$tmp/t" $c >/dev/null 2>&1 ;;
	pmcprof-* | trap-*)
		p=1000000; [ "${2#*-}" = 10k ] && p=100000
		sig=""; [ "${2%-*}" = trap ] && sig="--signal 5"
		rm -rf "$tmp/o"
		$T "$tmp/t" "$P" record $sig -e cpu-clock@$p -o "$tmp/o" -- $c >/dev/null 2>&1
		for f in "$tmp"/o/*.pmcp; do
			s=$((s + $("$I" counter "$f" samples)))
		done ;;
	perf-*)
		f=1000; [ "$2" = perf-10k ] && f=10000
		$T "$tmp/t" perf record -q -g -e cpu-clock -F $f -o "$tmp/perf.data" -- $c >/dev/null 2>&1
		s=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }') ;;
	esac
	echo "$(awk '{ print $1 + $2 }' "$tmp/t") ${s:-0}" >>"$tmp/$1.$2"
}

bench_rounds

echo "CPU (user+sys of the process tree), median of $REPS alternating rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-6s %-12s %9s %9s %9s %10s %10s\n' workload config cpu_ms overhead samples us/sample "ovh/perf"
for w in $workloads; do
	for c in $configs; do
		# Per round: overhead against that round's plain run.
		paste "$tmp/$w.$c" "$tmp/$w.plain" >"$tmp/pair"
		awk '{ print $1, $2, ($1 / $3 - 1) * 100, ($2 > 0 ? ($1 - $3) * 1000 / $2 : 0) }' "$tmp/pair" >"$tmp/$w.$c.r"
	done
	for c in $configs; do
		med() { sort -n -k"$1" "$tmp/$w.$c.r" | awk -v k="$1" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
		ms=$(med 1) s=$(med 2) ovh=$(med 3) us=$(med 4)
		rat="-"
		case $c in pmcprof-* | trap-*)
			peer=perf-${c#*-}
			if [ -f "$tmp/$w.$peer.r" ]; then
				povh=$(sort -n -k3 "$tmp/$w.$peer.r" | awk '{ v[NR] = $3 } END { print v[int((NR + 1) / 2)] }')
				rat=$(awk -v a="$ovh" -v b="$povh" 'BEGIN { print (b > 0 ? sprintf("%.2f", a / b) : "perf~0") }')
				echo "$w $c $ovh $povh" >>"$tmp/verdict"
			fi ;;
		esac
		[ "$c" = plain ] && { ovh=0; us=0; }
		printf '  %-6s %-12s %9.0f %8.1f%% %9d %10.1f %10s\n' "$w" "$c" "$ms" "$ovh" "$s" "$us" "$rat"
	done
done
if [ -f "$tmp/verdict" ]; then
	for rate in 1k 10k; do
		for m in pmcprof trap; do
		awk -v r="$m-$rate" -v m=$m '$2 == r { n++; if ($3 < $4) ok++; l = l sprintf(" %s %.1f%% vs %.1f%%;", $1, $3, $4) }
			END { printf "goal: %s below perf record -g at %s on every workload: %s (%s )\n", m == "trap" ? "pmcprof --signal 5" : "pmcprof", substr(r, length(m) + 2), ok == n ? "met" : "MISSED", l }' "$tmp/verdict"
		done
	done
fi
