#!/bin/sh
# Portable profiles (docs/analyzer.md, "Kept names"): record keeps the names
# of the sampled addresses in DIR/symbols, so that the profile directory
# alone names them (functions, qualified and demangled, source lines,
# inlined frames, a stripped library's ELF symbols, the kernel's functions)
# after the program is rebuilt with one string changed, deleted, and in a
# fresh HOME with the binaries renamed away and another kernel; `pmcprof
# archive` keeps them after the fact; the pprof export lets go tool pprof
# -disasm and -list find the binary.  Each case is checked against the
# report made before the change: the same rows (function, module) with the
# same self and inclusive samples, and the same source lines.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/cache"
if ! command -v g++ >/dev/null 2>&1; then
	skip "g++ is not installed"
	exit 0
fi
CXXFLAGS="-g -O2 -fno-omit-frame-pointer"
SRC="$PMCPROF_SRC/tests/progs"
build() {	# the program (and its stripped library) from names_cxx.cc as $1
	# shellcheck disable=SC2086
	g++ $CXXFLAGS -shared -fPIC -o libnames.so "$SRC/names_lib.cc" &&
		objcopy --only-keep-debug libnames.so libnames.debug && strip libnames.so &&
		g++ $CXXFLAGS -o names_cxx "$1" -L. -lnames -Wl,-rpath,"$TMP"
}
build "$SRC/names_cxx.cc" || { fail "g++ could not build the test program"; exit 0; }
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
old=$(bid names_cxx)

"$PMCPROF" record -e cpu-clock@200000 -o rec -- ./names_cxx 6 >rec.out 2>rec.err ||
	{ fail "record failed"; sed 's/^/    | /' rec.err; exit 0; }
check "record kept the program's names (rec/symbols/BUILDID.sym)" test -s "rec/symbols/$old.sym"
check "and the stripped library's ELF symbols (.elfsym)" test -s "rec/symbols/$(bid libnames.so).elfsym"

# rows: function, module basename, source line, inlined into, self, incl
cat >rows.py <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if int(r['self_samples']) or int(r['incl_samples']):
        print('|'.join((r['function'], r['module'].rsplit('/', 1)[-1], r['file'] + ':' + r['line'],
                        r['inlined_into'], r['self_samples'], r['incl_samples'])))
PY
snap() {	# snap NAME [env...]: the report's rows and lines into NAME.rows
	n=$1
	shift
	"$@" "$PMCPROF" report --csv rec >"$n.csv" 2>"$n.err" &&
		"$@" "$PMCPROF" report --lines --csv rec >"$n-lines.csv" 2>>"$n.err" &&
		python3 rows.py "$n.csv" | sort >"$n.rows" &&
		python3 rows.py "$n-lines.csv" | sort >>"$n.rows"
}
same() {	# same CASE NAME: NAME's rows are the original's
	if cmp -s before.rows "$2.rows"; then
		pass "$1: the same names, lines and shares as before"
	else
		fail "$1: rows differ from the report before"
		diff before.rows "$2.rows" | head -8 | sed 's/^/    | /'
	fi
}
snap before
check "before: a qualified C++ name with a source line" grep -q '^ns::Accum<double, 300>::run|names_cxx|.*names_cxx.cc:' before.rows
check "before: the stripped library's function" grep -q '^lib::work|libnames.so|' before.rows
check "before: an inlined function's own row" grep -q '^ns::Vec::dot|names_cxx|.*|ns::use_vec|' before.rows

# 0. debug info that appears later wins over the kept ELF-only names: the
# stripped library's debug file under --debug-dir DIR/.build-id/
lbid=$(bid libnames.so)
mkdir -p "dbg/.build-id/$(echo "$lbid" | cut -c1-2)"
cp libnames.debug "dbg/.build-id/$(echo "$lbid" | cut -c1-2)/$(echo "$lbid" | cut -c3-).debug"
"$PMCPROF" report --no-cache --debug-dir dbg --csv rec >withdbg.csv 2>/dev/null
check "a debug file here wins over kept ELF-only names (lib::work has its source line)" \
	grep -q '^[^,]*,lib::work,[^,]*libnames.so,[^,]*names_lib.cc,' withdbg.csv

