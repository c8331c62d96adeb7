# Shares of the hot functions of one process, attached to by pmcprof and
# by perf record -p at the same time (same clock event, same period): they
# must agree within 2 percentage points.
. "$PMCPROF_SRC/tests/lib.sh"
T="$PROGS/att_target"

if ! command -v perf >/dev/null; then
	skip "attach vs perf: perf (linux-perf) is not installed"; exit 0
fi
if ! perf record -q -e cpu-clock -o probe.data -- true >/dev/null 2>&1; then
	skip "attach vs perf: perf record cannot run here"; exit 0
fi
# The same window for both, as many samples whatever the load: the target
# works 1.5 s of CPU per thread, stopped until both are attached, and both
# follow it to its end.  (Each attached for 3 s of wall time from its own
# start, a loaded machine gave them a few hundred samples over windows
# apart by whole 10-20 ms runs of hot_one or hot_two: points apart.)
"$T" cpu 2 1.5 >t.out &
A=$!
wait_ready t.out
kill -STOP "$A"
timeout 120 perf record -q -e cpu-clock -c 1000000 -p "$A" -o perf.data >perf.err 2>&1 &
P=$!
timeout 120 "$PMCPROF" record -e cpu-clock@1000000 -p "$A" -o pm 2>pm.err &
R=$!
for i in $(seq 400); do
	grep -q "profiling process" pm.err &&
		ls -l /proc/"$(pgrep -P "$P")"/fd 2>/dev/null | grep -q perf_event && break
	sleep 0.05
done
kill -CONT "$A"
wait "$R"
check "pmcprof record -p: exit 0" [ $? -eq 0 ]
wait "$P"
check "perf record -p: exit 0" [ $? -eq 0 ]
wait "$A"
perf report -i perf.data --stdio --no-children --sort symbol 2>/dev/null |
	awk '$1 ~ /%$/ && $2 ~ /^\[/ { sub("%", "", $1); print $3, $1 }' >perf.shares
"$PMCPROF" report --csv pm 2>/dev/null |
	awk -F, 'NR > 1 { print $2, $7 }' >pm.shares
for fn in hot_two hot_one; do
	a=$(awk -v f=$fn '$1 == f { print $2 }' perf.shares)
	b=$(awk -v f=$fn '$1 == f { print $2 }' pm.shares)
	if [ -z "$a" ] || [ -z "$b" ]; then
		fail "$fn in both (perf: '$a', pmcprof: '$b')"; continue
	fi
	check "$fn: pmcprof $b% vs perf $a%: within 2 points" \
		awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d <= 2 && d >= -2) }'
done
n=$("$PMCPROF" report --csv pm 2>/dev/null | awk -F, 'NR > 1 { s += $6 } END { print s + 0 }')
np=$(perf report -i perf.data --stdio 2>/dev/null | sed -n 's/^# Samples: \(.*\) of event.*/\1/p' | head -1)
echo "samples: pmcprof $n, perf $np"
check "enough samples to judge ($n)" [ "$n" -ge 500 ]
