#!/bin/sh
# pmcprof annotate: a function's instructions with each one's share of its
# samples, under their source lines, inlined code marked; disassembled by
# capstone (checked against objdump's addresses); the same in the viewer
# (key A from a function row, in tmux).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
W="$PROGS/ana_work"

# Samples at known lines: hot_lines 700 on line 58 (HOT_LOOP), 100 on 57;
# inline_caller 300 in the inlined hot_inline, 100 on its own line 49.
"$PROGS/ana_mkprofile" -o a.pmcp -b "$W" "main;hot_lines:58=700" "main;hot_lines:57=100" \
	"main;inline_caller;inl:hot_inline=300" "main;inline_caller:49=100"
"$PMCPROF" annotate hot_lines a.pmcp >hl.txt 2>err.txt
check "annotate hot_lines: exit 0" [ $? -eq 0 ]
contains "  ... header: the function, its range, 800 samples" "^# hot_lines (ana_work) 0x[0-9a-f]*\.\.0x[0-9a-f]*: 800 samples" hl.txt
check "  ... 87.50% (700) on one instruction of line 58, 12.50% (100) on one of line 57" python3 - hl.txt <<'PY'
import re, sys
src = None; got = []
for l in open(sys.argv[1]):
    m = re.match(r'\s+ana_work\.c:(\d+)', l)
    if m: src = int(m.group(1)); continue
    m = re.match(r'\s*([0-9.]+)\s+(\d+)\s+[0-9a-f]+: ', l)
    if m: got.append((src, m.group(1), int(m.group(2))))
assert got == [(58, '87.50', 700), (57, '12.50', 100)], got
PY
contains "  ... line 58's source text between the instructions" "ana_work.c:58  for (int k = 0; k < 8; k++) x = x \* 6364136223846793005UL" hl.txt
# every instruction address is one objdump prints for the function (the
# disassembly is a library's, the addresses must agree)
if command -v objdump >/dev/null 2>&1; then
	range=$(sed -n 's/^# hot_lines (ana_work) \(0x[0-9a-f]*\)\.\.\(0x[0-9a-f]*\).*/\1 \2/p' hl.txt)
	set -- $range
	objdump -d --no-show-raw-insn --start-address="$1" --stop-address="$2" "$W" |
		sed -n 's/^ *\([0-9a-f]*\):.*/\1/p' | sort >od.txt
	grep -o ' [0-9a-f]*: ' hl.txt | tr -d ' :' | sort >ours.txt
	check "  ... the instruction addresses are objdump's ($(wc -l <od.txt) instructions)" cmp -s od.txt ours.txt
else
	skip "objdump is not installed: addresses not cross-checked"
fi

"$PMCPROF" annotate hot_inline a.pmcp >hi.txt 2>&1
check "annotate of an inlined function: exit 0" [ $? -eq 0 ]
contains "  ... shows the function it was inlined into (400 samples)" "^# inline_caller (ana_work) .*: 400 samples" hi.txt
contains "  ... its source lines marked inlined" "ana_work.c:4[12] \[inlined hot_inline\]" hi.txt
contains "  ... its instructions marked '|', with the 300 samples (75.00%)" "^ *75.00 *300 *[0-9a-f]*: | " hi.txt
contains "  ... the caller's own line 49: 100 samples, not marked" "^ *25.00 *100 *[0-9a-f]*: [a-z]" hi.txt
"$PMCPROF" annotate --no-source --min-pct 50 inline_caller a.pmcp >ns.txt
check "--no-source --min-pct 50: one instruction row, no source" \
	sh -c '[ "$(grep -c "^ *[0-9.]* *[0-9]* *[0-9a-f]*: " ns.txt)" -eq 1 ] && ! grep -q "ana_work.c:" ns.txt'
"$PMCPROF" annotate ana_work:hot_lines a.pmcp >mod.txt && cmp -s mod.txt hl.txt
check "MODULE:FUNCTION names it too" [ $? -eq 0 ]
"$PMCPROF" annotate no_such_function a.pmcp >/dev/null 2>nf.txt
check "an unknown function: exit 1" [ $? -eq 1 ]
contains "  ... said" "no function 'no_such_function'" nf.txt
"$PROGS/ana_mkprofile" -o alt.pmcp -b "$W" -P "$PROGS/ana_work_alt" "main;hot_lines:58=10"
"$PMCPROF" annotate hot_lines alt.pmcp >st.out 2>st.txt
rc=$?
check "a module rebuilt since the recording: refused ($rc), nothing printed" sh -c "[ $rc -ne 0 ] && [ ! -s st.out ]"
contains "  ... said (build-id)" "binary changed since the run" st.txt