# 1. rebuilt from the same source, one string changed
sed 's/%lu\\n/%lu.\\n/' "$SRC/names_cxx.cc" >changed.cc
cp names_cxx names_cxx.orig
build changed.cc || { fail "g++ could not rebuild"; exit 0; }
check "rebuild: another build-id" test "$(bid names_cxx)" != "$old"
snap rebuilt
same "rebuild" rebuilt
"$PMCPROF" report --header rec >rebuilt.txt 2>&1
contains "rebuild: the change is named" "binary changed since the run" rebuilt.txt
contains "rebuild: named from the kept names" "named from the names kept in the profile" rebuilt.txt

# 2. deleted
rm -f names_cxx
snap deleted
same "deleted binary" deleted

# 3. another machine: a fresh HOME with only the profile directory (no
# cache), the binaries renamed away, and another kernel (kallsyms not the
# recorded kernel's)
mkdir -p away home
mv libnames.so away/
cp -r rec home/
printf 'not a notes file' >othernotes
: >emptykallsyms
(cd home && env -i HOME="$TMP/home" PATH="$PATH" PMCPROF_KERNEL_NOTES="$TMP/othernotes" \
	PMCPROF_KALLSYMS="$TMP/emptykallsyms" "$PMCPROF" report --csv rec >../fresh.csv 2>../fresh.err &&
	env -i HOME="$TMP/home" PATH="$PATH" PMCPROF_KERNEL_NOTES="$TMP/othernotes" \
	PMCPROF_KALLSYMS="$TMP/emptykallsyms" "$PMCPROF" report --lines --csv rec >../fresh-lines.csv)
python3 rows.py fresh.csv | sort >fresh.rows
python3 rows.py fresh-lines.csv | sort >>fresh.rows
same "fresh HOME, binaries gone, another kernel" fresh
# the kernel: a run that spends its time in system calls, reported here
# and as if on another machine (its kallsyms not the recorded kernel's)
"$PMCPROF" record -e cpu-clock@200000 -o krec -- dd if=/dev/zero of=/dev/null bs=64k count=40000 \
	>/dev/null 2>&1
"$PMCPROF" report --csv krec >k-before.csv 2>/dev/null
python3 rows.py k-before.csv | sort >k-before.rows
if grep -q '^\[k\] [a-z_]' k-before.rows; then
	rm -rf "$PMCPROF_CACHE_DIR"
	PMCPROF_KERNEL_NOTES="$TMP/othernotes" PMCPROF_KALLSYMS="$TMP/emptykallsyms" \
		"$PMCPROF" report --csv krec >k-other.csv 2>k-other.err
	python3 rows.py k-other.csv | sort >k-other.rows
	if cmp -s k-before.rows k-other.rows; then
		pass "another kernel: kernel frames named from the kept kernel symbols, as before"
	else
		fail "another kernel: kernel rows differ"
		diff k-before.rows k-other.rows | head -8 | sed 's/^/    | /'
	fi
	lacks "another kernel: no kernel frame left as an address" '^\[k\] 0x' k-other.rows
	rm -rf krec/symbols
	PMCPROF_KERNEL_NOTES="$TMP/othernotes" PMCPROF_KALLSYMS="$TMP/emptykallsyms" \
		"$PMCPROF" report --header krec >k-bare.txt 2>&1
	contains "another kernel, nothing kept: says so and names the fix" \
		"recorded on another kernel.*pmcprof archive krec" k-bare.txt
else
	skip "no kernel function sampled here (kernel excluded, or kallsyms hidden): kept kernel symbols not checked"
fi

