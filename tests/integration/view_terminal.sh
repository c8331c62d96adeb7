#!/bin/sh
# pmcprof view in a real terminal: tmux runs it, sends keys, reads the
# screen back.  Profiles come from ana_mkprofile: base.pmcp has work_a,
# work_b, work_c at 60/30/10%, run.pmcp at 45/45/10% (work_b 1.5x).
. "$PMCPROF_SRC/tests/lib.sh"

command -v tmux >/dev/null 2>&1 || { skip "tmux is not installed"; exit 77; }
[ -x "$PROGS/ana_mkprofile" ] || { skip "tests/progs/ana_mkprofile not built"; exit 77; }

BIN="$PROGS/ana_work"
"$PROGS/ana_mkprofile" -o base.pmcp -b "$BIN" -m 'argv=ana_work split' -m backend=perf_event \
	'main;work_a=6000' 'main;work_b=3000' 'main;work_c=1000' &&
"$PROGS/ana_mkprofile" -o run.pmcp -b "$BIN" -m backend=perf_event \
	'main;work_a=4500' 'main;work_b=4500' 'main;work_c=1000' ||
	{ fail "ana_mkprofile"; exit 1; }
printf 'not a profile\n' >bad.pmcp

SOCK="$TMP/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

sess=v0
# start W H ARGS...: the viewer in a fresh session; the pane records the
# tty settings before and after and the exit status, then waits.
start() {
	w=$1 h=$2; shift 2
	# A new session before the old one goes: killing the last session
	# makes the server exit, racing a new-session ("server exited
	# unexpectedly" on a loaded machine).
	old=$sess sess=v$(( ${sess#v} + 1 ))
	rm -f rc stty.before stty.after
	tm new-session -d -s "$sess" -x "$w" -y "$h" -c "$TMP" \
		"trap : INT TERM; stty -g >stty.before; LC_ALL=C.UTF-8 TERM=tmux-256color $PMCPROF view $*; echo \$? >rc; \
		 stty -g >stty.after; echo EXIT=\$(cat rc); exec sleep 300"
	[ -n "$old" ] && tm kill-session -t "$old" 2>/dev/null
}
screen() { tm capture-pane -p -t "$sess" >screen.txt 2>/dev/null; }
# wait_for PATTERN: poll the screen (up to 10 s) until grep finds it
wait_for() {
	n=0
	while [ $n -lt 100 ]; do
		screen
		grep -q -- "$1" screen.txt && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
keys() { tm send-keys -t "$sess" "$@"; }
# The screen row after the column headings (the first table row).
first_row() { grep -A1 ' Function' screen.txt | sed -n 2p; }
dump() { sed 's/^/    | /' screen.txt; }

# ---- one run: hot function, search, callers, export, resize, quit ----
start 120 40 base.pmcp
if wait_for 'Functions: 4'; then pass "view opens a profile"; else fail "view opens a profile"; dump; fi
case $(first_row) in *work_a*60.0%*|*60.0%*work_a*) pass "the hot function is on the first row" ;;
	*) fail "the hot function is on the first row: '$(first_row)'"; dump ;; esac

keys / w o r k _ c
wait_for 'Search: work_c' && keys Enter
if wait_for ' 3/4$'; then pass "search selects work_c (row 3 of 4)"; else fail "search finds a function"; dump; fi
keys Enter
if wait_for 'Callers of work_c (1)' && grep -A1 'Callers of work_c' screen.txt | grep -q main; then
	pass "Enter shows the callers of work_c: main"
else
	fail "Enter shows the callers"; dump
fi
keys Escape
wait_for 'Functions: 4' || fail "Esc goes back"

$PMCPROF report --csv base.pmcp >report.csv 2>/dev/null
keys x
wait_for 'Export CSV to: pmcprof-functions.csv' || fail "x asks for a file name"
keys C-u "$TMP/view.csv" Enter
if wait_for 'wrote 4 rows'; then pass "x exports"; else fail "x exports"; dump; fi
if cmp -s report.csv view.csv; then pass "the export equals pmcprof report --csv"
else fail "the export equals pmcprof report --csv"; diff report.csv view.csv | head; fi
keys s
wait_for 'Incl%▼' && keys x && wait_for 'Export CSV' && keys C-u "$TMP/incl.csv" Enter
wait_for 'wrote 4 rows'
$PMCPROF report --csv --sort incl base.pmcp >report-incl.csv 2>/dev/null
if cmp -s report-incl.csv incl.csv; then pass "sorted by inclusive: equals report --sort incl --csv"
else fail "export after s equals report --sort incl"; diff report-incl.csv incl.csv | head; fi
keys s s
wait_for 'Self%▼' || fail "s cycles back to self"


# redrawn W H: the screen has been drawn at W x H (the right-aligned
# "q Quit" ends the bottom row exactly at column W)
redrawn() {
	n=0
	while [ $n -lt 100 ]; do
		screen
		[ "$(wc -l <screen.txt)" -eq "$2" ] &&
			tail -1 screen.txt | awk -v w="$1" '/q Quit$/ && length($0) == w { ok = 1 } END { exit !ok }' &&
			return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
# layout_ok W H PATTERN: after a resize, every row fits, the headings and
# the hot row are there, and PATTERN (something only that size shows)
layout_ok() {
	tm resize-window -t "$sess" -x "$1" -y "$2"
	if ! redrawn "$1" "$2" || ! grep -q -- "$3" screen.txt; then
		fail "resize to $1x$2"; dump; return
	fi
	long=$(awk -v w="$1" '{ if (length($0) > w) n++ } END { print n + 0 }' screen.txt)
	if [ "$long" = 0 ] && first_row | grep -q work_a && grep -q 'Self%▼ *Incl%' screen.txt; then
		pass "resize to $1x$2 keeps the layout"
	else
		fail "resize to $1x$2 keeps the layout"; dump
	fi
}
layout_ok 80 24 ' [1-4]/4$'
layout_ok 200 60 'ana_work.c:[0-9]'
layout_ok 80 24 ' [1-4]/4$'
# a storm of size changes and SIGWINCH, then a normal screen again
pid=$(tm display -p -t "$sess" '#{pane_pid}')
vpid=$(pgrep -P "$pid" | head -1)
for s in 100x30 60x15 150x50 30x8 120x40; do
	tm resize-window -t "$sess" -x "${s%x*}" -y "${s#*x}"
	[ -n "$vpid" ] && kill -WINCH "$vpid" 2>/dev/null
done
layout_ok 120 40 'ana_work.c:[0-9]'

keys q
if wait_for 'EXIT=0'; then pass "q quits with status 0"; else fail "q quits"; dump; fi
if [ "$(tm display -p -t "$sess" '#{alternate_on}#{cursor_flag}')" = 01 ] && cmp -s stty.before stty.after
then pass "q restores the terminal (main screen, cursor, tty modes)"
else fail "q restores the terminal: $(tm display -p -t "$sess" '#{alternate_on}#{cursor_flag}')"; fi

# ---- two runs: compare mode, the 1.5x row marked ----
start 120 40 base.pmcp run.pmcp
if wait_for 'compare: base base.pmcp vs run.pmcp'; then pass "two runs open in compare mode"
else fail "two runs open in compare mode"; dump; fi
row=$(grep ' work_b ' screen.txt)
case $row in *'1.50 ['*']*'*) pass "work_b: ratio 1.50 with its interval, marked significant" ;;
	*) fail "work_b shows 1.50 [..]*: '$row'"; dump ;; esac
case $(grep ' work_c ' screen.txt) in *'1.00 ['*']*'*) fail "work_c 1.00 is not marked" ;;
	*'1.00 ['*) pass "work_c: 1.00, not marked" ;; *) fail "work_c shows 1.00"; dump ;; esac
