#!/bin/sh
# Known work split: work_a, work_b and work_c do 60/30/10 % of identical
# work.  report must show those shares within 2 percentage points, in CSV
# and in text: first on a synthetic profile (20000 samples drawn with
# those probabilities, so only sampling noise), then recorded for real by
# `pmcprof record` (skipped until the collector is built).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

# shares FILE.csv: print "work_a work_b work_c" self_pct from report --csv
shares_csv() {
	python3 - "$1" <<'PY'
import csv, sys
pct = {r["function"]: float(r["self_pct"]) for r in csv.DictReader(open(sys.argv[1], newline=""))}
print(" ".join("%.3f" % pct.get(f, -100) for f in ("work_a", "work_b", "work_c")))
PY
}
# shares_text FILE.txt: the Self% column of the same rows in the text table
shares_text() {
	for f in work_a work_b work_c; do
		awk -v f="$f" '$4 == f { print $1; found = 1 } END { if (!found) print -100 }' "$1"
	done | tr '\n' ' '
}
# within "name" "60 30 10" "measured"
within() {
	if python3 -c "
import sys
want = [float(x) for x in sys.argv[1].split()]
got = [float(x) for x in sys.argv[2].split()]
sys.exit(0 if all(abs(w - g) <= 2.0 for w, g in zip(want, got)) else 1)" "$2" "$3"; then
		pass "$1: shares $3 within 2 points of $2"
	else
		fail "$1: shares $3 not within 2 points of $2"
	fi
}

"$PROGS/ana_mkprofile" -o split.pmcp -b "$PROGS/ana_work" -s 7 -n 20000 \
	"main;work_a=6" "main;work_b=3" "main;work_c=1"
"$PMCPROF" report --csv split.pmcp >split.csv
check "synthetic: report --csv exits 0" test $? -eq 0
within "synthetic CSV" "60 30 10" "$(shares_csv split.csv)"
"$PMCPROF" report --width 80 split.pmcp >split.txt
within "synthetic text" "60 30 10" "$(shares_text split.txt)"
check "synthetic text: fits 80 columns" awk 'length > 80 { exit 1 }' split.txt

if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "recorded split: pmcprof-record is not built yet"
	exit 0
fi
# ~1 s of work sampled every 100 us: about 10000 samples
if ! "$PMCPROF" record -e cpu-clock@100000 -o rec -- "$PROGS/ana_work" split 25 >record.log 2>&1; then
	fail "recorded split: pmcprof record failed"
	sed 's/^/    | /' record.log
	exit 0
fi
"$PMCPROF" report --csv rec >rec.csv
check "recorded: report --csv exits 0" test $? -eq 0
within "recorded CSV" "60 30 10" "$(shares_csv rec.csv)"
"$PMCPROF" report rec >rec.txt
within "recorded text" "60 30 10" "$(shares_text rec.txt)"

# --by thread on threads that ran different code (each thread keeps only
# its own contexts): summed over the threads, every view gives back the
# merged run's numbers, counts and weights.
"$PROGS/ana_mkprofile" -o disjoint -F 20 -D -b "$PROGS/ana_work" -S 3000:30000 ||
	{ fail "ana_mkprofile -F -D"; exit 0; }
for view in "" --lines --modules --tree --tree=bottom-up "--callers main"; do
	"$PMCPROF" report --csv --weight $view disjoint >merged.csv &&
		"$PMCPROF" report --csv --weight --by thread $view disjoint >split.csv
	check "--by thread ${view:-(functions)}: the threads' sums are the merged run's" \
		python3 - merged.csv split.csv <<'PY'
import csv, sys
from collections import Counter
def sums(path):
    s = Counter()
    runs = set()
    for r in csv.DictReader(open(path, newline="")):
        runs.add(r["run"])
        k = (r["function"], r["module"], r["file"], r["line"], r["depth"])
        for c in ("self_samples", "incl_samples", "self_value", "incl_value"):
            s[k + (c,)] += float(r[c] or 0)
    return s, runs
m, mr = sums(sys.argv[1])
t, tr = sums(sys.argv[2])
assert len(mr) == 1 and len(tr) == 20, (mr, len(tr))
# a tree row's key is (function, depth): several rows may share it, and
# the split rows of one thread may be cut at other places; compare totals
bad = [k for k in set(m) | set(t) if abs(m[k] - t[k]) > 1e-6 * max(1, abs(m[k]))]
assert not bad, bad[:5]
PY
done
