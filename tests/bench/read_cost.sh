#!/bin/sh
# ns per task-clock read through libpmc (pmc_group_read on the perf_event
# plugin) against a raw read() on a perf fd, PAPI_read (when built with
# PAPI) and the getpid syscall, plus start+stop pairs against PAPI; says
# whether the user page allows a syscall-free read here; then groups of 1, 2
# and 4 software events: one raw group read() (PERF_FORMAT_GROUP|ID) against
# pmc_group_read and PAPI_read on the same events (target: libpmc <= 1.05x).  READ_COST_CALLS
# sets the reads per method (default 1000000).
: "${PMCPROF_BUILD:?}"
prog="$PMCPROF_BUILD/tests/bench/bench_read"
if [ ! -x "$prog" ]; then
	echo "read_cost: $prog not built (make check builds it)"
	exit 1
fi
PMCPROF_PLUGIN_PATH="${PMCPROF_PLUGIN_PATH:-$PMCPROF_BUILD/plugins/.libs}"
export PMCPROF_PLUGIN_PATH
exec "$prog" "${READ_COST_CALLS:-1000000}"
