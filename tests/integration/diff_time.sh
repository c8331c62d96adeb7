#!/bin/sh
# diff --time and view --time: the same slice of each run, of its own span
# (percent forms) or from its own start (seconds).  two_phases runs
# phase_one then phase_two for SECONDS of wall-clock time each: r1 with
# 0.4 s phases, r2 with 0.8 s ones, so a slice taken of the wrong run's
# span would land in the other phase (or past the run's end).  The
# exports (JSON, pprof comments, flame titles) name the slice.  About 9 s.
. "$PMCPROF_SRC/tests/lib.sh"
T="timeout 120"
TP="$PROGS/two_phases"
[ -x "$TP" ] || { skip "tests/progs/two_phases not built"; exit 77; }

rec() {	# DIR [record options] -- SECONDS
	d=$1; shift
	$T "$PMCPROF" record -q -e cpu-clock@1000000 -o "$d" "$@" >/dev/null 2>"$d.err"
}
rec r1 -- "$TP" 0.4 && rec r2 -- "$TP" 0.8 && rec nt --no-timeline -- "$TP" 0.1
check "record the two runs and one without a timeline" test $? -eq 0

# CSV: "FUNCTION BASE_SAMPLES RUN_SAMPLES" per row
rows() { awk -F, 'NR > 1 { print $2, $9, $10 }' "$1"; }
has() { awk -v f="$2" '$1 == f && $2 > 0 && $3 > 0 { ok = 1 } END { exit !ok }' "$1"; }
none() { awk -v f="$2" '$1 == f && ($2 > 0 || $3 > 0) { bad = 1 } END { exit bad }' "$1"; }

# ---- percent slices: each run's own span ----
$T "$PMCPROF" diff --csv --time 0%-40% r1 r2 >p1.csv 2>p1.err
check "diff --time 0%-40%: exit 0" test $? -eq 0
rows p1.csv >p1.txt
check "diff --time 0%-40%: phase_one in both runs" has p1.txt phase_one
check "diff --time 0%-40%: no phase_two in either ($(grep phase_two p1.txt))" none p1.txt phase_two
$T "$PMCPROF" diff --csv --time 75%-100% r1 r2 >p2.csv 2>p2.err
rows p2.csv >p2.txt
check "diff --time 75%-100%: phase_two in both (r2 sliced by its own span)" has p2.txt phase_two
check "diff --time 75%-100%: no phase_one in either ($(grep phase_one p2.txt))" none p2.txt phase_one
$T "$PMCPROF" diff --csv --time 25%/1 r2 r1 >p3.csv 2>/dev/null
rows p3.csv >p3.txt
check "diff --time 25%/1 (P%/N): the first quarter is phase_one's" has p3.txt phase_one
check "diff --time 25%/1: no phase_two" none p3.txt phase_two
# ---- seconds: from each run's own start (phase_two starts after 0.4 s) ----
$T "$PMCPROF" diff --csv --time 0,0.38 r1 r2 >a1.csv 2>/dev/null
rows a1.csv >a1.txt
check "diff --time 0,0.38: phase_one, no phase_two" sh -c "awk '\$1 == \"phase_one\"' a1.txt | grep -q . && ! awk '\$1 == \"phase_two\" && (\$2 > 0 || \$3 > 0)' a1.txt | grep -q ."

# ---- the header names the slice (text and --table), only with --time ----
$T "$PMCPROF" diff --time 0%-40% r1 r2 >t1.txt 2>/dev/null
contains "diff --time: the header names the slice" '^# time: only the samples in --time 0%-40% (from the timelines)$' t1.txt
contains "diff --time: phase_one is the first row" '^phase_one ' t1.txt
$T "$PMCPROF" diff --header --time 0%-40% r1 r2 >t2.txt 2>/dev/null
contains "diff --header --time: names the slice" '^# time: only the samples in --time 0%-40%' t2.txt
$T "$PMCPROF" diff --table --time 10%/1 r1 r2 >t3.txt 2>/dev/null
contains "diff --table --time: names the slice" '^# time: only the samples in --time 10%/1' t3.txt
$T "$PMCPROF" diff r1 r2 >t4.txt 2>/dev/null
check "diff without --time: no time line, both phases" sh -c "! grep -q '^# time:' t4.txt && grep -q '^phase_one ' t4.txt && grep -q '^phase_two ' t4.txt"

