#!/bin/sh
# The progress line of report, diff and view: on a terminal, once the
# analysis has run half a second, "pmcprof CMD: PHASE ..." on stderr,
# erased before the output or the viewer's screen; nothing for a quick
# analysis, nothing when stderr is not a terminal, nothing with -q.  tmux
# gives the commands a terminal and records every byte they write to it.
. "$PMCPROF_SRC/tests/lib.sh"

command -v tmux >/dev/null 2>&1 || { skip "tmux is not installed"; exit 77; }
[ -x "$PROGS/ana_mkprofile" ] || { skip "tests/progs/ana_mkprofile not built"; exit 77; }
export PMCPROF_CACHE_DIR=

SOCK="$TMP/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

"$PROGS/ana_mkprofile" -o small.pmcp -b "$PROGS/ana_work" 'main;work_a=100' ||
	{ fail "ana_mkprofile"; exit 1; }
# A slow analysis: a 300k-context tree in 40 files, read again under more
# names (hard links) until a report takes over 1.2 s here.
"$PROGS/ana_mkprofile" -o gen -b "$PROGS/ana_work" -S 300000:1000000 -F 40 ||
	{ fail "ana_mkprofile -S"; exit 1; }
mkdir big
copies=0 ms=0
while [ $copies -lt 8 ] && [ $ms -lt 1200 ]; do
	copies=$((copies + 1))
	for f in gen/*.pmcp; do ln "$f" "big/c$copies-${f#gen/}"; done
	t0=$(date +%s%N)
	"$PMCPROF" report big >notty.out 2>notty.err
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
done
if [ $ms -lt 1200 ]; then
	skip "a report of $copies x 40 files takes only $ms ms here: too quick to show progress"
	exit 77
fi
echo "# a report of $copies x 40 files: $ms ms"
if grep -q 'pmcprof report:' notty.err; then fail "stderr not a terminal: no progress line"
else pass "stderr not a terminal: no progress line"; fi

n=0
# on_tty NAME COMMAND: run COMMAND in a 160x30 terminal; NAME.log gets
# every byte written to it, NAME.rc the exit status.
on_tty() {
	name=$1; shift
	n=$((n + 1))
	tm new-session -d -s "s$n" -x 160 -y 30 -c "$TMP" \
		"sleep 0.3; LC_ALL=C.UTF-8 TERM=tmux-256color $*; echo \$? >$name.rc; exec sleep 300"
	tm pipe-pane -t "s$n" "cat >$TMP/$name.log"
}
# wait_file FILE: up to 60 s
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
# shown NAME PROG: the line appeared, and was erased after its last update
shown() {
	python3 - "$1.log" "$2" <<'PY'
import sys
log = open(sys.argv[1], "rb").read()
at = log.rfind(sys.argv[2].encode() + b": ")
sys.exit(0 if at >= 0 and log.find(b"\r\x1b[K", at) > at else 1)
PY
}

on_tty rep "$PMCPROF report big >rep.out"
on_tty quick "$PMCPROF report small.pmcp >quick.out"
on_tty quiet "$PMCPROF report -q big >quiet.out"
on_tty dif "$PMCPROF diff big big >dif.out"
for f in rep quick quiet dif; do
	wait_file $f.rc || fail "$f: did not finish"
done
check "report: progress line on a terminal, erased" shown rep "pmcprof report"
check "report: the output is the same as without a terminal" cmp -s rep.out notty.out
if grep -aq 'pmcprof report:' quick.log; then fail "quick report: no progress line"
else pass "quick report: no progress line"; fi
if grep -aq 'pmcprof report:' quiet.log; then fail "report -q: no progress line"
else pass "report -q: no progress line"; fi
check "diff: progress line on a terminal, erased" shown dif "pmcprof diff"

on_tty view "$PMCPROF view big"
i=0
until grep -aq 'Functions' view.log 2>/dev/null || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
tm send-keys -t "s$n" q
wait_file view.rc || fail "view: did not quit"
check "view: progress line while loading, erased" shown view "pmcprof view"
check "view: exit status 0" grep -qx 0 view.rc

on_tty viewq "$PMCPROF view small.pmcp"
i=0
until grep -aq 'Functions' viewq.log 2>/dev/null || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
tm send-keys -t "s$n" q
wait_file viewq.rc || fail "quick view: did not quit"
if grep -aq 'pmcprof view:' viewq.log; then fail "quick view: no progress line"
else pass "quick view: no progress line"; fi
