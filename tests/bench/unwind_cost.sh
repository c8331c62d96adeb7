#!/bin/sh
# ns per uw_capture (fp and libunwind modes) at depth 10, 20 and 50, timed
# inside a real signal handler, against unw_backtrace() and glibc's
# backtrace() measured in the same run.  UNWIND_COST_SAMPLES sets the
# number of samples per figure.
: "${PMCPROF_BUILD:?}"
prog="$PMCPROF_BUILD/tests/bench/unwind-cost"
if [ ! -x "$prog" ]; then
	echo "unwind_cost: $prog not built (make check builds it)"
	exit 1
fi
exec "$prog" "${UNWIND_COST_SAMPLES:-3000}"
