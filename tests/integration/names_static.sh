#!/bin/sh
# Two static functions named helper in two files are two functions: two
# rows (keyed by name and address, as perf keeps them apart), with their
# own shares (3:1), with DWARF and without (--strip-debug keeps .symtab,
# local symbols included).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "pmcprof-record is not built"
	exit 0
fi
cp "$PROGS/names_static" app
objcopy --strip-debug app app_nodebug
for bin in app app_nodebug; do
	"$PMCPROF" record -e cpu-clock@500000 -o "rec_$bin" -- "./$bin" 20 >/dev/null 2>&1 ||
		{ fail "$bin: record failed"; continue; }
	"$PMCPROF" report --no-cache --csv "rec_$bin" >"$bin.csv" 2>/dev/null
	check "$bin: two helper rows, about 3:1" python3 -c "
import csv, sys
n = sorted(int(r['self_samples']) for r in csv.DictReader(open('$bin.csv', newline=''))
           if r['function'] == 'helper')
print('    helper rows:', n)
sys.exit(0 if len(n) == 2 and n[1] > 2 * n[0] and n[0] > 0 else 1)"
done
