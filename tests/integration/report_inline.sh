#!/bin/sh
# Inlining and source lines: a static inline hot function of an -O2 build is
# reported under its own name together with the function it was inlined
# into, and the hot loop's line tops --lines.  Synthetic profiles point at
# those addresses (found from the DWARF by the generator); recorded ones
# need the collector (skipped until it is built).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache
HOT=$(grep -n 'HOT_LOOP' "$PMCPROF_SRC/tests/progs/ana_work.c" | cut -d: -f1)

check_inline() {	# label, profile
	"$PMCPROF" report --width 100 "$2" >"$1.txt"
	check "$1: exit 0" test $? -eq 0
	top=$(awk '/^Self%/ { getline; print $4, $5, $6, $7; exit }' "$1.txt")
	case "$top" in
	"hot_inline [inlined into inline_caller]"*) pass "$1: hot_inline on top, inlined into inline_caller" ;;
	*) fail "$1: top row is '$top'"; sed 's/^/    | /' "$1.txt" ;;
	esac
	"$PMCPROF" report --tree --no-header --width 100 "$2" >"$1.tree"
	# the inlined frame sits one level below its caller
	if awk '/^ *[0-9.]+ +[0-9.]+ +[0-9]+ +inline_caller / { d = index($0, "inline_caller"); next }
		d && /hot_inline \[inlined\]/ { if (index($0, "hot_inline") == d + 2) ok = 1 }
		END { exit !ok }' "$1.tree"; then
		pass "$1: tree shows inline_caller -> hot_inline [inlined]"
	else
		fail "$1: tree lacks inline_caller -> hot_inline [inlined]"
		sed 's/^/    | /' "$1.tree"
	fi
	"$PMCPROF" report --csv "$2" >"$1.csv"
	check "$1: CSV inlined_into column" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open('$1.csv', newline='')) if r['function'] == 'hot_inline']
sys.exit(0 if rows and rows[0]['inlined_into'] == 'inline_caller' else 1)"
}

check_lines() {	# label, profile
	"$PMCPROF" report --lines --no-header "$2" >"$1.txt"
	top=$(awk 'NR == 2 { print $4 }' "$1.txt")
	if [ "$top" = "ana_work.c:$HOT" ]; then
		pass "$1: hot loop line ana_work.c:$HOT on top of --lines"
	else
		fail "$1: top line is '$top', not ana_work.c:$HOT"
		sed 's/^/    | /' "$1.txt" | head -8
	fi
}

"$PROGS/ana_mkprofile" -o inline.pmcp -b "$PROGS/ana_work" "main;inl:hot_inline=900" "main;inline_caller=100"
check_inline synthetic-inline inline.pmcp
"$PROGS/ana_mkprofile" -o lines.pmcp -b "$PROGS/ana_work" "main;hot_lines:$HOT=700" "main;hot_lines=300"
check_lines synthetic-lines lines.pmcp

if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	skip "recorded inline and lines: pmcprof-record is not built yet"
	exit 0
fi
if "$PMCPROF" record -e cpu-clock@100000 -o rec-inline -- "$PROGS/ana_work" inline 40 >rec1.log 2>&1 &&
   "$PMCPROF" record -e cpu-clock@100000 -o rec-lines -- "$PROGS/ana_work" lines 40 >rec2.log 2>&1; then
	check_inline recorded-inline rec-inline
	check_lines recorded-lines rec-lines
else
	fail "pmcprof record failed"
	cat rec1.log rec2.log | sed 's/^/    | /'
fi
