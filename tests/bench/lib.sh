# Helpers the benchmarks share: tests/bench/*.sh source this file
# (. "$(dirname "$0")/lib.sh"); it is no benchmark, run-bench.sh passes
# it over.
: "${PMCPROF_BUILD:?}"

# bench_tools NAME LETTER...: sets each tool's variable to its path, and
# stops the benchmark NAME (status 1) where one is not built:
# P pmcprof, I rec_inspect, T cputime, W record_work, F sample_floor,
# C the timed collector (COLL_TIMING).
bench_tools() {
	_bench=$1; shift
	for _v; do
		case $_v in
		P) _f=$PMCPROF_BUILD/pmcprof ;;
		I) _f=$PMCPROF_BUILD/tests/progs/rec_inspect ;;
		T) _f=$PMCPROF_BUILD/tests/bench/cputime ;;
		W) _f=$PMCPROF_BUILD/tests/bench/record_work ;;
		F) _f=$PMCPROF_BUILD/tests/bench/sample_floor ;;
		C) _f=$PMCPROF_BUILD/tests/bench/.libs/libpmcprof-collector-timed.so ;;
		*) echo "$_bench: bench_tools knows no tool $_v"; exit 1 ;;
		esac
		[ -x "$_f" ] || { echo "$_bench: $_f not built (make check builds it)"; exit 1; }
		eval "$_v=\$_f"
	done
}

# bench_tmp PREFIX [KEEP]: a fresh directory in $tmp, removed at exit
# unless KEEP is set (to look at a run's files afterwards).
bench_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
	[ -n "${2:-}" ] || trap 'rm -rf "$tmp"' EXIT
}

# bench_in_tmp: bench_tmp pmcprof-bench, and there as the current
# directory.
bench_in_tmp() {
	bench_tmp pmcprof-bench
	cd "$tmp" || exit 1
}

# bench_need COMMAND [PACKAGE]: the benchmark is skipped (status 0)
# without COMMAND.
bench_need() {
	command -v "$1" >/dev/null && return 0
	echo "skipped: $1 not installed${2:+ ($2)}"
	exit 0
}

# bench_perf [-q]: have_perf=1 where perf record works here, else 0 (and
# says so, unless -q).
bench_perf() {
	have_perf=0
	perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1 && have_perf=1
	[ $have_perf = 1 ] || [ "${1:-}" = -q ] || echo "(perf record unusable here: pmcprof alone)"
}

# bench_text FILE: 21 MB of numbered lines for zstd, compressible but not
# trivially so; the same bytes every run.
bench_text() {
	seq 1 700000 | awk '{ printf "%d %x line-%d %s\n", $1, $1 * 2654435761 % 4294967296, $1 % 977, ($1 % 7 ? "alpha" : "omega") }' >"$1"
}

# bench_rounds: $REPS rounds of `run WORKLOAD CONFIG` over every
# $workloads x $configs, the configurations alternating within a round.
bench_rounds() {
	for _r in $(seq "$REPS"); do
		for _w in $workloads; do
			for _c in $configs; do
				run "$_w" "$_c"
			done
		done
	done
}

# best [-q] COMMAND...: the best of 3 wall-clock seconds of COMMAND, its
# stdout discarded (and its stderr, with -q).
best() {
	python3 - "$@" <<'PY'
import subprocess, sys, time
quiet = sys.argv[1] == "-q"
argv = sys.argv[2:] if quiet else sys.argv[1:]
best = None
for _ in range(3):
    t = time.perf_counter()
    err = subprocess.DEVNULL if quiet else None
    if subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err).returncode != 0:
        sys.exit("command failed: " + " ".join(argv))
    t = time.perf_counter() - t
    best = t if best is None or t < best else best
print("%.4f" % best)
PY
}