# No operand: the newest ./pmcprof-*/ directory
mkdir pmcprof-old pmcprof-new && cp a.pmcp pmcprof-new/ && touch -d '1 hour ago' pmcprof-old
"$PMCPROF" annotate hot_lines >def.txt 2>deferr.txt
check "no operand: reads the newest ./pmcprof-*/ (exit 0)" [ $? -eq 0 ]
contains "  ... and says which" "reading pmcprof-new (the newest of 2" deferr.txt

# A real recording: the hot loop's line holds most of hot_lines' samples
timeout 60 "$PMCPROF" record -q -e cpu-clock -o real -- "$W" lines 10 >/dev/null 2>&1
"$PMCPROF" annotate hot_lines real >real.txt 2>&1
n=$("$PMCPROF" report --csv real | awk -F, '$2 == "hot_lines" { print $6 }')
check "real run: annotate's total is report's self samples for hot_lines ($n)" \
	grep -q "^# hot_lines (ana_work) .*: $n samples" real.txt
check "real run: line 58 (the hot loop) has most of them" python3 - real.txt <<'PY'
import re, sys
src = None; per = {}
for l in open(sys.argv[1]):
    m = re.match(r'\s+ana_work\.c:(\d+)', l)
    if m: src = int(m.group(1)); continue
    m = re.match(r'\s*([0-9.]+)\s+(\d+)\s+[0-9a-f]+: ', l)
    if m: per[src] = per.get(src, 0) + int(m.group(2))
tot = sum(per.values())
assert tot and per.get(58, 0) >= 0.6 * tot, per
PY

# ---- the viewer: A on a function row ----
command -v tmux >/dev/null 2>&1 || { skip "tmux is not installed: viewer not checked"; exit 0; }
SOCK="$TMP/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
tm new-session -d -s an -x 120 -y 40 -c "$TMP" \
	"LC_ALL=C.UTF-8 TERM=tmux-256color $PMCPROF view a.pmcp; exec sleep 300"
wait_for() {
	n=0
	while [ $n -lt 100 ]; do
		tm capture-pane -p -t an >screen.txt 2>/dev/null
		grep -q -- "$1" screen.txt && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
if wait_for 'Functions:'; then pass "view opens"; else fail "view opens"; fi
tm send-keys -t an / h o t _ l i n e s Enter
sleep 0.3
tm send-keys -t an A
if wait_for 'Annotate hot_lines (ana_work): 800 samples'; then
	pass "view: A on hot_lines opens its annotation"
else
	fail "view: A on hot_lines opens its annotation"; sed 's/^/    | /' screen.txt
fi
check "view: the hot instruction with 87.50 and 700, under line 58's source" python3 - screen.txt <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = [k for k, l in enumerate(lines) if re.search(r'87\.50\s+700\s+[0-9a-f]+\s+\S', l)]
assert i, lines
above = [l for l in lines[:i[0]] if 'ana_work.c:' in l]
assert above and 'ana_work.c:58' in above[-1], above
PY
tm send-keys -t an Escape
if wait_for 'Functions:'; then pass "view: Esc goes back to the functions"; else fail "view: Esc goes back"; fi
tm send-keys -t an / i n l i n e _ c Enter
sleep 0.3
tm send-keys -t an A
if wait_for "Annotate inline_caller"; then pass "view: A on inline_caller"; else fail "view: A on inline_caller"; fi
check "view: inlined instructions marked '|'" grep -q '75.00 *300 *[0-9a-f]* | ' screen.txt
check "view: inlined source lines marked" grep -q 'ana_work.c:4[12] \[inlined hot_inline\]' screen.txt
# from a function's page (Enter on a row) and from a tree frame
tm send-keys -t an Escape
wait_for 'Functions:' >/dev/null
tm send-keys -t an / w o r k Escape / h o t _ l Enter Enter
sleep 0.5
tm send-keys -t an A
if wait_for 'Annotate hot_lines (ana_work): 800'; then pass "view: A on a function's page"
else fail "view: A on a function's page"; sed 's/^/    | /' screen.txt; fi
tm send-keys -t an Escape Escape t
sleep 0.5
tm send-keys -t an A
if wait_for 'Annotate main (ana_work)'; then pass "view: A on a tree frame (main, the root)"
else fail "view: A on a tree frame"; sed 's/^/    | /' screen.txt; fi
tm send-keys -t an q
