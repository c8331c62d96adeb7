#!/bin/sh
# The analyzer's public tables (analyzer.h, "the set's tables": what the
# exporters stand on): functions with their modules and declarations,
# modules with build-ids, run totals, the line contexts and their samples,
# top-down rows' functions, and the timeline walk, printed by
# tests/progs/ana_tables on profiles with known counts.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=
W=$PROGS/ana_work
T="timeout 60"

"$PROGS/ana_mkprofile" -o run.pmcp -b "$W" \
	-e perf::CPU-CLOCK@1000000=cpu-clock -U ns -e perf::PAGE-FAULTS@10=page-faults \
	-m "command=$W" -m thread_name=ana_work \
	"main;work_a=600,5" "main;work_b=500,1" "main;inline_caller;inl:hot_inline=160,2" \
	"main;hot_lines:58=340,0" || fail "ana_mkprofile"
"$PROGS/ana_mkprofile" -o base.pmcp -b "$W" -e perf::CPU-CLOCK@1000000=cpu-clock -U ns \
	-m "command=ana_work" "main;work_a=70" "main;work_c=30" || fail "ana_mkprofile base"

$T "$PROGS/ana_tables" -l run.pmcp base.pmcp >t.txt 2>err.txt
check "ana_tables: exit 0" test $? -eq 0
contains "not finished before ana_set_finish" "^finished-before 0" t.txt
contains "finished, not weighted" "^finished 1 weighted 0" t.txt
contains "a function: name, module, declaration" \
	"^func work_a module=ana_work file=.*ana_work.c line=35 mod=0$" t.txt
contains "an inlined function keeps its own declaration" \
	"^func hot_inline module=ana_work file=.*ana_work.c line=39 mod=0$" t.txt
contains "past the last function: -EINVAL" "^func-past -22$" t.txt
contains "the module: path, build-id, a file, the program (command), mapped" \
	"^module ana_work path=$W bid=20 file=1 main=1 mapped=1$" t.txt
contains "every module, then -EINVAL" "^modules 1 of 1$" t.txt
contains "run 0's totals: every sample, each event" "^total 0 perf::CPU-CLOCK 1600 1600$" t.txt
contains "second event" "^total 0 perf::PAGE-FAULTS 8 8$" t.txt
contains "run 1's total" "^total 1 perf::CPU-CLOCK 100 100$" t.txt
contains "run 1 has no page-faults" "^total 1 perf::PAGE-FAULTS 0 0$" t.txt
contains "top-down rows: each node's function has the row's name" "^rows ok " t.txt
contains "rows: their set, query and event" "^rows-set ok$" t.txt
contains "line contexts: every chain ends at the root" "^contexts ok " t.txt
contains "line contexts hold every sample of run 0" "^ctx 0 perf::CPU-CLOCK 1600$" t.txt
contains "and of run 1" "^ctx 1 perf::CPU-CLOCK 100$" t.txt
contains "no timeline: walking a thread is -EINVAL" "^walk-past -22$" t.txt

# without line contexts: none, and no samples of them
$T "$PROGS/ana_tables" run.pmcp >n.txt 2>&1
contains "no line contexts unless asked" "^contexts ok 0$" n.txt
contains "no context samples unless asked" "^ctx 0 perf::CPU-CLOCK 0$" n.txt

# the timeline walk, on a real recording
if $T "$PMCPROF" record -q -e cpu-clock@1000000 -o rec -- "$PROGS/rec_threads" 2 100 \
	>/dev/null 2>&1; then
	$T "$PROGS/ana_tables" -t rec >w.txt 2>&1
	check "walk: every thread's slices balanced and in time order" \
		sh -c 'grep -q "^walk 0 [1-9]" w.txt && ! grep -q "^walk .* bad$" w.txt'
	contains "every file has a timeline" "^untimed 0$" w.txt
else
	skip "record: cannot record here"
fi