tm capture-pane -e -p -t "$sess" >color.txt
if grep ' work_b ' color.txt | grep -q '31m1\.50'; then pass "the 1.5x ratio is coloured"
else fail "the 1.5x ratio is coloured"; grep work_b color.txt | cat -v; fi
keys c
if wait_for 'compare mode off' && ! grep -q 'run.pmcp  *Self' screen.txt; then
	pass "c turns the ratio column off"
else
	fail "c turns the ratio column off"; dump
fi
keys c
wait_for 'compare mode on' || fail "c turns compare mode back on"
$PMCPROF diff --csv base.pmcp run.pmcp >diff.csv 2>/dev/null
keys x
wait_for 'Export CSV' && keys C-u "$TMP/cmp.csv" Enter
wait_for 'wrote 3 rows to .*, as: pmcprof diff --csv base.pmcp run.pmcp$' ||
	{ fail "compare export names pmcprof diff"; dump; }
if cmp -s diff.csv cmp.csv; then pass "compare export equals pmcprof diff --csv"
else fail "compare export equals pmcprof diff --csv"; diff diff.csv cmp.csv | head; fi
keys C-c
if wait_for 'EXIT=130' && [ "$(tm display -p -t "$sess" '#{alternate_on}#{cursor_flag}')" = 01 ] &&
   cmp -s stty.before stty.after; then
	pass "Ctrl-C ends it (status 130) with the terminal restored"
else
	fail "Ctrl-C restores the terminal"; dump
fi

# ---- SIGTERM from outside ----
start 100 30 base.pmcp
wait_for 'Functions: 4'
pid=$(tm display -p -t "$sess" '#{pane_pid}')
vpid=$(pgrep -P "$pid" | head -1)
if [ -n "$vpid" ]; then
	kill -TERM "$vpid"
	if wait_for 'EXIT=143' && [ "$(tm display -p -t "$sess" '#{alternate_on}#{cursor_flag}')" = 01 ] &&
	   cmp -s stty.before stty.after; then
		pass "SIGTERM: status 143, terminal restored"
	else
		fail "SIGTERM restores the terminal"; dump
	fi
else
	fail "the viewer's pid"
fi

# ---- a bad file and a missing one, in a terminal ----
start 100 30 bad.pmcp
if wait_for 'EXIT=2' && grep -q 'not a pmcprof profile' screen.txt; then
	pass "a bad file: the reader's message, status 2"
else
	fail "a bad file: message and status 2"; dump
fi
start 100 30 missing.pmcp
if wait_for 'EXIT=2' && grep -q 'missing.pmcp' screen.txt; then
	pass "a missing file: named, status 2"
else
	fail "a missing file: message and status 2"; dump
fi
exit 0
