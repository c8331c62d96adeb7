# --random-period against lockstep.  rec_lockstep first-touches K pages in
# fa() then K in fb(), over and over: 2K page faults a round, counted
# exactly.  Sampled every 2K faults, every sample lands on the same fault of
# the round: all in fa or all in fb.  With PERIOD + (random & 2^6-1) the
# phase is uniform and the samples split like the faults, half and half.
# (Time-based sources cannot show this deterministically here: CPU-time
# timers fire at the scheduler tick, and cpu-clock drifts by the handler's
# latency at each re-arm.)
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"

share_fa() {	# profile -> "fa fb"
	"$INSPECT" funcs "$1" | awk '{ split($2, a, ":"); s[a[2]] += $1 } END { print s["fa"] + 0, s["fb"] + 0 }'
}

"$PMCPROF" record --no-fallback -e page-faults@64 -o fixed -- "$PROGS/rec_lockstep" 32 2000 >/dev/null 2>err.txt
if [ $? -ne 0 ]; then
	skip "page-fault sampling unavailable: $(tail -1 err.txt)"
	exit 0
fi
set -- $(share_fa fixed/*.pmcp)
fa=$1 fb=$2
check "fixed period in lockstep: one function gets all the samples (fa $fa, fb $fb)" \
	awk -v a="$fa" -v b="$fb" 'BEGIN { n = a + b; exit !(n > 1500 && (a >= 0.95 * n || b >= 0.95 * n)) }'
w=$("$INSPECT" weight fixed/*.pmcp 0)
check "fixed: weight = samples x 64 ($w)" [ "$w" -eq $(((fa + fb) * 64)) ]

"$PMCPROF" record --no-fallback -e page-faults@64 --random-period 6 --seed 1234 -o random -- "$PROGS/rec_lockstep" 32 2000 >/dev/null 2>&1
set -- $(share_fa random/*.pmcp)
fa=$1 fb=$2
check "randomized period: fa and fb share the samples (fa $fa, fb $fb)" \
	awk -v a="$fa" -v b="$fb" 'BEGIN { n = a + b; exit !(n > 800 && a >= 0.4 * n && a <= 0.6 * n) }'
w=$("$INSPECT" weight random/*.pmcp 0)
check "randomized: the weight is the sum of the periods used, ~128000 faults ($w)" \
	[ "$w" -gt 120000 -a "$w" -le 128100 ]
check "the seed is in the profile" [ "$("$INSPECT" meta random/*.pmcp seed)" = 1234 ]
