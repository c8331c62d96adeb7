#!/bin/sh
# C++ names as perf shows them: a program of our own (namespaces, a
# template with two instantiations, virtual overrides, operator(), a lambda,
# an anonymous namespace, an inlined member function) and a stripped C++
# library named from .dynsym.
# Rows are keyed by linkage name, so the two Accum<...>::run and the two
# area overrides stay apart (with --short-names too).  When perf can record
# cpu-clock here, every hot row's name must be one perf report gives for the
# same binary; else the names are checked against nm -C.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
if ! command -v g++ >/dev/null 2>&1; then
	skip "g++ is not installed"
	exit 0
fi
if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "pmcprof-record is not built"
	exit 0
fi
CXXFLAGS="-g -O2 -fno-omit-frame-pointer"
# shellcheck disable=SC2086
g++ $CXXFLAGS -shared -fPIC -o libnames.so "$PMCPROF_SRC/tests/progs/names_lib.cc" &&
	strip libnames.so &&
	g++ $CXXFLAGS -o names_cxx "$PMCPROF_SRC/tests/progs/names_cxx.cc" -L. -lnames \
		-Wl,-rpath,"$TMP" || { fail "g++ could not build the test program"; exit 0; }
check "the library is stripped" sh -c '! readelf -S libnames.so | grep -q "\.symtab"'

"$PMCPROF" record -e cpu-clock@200000 -o rec -- ./names_cxx 10 >rec.out 2>rec.err ||
	{ fail "record failed"; sed 's/^/    | /' rec.err; exit 0; }
"$PMCPROF" report --csv rec >rep.csv
"$PMCPROF" report --short-names --csv rec >short.csv
"$PMCPROF" report --no-inline --csv rec >noinl.csv
# function,module -> self samples, for names_cxx and libnames.so rows
python3 - <<'PY' >names.txt
import csv
for r in csv.DictReader(open('rep.csv', newline='')):
    if r['module'].endswith(('/names_cxx', '/libnames.so')) and int(r['self_samples']) > 0:
        print(r['function'])
PY
for want in 'ns::Accum<double, 300>::run' 'ns::Accum<long, 300>::run' 'ns::Square::area' \
	'ns::Circle::area' 'ns::Widget::operator()' '(anonymous namespace)::map_work' \
	'main::{lambda(unsigned long)#1}::operator()' 'lib::work'; do
	if grep -qxF "$want" names.txt; then
		pass "row '$want'"
	else
		fail "no row '$want'"; sed 's/^/    | /' names.txt
	fi
done
check "an inlined member function: ns::Vec::dot, inlined into ns::use_vec" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open('rep.csv', newline=''))
        if r['function'] == 'ns::Vec::dot' and r['inlined_into'] == 'ns::use_vec']
sys.exit(0 if rows and int(rows[0]['self_samples']) > 0 else 1)"
n=$(python3 -c "
import csv
print(sum(1 for r in csv.DictReader(open('short.csv', newline=''))
          if r['function'] == 'run' and r['module'].endswith('/names_cxx')))")
check "--short-names: the two instantiations are still two rows named run ($n)" test "$n" = 2
check "--short-names: area twice" test "$(grep -c '^[^,]*,area,' short.csv)" = 2
if grep -q '_Z' rep.csv; then fail "a mangled name is left"; grep '_Z' rep.csv | head -3; else pass "no mangled names"; fi

# the same names as perf report, or as nm -C without parameter lists
if perf record -q -e cpu-clock -o perf.data ./names_cxx 10 >/dev/null 2>perf.err &&
   perf report -i perf.data --stdio --no-children -g none --sort sym 2>/dev/null |
	sed -n 's/^ *[0-9.]*% *\[\.\] //p' | sed 's/ *$//' >perf.txt && [ -s perf.txt ]; then
	peer="perf report"
else
	{ nm -C names_cxx; nm -C -D libnames.so; } | awk '$2 ~ /^[TtWw]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }' |
		sed 's/([^()]*)\( const\)\{0,1\}\( \[clone [^]]*\]\)*$//' >perf.txt
	peer="nm -C"
fi
# perf's flat profile has no inlined functions: compare with --no-inline;
# hot rows only (>= 1%: a stray sample in the PLT's resolver stub has no
# name in either)
python3 - <<'PY' >flat.txt
import csv
for r in csv.DictReader(open('noinl.csv', newline='')):
    if r['module'].endswith(('/names_cxx', '/libnames.so')) and float(r['self_pct']) >= 1:
        print(r['function'])
PY
missing=0
while IFS= read -r f; do
	grep -qxF "$f" perf.txt || { missing=$((missing + 1)); echo "    | not in $peer: $f"; }
done <flat.txt
check "every hot row's name is one $peer gives ($(wc -l <flat.txt) rows, --no-inline)" test "$missing" = 0

# a diff of two runs matches every function (same keys in both)
"$PMCPROF" record -e cpu-clock@200000 -o rec2 -- ./names_cxx 10 >/dev/null 2>&1
"$PMCPROF" diff --csv rec rec2 >diff.csv
check "diff: the two Accum<...>::run rows are matched, none gone or new" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open('diff.csv', newline='')) if '::run' in r['function']]
sys.exit(0 if len(rows) == 2 and all(r['presence'] == 'both' for r in rows) else 1)"
