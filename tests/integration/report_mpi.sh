#!/bin/sh
# Many files: MPI ranks and threads merge into one run, and --by rank /
# thread / process keeps them apart.  Synthetic rank files first; then 4
# ranks under mpirun with the real collector (skipped until it is built).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

mkdir ranks
for r in 0 1 2 3; do
	for t in 0 1; do
		"$PROGS/ana_mkprofile" -o "ranks/r$r-t$t.pmcp" -b "$PROGS/ana_work" -m rank=$r -m pid=$((100 + r)) \
			-m tid=$((100 + r))$t "main;work_a=$((100 * (r + 1)))" "main;work_b=50"
	done
done
"$PMCPROF" report --no-header ranks >merged.txt
check "merged: 8 files, one table" test "$(grep -c '^Self%' merged.txt)" -eq 1
contains "merged: work_a sums every rank (2000 samples)" "  2000  work_a" merged.txt
"$PMCPROF" report --by rank ranks >byrank.txt
check "--by rank: 4 ranks" test "$(grep -c '^# run: rank=[0-3] (2 files)' byrank.txt)" -eq 4
contains "--by rank: rank 3 has its own counts" "  800  work_a" byrank.txt
"$PMCPROF" report --by thread --csv ranks >bythread.csv
check "--by thread: 8 runs in CSV" test "$(python3 -c "
import csv
print(len({r['run'] for r in csv.DictReader(open('bythread.csv', newline=''))}))")" -eq 8
"$PMCPROF" report --by process --collapsed ranks >byproc.folded
contains "--by process: group label is the root frame" "^pid=102;main;work_a 600" byproc.folded

if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "mpirun -np 4: pmcprof-record is not built yet"
	exit 0
fi
if ! command -v mpirun >/dev/null; then
	skip "mpirun -np 4: no mpirun"
	exit 0
fi
if mpirun --allow-run-as-root --oversubscribe -np 4 \
	"$PMCPROF" record -e cpu-clock@200000 -o mpi -- "$PROGS/ana_work" split 5 >mpi.log 2>&1; then
	"$PMCPROF" report --by rank mpi >mpi.txt
	check "mpirun: --by rank shows 4 ranks" test "$(grep -c '^# run: rank=[0-3] ' mpi.txt)" -eq 4
	# each rank counts its own profile (one thread each), not the directory's
	check "mpirun: each rank prints its own count" \
		test "$(grep -c 'record: 1 profile from rank [0-3] in' mpi.log)" -eq 4
else
	fail "mpirun with pmcprof record failed"
	sed 's/^/    | /' mpi.log | tail -20
fi
