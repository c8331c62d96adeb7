#!/bin/sh
# Clear messages for what goes wrong: stripped binaries (and separate debug
# info found by build-id or .gnu_debuglink), a binary rebuilt since the
# run, a missing module, a module that is not a regular file, truncated and
# foreign files among good ones, usage errors.  Exit status 0/1/2.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/cache"	# not the user's cache (nor $TMP/symbols: the
					# names kept for the profiles in $TMP)
MK="$PROGS/ana_mkprofile"

# exits "name" WANT command...: PASS if the command exits with WANT
exits() { _n=$1 _w=$2; shift 2; "$@" >out.txt 2>err.txt; _r=$?
	if [ "$_r" -eq "$_w" ]; then pass "$_n (exit $_w)"; else fail "$_n: exit $_r, not $_w"; sed 's/^/    | /' err.txt; fi; }

cp "$PROGS/ana_work" app
"$MK" -o app.pmcp -b app "main;work_a=60" "main;work_b=30"

# stripped: ELF symbols only (none for a PIE's own functions), a warning
strip -o stripped app
"$MK" -o stripped.pmcp -b app -P "$PWD/stripped" "main;work_a=60" "main;work_b=30"
"$PMCPROF" report stripped.pmcp >out.txt 2>&1
contains "stripped: warning names the module" "stripped: no debug info (stripped?)" out.txt
contains "stripped: unresolved frames as [module+0xOFF]" "\[stripped+0x" out.txt
# separate debug info by build-id under --debug-dir
objcopy --only-keep-debug app app.debug
bid=$(readelf -n app | awk '/Build ID/ { print $3 }')
mkdir -p "dbg/.build-id/$(echo "$bid" | cut -c1-2)"
cp app.debug "dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
"$PMCPROF" report --debug-dir dbg stripped.pmcp >out.txt 2>&1
contains "stripped + --debug-dir: symbolized by build-id" "work_a" out.txt
# separate debug info by .gnu_debuglink next to the binary
mkdir linked && objcopy --strip-debug --add-gnu-debuglink=app.debug app linked/app && cp app.debug linked/
"$MK" -o linked.pmcp -b app -P "$PWD/linked/app" "main;work_a=60"
"$PMCPROF" report linked.pmcp >out.txt 2>&1
contains "stripped + .gnu_debuglink: symbolized" "work_a .*ana_work.c:" out.txt

# rebuilt since the run: build-id mismatch is reported, nothing mis-symbolized
# (no cache: its answers for the recorded build would name it, rightly)
"$MK" -o rebuilt.pmcp -b app "main;work_a=60" "main;work_b=30"
cp "$PROGS/ana_work_alt" app
exits "rebuilt binary: still a report" 0 "$PMCPROF" report --no-cache rebuilt.pmcp
contains "rebuilt binary: header says so" "warning: .*app: binary changed since the run (build-id" out.txt
if grep -q 'work_a' out.txt; then fail "rebuilt binary: symbols taken from the wrong build"; else pass "rebuilt binary: not mis-symbolized"; fi
cp "$PROGS/ana_work" app

# module gone
"$MK" -o gone.pmcp -b app -P /nonexistent/dir/app "main;work_a=60"
"$PMCPROF" report --no-cache gone.pmcp >out.txt 2>&1
contains "missing module: named with the reason" "/nonexistent/dir/app: No such file or directory" out.txt

# a module path that is a FIFO is not opened (would block)
mkfifo fifo
"$MK" -o fifo.pmcp -b app -P "$PWD/fifo" "main;work_a=60"
exits "FIFO module: not opened" 0 timeout 20 "$PMCPROF" report --no-cache fifo.pmcp
contains "FIFO module: not a regular file" "fifo: not a regular file" out.txt

# truncated and foreign files among good ones: one line each, rest merged, exit 2
mkdir runs
cp app.pmcp runs/a.pmcp
head -c 100 app.pmcp >runs/b.pmcp
echo 'hello' >runs/c.pmcp
exits "bad files: exit 2" 2 "$PMCPROF" report --no-header runs
contains "truncated file: reader's message" "runs/b.pmcp: truncated" err.txt
contains "foreign file: reader's message" "runs/c.pmcp: not a pmcprof profile" err.txt
check "bad files: one line each" test "$(wc -l <err.txt)" -eq 2
contains "bad files: the good one is merged" "work_a" out.txt
exits "no profiles at all: exit 2" 2 "$PMCPROF" report runs/c.pmcp
exits "missing path: exit 2" 2 "$PMCPROF" report does-not-exist.pmcp
contains "missing path: named" "does-not-exist.pmcp: No such file or directory" err.txt

# usage
exits "report --help" 0 "$PMCPROF" report --help
contains "report --help: usage" "Usage: pmcprof report" out.txt
exits "diff --help" 0 "$PMCPROF" diff --help
contains "diff --help: usage" "Usage: pmcprof diff" out.txt
exits "report: no arguments" 1 "$PMCPROF" report
exits "report: unknown option" 1 "$PMCPROF" report --frobnicate app.pmcp
exits "report: bad --top" 1 "$PMCPROF" report --top -3 app.pmcp
exits "report: unknown event" 1 "$PMCPROF" report -e no-such-event app.pmcp
contains "unknown event: lists the events there are" "they have: perf::CPU-CLOCK" err.txt
exits "report: unknown function" 1 "$PMCPROF" report --callers no_such_fn app.pmcp
exits "report: bad metric" 1 "$PMCPROF" report --metric 'X=cycles/' app.pmcp
exits "diff: one run only" 1 "$PMCPROF" diff app.pmcp
exits "diff: bad --ratio" 1 "$PMCPROF" diff --ratio odd app.pmcp app.pmcp
# --help texts are printed as they are (fputs), not through printf: a
# percent sign is one '%', never "%%"
for cmd in report diff view; do
	"$PMCPROF" $cmd --help >help.txt 2>&1
	if grep -q '%%' help.txt; then fail "$cmd --help: no doubled percent sign"; grep '%%' help.txt
	else pass "$cmd --help: no doubled percent sign"; fi
done
"$PMCPROF" diff --help >help.txt 2>&1
contains "diff --help: 'at least N% of BASE'" "at least N% of BASE" help.txt
