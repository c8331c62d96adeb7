#!/bin/sh
# The symbol cache (one file per build-id): a second report reads symbols
# from it and prints exactly what the first printed, inlined frames and
# lines included; a damaged cache file is ignored; a rebuilt binary (other
# build-id) is never opened, and the recorded build's entries name its
# addresses; --no-cache and PMCPROF_CACHE_DIR= write nothing.
. "$PMCPROF_SRC/tests/lib.sh"
# (not $TMP/symbols: that would be the kept answers of the profiles in $TMP)
export PMCPROF_CACHE_DIR="$TMP/cache"
HOT=$(grep -n 'HOT_LOOP' "$PMCPROF_SRC/tests/progs/ana_work.c" | cut -d: -f1)
cp "$PROGS/ana_work" app
"$PROGS/ana_mkprofile" -o p.pmcp -b app "main;inl:hot_inline=500" "main;inline_caller=100" \
	"main;hot_lines:$HOT=300" "main;work_a=100"

for v in "" --lines --tree; do
	# shellcheck disable=SC2086
	"$PMCPROF" report --no-cache $v p.pmcp >"nocache$v.txt"
done
"$PMCPROF" report p.pmcp >cold.txt
bid=$(readelf -n app | awk '/Build ID/ { print $3 }')
check "first report writes the cache file" test -s "cache/$bid.sym"
for v in "" --lines --tree; do
	# shellcheck disable=SC2086
	"$PMCPROF" report $v p.pmcp >"warm$v.txt"
	check "warm cache: same output as without cache (${v:-functions})" cmp -s "nocache$v.txt" "warm$v.txt"
done
check "cold cache: same output as without cache" cmp -s nocache.txt cold.txt

# the cache answers without the binary's DWARF: strip the debug info away
# and the function names, lines and inlined frames still come back
cp app app.full
objcopy --strip-debug app.full app.nodebug
# (same build-id, no DWARF: symbols can only come from the cache)
cp app.nodebug app
"$PMCPROF" report --lines p.pmcp >fromcache.txt
check "warm cache serves DWARF answers for the same build-id" cmp -s nocache--lines.txt fromcache.txt
cp app.full app

good=$(wc -c <"cache/$bid.sym")
printf 'pmcprof-symbols 2\nA zz 1\nF garbage\n' >"cache/$bid.sym"
"$PMCPROF" report p.pmcp >damaged.txt
check "damaged cache file: ignored, same output" cmp -s nocache.txt damaged.txt
check "damaged cache file: rewritten whole" test "$(wc -c <"cache/$bid.sym")" = "$good"

cp "$PROGS/ana_work_alt" app
"$PMCPROF" report --header p.pmcp >rebuilt.txt 2>&1
contains "rebuilt binary: the change is named" "binary changed since the run" rebuilt.txt
contains "rebuilt binary: named from the recorded build's cached answers" "named from the symbol cache" rebuilt.txt
check "rebuilt binary: the recorded build's names, as before" grep -q 'hot_inline' rebuilt.txt
"$PMCPROF" report --no-cache p.pmcp >rebuilt-nocache.txt 2>&1
if grep -q 'hot_inline' rebuilt-nocache.txt; then fail "rebuilt binary, no cache: named from the other build"; else pass "rebuilt binary, no cache: the other build's file is not used"; fi

rm -rf cache
PMCPROF_CACHE_DIR= "$PMCPROF" report p.pmcp >/dev/null
"$PMCPROF" report --no-cache p.pmcp >/dev/null
check "PMCPROF_CACHE_DIR= and --no-cache write nothing" test ! -e cache

# a module without debug info: its ELF-only answers are cached too (.elfsym),
# and a warm report says what a cold one said, warnings included
strip -o stripped "$PROGS/ana_work"
"$PROGS/ana_mkprofile" -o s.pmcp -b "$PROGS/ana_work" -P "$PWD/stripped" "main;work_a=60" "main;work_b=30"
"$PMCPROF" report s.pmcp >s-cold.txt 2>&1
sbid=$(readelf -n stripped | awk '/Build ID/ { print $3 }')
check "stripped module: ELF-only answers cached in <build-id>.elfsym" test -s "cache/$sbid.elfsym"
"$PMCPROF" report s.pmcp >s-warm.txt 2>&1
check "stripped module: warm report = cold report, warnings included" cmp -s s-cold.txt s-warm.txt

# the viewer uses the same cache: it writes the file report would, and
# answers from it once the DWARF is gone; --no-cache leaves it alone
rm -rf cache
cp app.full app
"$PMCPROF" view --snapshot=160x12 --no-cache p.pmcp >view-nocache.txt 2>&1
check "view --no-cache writes nothing" test ! -e cache
"$PMCPROF" view --snapshot=160x12 p.pmcp >view-cold.txt 2>&1
check "view writes the cache file" test -s "cache/$bid.sym"
cp app.nodebug app
"$PMCPROF" view --snapshot=160x12 p.pmcp >view-warm.txt 2>&1
"$PMCPROF" view --snapshot=160x12 --no-cache p.pmcp >view-stripped.txt 2>&1
cp app.full app
check "view answers from the cache without the DWARF" cmp -s view-nocache.txt view-warm.txt
if cmp -s view-nocache.txt view-stripped.txt; then
	fail "view without DWARF or cache shows the same (the check above proves nothing)"
else
	pass "view without DWARF or cache differs (so the cache served the check above)"
fi
