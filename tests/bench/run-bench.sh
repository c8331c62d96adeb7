#!/bin/sh
# make bench: runs every tests/bench/*.sh; each prints its own table of
# figures, with ratios against peers measured in the same run.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
export PMCPROF_PLUGIN_PATH="$PMCPROF_BUILD/plugins/.libs"
status=0
for b in "$PMCPROF_SRC"/tests/bench/*.sh; do
	case $(basename "$b") in run-bench.sh | lib.sh) continue ;; esac
	echo "=== $(basename "$b" .sh)"
	sh "$b" || { echo "(benchmark $(basename "$b") failed)"; status=1; }
	echo
done
exit $status
