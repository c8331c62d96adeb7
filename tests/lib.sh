# Shell test helpers: source from tests/integration/*.sh.
#   ok COND-EXIT-STATUS "name"  ... prints PASS:/FAIL: lines for run-tests.sh.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
PMCPROF="$PMCPROF_BUILD/pmcprof"
PROGS="$PMCPROF_BUILD/tests/progs"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; }
# check "name" command...: PASS if the command succeeds.
check() { _n=$1; shift; if "$@"; then pass "$_n"; else fail "$_n"; fi; }
# contains "name" "needle" FILE
contains() { if grep -q -- "$2" "$3"; then pass "$1"; else fail "$1 (no '$2' in $3)"; sed 's/^/    | /' "$3" | head -20; fi; }
# lacks "name" "needle" FILE: PASS if FILE has no line matching needle.
lacks() { if grep -q -- "$2" "$3"; then fail "$1 ('$2' in $3)"; grep -- "$2" "$3" | sed 's/^/    | /' | head -5; else pass "$1"; fi; }
# unaccounted DIR: overflows minus samples minus named losses over DIR's
# profiles (every profile's collector counters; lost is the kernel's, not
# an overflow), or "unknown" if none has counters.  At most 0 when nothing
# is lost unseen: a profile takes the backend's count first and ours
# after, so an overflow taken in between is counted by us only
# (collector/flush.c).
unaccounted() {
	for f in "$1"/*.pmcp; do "$PROGS/rec_inspect" counters "$f"; done | awk -F= '
	{ v[$1] += $2 }
	END {
		if (!("overflows" in v)) { print "unknown"; exit }
		d = 0
		for (k in v) if (k ~ /^dropped_/) d += v[k]
		print v["overflows"] - v["samples"] - d + v["dropped_reentrant"]
	}'
}
# need_nobody LABEL: exit with a SKIP unless this can run programs as
# nobody at perf_event_paranoid 2 (root, setpriv); then nobody CMD... runs
# one, from a directory nobody may write (the current one is left).
need_nobody() {
	_p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
	if ! command -v setpriv >/dev/null; then
		skip "$1: setpriv (util-linux) is missing, cannot become nobody"; exit 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1: only root can run this as nobody"; exit 0
	fi
	if [ "$_p" != 2 ]; then
		skip "$1: perf_event_paranoid is $_p, not 2"; exit 0
	fi
	chmod 0755 . && mkdir -m 0777 w && cd w || exit 1
}
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# no_guests: a test that boots QEMU guests skips when PMCPROF_NO_GUESTS is
# set (.ci/run's make distcheck: the main pass runs them).
no_guests() {
	[ -z "${PMCPROF_NO_GUESTS:-}" ] && return 0
	skip "PMCPROF_NO_GUESTS is set: no QEMU guest in this pass"
	exit 77
}
# status WANT NAME PATTERN COMMAND...: PASS if COMMAND exits WANT with
# PATTERN on its stderr (its output is left in out.txt and err.txt).
status() {
	_want=$1 _name=$2 _pat=$3; shift 3
	"$@" >out.txt 2>err.txt </dev/null
	rc=$?
	if [ "$rc" = "$_want" ] && grep -q -- "$_pat" err.txt; then
		pass "$_name (status $rc)"
	else
		fail "$_name: status $rc, want $_want with '$_pat'"; sed 's/^/    | /' err.txt | head -5
	fi
}
# need_cmd NAME: exit with a SKIP unless the command NAME is installed.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	skip "$1 is not installed"
	exit 0
}
# need_record: exit with a SKIP unless pmcprof-record is built.
need_record() {
	[ -x "$PMCPROF_BUILD/pmcprof-record" ] && return 0
	skip "pmcprof-record is not built"
	exit 0
}
# perf_event_usable EVENT: record runs EVENT on the perf_event backend
# here; its stderr stays in probe.err for the SKIP line.
perf_event_usable() {
	"$PMCPROF" record -o probe -e "$1" -- true 2>probe.err && grep -q "on the perf_event backend" probe.err
}
# kernel_sampled: the kernel can be sampled here (root, or
# perf_event_paranoid <= 1); sets $paranoid for the SKIP line.
kernel_sampled() {
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
	[ "$(id -u)" -eq 0 ] || [ "$paranoid" -le 1 ]
}
# same_files NAME WANT GOT: PASS if the two files are the same bytes, else
# FAIL with the first lines of their difference.
same_files() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1: $3 differs from $2"; diff "$2" "$3" | head -8 | sed 's/^/    | /'
	fi
}
# compiles "name" command...: PASS if the compiler command succeeds, else
# FAIL with its first messages (header tests: header_std, analyzer_api).
compiles() {
	_n=$1; shift
	if "$@" >compile.err 2>&1; then pass "$_n"; else fail "$_n"; sed 's/^/    | /' compile.err | head -10; fi
}
# header_alone INCLUDE FLAGS...: `#include "INCLUDE"` first and only compiles
# as C99 and as C++17 (FLAGS: -I..., warnings).
header_alone() {
	_i=$1; shift
	printf '#include "%s"\nint main(void) { return 0; }\n' "$_i" >alone.c
	cp alone.c alone.cc
	compiles "$_i: self-contained (C99 and C++17, alone)" \
		sh -c '${CC:-cc} -std=c99 "$@" alone.c && ${CXX:-c++} -std=c++17 "$@" alone.cc' sh "$@"
}
# wait_ready FILE: wait (20 s at most) until a program that prints "ready"
# once its threads are going (att_target, stress_procs fan) has said so in
# FILE; a fixed sleep may be too short for a loaded machine.
wait_ready() {
	for _i in $(seq 400); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.05; done
	return 1
}
# child_pid PARENT NAME: the pid of PARENT's child named NAME (the program
# `pmcprof record` started), waiting 20 s at most for it; empty if none.
child_pid() {
	for _i in $(seq 400); do
		pgrep -x "$2" -P "$1" && return 0
		sleep 0.05
	done
	return 1
}
# wait_cpu PID THREADS MS: wait (60 s at most) until PID has THREADS
# threads that have each run MS ms of CPU time (schedstat), for a test
# that must act once a program has done some work: a fixed sleep says
# nothing of it on a loaded machine.  1 if that never came.
wait_cpu() {
	_i=0
	while [ $_i -lt 1200 ]; do
		_n=$(cat /proc/"$1"/task/*/schedstat 2>/dev/null |
			awk -v m="$3" '$1 >= m * 1e6 { n++ } END { print n + 0 }')
		[ "$_n" -ge "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05; _i=$((_i + 1))
	done
	return 1
}
