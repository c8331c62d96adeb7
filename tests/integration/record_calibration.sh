# record calibrates hardware counters before trusting them with a run: a
# (fake) PMU that counts zeros or garbage is refused, or used with --force
# and the verdict recorded in the profile.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_PLUGIN_PATH="$PMCPROF_BUILD/tests/unit/.libs:$PMCPROF_PLUGIN_PATH"

PMC_FAKE_MODE=zero "$PMCPROF" record -b fakecounter -e instructions@100000 -o z -- true 2>z.txt
check "a counter counting zeros is refused (exit 2)" [ $? -eq 2 ]
contains "the refusal says why" "failed calibration: counted 0" z.txt
contains "and how to go on anyway" "--force" z.txt

PMC_FAKE_MODE=garbage "$PMCPROF" record -b fakecounter -e branches@100000 -o g -- true 2>g.txt
check "a counter counting garbage is refused (exit 2)" [ $? -eq 2 ]
contains "implausible counts named" "counted 3917405024756549" g.txt

PMC_FAKE_MODE=zero "$PMCPROF" record --force -b fakecounter -e instructions@100000 -o f -- true 2>f.txt
check "--force records anyway" [ $? -eq 0 ]
contains "--force still warns" "WARNING:" f.txt
"$PMCPROF" dump f/*.pmcp >fdump.txt 2>&1
contains "the verdict is in the profile" "calibration = perf::INSTRUCTIONS=zero" fdump.txt

"$PMCPROF" record -e cpu-clock -o s -- true 2>/dev/null
"$PMCPROF" dump s/*.pmcp >sdump.txt 2>&1
contains "software clocks need no calibration" "calibration = not needed" sdump.txt
