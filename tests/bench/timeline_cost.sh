#!/bin/sh
# The timeline's cost (record keeps each sample's time and context unless
# --no-timeline): the same fixed work (tests/bench/record_work depth 30,
# TIMELINE_ITERS calls) recorded with and without it, at 1 kHz and 10 kHz
# of cpu-clock, and alone.  Rounds alternate the three (TIMELINE_REPS,
# default 5) and each figure is the median of the rounds:
#   work ms       the work's own CPU time (its thread's clock: the signal
#                 handler runs in the thread, a loaded host does not count)
#   overhead      work ms over the program alone, in percent
#   ns/sample     (work ms with the timeline - without) / samples: what
#                 the timeline adds to each sample
#   bytes/sample  the profile's size / samples, with and without
#   timeline B/s  the size the timeline adds, per sample (goal: under 4)
# The CPU difference of a whole run is within this host's noise, so the
# handler is also timed from inside (the timed collector, COLL_TIMING):
# its own time per sample (own_ns_mean: the handler without the re-arm
# system call; the timeline's append is in it), with and without.
: "${PMCPROF_BUILD:?}"
. "$(dirname "$0")/lib.sh"
bench_tools timeline_cost P I W C
REPS=${TIMELINE_REPS:-5}
ITERS=${TIMELINE_ITERS:-150000}
bench_tmp timeline-cost

median() {	# file: the median of its lines
	sort -n "$1" | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : 0 }'
}
run() {	# name period [record options]: work_ms, samples and bytes into name.*
	name=$1 period=$2; shift 2
	rm -rf "$tmp/o"
	if [ "$period" = 0 ]; then
		out=$("$W" depth 30 "$ITERS" 2>/dev/null)
	else
		out=$("$P" record -q -e "cpu-clock@$period" -o "$tmp/o" "$@" -- "$W" depth 30 "$ITERS" 2>/dev/null)
	fi
	echo "$out" | sed -n 's/^work_ms=//p' >>"$tmp/$name.ms"
	[ -d "$tmp/o" ] || return 0
	n=0 b=0
	for f in "$tmp"/o/*.pmcp; do
		n=$((n + $("$I" counter "$f" samples)))
		b=$((b + $(stat -c %s "$f")))
	done
	echo "$n" >>"$tmp/$name.n"
	awk -v b="$b" -v n="$n" 'BEGIN { printf "%.3f\n", n ? b / n : 0 }' >>"$tmp/$name.bps"
}

timed() {	# name [record options]: the handler's own mean ns per sample into name.own
	name=$1; shift
	rm -rf "$tmp/o"
	PMCPROF_COLLECTOR=$C "$P" record -q -e cpu-clock@100000 -o "$tmp/o" "$@" -- \
		"$W" depth 30 "$ITERS" >/dev/null 2>&1
	for f in "$tmp"/o/*.pmcp; do "$I" counter "$f" own_ns_mean; done | head -1 >>"$tmp/$name.own"
}

for r in $(seq "$REPS"); do
	run alone 0
	timed ton
	timed toff --no-timeline
	for period in 1000000 100000; do
		run "on$period" "$period"
		run "off$period" "$period" --no-timeline
	done
done

alone=$(median "$tmp/alone.ms")
echo "work: record_work depth 30 $ITERS, cpu-clock, median of $REPS rounds; alone: $alone ms"
printf '  %-7s %-11s %9s %9s %9s %12s\n' rate timeline "work ms" overhead samples bytes/sample
for period in 1000000 100000; do
	rate=$((1000000000 / period / 1000))kHz
	for m in off on; do
		ms=$(median "$tmp/$m$period.ms")
		printf '  %-7s %-11s %9.1f %8.2f%% %9d %12.3f\n' "$rate" "$m" "$ms" \
			"$(awk -v a="$ms" -v b="$alone" 'BEGIN { print (b > 0) ? 100 * (a - b) / b : 0 }')" \
			"$(median "$tmp/$m$period.n")" "$(median "$tmp/$m$period.bps")"
	done
	on=$(median "$tmp/on$period.ms") off=$(median "$tmp/off$period.ms")
	n=$(median "$tmp/on$period.n")
	bon=$(median "$tmp/on$period.bps") boff=$(median "$tmp/off$period.bps")
	awk -v on="$on" -v off="$off" -v n="$n" -v a="$alone" -v bon="$bon" -v boff="$boff" -v r="$rate" 'BEGIN {
		printf "  %-7s the timeline: %+.2f%% CPU (%+.0f ns/sample, noise included), %.2f bytes/sample%s\n",
			r, (a > 0) ? 100 * (on - off) / a : 0, n ? (on - off) * 1e6 / n : 0, bon - boff,
			(bon - boff < 4) ? " (goal: under 4)" : " (OVER the goal of 4)"
	}'
done
awk -v on="$(median "$tmp/ton.own")" -v off="$(median "$tmp/toff.own")" 'BEGIN {
	printf "  handler, own time per sample at 10 kHz (timed collector): %d ns without, %d ns with the timeline (%+d ns)\n",
		off, on, on - off
	printf "  the timeline from that: %+.4f%% CPU at 1 kHz, %+.3f%% at 10 kHz\n",
		(on - off) * 1000 / 1e7, (on - off) * 10000 / 1e7
}'
