#!/bin/sh
# The option layer every command shares (cli/options.c): --x=v and --x v,
# options after the operands, bundled short options, "--" ends options,
# "did you mean" for a misspelled option or subcommand, generated --help.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=

"$PROGS/ana_mkprofile" -o app.pmcp -b "$PROGS/ana_work" \
	"main;work_a=600" "main;work_b=300" "main;work_c=100" || { fail "ana_mkprofile"; exit 1; }

# same_csv NAME ARGS...: report --csv with ARGS gives ref.csv
"$PMCPROF" report --csv --top 2 --sort self app.pmcp >ref.csv 2>/dev/null
check "reference report: 2 rows and a title" test "$(wc -l <ref.csv)" -eq 3
same_csv() {
	_n=$1; shift
	"$PMCPROF" report "$@" >got.csv 2>err.txt
	if cmp -s ref.csv got.csv; then pass "$_n"; else fail "$_n"; sed 's/^/    | /' err.txt got.csv | head -8; fi
}
same_csv "--top=2 --sort=self" --csv --top=2 --sort=self app.pmcp
same_csv "options after the profile" app.pmcp --csv --top 2 --sort self
same_csv "options between profiles... after" --csv app.pmcp --top=2
same_csv "bundled short options (-qe NAME)" -qe perf::CPU-CLOCK --csv --top 2 app.pmcp
same_csv "an abbreviated long option (--so)" --csv --to 2 --so self app.pmcp

# "--" ends the options: a profile named like an option is a profile
cp app.pmcp ./--csv
"$PMCPROF" report --csv --top 2 -- --csv >got.csv 2>err.txt
check "--: a file named --csv is read" test "$(cut -d, -f2,6 got.csv)" = "$(cut -d, -f2,6 ref.csv)"

# status WANT NAME PATTERN COMMAND... (tests/lib.sh)
status 1 "misspelled option: did you mean" "did you mean '--sort'" "$PMCPROF" report --sortt self app.pmcp
status 1 "diff: misspelled option" "did you mean '--ratio'" "$PMCPROF" diff --raito raw app.pmcp app.pmcp
status 1 "record: misspelled option" "did you mean '--output'" "$PMCPROF" record --ouput x -- true
status 1 "stat: misspelled option" "did you mean '--no-fallback'" "$PMCPROF" stat --no-falback -- true
status 1 "view: misspelled option" "did you mean '--snapshot'" "$PMCPROF" view --snapshoot 80x24 app.pmcp
status 1 "list: misspelled option" "did you mean '--names'" "$PMCPROF" list --nmaes
status 1 "dump: unknown option" "unknown option '--x'" "$PMCPROF" dump --x app.pmcp
status 1 "misspelled subcommand: did you mean" "did you mean 'report'" "$PMCPROF" reprot app.pmcp
status 1 "misspelled --by value" "did you mean 'thread'" "$PMCPROF" report --by thraed app.pmcp
status 1 "a value for a flag" "takes no value" "$PMCPROF" report --csv=yes app.pmcp
status 1 "a missing value" "needs a value" "$PMCPROF" report app.pmcp --top
status 1 "an ambiguous abbreviation" "ambiguous" "$PMCPROF" report --c app.pmcp
# record stops at the command: its options are the command's

# --help comes from the table: every option listed once, with its help
for cmd in record stat report diff view list probe dump; do
	"$PMCPROF" $cmd --help >help.txt 2>&1
	check "$cmd --help: exit 0" test $? -eq 0
	contains "$cmd --help: usage line" "^Usage: pmcprof $cmd" help.txt
	contains "$cmd --help: lists --help" "^  -h, --help" help.txt
done
# record stops at the command: the options after it are the command's
"$PMCPROF" record -o rec -e cpu-clock sh -c 'echo "$1"' sh --csv >out.txt 2>err.txt
check "record: options after CMD go to CMD (status $?)" test "$(cat out.txt)" = --csv

