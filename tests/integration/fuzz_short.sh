#!/bin/sh
# A few seconds of each fuzz target (tests/fuzz/run-fuzz.sh): every target
# must build and run without a crash.  Skipped without clang's fuzzer runtime.
. "$PMCPROF_SRC/tests/lib.sh"

FUZZ_SECONDS=${FUZZ_SECONDS:-2} FUZZ_OUT="$TMP/fuzz" \
	sh "$PMCPROF_SRC/tests/fuzz/run-fuzz.sh" 200000 >out 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	skip "fuzzing: $(cat out)"
	exit 0
fi
sed 's/^/    | /' out
# Table rows: target execs crashes seconds.
rows=0
while read -r target execs crashes _; do
	case "$target" in fuzz_*) ;; *) continue ;; esac
	rows=$((rows + 1))
	if [ "$crashes" = 0 ] && [ "$execs" -gt 0 ] 2>/dev/null; then
		pass "fuzz $target: $execs runs, no crash"
	else
		fail "fuzz $target: execs=$execs crashes=$crashes (artifacts in a temp dir; rerun tests/fuzz/run-fuzz.sh with FUZZ_OUT)"
	fi
done <out
check "fuzz: every tests/fuzz/fuzz_*.c ran ($rows)" \
	[ "$rows" -eq "$(ls "$PMCPROF_SRC"/tests/fuzz/fuzz_*.c | wc -l)" ]
check "fuzz: run-fuzz.sh exit status 0" [ "$rc" -eq 0 ]
