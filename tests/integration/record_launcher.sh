# pmcprof record, the launcher: usage errors, refused programs, the output
# directory, status pass-through, the environment it hands over, metadata.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
EV=cpu-clock@1000000

"$PMCPROF" record --help >help.txt 2>&1
check "--help exits 0" [ $? -eq 0 ]
contains "--help lists --random-period" "--random-period=BITS" help.txt

"$PMCPROF" record >err.txt 2>&1
check "no command: usage error (1)" [ $? -eq 1 ]
contains "no command: says so" "no command to run" err.txt
"$PMCPROF" record --bogus -- true >err.txt 2>&1
check "unknown option: usage error (1)" [ $? -eq 1 ]
"$PMCPROF" record --signal 9 -- true >err.txt 2>&1
check "--signal 9: usage error (1)" [ $? -eq 1 ]
contains "--signal 9: says why" "signal 9 (SIGKILL) cannot be caught" err.txt
"$PMCPROF" record --call-graph=lbr -- true >err.txt 2>&1
check "--call-graph=lbr: usage error (1)" [ $? -eq 1 ]
contains "--call-graph=lbr: says why" "no last-branch-record unwinder" err.txt
"$PMCPROF" record --call-graph=bogus -- true >err.txt 2>&1
check "--call-graph=bogus: usage error (1)" [ $? -eq 1 ]
# -p/-t/-a attach from outside (tests/integration/attach_*.sh); here only
# that their option parsing refuses nonsense as usage errors.
for o in "-p 1,x" "--pid=" "-t -3" "-a --pid=1"; do
	"$PMCPROF" record $o -- true >err.txt 2>&1
	check "record $o: usage error (1)" [ $? -eq 1 ]
done
"$PMCPROF" record -e cpu-clokc -e nosuch:event@1 -- true >err.txt 2>&1
check "bad events: usage error (1)" [ $? -eq 1 ]
contains "first bad event named" "-e 'cpu-clokc'" err.txt
contains "second bad event named too" "-e 'nosuch:event@1'" err.txt
"$PMCPROF" record -e cpu-clock@f1000 --random-period 4 -- true >err.txt 2>&1
check "--random-period with @f: usage error (1)" [ $? -eq 1 ]

"$PMCPROF" record -- "$PROGS/rec_static" >err.txt 2>&1
check "a static program is refused (2)" [ $? -eq 2 ]
contains "static: says why" "statically linked" err.txt
cp "$PROGS/rec_exit" suid && chmod u+s suid
"$PMCPROF" record -- ./suid >err.txt 2>&1
check "a set-user-ID program is refused (2)" [ $? -eq 2 ]
contains "setuid: says why" "set-user-ID" err.txt
"$PMCPROF" record -- no-such-command-xyz >err.txt 2>&1
check "a missing command: runtime error (2)" [ $? -eq 2 ]
contains "missing command: says so" "command not found" err.txt

