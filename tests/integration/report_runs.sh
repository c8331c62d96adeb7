# No silent mixes: a directory holding several record runs (one directory
# each) is refused by report, diff and view unless --merge; one run, a
# file, or runs named one by one are read as before.
. "$PMCPROF_SRC/tests/lib.sh"

mkdir runs
for i in 1 2 3; do
	timeout 60 "$PMCPROF" record -q -e cpu-clock -o runs/r$i -- "$PROGS/busy" 1 0.05 >/dev/null 2>&1
done
check "three runs recorded" [ "$(ls runs/*/*.pmcp | wc -l)" -ge 3 ]

timeout 60 "$PMCPROF" report runs >out.txt 2>err.txt
check "report DIR of 3 runs: refused (2)" [ $? -eq 2 ]
contains "  ... says how many runs and where" "runs holds the profiles of 3 runs, one directory each (runs/r" err.txt
contains "  ... and names the option that merges" "or --merge to merge them into one" err.txt
check "  ... prints no report" [ ! -s out.txt ]
for fmt in --csv --json --collapsed; do
	timeout 60 "$PMCPROF" report $fmt runs >/dev/null 2>/dev/null
	check "report $fmt DIR of 3 runs: refused too (2)" [ $? -eq 2 ]
done
timeout 60 "$PMCPROF" report --merge runs >m.txt 2>merr.txt
check "report --merge DIR: merged (0)" [ $? -eq 0 ]
contains "  ... the header counts every file" "^# runs: .*(3 files" m.txt
timeout 60 "$PMCPROF" report runs/r1 >one.txt 2>&1
check "report of one run's directory: as before (0)" [ $? -eq 0 ]
timeout 60 "$PMCPROF" report runs/r1 runs/r2 >two.txt 2>&1
check "runs named one by one are what the user asked for (0)" [ $? -eq 0 ]

timeout 60 "$PMCPROF" diff runs/r1 runs >d.txt 2>derr.txt
check "diff BASE DIR-of-runs: refused (2)" [ $? -eq 2 ]
contains "  ... says why" "holds the profiles of 3 runs" derr.txt
timeout 60 "$PMCPROF" diff --merge runs/r1 runs >/dev/null 2>&1
check "diff --merge: accepted (0)" [ $? -eq 0 ]

timeout 60 "$PMCPROF" view --snapshot 100x20 runs >v.txt 2>verr.txt
check "view DIR-of-runs: refused (2)" [ $? -eq 2 ]
contains "  ... says why" "holds the profiles of 3 runs" verr.txt
timeout 60 "$PMCPROF" view --snapshot 100x20 --merge runs >v2.txt 2>&1
check "view --merge: opens (0)" [ $? -eq 0 ]