# ---- the exports record the slice (the runs' time_slice fact) ----
# r1's span is about 0.8 s (two 0.4 s phases): 0%-40% covers about 0.33 s
$T "$PMCPROF" report --json --time 0%-40% r1 >j1.json 2>/dev/null
$T "$PMCPROF" diff --json --time 0,0.3 r1 r2 >j2.json 2>/dev/null
$T "$PMCPROF" diff --json r1 r2 >j3.json 2>/dev/null
if python3 - "$PMCPROF_SRC/docs/report-schema.json" j1.json j2.json j3.json >js.txt 2>&1 <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
try:
    import jsonschema
except ImportError:
    jsonschema = None
runs = []
for path in sys.argv[2:]:
    d = json.load(open(path))
    if jsonschema:
        jsonschema.Draft202012Validator(schema).validate(d)
    runs.append(d["runs"])
(a,), (b, c), plain = runs
assert a["time_slice"]["spec"] == "0%-40%", a
assert 0.2 < a["time_slice"]["seconds"] < 0.45, a["time_slice"]
for r in (b, c):	# seconds from each run's own start: 0.3 s of both
    assert r["time_slice"]["spec"] == "0,0.3" and abs(r["time_slice"]["seconds"] - 0.3) < 1e-9, r
assert all("time_slice" not in r for r in plain), "a time_slice without --time"
PY
then pass "report/diff --json carry the slice (spec, seconds), valid; none without --time"
else fail "report/diff --json carry the slice"; tail -5 js.txt | sed 's/^/    | /'; fi
$T "$PMCPROF" report --pprof s.pb.gz --time 10%/2,50%-60% r1 >/dev/null 2>&1
$T "$PMCPROF" report --pprof w.pb.gz r1 >/dev/null 2>&1
if command -v protoc-c >/dev/null 2>&1; then
	gzip -dc s.pb.gz | protoc-c --decode_raw >s.txt 2>&1
	gzip -dc w.pb.gz | protoc-c --decode_raw >w.txt 2>&1
	contains "report --pprof --time: a comment names the slice and its seconds" \
		'"time slice: --time 10%/2,50%-60% (0\.1[0-9]* s of the run)"' s.txt
	check "report --pprof without --time: no slice comment, comments still there" \
		sh -c "! grep -q 'time slice' w.txt && grep -q '\"run 0: r1' w.txt"
else
	skip "pprof comments: protoc-c is not installed"
fi
title() { grep -o 'class="title">[^<]*' "$1" | sed 's/.*>//'; }
$T "$PMCPROF" diff --flamegraph d.svg --time 0%-40% r1 r2 >/dev/null 2>&1
check "diff --flamegraph --time: the title names the slice ($(title d.svg))" \
	test "$(title d.svg)" = "Differential flame graph: r2 against r1 (--time 0%-40%)"
$T "$PMCPROF" diff --flamegraph d0.svg r1 r2 >/dev/null 2>&1
check "diff --flamegraph without --time: the title as before ($(title d0.svg))" \
	test "$(title d0.svg)" = "Differential flame graph: r2 against r1"
$T "$PMCPROF" report --flamegraph f.html --time 75%-100% r2 >/dev/null 2>&1
check "report --flamegraph --time: the title names the slice ($(title f.html))" \
	test "$(title f.html)" = "Flame graph: r2 (--time 75%-100%)"
# script takes the one --time row report, diff and view share
for cmd in report script; do
	"$PMCPROF" $cmd --help 2>&1 | sed -n '/--time=/,/pmcprof script shows the times/p' >help.$cmd
done
check "script --help: the --time row is report's (shared)" \
	sh -c "test -s help.script && cmp -s help.report help.script"

# ---- bad specs: usage errors naming --time ----
for bad in 50%-10% 10%/0 abc 3,1 10%/11; do
	$T "$PMCPROF" diff --time "$bad" r1 r2 >/dev/null 2>bad.txt
	check "diff --time $bad: usage error (exit 1)" test $? -eq 1
	contains "diff --time $bad: says why" "^pmcprof diff: --time: .*'$bad'" bad.txt
	$T "$PMCPROF" view --snapshot 80x20 --time "$bad" r1 >/dev/null 2>vbad.txt
	check "view --time $bad: usage error (exit 1)" test $? -eq 1
	contains "view --time $bad: says why" "^pmcprof view: --time: " vbad.txt
