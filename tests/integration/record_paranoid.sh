#!/bin/sh
# An unprivileged user at perf_event_paranoid 2, where perf_event lets a
# user measure user space only: record and stat stay on perf_event with
# ':u' added (as perf does for a user who is not root), say so once on
# stderr, and record requested -> used in the profile; an explicit ':k',
# and --no-fallback, are refused with the reason.  Runs as nobody.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=

need_nobody "unprivileged"

# samples FILE: the sample count of the report header's first event line
samples() { sed -n 's/^# event: .*: \([0-9][0-9]*\) samples.*/\1/p' "$1" | head -n 1; }

# The default event (cycles, or its fallback): perf_event, cpu-clock:u.
nobody "$PMCPROF" record -o def -- "$PROGS/busy" 1 0.4 >def.out 2>def.err
check "default: record as nobody exits 0" [ $? -eq 0 ]
n=$(grep -c "kernel excluded: perf_event_paranoid=2" def.err)
check "default: stderr says 'kernel excluded' once ($n)" [ "$n" -eq 1 ]
"$PMCPROF" report --header def >def.txt 2>&1
contains "default: backend perf_event, not cputimer" "backend: perf_event" def.txt
contains "default: the event used is cpu-clock:u" "events_used: perf::CPU-CLOCK:u@1000000" def.txt
contains "default: the profile records requested -> used" \
	"fallback: cycles -> perf::CPU-CLOCK:u@1000000: kernel excluded: perf_event_paranoid=2" def.txt
contains "default: the report says the kernel was not sampled" "kernel_frames: excluded" def.txt
s=$(samples def.txt)
# 0.4 s of user-space CPU at one sample per ms: 400; half of it at least.
check "default: samples were taken (${s:-none} for 0.4 s of CPU)" [ "${s:-0}" -ge 200 ]

# An explicit event keeps its period and gets ':u'.
nobody "$PMCPROF" record -o cc -e cpu-clock@500000 -- "$PROGS/busy" 1 0.2 >cc.out 2>cc.err
check "cpu-clock: record as nobody exits 0" [ $? -eq 0 ]
contains "cpu-clock: stderr names the change" "(cpu-clock -> cpu-clock:u;" cc.err
"$PMCPROF" report --header cc >cc.txt 2>&1
contains "cpu-clock: used cpu-clock:u at the period asked for" \
	"events_used: perf::CPU-CLOCK:u@500000" cc.txt
s=$(samples cc.txt)
check "cpu-clock: samples were taken (${s:-none} for 0.2 s of CPU)" [ "${s:-0}" -ge 200 ]

# ':u' asked for: nothing to change, nothing said.
nobody "$PMCPROF" record -o u -e cpu-clock:u -- "$PROGS/busy" 1 0.1 >u.out 2>u.err
check "':u': record as nobody exits 0" [ $? -eq 0 ]
check "':u': no 'kernel excluded' line" sh -c '! grep -q "kernel excluded" u.err'
"$PMCPROF" report --header u >u.txt 2>&1
check "':u': no fallback recorded" sh -c '! grep -q "^# fallback: ." u.txt'

# ':k' cannot be had: refused, with the reason, not given user space.
nobody "$PMCPROF" record -o k -e cpu-clock:k -- "$PROGS/busy" 1 0.1 >k.out 2>k.err
check "':k': record refused (exit 2)" [ $? -eq 2 ]
contains "':k': record says why" "cannot measure the kernel: ':k' samples only the kernel" k.err
check "':k': no profile written" [ ! -d k ]
nobody "$PMCPROF" stat -e cpu-clock:k -- "$PROGS/busy" 1 0.1 >ks.out 2>ks.err
check "':k': stat refused (exit 2)" [ $? -eq 2 ]
contains "':k': stat says why" "perf_event_paranoid=2 refuses to this user" ks.err

# --no-fallback: no ':u' either; the advice names it.
nobody "$PMCPROF" record --no-fallback -o nf -e cpu-clock -- "$PROGS/busy" 1 0.1 >nf.out 2>nf.err
check "--no-fallback: refused (exit 2)" [ $? -eq 2 ]
contains "--no-fallback: advises ':u'" "add ':u' to the event" nf.err

# stat: task-clock:u on perf_event, within 10% of the program's own CPU time.
nobody "$PMCPROF" stat -x , -o st.csv -- "$PROGS/busy" 1 0.4 >st.out 2>st.err
check "stat: as nobody exits 0" [ $? -eq 0 ]
n=$(grep -c "kernel excluded: perf_event_paranoid=2" st.err)
check "stat: stderr says 'kernel excluded' once ($n)" [ "$n" -eq 1 ]
contains "stat: counted on perf_event" "on the perf_event backend" st.err
ms=$(awk -F, '$3 == "task-clock:u" { print $1 }' st.csv)
truth=$(sed -n 's/^cpu_ms=//p' st.out)
check "stat: task-clock:u ${ms:-missing} ms vs the program's ${truth:-?} ms (10%)" \
	awk -v m="${ms:-0}" -v t="${truth:-0}" 'BEGIN { exit !(t > 0 && m >= t * 0.9 && m <= t * 1.1 + 20) }'