# report in perf's spellings: -i, --stdio, --percent-limit, --sort keys,
# -n, --no-children
"$PMCPROF" report -q --no-header --min-pct 40 app.pmcp >ref.txt 2>&1
"$PMCPROF" report -q --no-header --stdio -n --percent-limit 40 -i app.pmcp >got.txt 2>&1
check "-i --stdio -n --percent-limit: as --min-pct" cmp -s ref.txt got.txt
check "--percent-limit 40: one row" test "$(grep -c work_ got.txt)" -eq 1
"$PMCPROF" report -q --no-header --no-children app.pmcp >nc.txt 2>&1
check "--no-children: no Incl% column" sh -c '! grep -q "Incl%" nc.txt && grep -q "Self%" nc.txt'
"$PMCPROF" report -q --no-header --sort dso app.pmcp >dso.txt 2>&1
"$PMCPROF" report -q --no-header --modules app.pmcp >mod.txt 2>&1
check "--sort dso: the module view" cmp -s dso.txt mod.txt
"$PMCPROF" report -q --no-header --sort dso,sym app.pmcp >dsosym.txt 2>&1
contains "--sort dso,sym: functions" "work_a" dsosym.txt
status 1 "--sort: a misspelled key" "did you mean 'dso'" "$PMCPROF" report --sort dos app.pmcp
for cmd in record stat report diff view list probe dump; do
	"$PMCPROF" $cmd --help >help.txt 2>&1
	check "$cmd --help fits 80 columns" awk 'length > 80 { exit 1 }' help.txt
done

# diff: options after the runs (it said "--sort: No such file or directory")
"$PMCPROF" diff -q --csv --sort ratio app.pmcp app.pmcp >a.csv 2>/dev/null
"$PMCPROF" diff app.pmcp app.pmcp --sort ratio -q --csv >b.csv 2>err.txt
check "diff A B --sort ratio: options after the runs" cmp -s a.csv b.csv

# Options bound to variables (cli/options.h): the errors come from the
# table's rows, and a group shared by the commands reads the same in each.
status 1 "a range, made from the row" "--width: expected 20..10000, got '5'" \
	"$PMCPROF" report --width 5 app.pmcp
status 1 "a range, as typed (-r)" "-r: expected a number of runs, 1..100000, got '0'" \
	"$PMCPROF" stat -r 0 -- true
status 1 "an enum name: did you mean" "expected share or raw, got 'shrae'; did you mean 'share'" \
	"$PMCPROF" diff --ratio shrae app.pmcp app.pmcp
status 1 "an open range (--conf 1)" "--conf: expected a level between 0 and 1, got '1'" \
	"$PMCPROF" diff --conf 1 app.pmcp app.pmcp
status 1 "a list of numbers" "--pid: expected a comma-separated list of numbers, got '1,,2'" \
	"$PMCPROF" report --pid 1,,2 app.pmcp
for cmd in report diff view script annotate; do
	"$PMCPROF" $cmd --help | sed -n '/^      --debug-dir/,/^      --short-names/p' >sym-$cmd.txt
done
check "the symbol options read the same in report, diff, view, script, annotate" \
	sh -c 'test -s sym-report.txt && for c in diff view script annotate; do cmp -s sym-report.txt sym-$c.txt || exit 1; done'
# a list option appends: two --label values name two runs
"$PMCPROF" diff -q --csv --label A --label B app.pmcp app.pmcp >lab.csv 2>err.txt
check "diff --label A --label B: both runs named (run,base: B,A)" \
	test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["run"] "," $c["base"] }' lab.csv)" = "B,A"
# record's collector settings: every value is checked, not only the last
status 1 "record: a bad --signal before a good one" "'bad' is not a signal number" \
	"$PMCPROF" record -o sig -q --signal bad --signal 5 -- true
status 1 "record: a bad --call-graph before -g" "'bogus' is not one of" \
	"$PMCPROF" record -o cg -q --call-graph bogus -g -- true
status 1 "record: a bad --seed before a good one" "--seed: 'bad'" \
	"$PMCPROF" record -o sd -q --random-period 4 --seed bad --seed 7 -- true