# 4. kept after the fact: a profile recorded without them names nothing
# once the binary is gone, says so with the command, and `pmcprof archive`
# (run where the binaries are) fixes it
mv away/libnames.so . && cp names_cxx.orig names_cxx
rm -rf rec.full && mv rec rec.full
"$PMCPROF" record --no-archive -e cpu-clock@200000 -o rec -- ./names_cxx 3 >/dev/null 2>rec2.err ||
	{ fail "record --no-archive failed"; sed 's/^/    | /' rec2.err; exit 0; }
check "record --no-archive keeps nothing" test ! -e rec/symbols
snap bare
mv names_cxx away/
rm -rf "$PMCPROF_CACHE_DIR"
"$PMCPROF" report --header rec >gone.txt 2>&1
contains "without kept names: the missing binary is named" "names_cxx: No such file" gone.txt
contains "and the command that fixes it" "pmcprof archive rec" gone.txt
mv away/names_cxx .
"$PMCPROF" archive rec >archive.out 2>&1
contains "archive: says what it kept" "rec/symbols: .* files" archive.out
mv names_cxx away/
rm -rf "$PMCPROF_CACHE_DIR"
cp bare.rows before.rows
snap archived
same "archive after the fact, binary gone" archived
mv away/names_cxx .
rm -rf rec && mv rec.full rec

# 5. a damaged kept file is ignored (the binary gone: its frames unnamed)
mv names_cxx away/
rm -rf "$PMCPROF_CACHE_DIR"
f="rec/symbols/$old.sym"
printf 'pmcprof-symbols\0garbage' | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null
"$PMCPROF" report --csv rec >damaged.csv 2>damaged.err
check "damaged kept file: report still runs" test -s damaged.csv
check "damaged kept file: not used (frames shown as addresses)" grep -q '\[names_cxx+0x' damaged.csv
mv away/names_cxx .

# 6. pprof: the program's mapping first with its build-id, addresses that
# go tool pprof -disasm turns into the binary's instructions
if command -v go >/dev/null 2>&1; then
	cp names_cxx.orig names_cxx
	"$PMCPROF" report --pprof p.pb.gz rec >/dev/null 2>&1
	HOME="$TMP" timeout 120 go tool pprof -raw p.pb.gz >raw.txt 2>&1
	contains "pprof: the program's mapping is the first" "^1: 0x.* $TMP/names_cxx $old" raw.txt
	HOME="$TMP" timeout 120 go tool pprof -top p.pb.gz >top.txt 2>&1
	contains "pprof: File: names the program" "^File: names_cxx" top.txt
	# (the regexp must match the name shown and the binary's symbol, which
	# Go's pprof does not demangle)
	HOME="$TMP" timeout 120 go tool pprof -disasm='Accum' p.pb.gz >disasm.txt 2>&1
	check "pprof -disasm: the hot function's instructions, with samples" python3 -c "
import re, sys
t = open('disasm.txt').read()
sys.exit(0 if 'ROUTINE' in t and re.search(r'^\s+\d+(\.\d+)?m?s\s.*\s[0-9a-f]+:\s+\S', t, re.M) else 1)"
	HOME="$TMP" timeout 120 go tool pprof -list='Accum' p.pb.gz >list.txt 2>&1
	contains "pprof -list: the source" "names_cxx.cc" list.txt
else
	skip "go is not installed: pprof -disasm not checked"
fi

# 7. kept names that lack some sampled addresses (a profile added after the
# archive, the binary gone): those addresses are named by the report as
# missing, with the command that keeps them
mkdir -p part
cp "$PROGS/ana_work" partapp
"$PROGS/ana_mkprofile" -o part/a.pmcp -b partapp "main;work_a=60"
"$PMCPROF" archive -q part
"$PROGS/ana_mkprofile" -o part/b.pmcp -b partapp "main;work_b=30"
mv partapp away/
rm -rf "$PMCPROF_CACHE_DIR"
"$PMCPROF" report part >part.txt 2>&1
check "kept names: the archived profile's function named" grep -q '^ *[0-9.]* *[0-9.]* *60 *work_a ' part.txt
contains "kept names lacking an address: said, with the command" \
	"sampled address.* not in the names kept for it.*pmcprof archive part" part.txt
