#!/bin/sh
# Runs every unit-test program ($UNIT_TESTS, relative to $PMCPROF_BUILD) and
# every shell test (tests/integration/*.sh).  Each prints PASS:/FAIL:/SKIP:
# lines; a program that exits non-zero without a FAIL line counts as one
# failure, and so does one that reports no check at all.  The last line is the summary "N passed, N failed, N skipped".
# TESTS="pattern" runs only matching tests; ONLY_UNIT=1 skips the shell tests.
# Every test is bounded: one still running after $PMCPROF_TEST_TIMEOUT
# seconds (default 900) is killed and counted as a failure, so that a test
# that livelocks on a slow or loaded machine cannot take CI's time with it.
build=${PMCPROF_BUILD:?}
src=${PMCPROF_SRC:?}
export PMCPROF_BUILD PMCPROF_SRC
export PMCPROF_PLUGIN_PATH="$build/plugins/.libs"
log=$build/tests/test-log
mkdir -p "$log"
pass=0 fail=0 skip=0
limit=${PMCPROF_TEST_TIMEOUT:-900}

run_one() {	# name, command...
	name=$1; shift
	case "$name" in *${TESTS:-}*) ;; *) return ;; esac
	out="$log/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s)
	timeout -k 10 "$limit" "$@" >"$out" 2>&1
	rc=$?
	case $rc in 124|137) echo "FAIL: $name did not finish in $limit s (killed)" >>"$out" ;; esac
	p=$(grep -c '^PASS: ' "$out"); f=$(grep -c '^FAIL: ' "$out"); s=$(grep -c '^SKIP: ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && [ "$rc" -ne 77 ]; then
		echo "FAIL: $name exited with status $rc" >>"$out"; f=$((f + 1))
	fi
	if [ "$rc" -eq 77 ] && [ "$p$f" = "00" ]; then s=$((s > 0 ? s : 1)); fi
	# a test that checked nothing (crashed early, lost its output, an empty
	# table) must not pass quietly
	if [ "$p$f$s" = "000" ]; then
		echo "FAIL: $name reported no checks (no PASS/FAIL/SKIP line)" >>"$out"; f=1
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-44s %3d passed %3d failed %3d skipped  (%ss)\n' "$name" "$p" "$f" "$s" $(( $(date +%s) - start ))
	if [ "$f" -gt 0 ]; then grep '^FAIL: ' "$out" | sed 's/^/    /'; echo "    log: $out"; fi
}

for t in $UNIT_TESTS; do
	run_one "$t" "$build/$t"
done
[ -n "${ONLY_UNIT:-}" ] && set --  # ONLY_UNIT=1: the sanitizer run skips shell tests
for t in "$src"/tests/integration/*.sh; do
	[ -n "${ONLY_UNIT:-}" ] && break
	[ -e "$t" ] || continue
	run_one "integration/$(basename "$t" .sh)" sh "$t"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
