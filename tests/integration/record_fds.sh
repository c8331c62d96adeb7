# Descriptors: the collector never reads, writes or closes one it did not
# open, and survives the program closing or replacing its counters'.  The
# modes (tests/progs/rec_fds.c) are the cases of issue 11: a pipe on 3/4
# after close_range, the same across a thread's end, a write-only log on 3
# (write(3) failed with EBADF once a thread had ended), a log dup2'd onto a
# thread's counter.
# rec_fds runs alone and under record in every call-graph mode; status,
# output (with the program's own checksum of its pipe or log data) must be
# the same, every overflow a sample or a counted drop, and a counter fd the
# program took away counted in fd_lost.
. "$PMCPROF_SRC/tests/lib.sh"
FDS="$PROGS/rec_fds"
EV=cpu-clock@1000000

# Sum of the collector counters over a directory's profiles, as NAME=VALUE
# lines (from the report's "# collector:" header lines).
counters() {
	"$PMCPROF" report -q --header --top 1 "$1" 2>/dev/null | awk '
	/^# collector:/ { for (i = 3; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] += kv[2] }
	END { for (k in v) print k "=" v[k] }'
}
get() { sed -n "s/^$1=//p" "$2"; }

for mode in pipe thread file dup2; do
	"$FDS" $mode 300 >alone.$mode 2>&1
	rc0=$?
	check "$mode alone: intact (status $rc0)" [ "$rc0" -eq 0 ]
	for cg in unwind fp none; do
		rm -rf out
		"$PMCPROF" record -e $EV --call-graph=$cg -o out -- "$FDS" $mode 300 >prof.out 2>err.txt
		rc=$?
		check "$mode $cg: same status ($rc, alone $rc0)" [ "$rc" -eq "$rc0" ]
		if cmp -s alone.$mode prof.out; then
			pass "$mode $cg: same output and checksum"
		else
			fail "$mode $cg: output differs"; diff alone.$mode prof.out | sed 's/^/    | /'
		fi
		counters out >ctr.txt
		s=$(get samples ctr.txt); o=$(get overflows ctr.txt); l=$(get fd_lost ctr.txt)
		d=$(awk -F= '/^dropped_/ && $1 != "dropped_reentrant" { d += $2 } END { print d + 0 }' ctr.txt)
		check "$mode $cg: overflows $o = samples $s + dropped $d" [ -n "$o" ] && [ "$o" -eq $((s + d)) ]
		check "$mode $cg: profiled ($s samples)" [ "${s:-0}" -gt 20 ]
		# pipe/thread/file: close_range took the main thread's counter;
		# dup2: the thread's.  Either way one fd, counted and named.
		check "$mode $cg: the counter fd the program took is counted (fd_lost=$l)" [ "${l:-0}" -eq 1 ]
		"$PMCPROF" report --header out >rep.txt 2>&1
		contains "$mode $cg: report names fd_lost" "fd_lost=1" rep.txt
		if [ $cg = unwind ]; then
			# The code without unwind tables is unwound through (libunwind's
			# guess from rbp, with our checked reads), not cut short.
			f=$(get unwind_failed ctr.txt)
			check "$mode $cg: no failed unwinds ($f)" [ "${f:-1}" -eq 0 ]
		fi
	done
done

# cputimer opens no descriptor at all: the program's stay its own.
for mode in pipe thread file dup2; do
	rm -rf out
	"$PMCPROF" record -b cputimer -e CPUTIME@1000000 -o out -- "$FDS" $mode 300 >prof.out 2>err.txt
	rc=$?
	check "cputimer $mode: status $rc" [ "$rc" -eq 0 ]
	check "cputimer $mode: same output" cmp -s alone.$mode prof.out
done

# The descriptors the program sees: exactly its own plus one counter (and
# its twin, where the kernel is sampled) per live thread (libunwind's pipe is closed as soon as libunwind opens it).
LIST='for f in /proc/$$/fd/*; do echo "${f##*/} $(readlink $f)"; done'
sh -c "$LIST" | awk '{ print $1 }' | sort >fd.alone
rm -rf out
"$PMCPROF" record -e $EV -o out -- sh -c "$LIST" 2>/dev/null >fd.prof
awk '{ print $1 }' fd.prof | sort >fd.nums
check "no descriptor of its own is missing" [ -z "$(comm -23 fd.alone fd.nums)" ]
extra=$(comm -13 fd.alone fd.nums | tr '\n' ' ')
n=$(comm -13 fd.alone fd.nums | wc -l)
perf=$(grep -c 'anon_inode:\[perf_event\]' fd.prof)
# Where the kernel is sampled, the counter has a silent kernel-mode twin
# (docs/collector.md, "No signal while the program is in the kernel").
want=1 what="one, its counter"
if [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -le 1 ]; then
	want=2 what="two, its counter and the counter's kernel-mode twin"
fi
check "descriptors a profiled shell sees beyond its own: '$extra': $what" \
	[ "$n" -eq $want ] && [ "$perf" -eq $want ]

# Descriptor 2 closed and reused for the program's data: the collector's
# warning (a handler on its signal) goes to pmcprof record's stderr, never
# into the program's file.
"$FDS" stderr 200 >alone.stderr 2>&1
rc0=$?
check "stderr alone: intact (status $rc0)" [ "$rc0" -eq 0 ]
rm -rf out
"$PMCPROF" record -e $EV -o out -- "$FDS" stderr 200 >prof.out 2>err.txt
rc=$?
check "stderr: same status ($rc, alone $rc0)" [ "$rc" -eq "$rc0" ]
check "stderr: same output and checksum of the data on fd 2" cmp -s alone.stderr prof.out
contains "stderr: the collector's warning reached record's stderr" "keeping pmcprof's" err.txt
