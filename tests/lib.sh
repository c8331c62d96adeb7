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
