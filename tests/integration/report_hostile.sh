#!/bin/sh
# Hostile but valid profiles and files that are not profiles: a 100,000-deep
# calling context in every view and format of report, diff and view (no
# recursion on the input's depth: no crash, and the bottom-up tree is cut
# with a note rather than growing quadratically), FIFOs, devices and
# directories given as profiles (a clear message, never a hang), and
# counts whose sum overflows 64 bits (refused, never wrapped).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
MK="$PROGS/ana_mkprofile"
T="timeout 120"

# runs "name" WANT command...: PASS if the command exits with WANT (124: hung)
runs() { _n=$1 _w=$2; shift 2; "$@" >out.txt 2>err.txt; _r=$?
	if [ "$_r" -eq "$_w" ]; then pass "$_n (exit $_w)"; else fail "$_n: exit $_r, not $_w"; sed 's/^/    | /' err.txt | head -5; fi; }

cp "$PROGS/ana_work" app
"$MK" -o deep.pmcp -b app 'main;work_a*100000;work_b=5' 'main;work_c=5'
check "a 100,000-deep context fits a small file ($(stat -c %s deep.pmcp) bytes)" \
	[ "$(stat -c %s deep.pmcp)" -lt 4096 ]
for fmt in "" --csv --json; do
	runs "report --tree $fmt: 100,000 levels" 0 $T "$PMCPROF" report -q --tree --min-pct 0 $fmt deep.pmcp
	n=$(grep -c -e work_a -e 'ana_work.c:35' out.txt)
	check "  ... every level is a row ($n)" [ "$n" -ge 100000 ]
	runs "report --tree=bottom-up $fmt" 0 $T "$PMCPROF" report --tree=bottom-up --min-pct 0 $fmt deep.pmcp
	cat out.txt >>err.txt	# text mode: notes are header lines
	contains "  ... cut, and says so" "bottom-up tree cut" err.txt
done
runs "report --tree --depth 5 (a cut top-down tree)" 0 $T "$PMCPROF" report -q --tree --depth 5 deep.pmcp
runs "report --collapsed" 0 $T "$PMCPROF" report -q --collapsed deep.pmcp
check "  ... one stack 100,002 frames deep, leaf included" \
	awk -F';' '$NF == "work_b 5" && NF == 100002 { ok = 1 } END { exit !ok }' out.txt
runs "report --callers work_b" 0 $T "$PMCPROF" report -q --callers work_b deep.pmcp
runs "report --lines" 0 $T "$PMCPROF" report -q --lines deep.pmcp
runs "diff deep deep" 0 $T "$PMCPROF" diff -q deep.pmcp deep.pmcp
runs "diff --csv deep deep" 0 $T "$PMCPROF" diff -q --csv deep.pmcp deep.pmcp
if [ -x "$PMCPROF_BUILD/pmcprof-view" ]; then
	runs "view --snapshot of the deep profile" 0 $T "$PMCPROF" view --snapshot=120x40 deep.pmcp
fi

# ---- files that are not profiles: refused at once, whatever they are ----
mkfifo fifo.pmcp
for cmd in report dump "diff deep.pmcp"; do
	# shellcheck disable=SC2086
	runs "$cmd FIFO: refused, no hang" 2 timeout 20 "$PMCPROF" $cmd fifo.pmcp
	contains "  ... says it is a FIFO" "FIFO" err.txt
done
mkdir d && mkfifo d/x.pmcp
runs "report DIR holding a FIFO named .pmcp" 2 timeout 20 "$PMCPROF" report d
contains "  ... names it" "d/x.pmcp: not a regular file" err.txt
runs "report /dev/null" 2 timeout 20 "$PMCPROF" report /dev/null
contains "  ... says it is a device" "device" err.txt
runs "dump DIR" 2 timeout 20 "$PMCPROF" dump d
contains "  ... says it is a directory" "a directory" err.txt
if command -v python3 >/dev/null; then
	python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind("sock.pmcp")'
	runs "report SOCKET" 2 timeout 20 "$PMCPROF" report sock.pmcp
	contains "  ... says it is a socket" "socket" err.txt
fi

# ---- counts: sums that would overflow 64 bits are refused, not wrapped ----
"$MK" -o big1.pmcp -b app 'main;work_a=18000000000000000000' 'main;work_b=100'
"$MK" -o big2.pmcp -b app 'main;work_a=1000000000000000000'
runs "report of two files whose counts overflow together" 2 "$PMCPROF" report big1.pmcp big2.pmcp
contains "  ... the second is refused by name" "big2.pmcp: sample counts overflow 64 bits" err.txt
contains "  ... the first is reported exactly" "18000000000000000000" out.txt
runs "report of the first alone" 0 "$PMCPROF" report big1.pmcp
