#!/bin/sh
# pmcprof view on a 1M-sample, 100k-context profile: how long until the
# first screen, against `pmcprof report --csv` on the same file (the
# analyzer's own read + symbolize + one query, which the viewer also pays),
# then how long a few keys take on it.  Target: the first screen in under
# 1 s.  The viewer symbolizes up front (the analyzer's finish) with a
# progress line, then draws only the rows on screen.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
progs=$PMCPROF_BUILD/tests/progs
pmcprof=$PMCPROF_BUILD/pmcprof
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-bench.XXXXXX")
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

bin=$progs/ana_many	# 512 functions; ana_work has a dozen
[ -x "$bin" ] || bin=$progs/ana_work
"$progs/ana_mkprofile" -o big.pmcp -b "$bin" -S 100000:1000000 || exit 1

now() { date +%s.%N; }
# median of the wall times of N runs of a command
median() {
	n=$1; shift
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(now)
		"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
		t1=$(now)
		echo "$t0 $t1" | awk '{ printf "%.4f\n", $2 - $1 }'
		i=$((i + 1))
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

report=$(median 5 "$pmcprof" report -q --csv big.pmcp)
snap=$(median 5 "$pmcprof" view --snapshot 120x40 big.pmcp)

# In a real terminal: from start until the table is on screen, and keys.
frame= tree= lines= endkey= search=
if command -v tmux >/dev/null 2>&1; then
	tm() { tmux -S "$sock" "$@"; }
	tm new-session -d -s idle -x 80 -y 24 "sleep 600"	# the server, started beforehand
	# until PATTERN: seconds until the screen shows PATTERN (10 ms polls, 20 s at most)
	until_shows() {
		t0=$(now) n=0
		while [ $n -lt 2000 ]; do
			tm capture-pane -p -t v 2>/dev/null | grep -q -- "$1" && break
			sleep 0.01
			n=$((n + 1))
		done
		echo "$t0 $(now)" | awk '{ printf "%.4f\n", $2 - $1 }'
	}
	best=
	for i in 1 2 3; do
		tm kill-session -t v 2>/dev/null
		t0=$(now)
		tm new-session -d -s v -x 120 -y 40 -c "$tmp" "LC_ALL=C.UTF-8 $pmcprof view big.pmcp"
		t=$(until_shows 'Functions: ')
		t=$(echo "$t0 $(now)" | awk '{ printf "%.4f\n", $2 - $1 }')
		best=$(printf '%s\n%s\n' "$best" "$t" | sed '/^$/d' | sort -n | head -1)
	done
	frame=$best
	tm send-keys -t v t;  tree=$(until_shows 'Top-down tree')
	tm send-keys -t v t;  until_shows 'Bottom-up tree' >/dev/null
	tm send-keys -t v t l; lines=$(until_shows 'Source lines: ')
	tm send-keys -t v End; endkey=$(until_shows ' \([0-9]*\)/\1$')
	tm send-keys -t v Escape / f; search=$(until_shows 'Search: f_')
	tm kill-session -t v
fi

awk -v report="$report" -v snap="$snap" -v frame="$frame" -v tree="$tree" -v lines="$lines" \
    -v endkey="$endkey" -v search="$search" -v bin="$(basename "$bin")" 'BEGIN {
	printf "1M samples, 100k contexts over %s (medians of 5; terminal: best of 3)\n", bin
	printf "%-46s %9s %10s\n", "", "seconds", "vs report"
	printf "%-46s %9.3f %9.2fx\n", "pmcprof report --csv (read, symbolize, query)", report, 1
	printf "%-46s %9.3f %9.2fx\n", "pmcprof view --snapshot 120x40 (first screen)", snap, snap / report
	if (frame != "") {
		printf "%-46s %9.3f %9.2fx\n", "pmcprof view in tmux: until the table shows", frame, frame / report
		printf "%-46s %9.3f\n", "  key t: top-down tree, hot path opened", tree
		printf "%-46s %9.3f\n", "  key l: per-line table", lines
		printf "%-46s %9.3f\n", "  key End: last row", endkey
		printf "%-46s %9.3f\n", "  key /: first search keystroke", search
	} else
		print "(tmux not installed: no terminal figures)"
	worst = frame != "" && frame > snap ? frame : snap
	if (worst >= 1.0) { printf "FAILED: the first screen took %.2f s (target: under 1 s)\n", worst; exit 1 }
	printf "first screen in %.2f s: under the 1 s target\n", worst
}'
