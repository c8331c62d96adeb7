#!/bin/sh
# README's test command: set up, build, then run every test.  The last line
# printed is the summary "N passed, N failed, N skipped".
#   TESTS=pattern scripts/test.sh    runs only matching tests
#   ONLY_UNIT=1 scripts/test.sh      skips the shell (integration) tests
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${PMCPROF_BUILD_DIR:-$top/build}
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" "$dir" ${PMCPROF_CONFIGURE_FLAGS:-}
set +e
PMCPROF_BUILD=$dir PMCPROF_SRC=$top UNIT_TESTS=$(make -s -C "$dir" print-unit-tests) \
	sh "$top/tests/run-tests.sh"