done
# ---- a run without a timeline, a slice past the end: an error naming the run ----
$T "$PMCPROF" diff --time 0%-40% r1 nt >/dev/null 2>nt.txt
check "diff --time, a run without a timeline: exit 2" test $? -eq 2
contains "... names the run" "^pmcprof diff: nt: no samples in --time 0%-40%" nt.txt
contains "... and why (report's warning)" "no timeline (recorded with --no-timeline" nt.txt
contains "... the event warning blames the slice, not the sampling" \
	"event .* has samples in r1 but not in nt within --time 0%-40%" nt.txt
$T "$PMCPROF" diff --time 1.3, r2 r1 >/dev/null 2>past.txt
check "diff --time 1.3, (past r1's end, not r2's): exit 2" test $? -eq 2
contains "... names the run" "^pmcprof diff: r1: no samples in --time 1.3," past.txt
$T "$PMCPROF" view --snapshot 80x20 --time 0%-40% r1 nt >/dev/null 2>vnt.txt
check "view --time, a run without a timeline: exit 2" test $? -eq 2
contains "... names the run" "^pmcprof view: nt: no samples in --time" vnt.txt

# ---- view: the header and the table ----
$T "$PMCPROF" view --snapshot 140x24 --time 0%-40% r1 r2 >v1.txt 2>v1.err
check "view --snapshot --time: exit 0" test $? -eq 0
check "view --time: the header's first line names the slice" sh -c "head -1 v1.txt | grep -q -- '--time 0%-40%'"
check "view --time: phase_one shown, no phase_two" sh -c "grep -q ' phase_one ' v1.txt && ! grep -q 'phase_two' v1.txt"
$T "$PMCPROF" view --snapshot 140x24 r1 r2 >v2.txt 2>/dev/null
check "view without --time: no slice in the header, both phases" sh -c "! head -1 v2.txt | grep -q -- '--time' && grep -q ' phase_two ' v2.txt"

# ---- view's i panel, in a terminal (tmux) ----
if ! command -v tmux >/dev/null 2>&1; then
	skip "view's i panel: tmux is not installed"
	exit 0
fi
SOCK="$TMP/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
tm new-session -d -s v1 -x 140 -y 40 -c "$TMP" \
	"LC_ALL=C.UTF-8 TERM=tmux-256color $PMCPROF view --time 75%-100% r1; exec sleep 300"
# (the poll of view_terminal.sh; tests/lib.sh has no shared one yet)
wait_for() {	# PATTERN: poll the screen (up to 10 s)
	for _ in $(seq 100); do
		tm capture-pane -p -t v1 >screen.txt 2>/dev/null
		grep -q -- "$1" screen.txt && return 0
		sleep 0.1
	done
	return 1
}
if wait_for 'Functions:'; then
	tm send-keys -t v1 i
	if wait_for 'only the samples in --time 75%-100%'; then
		pass "view's i panel names the slice"
	else
		fail "view's i panel names the slice"; sed 's/^/    | /' screen.txt
	fi
	tm send-keys -t v1 q a n t Enter
	if wait_for 'cannot add nt: nt: no samples in --time 75%-100%'; then
		pass "view: a run added with a and nothing in the slice is refused, named"
	else
		fail "view: a refuses a run with nothing in the slice"; sed 's/^/    | /' screen.txt
	fi
	tm send-keys -t v1 a r 2 Enter
	if wait_for 'added run 1 (r2)' && grep -q -- '--time 75%-100%' screen.txt &&
	   grep -q ' phase_two ' screen.txt && ! grep -q 'phase_one' screen.txt; then
		pass "view: a run added with a is sliced alike"
	else
		fail "view: a run added with a is sliced alike"; sed 's/^/    | /' screen.txt
	fi
	tm send-keys -t v1 x
	wait_for 'Export CSV to:' && tm send-keys -t v1 C-u "$TMP/view.csv" Enter
	if wait_for 'as: pmcprof diff --csv --time 75%-100% r1 r2'; then
		pass "view: x's command line carries --time"
	else
		fail "view: x's command line carries --time"; sed 's/^/    | /' screen.txt
	fi
	$T "$PMCPROF" diff --csv --time 75%-100% r1 r2 >diff.csv 2>/dev/null
	check "view: x's export under --time equals that diff --csv" cmp -s diff.csv view.csv
	tm send-keys -t v1 q
else
	fail "view opens in tmux"; sed 's/^/    | /' screen.txt
fi
