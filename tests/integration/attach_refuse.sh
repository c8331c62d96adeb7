# record/stat -p and -a refuse what they cannot do, with the reason, and
# leave nothing behind.
. "$PMCPROF_SRC/tests/lib.sh"

"$PMCPROF" record -p 0x12 -o r1 >e1.txt 2>&1
check "bad pid list: usage error (1)" [ $? -eq 1 ]
contains "bad pid list: says what it expected" "expected a list of process or thread ids" e1.txt
max=$(cat /proc/sys/kernel/pid_max)
"$PMCPROF" record -p "$max" -o r2 >e2.txt 2>&1
check "missing process: runtime error (2)" [ $? -eq 2 ]
contains "missing process: named" "process $max: no such process" e2.txt
check "missing process: no directory left" [ ! -e r2 ]
"$PMCPROF" stat -p "$max" >e3.txt 2>&1
check "stat, missing process: 2" [ $? -eq 2 ]
"$PMCPROF" record -a -p 1 >e4.txt 2>&1
check "-a with -p: usage error" [ $? -eq 1 ]
"$PMCPROF" record -o r5 --duration 2 -- true >e5.txt 2>&1
check "--duration without -p/-a: usage error" [ $? -eq 1 ]
"$PMCPROF" record -p 1 --duration abc >e6.txt 2>&1
check "bad --duration: usage error" [ $? -eq 1 ]
"$PMCPROF" record -b cputimer -p $$ -o r7 >e7.txt 2>&1
check "cputimer cannot attach: 2" [ $? -eq 2 ]
contains "cputimer: says why" "POSIX CPU timers signal the thread they time" e7.txt
"$PMCPROF" stat -p $$ -r 3 >e8.txt 2>&1
check "stat -p with -r: usage error" [ $? -eq 1 ]

# As nobody: root's process, and -a.
need_nobody "attach refusals as nobody"
sleep 20 &
S=$!
nobody "$PMCPROF" record -p "$S" -o n1 --duration 1 >n1.txt 2>&1
check "nobody -> root's process: 2" [ $? -eq 2 ]
contains "nobody -> root's process: whose it is and what to do" "belongs to uid 0, not to you (uid 65534)" n1.txt
check "nobody: no directory left" [ ! -e n1 ]
nobody "$PMCPROF" record -a -o n2 --duration 1 >n2.txt 2>&1
check "nobody -a: 2" [ $? -eq 2 ]
contains "nobody -a: paranoid advice" "perf_event_paranoid is 2, and watching a whole CPU needs it at 0" n2.txt
nobody "$PMCPROF" stat -p "$S" --duration 0.2 >n3.txt 2>&1
check "nobody stat -p root's: 2" [ $? -eq 2 ]
# Its own process: allowed, user space only (paranoid 2), said so.
# Found as our child once it said ready (not by a sleep, nor by a name
# another test's could have); 20 s, killed at the end.
nobody sh -c 'exec "$1" threads 1 20 >own.out' sh "$PROGS/att_target" &
N=$!
wait_ready own.out
O=$(pgrep -x att_target -P "$N")
[ "$(cat /proc/"$N"/comm 2>/dev/null)" = att_target ] && O=$N	# a shell that exec'd it
nobody "$PMCPROF" record -p "$O" -o n4 --duration 1 >n4.txt 2>&1
check "nobody -> own process: 0" [ $? -eq 0 ]
contains "nobody -> own process: kernel excluded, said" "kernel excluded" n4.txt
check "nobody -> own process: profiles" [ "$(ls n4/*.pmcp 2>/dev/null | wc -l)" -ge 1 ]
kill "$S" "$O"
wait
