#!/bin/sh
# Data first: the text report starts with at most 3 header lines (the
# command; the event with its period and samples; a warning only when
# something matters), --header shows every fact, piped output is never cut
# unless --width, -q silences warnings, and --by prints one short line per
# group with each group's rows sorted by its own counts.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=
MK="$PROGS/ana_mkprofile"

# header_lines FILE: the '#' lines before the table's title
header_lines() { awk '/^Self%/ { print n + 0; exit } /^#/ { n++ }' "$1"; }

"$MK" -o plain.pmcp -b "$PROGS/ana_work" -m argv='ana_work split 5' \
	"main;work_a=600" "main;work_b=300" || { fail "ana_mkprofile"; exit 1; }
"$PMCPROF" report plain.pmcp >out.txt 2>err.txt
check "plain run: 2 header lines, no warning ($(header_lines out.txt))" test "$(header_lines out.txt)" -eq 2
check "line 1: the run and its command" sh -c "head -1 out.txt | grep -q '^# plain.pmcp: ana_work split 5 (1 file'"
check "line 2: the event, period and samples" \
	sh -c "sed -n 2p out.txt | grep -q '^# event: perf::CPU-CLOCK .*period 1000000: 900 samples'"
check "no collector counters by default" sh -c '! grep -q "collector:" out.txt'

# something that matters: a fallback and a loss above 1%
"$MK" -o fb.pmcp -b "$PROGS/ana_work" -e perf::CPU-CLOCK@1000000=cycles \
	-m 'fallback=cycles -> perf::CPU-CLOCK@1000000: no hardware PMU here' \
	-c samples=900 -c dropped_no_memory=50 "main;work_a=600" "main;work_b=300"
"$PMCPROF" report fb.pmcp >out.txt 2>err.txt
check "fallback and losses: 3 header lines ($(header_lines out.txt))" test "$(header_lines out.txt)" -eq 3
contains "the warning names the fallback" "^# warning: fell back from cycles -> perf::CPU-CLOCK@1000000" out.txt
contains "... and the loss" "^# warning: .*dropped_no_memory" out.txt
"$PMCPROF" report -q fb.pmcp >out.txt 2>err.txt
check "-q: no warning line" test "$(header_lines out.txt)" -eq 2
check "-q: nothing on stderr" test ! -s err.txt
"$PMCPROF" report --header fb.pmcp >out.txt 2>err.txt
contains "--header: the collector counters" "^# collector: .*dropped_no_memory=50" out.txt
contains "--header: the metadata" "^# .*fallback: cycles" out.txt
contains "--header: each warning on its own line" "^# warning: .*dropped_no_memory" out.txt

# -q silences "no debug info" (a stripped binary)
cp "$PROGS/ana_work" stripped && strip stripped
"$MK" -o stripped.pmcp -b "$PROGS/ana_work" -P "$TMP/stripped" "main;work_a=10"
"$PMCPROF" report --no-header stripped.pmcp >out.txt 2>err.txt
contains "stripped: 'no debug info' is warned" "no debug info" err.txt
"$PMCPROF" report -q --no-header stripped.pmcp >out.txt 2>err.txt
check "-q: 'no debug info' silenced" test ! -s err.txt

# piped output is never cut; --width cuts
long=$TMP/a-directory-with-a-rather-long-name/and-another-one-below-it-to-pass-80-columns
mkdir -p "$long" && cp "$PROGS/ana_work" "$long/ana_work"
"$MK" -o long.pmcp -b "$long/ana_work" "main;work_a=10"
"$PMCPROF" report --modules long.pmcp >out.txt 2>err.txt
contains "piped: the whole path" "$long/ana_work\$" out.txt
"$PMCPROF" report --modules --width 60 long.pmcp >out.txt 2>err.txt
check "--width 60: lines cut to 60" awk 'length($0) > 60 { exit 1 }' out.txt

# --by: one short line per group, each group sorted by its own counts
mkdir byt
"$MK" -o byt/t1.pmcp -b "$PROGS/ana_work" -m tid=101 "main;work_a=100" "main;work_b=300"
"$MK" -o byt/t2.pmcp -b "$PROGS/ana_work" -m tid=102 "main;work_a=400" "main;work_b=50"
"$PMCPROF" report --by thread byt >out.txt 2>err.txt
check "--by: one line per group" test "$(grep -c '^# run: tid=10[12] (1 file): [0-9]* samples$' out.txt)" -eq 2
check "--by: the header is not repeated" test "$(grep -c '^# event:' out.txt)" -eq 1
first_fn() { awk -v g="$1" '$0 ~ "^# run: tid=" g { on = 1; next } on && /work_/ { print $4; exit }' out.txt; }
check "--by: tid 101 sorted by its own counts (work_b first)" test "$(first_fn 101)" = work_b
check "--by: tid 102 sorted by its own counts (work_a first)" test "$(first_fn 102)" = work_a
"$PMCPROF" report --by thread --top 1 byt >out.txt 2>err.txt
check "--by --top 1: each group's own top row" test "$(grep -c 'work_' out.txt)" -eq 2
