# record --signal 5: the perf_event plugin samples with the kernel's
# synchronous SIGTRAP (attr.sigtrap) instead of an O_ASYNC realtime signal.
# The program's output and status are its own, every overflow is sampled
# (none lost or foreign), on the main thread and on worker threads.
. "$PMCPROF_SRC/tests/lib.sh"
W="$PMCPROF_BUILD/tests/bench/record_work"
I="$PROGS/rec_inspect"
[ -x "$W" ] || { skip "sigtrap: record_work not built"; exit 0; }
"$W" depth 10 20000 | sed 's/=.*//' >plain.out
"$PMCPROF" record --signal 5 -e cpu-clock@1000000 -o out -- "$W" depth 10 20000 >rec.out 2>rec.err
check "sigtrap: record exits 0 like the program" [ $? -eq 0 ]
sed -i 's/=.*//' rec.out
check "sigtrap: same output" cmp -s plain.out rec.out
f=$(ls out/*.pmcp 2>/dev/null | head -1)
s=$("$I" counter "$f" samples 2>/dev/null)
o=$("$I" counter "$f" overflows 2>/dev/null)
check "sigtrap: samples taken ($s of $o overflows)" [ "${s:-0}" -gt 20 ] && [ "$s" -eq "$o" ]
check "sigtrap: nothing foreign or spurious" [ "$("$I" counter "$f" not_ours)" = 0 ] && [ "$("$I" counter "$f" spurious)" = 0 ]
rm -rf out
"$PMCPROF" record --signal 5 -e cpu-clock@1000000 -o out -- "$W" threads 3 100 >/dev/null 2>rec.err
check "sigtrap: threaded record exits 0" [ $? -eq 0 ]
n=0
for f in out/*.pmcp; do
	[ "$("$I" counter "$f" samples)" -gt 0 ] && n=$((n + 1))
done
check "sigtrap: every worker thread sampled ($n profiles with samples)" [ "$n" -ge 3 ]
