#!/bin/sh
# Golden outputs: report's and diff's documented outputs, byte for byte,
# on crafted profiles of tests/progs/ana_work (real symbols, source lines
# and inlining), against the files in tests/golden/.  A refactoring of any
# output path must leave them as they are; a change of a format changes
# its golden file in the same commit, on purpose.  JSON is compared as
# data (the same values, numbers spelled the same, in the same order), not
# as bytes: its white space is not part of the format.
#   PMCPROF_GOLDEN_UPDATE=1: write the golden files instead (then review
#   `git diff tests/golden`).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=	# no symbol cache: every name from the binary
GOLDEN=$PMCPROF_SRC/tests/golden
W=$PROGS/ana_work

# Two runs of one program, two events each, with metadata and counters.
mk() {
	"$PROGS/ana_mkprofile" -o "$1.pmcp" -b "$W" \
		-e perf::CPU-CLOCK@1000000=cpu-clock -U ns -e perf::PAGE-FAULTS@10=page-faults \
		-m "command=ana_work $1" -m start_time=100.0 -m end_time=101.5 -m cpus=2 \
		-m backend=perf_event -m thread_name=ana_work \
		-c "samples=$2" -c lost=3 -c unwind_failed=$3 \
		"main;work_a=$4,5" "main;work_b=$5,1" "main;work_c=$6,0" \
		"main;inline_caller;inl:hot_inline=$7,2" \
		"main;hot_lines:58=$8,0" "main;hot_lines:57=40,0" || fail "ana_mkprofile $1"
}
mk base 1540 2 600 300 100 200 300
mk run 1740 40 600 500 100 160 340

# out NAME CMD...: CMD's standard output and, in NAME.status, its
# standard error and exit status, with paths (and build-ids) made independent of where the
# test runs (the temporary directory; the program and its source, which a
# VPATH build names through its build directory), into NAME.
out() {
	_name=$1; shift
	"$@" >"$_name.raw" 2>"$_name.err"; echo "exit $?" >>"$_name.err"
	for _f in "$_name.raw" "$_name.err"; do
		sed -e "s|$TMP|TMP|g" -e 's|[^ ,;"<>:=]*/tests/progs/|PROGS/|g' \
			-e 's/[0-9a-f]\{40\}/BUILDID/g' "$_f" >"$_f.n"
	done
	mv "$_name.raw.n" "$_name"; mv "$_name.err.n" "$_name.status"
	case $_name in
	*.json) python3 -c '
import json, sys
num = lambda s: "#number " + s	# numbers as written: 1.50 is not 1.5
print(json.dumps(json.load(open(sys.argv[1]), parse_int=num, parse_float=num),
                 indent=1, ensure_ascii=False))' \
		"$_name" >"$_name.canon" && mv "$_name.canon" "$_name" ||
		echo "(not JSON)" >>"$_name";;
	esac
}

R="$PMCPROF report -q"
D="$PMCPROF diff -q"
out report.txt $R run.pmcp
out report-header.txt $R --header run.pmcp
out report.csv $R --csv run.pmcp
out report.json $R --json run.pmcp
out report-lines.txt $R --lines run.pmcp
out report-lines.csv $R --lines --csv run.pmcp
out report-modules.txt $R --modules run.pmcp
out report-tree.txt $R --tree run.pmcp
out report-tree.json $R --tree --json run.pmcp
out report-bottomup.txt $R --tree=bottom-up run.pmcp
out report-callers.txt $R --callers=work_a run.pmcp
out report-weight.txt $R --weight -e page-faults run.pmcp
out report-metric.csv $R --csv --metric 'PF_PER_MS=page-faults/cpu-clock' run.pmcp
out report-sort.txt $R --sort=comm,sym run.pmcp
out report.collapsed $R --collapsed run.pmcp
out report-speedscope.json $R --speedscope=- run.pmcp
out report-flame.svg sh -c "$R --flamegraph=flame.svg run.pmcp && cat flame.svg"
# pprof: the decoded message (protoc's raw decoding: field numbers and values)
out report-pprof.txt sh -c "$R --pprof=p.pb.gz run.pmcp && gzip -dc p.pb.gz | protoc-c --decode_raw"
out diff.txt $D base.pmcp run.pmcp
out diff-header.txt $D --header base.pmcp run.pmcp
out diff.csv $D --csv base.pmcp run.pmcp
out diff.json $D --json base.pmcp run.pmcp
out diff-delta.txt $D --delta base.pmcp run.pmcp
out diff-table.txt $D --table base.pmcp run.pmcp run.pmcp
out diff-table.md $D --markdown base.pmcp run.pmcp
out diff-lines.csv $D --lines --csv base.pmcp run.pmcp
out diff-flame.svg sh -c "$D --flamegraph=dflame.svg base.pmcp run.pmcp && cat dflame.svg"

n=0
for f in report* diff*; do
	case $f in *.raw|*.err) continue;; esac
	case $f in *.status) ;; *) n=$((n + 1));; esac
	if [ -n "${PMCPROF_GOLDEN_UPDATE:-}" ]; then
		cp "$f" "$GOLDEN/$f"
		continue
	fi
	if [ ! -f "$GOLDEN/$f" ]; then
		fail "$f: no golden file $GOLDEN/$f (PMCPROF_GOLDEN_UPDATE=1 writes it)"
	elif cmp -s "$f" "$GOLDEN/$f"; then
		pass "$f as its golden file"
	else
		fail "$f differs from tests/golden/$f:"
		diff -u "$GOLDEN/$f" "$f" | head -30 | sed 's/^/    | /'
	fi
done
check "every golden case was run ($n)" test "$n" -eq 27
for g in "$GOLDEN"/*; do
	[ -f "$(basename "$g")" ] || fail "golden file $(basename "$g") has no case"
done
