# dlopen'd code is attributed to its library, also after dlclose; a tight
# dlopen/dlclose loop under a high sampling rate does not deadlock.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
LIB="$PROGS/.libs/rec_dllib.so"

"$PMCPROF" record -e cpu-clock@1000000 -o once -- "$PROGS/rec_dl" "$LIB" once 200 2>err.txt
check "dlopen once: exit 0" [ $? -eq 0 ]
f=$(ls once/*.pmcp)
n=$("$INSPECT" stacks "$f" | awk '/rec_dllib.so:lib_hot /{ s += $NF } END { print s + 0 }')
check "lib_hot is attributed to rec_dllib.so ($n samples, ~200)" [ "$n" -gt 100 ]
n=$("$INSPECT" stacks "$f" | awk '/rec_dl:round_once;rec_dllib.so:lib_hot /{ s += $NF } END { print s + 0 }')
check "and called from round_once ($n)" [ "$n" -gt 100 ]
check "the library is in the load map, unloaded (unload_seq > 0)" \
	sh -c "'$INSPECT' modules '$f' | grep -q 'rec_dllib.so [0-9]* [1-9]'"
check "main_after, after the dlclose, is there too" sh -c "'$INSPECT' stacks '$f' | grep -q ':main_after '"

# 10 kHz of CPU time, thousands of dlopen/dlclose: must finish.
timeout 60 "$PMCPROF" record -e cpu-clock@100000 -o loop -- "$PROGS/rec_dl" "$LIB" loop 3000 >out.txt 2>err.txt
rc=$?
check "dlopen/dlclose loop at 10 kHz finishes (status $rc, 124 = timed out)" [ $rc -eq 0 ]
contains "all rounds ran" "rounds=3000" out.txt
f=$(ls loop/*.pmcp)
check "the loop's profile reads" "$INSPECT" counter "$f" samples
s=$("$INSPECT" counter "$f" samples)
check "the loop was sampled ($s)" [ "$s" -gt 100 ]
m=$("$INSPECT" modules "$f" | grep -c rec_dllib.so)
# One entry per address the library was mapped at: the same one nearly
# always, but a mapping made between two reloads (the collector's own, a
# profile being written) can move it; 3000 reloads must not mean 3000.
check "3000 reloads keep a load-map entry per address, not per reload ($m)" [ "$m" -le 8 ]
