#!/bin/sh
# diff says when runs are not alike: other events, other periods, another
# build of the same binary, --ratio raw across periods; functions present
# in one run only are shown as new / gone.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache
MK="$PROGS/ana_mkprofile"

"$MK" -o base.pmcp -b "$PROGS/ana_work" -e perf::CPU-CLOCK@1000000 "main;work_a=600" "main;work_b=300"
"$MK" -o period.pmcp -b "$PROGS/ana_work" -e perf::CPU-CLOCK@500000 "main;work_a=1200" "main;work_c=100"
"$MK" -o other.pmcp -b "$PROGS/ana_work" -e perf::CYCLES@1000000 "main;work_a=600"
"$PMCPROF" diff base.pmcp period.pmcp >out.txt 2>err.txt
contains "different periods: warned" "warning: event perf::CPU-CLOCK: period 1000000 in base.pmcp, 500000 in period.pmcp" out.txt
contains "only in the run: new" "^work_c .* new " out.txt
contains "only in the base: gone" "^work_b .* gone " out.txt
"$PMCPROF" diff --ratio raw base.pmcp period.pmcp >out.txt 2>err.txt
contains "--ratio raw across periods: warned" "raw counts are not comparable" err.txt
"$PMCPROF" diff base.pmcp other.pmcp >out.txt 2>err.txt
contains "different events: warned" "event perf::CPU-CLOCK was sampled in base.pmcp but not in other.pmcp" out.txt

mkdir a b
cp "$PROGS/ana_work" a/app
cp "$PROGS/ana_work_alt" b/app
"$MK" -o a.pmcp -b a/app "main;work_a=60"
"$MK" -o b.pmcp -b b/app "main;work_a=60"
"$PMCPROF" diff --header a.pmcp b.pmcp >out.txt 2>err.txt
contains "another build of the binary: warned" "app is a different build in b.pmcp than in a.pmcp" out.txt
contains "matched by module name + function" "^work_a  *app  *100.00  *100.00  *1.00" out.txt