# The default directory: pmcprof-CMD-HOST-PID; exec keeps the pid, so the
# shell can make it exist beforehand.
host=$(hostname | cut -c1-63 | tr -c 'A-Za-z0-9._+\n-' '_')
sh -c 'mkdir "pmcprof-rec_exit-$1-$$" && exec "$2" record -- "$3" return 10' sh "$host" "$PMCPROF" "$PROGS/rec_exit" >err.txt 2>&1
check "an existing default directory is refused (2)" [ $? -eq 2 ]
contains "existing default directory: says to use -o" "name it with -o" err.txt
rm -rf pmcprof-rec_exit-*
"$PMCPROF" record -e $EV -- "$PROGS/rec_exit" exit3 30 >out.txt 2>err.txt
check "the command's exit status passes through (3)" [ $? -eq 3 ]
dir=$(ls -d pmcprof-rec_exit-"$host"-*)
n=$(ls "$dir"/*.pmcp 2>/dev/null | wc -l)
check "the default directory holds the profile ($dir: $n)" [ "$n" -eq 1 ]
contains "the launcher says where the profiles are" "1 profile in $PWD/$dir" err.txt
contains "the launcher says what it samples with" "using perf::CPU-CLOCK\|using CPUTIME" err.txt

mkdir shared
"$PMCPROF" record -e $EV -o shared -- "$PROGS/rec_exit" return 20 2>/dev/null
check "-o names an existing empty directory: recorded" [ "$(ls shared/*.pmcp | wc -l)" -eq 1 ]
"$PMCPROF" record -e $EV -o shared -- "$PROGS/rec_exit" return 20 >out.txt 2>err.txt
check "-o onto an earlier run: refused (2)" [ $? -eq 2 ]
contains "-o onto an earlier run: says --append" "already holds 1 profile of an earlier run: --append" err.txt
check "-o onto an earlier run: the program did not run" [ ! -s out.txt ]
"$PMCPROF" record -e $EV -o shared --append -- "$PROGS/rec_exit" return 20 2>err.txt
n=$(ls shared/*.pmcp | wc -l)
check "--append: runs add to it ($n)" [ "$n" -eq 2 ]
contains "--append: counts only this run's profile" "1 profile in" err.txt

f=$(ls shared/*.pmcp | head -1)
pid=$("$INSPECT" meta "$f" pid); tid=$("$INSPECT" meta "$f" tid)
check "the file name carries command, host, pid and tid" \
	[ "$(basename "$f")" = "rec_exit-$host-$pid-$tid.pmcp" ]
for key in command argv host ppid thread_name start_time end_time kernel arch cpu_model cpus \
	hypervisor virtualization vpmu paranoid backend backend_version events_requested events_used call_graph \
	max_depth steal_start steal_end end_reason pmcprof_version; do
	v=$("$INSPECT" meta "$f" $key)
	check "metadata $key is recorded ('$v')" [ -n "$v" ]
done
check "events_requested is what was asked" [ "$("$INSPECT" meta "$f" events_requested)" = "$EV" ]
check "end_reason of a return from main is exit" [ "$("$INSPECT" meta "$f" end_reason)" = exit ]
check "call_graph defaults to libunwind" [ "$("$INSPECT" meta "$f" call_graph)" = libunwind ]
check "start_time is SECONDS.NANOSECONDS" sh -c "'$INSPECT' meta '$f' start_time | grep -qx '[0-9]*\.[0-9]\{9\}'"
"$PMCPROF" record -o fb -- "$PROGS/rec_exit" return 20 2>fb.txt
fb=$("$INSPECT" meta fb/*.pmcp fallback)
if grep -q "no hardware cycles event" fb.txt; then
	check "the default fell back: fallback says from what to what ($fb)" \
		sh -c "echo '$fb' | grep -q '^cycles -> [^ ]*: '"
else
	check "the default worked: fallback is empty" [ -z "$fb" ]
fi
check "argv is the command line" [ "$("$INSPECT" meta "$f" argv)" = "$PROGS/rec_exit return 20" ]
for c in samples dropped_in_collector dropped_no_memory dropped_reentrant leaf_only_in_loader \
	unwind_failed truncated_stacks overflows throttled lost spurious; do
	check "counter $c is recorded" "$INSPECT" counter "$f" $c
done

"$PMCPROF" record -e $EV --private --random-period 3 --seed 77 -o priv -- "$PROGS/rec_exit" return 20 2>/dev/null
check "--private: directory 0700" [ "$(stat -c %a priv)" = 700 ]
check "--private: files 0600" [ "$(stat -c %a priv/*.pmcp)" = 600 ]
f=$(ls priv/*.pmcp)
check "the seed is recorded" [ "$("$INSPECT" meta "$f" seed)" = 77 ]
check "the random bits are recorded" [ "$("$INSPECT" meta "$f" random_period_bits)" = 3 ]

# LD_PRELOAD: the user's first, the collector appended.
LD_PRELOAD="$PROGS/.libs/rec_dllib.so" "$PMCPROF" record -e $EV -o pre -- sh -c 'echo "$LD_PRELOAD"' >pre.txt 2>/dev/null
contains "LD_PRELOAD keeps the user's library" "^$PROGS/.libs/rec_dllib.so:.*libpmcprof-collector.so$" pre.txt

# A bad setting in the environment: one line, the program runs unprofiled.
PMCPROF_OUTDIR=$PWD PMCPROF_BACKEND=perf_event PMCPROF_EVENTS=cpu-clock PMCPROF_SIGNAL=9 \
	LD_PRELOAD="$PMCPROF_BUILD/collector/.libs/libpmcprof-collector.so" \
	"$PROGS/rec_exit" exit3 10 >out.txt 2>err.txt
check "a bad setting does not stop the program (3)" [ $? -eq 3 ]
contains "a bad setting is named on stderr" "PMCPROF_SIGNAL: signal 9 (SIGKILL)" err.txt
check "a bad setting: exactly one line" [ "$(wc -l <err.txt)" -eq 1 ]

# perf's spellings: -F FREQ, -c PERIOD, -e a,b, -g, --call-graph dwarf
"$PMCPROF" record -F 500 -o perf_f -- true 2>err.txt
contains "-F 500: the default event at 500 Hz" "using [^ ]*@f500 " err.txt
"$PMCPROF" record -c 250000 -e cpu-clock,task-clock -g -o perf_c -- true 2>err.txt
contains "-c and -e a,b: both events at that period" "using perf::CPU-CLOCK@250000, perf::TASK-CLOCK@250000" err.txt
"$PMCPROF" record -c 250000 -e cpu-clock@1000000 -o perf_c2 -- true 2>err.txt
contains "-c leaves an event's own @PERIOD alone" "using perf::CPU-CLOCK@1000000 " err.txt
"$PMCPROF" record -F 10 -c 10 -o perf_fc -- true >err.txt 2>&1
check "-F with -c: usage error (1)" [ $? -eq 1 ]
"$PMCPROF" record -e $EV --call-graph dwarf,8192 -o perf_dwarf -- true 2>err.txt
check "--call-graph dwarf,8192 is libunwind" test "$("$INSPECT" meta perf_dwarf/*.pmcp call_graph)" = libunwind
"$PMCPROF" record -q -e $EV -o quiet -- true >out.txt 2>err.txt
check "record -q: nothing on stderr" test ! -s err.txt
check "record -q: the profile is written" test "$(ls quiet/*.pmcp | wc -l)" -eq 1
