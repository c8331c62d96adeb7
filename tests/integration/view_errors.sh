#!/bin/sh
# pmcprof view without a terminal: usage errors, no TTY, bad files (via
# --snapshot, which draws the first screen as text with no terminal).
. "$PMCPROF_SRC/tests/lib.sh"

[ -x "$PROGS/ana_mkprofile" ] || { skip "tests/progs/ana_mkprofile not built"; exit 77; }
"$PROGS/ana_mkprofile" -o base.pmcp -b "$PROGS/ana_work" 'main;work_a=600' 'main;work_b=300' ||
	{ fail "ana_mkprofile"; exit 1; }
printf 'not a profile\n' >bad.pmcp
: >empty.pmcp


status 1 "no profile given: usage" "which profile" $PMCPROF view
status 1 "not a TTY: says so" "needs a terminal" $PMCPROF view base.pmcp
status 1 "an unknown option: usage" "unknown option '--bogus'" $PMCPROF view --bogus base.pmcp
status 1 "a bad threshold" "threshold" $PMCPROF view -T 0.5 base.pmcp
status 1 "a bad snapshot size" "WIDTHxHEIGHT" $PMCPROF view --snapshot 80 base.pmcp
status 1 "an unknown event" "no event 'nosuch'" $PMCPROF view --snapshot 80x24 -e nosuch base.pmcp
status 2 "a bad file" "not a pmcprof profile" $PMCPROF view --snapshot 80x24 bad.pmcp
status 2 "an empty file" "empty.pmcp" $PMCPROF view --snapshot 80x24 empty.pmcp
status 2 "a missing file" "missing.pmcp" $PMCPROF view --snapshot 80x24 missing.pmcp
status 2 "a directory without profiles" "" $PMCPROF view --snapshot 80x24 "$TMP/nothing-here"

$PMCPROF view --help >help.txt 2>&1
check "--help exits 0" test $? = 0
contains "--help names the compare form" "BASE RUN" help.txt

$PMCPROF view --snapshot 80x24 base.pmcp >snap.txt 2>err.txt
check "--snapshot draws without a terminal" test $? = 0
check "--snapshot is 24 rows" test "$(wc -l <snap.txt)" = 24
check "--snapshot rows fit 80 columns" test "$(awk 'length($0) > 80' snap.txt | wc -l)" = 0
contains "--snapshot: the hot function" "work_a" snap.txt
NO_COLOR=1 LC_ALL=C $PMCPROF view --snapshot 60x12 base.pmcp >ascii.txt 2>&1
check "a C locale draws ASCII only" test "$(LC_ALL=C grep -c '[^ -~]' ascii.txt)" = 0
exit 0
