#!/bin/sh
# The vdso is symbolized: the collector saves its image in the profile
# (format 1.1, the images section), and the analyzer names
# __vdso_clock_gettime from it, on this kernel and on another one: a vdso
# with another build-id (a copy of ours with the build-id changed, as
# another kernel's would be) is named from the profile's image, and a diff
# matches the two by function name.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "pmcprof-record is not built"
	exit 0
fi
V="$PROGS/vdso_loop"
"$PMCPROF" record -e cpu-clock@500000 -o rec -- "$V" 10 >/dev/null 2>rec.err ||
	{ fail "record failed"; sed 's/^/    | /' rec.err; exit 0; }
"$PMCPROF" dump rec/*.pmcp >dump.txt 2>&1
contains "the profile holds the vdso's image" "^image of module [0-9]*: [0-9]* bytes" dump.txt
"$PMCPROF" report --csv rec >rep.csv
# By inclusive samples: where the clocksource is the TSC, this kernel's
# vdso reads it in a local function that has no symbol (called from
# __vdso_clock_gettime), so the self-time top row can be an address.
cat >top.py <<'PY'
import csv, sys
rows = sorted(((int(r['incl_samples']), r['function'], r['module']) for r in
               csv.DictReader(open(sys.argv[1], newline=''))
               if r['module'] == 'linux-vdso.so.1'), reverse=True)
print(*(rows[0][1:] if rows else ('none', 'none')))
PY
contains "report: __vdso_clock_gettime on top of the vdso" "^__vdso_clock_gettime linux-vdso.so.1$" "$(python3 top.py rep.csv >top.txt; echo top.txt)"

# another kernel's vdso: our image with its build-id bytes changed
"$V" dump vdso.so || { fail "could not dump the vdso"; exit 0; }
bid=$(readelf -n vdso.so | awk '/Build ID/ { print $3 }')
if [ -z "$bid" ]; then
	skip "this kernel's vdso has no build-id"
	exit 0
fi
python3 - "$bid" <<'PY'
import sys
b = bytes.fromhex(sys.argv[1])
d = open('vdso.so', 'rb').read()
assert d.count(b) == 1
open('other.so', 'wb').write(d.replace(b, bytes(x ^ 0x5a for x in b)))
PY
"$PROGS/ana_mkprofile" -o other.pmcp -b other.so -P linux-vdso.so.1 -I \
	"__vdso_clock_gettime=900" "__vdso_gettimeofday=100"
"$PMCPROF" report --csv other.pmcp >other.csv 2>other.err
python3 top.py other.csv >top2.txt
contains "another kernel's vdso: named from the image in the profile" \
	"^__vdso_clock_gettime linux-vdso.so.1$" top2.txt
"$PROGS/ana_mkprofile" -o noimage.pmcp -b other.so -P linux-vdso.so.1 "__vdso_clock_gettime=900"
"$PMCPROF" report --csv noimage.pmcp >noimage.csv 2>/dev/null
contains "another kernel's vdso, no image: shown unresolved, not misnamed" \
	"\[linux-vdso.so.1+0x" noimage.csv
"$PMCPROF" diff --csv rec other.pmcp >diff.csv 2>/dev/null
check "diff across kernels: __vdso_clock_gettime matched by name" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open('diff.csv', newline='')) if r['function'] == '__vdso_clock_gettime']
sys.exit(0 if len(rows) == 1 and rows[0]['presence'] == 'both' else 1)"

# PLT entries are named as perf names them (clock_gettime@plt), not as the
# symbol before them (_init)
plt=$(objdump -d "$V" 2>/dev/null | sed -n 's/^0*\([0-9a-f]*\) <clock_gettime@plt>:$/\1/p' | head -1)
if [ -n "$plt" ]; then
	"$PROGS/ana_mkprofile" -o plt.pmcp -b "$V" "main;0x$plt=10"
	"$PMCPROF" report --csv plt.pmcp >plt.csv 2>/dev/null
	contains "a PLT entry: clock_gettime@plt" ",clock_gettime@plt," plt.csv
else
	skip "no clock_gettime@plt in objdump's output"
fi

