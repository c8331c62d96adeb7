#!/bin/sh
# Build every tests/fuzz/fuzz_*.c with libFuzzer + ASan + UBSan and run each
# for RUNS executions (default 1000000), starting from its seed corpus
# tests/fuzz/corpus/NAME/ (NAME = target without "fuzz_").  Prints a table
# target / execs / crashes / seconds; exits 1 if any target crashed or failed
# to build, 77 if clang has no fuzzer runtime.
#
#   tests/fuzz/run-fuzz.sh [RUNS]        FUZZ_SECONDS=N caps each target's time
#   PMCPROF_BUILD=DIR is a configured build tree (config.h); default: in-tree
#   FUZZ_OUT=DIR keeps the build and crash artifacts (default: a temp dir)
#   FUZZ_RUNS_<target>=N overrides RUNS for that target (e.g. FUZZ_RUNS_fuzz_report)
#
# fuzz_report symbolizes against a real module: tests/progs/ana_work.c is
# built here with -g and its path given as PMCPROF_FUZZ_MODULE (the seeds in
# tests/fuzz/corpus/report name it /fuzz/mod).
#
# Seeds for the profile reader come from `test-profile --write-corpus DIR`.

# target: the sources it needs beside tests/fuzz/TARGET.c, then -l flags
# (one line each).
TARGETS='
fuzz_profile: profile/header.c profile/reader.c
fuzz_event: backend/event.c backend/alias.c backend/error.c backend/plugin.c backend/env.c -lpfm -ldl
fuzz_report: profile/header.c profile/reader.c analyzer/*.c @analyzer/profile.pb-c.c -liberty -lm
fuzz_cache: analyzer/idx.c profile/header.c
'
# pkg-config packages every target links against.
PKGS="libzstd libdw libprotobuf-c zlib capstone yajl"

src=${PMCPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMCPROF_BUILD:-$src}	# for config.h
runs=${1:-1000000}
CC=${FUZZ_CC:-clang}
CFLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -std=gnu11 -I$src -I$build"
out=${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-fuzz.XXXXXX")}
[ -n "${FUZZ_OUT:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"

# Is there a fuzzer runtime at all?
printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' >"$out/probe.c"
if ! $CC -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null; then
	echo "SKIP: $CC cannot link -fsanitize=fuzzer (install libclang-rt-dev)"
	exit 77
fi
libs=$(pkg-config --cflags --libs $PKGS) || exit 1

cc -g -O2 -fno-omit-frame-pointer "$src/tests/progs/ana_work.c" -o "$out/fuzzmod" || exit 1
PMCPROF_FUZZ_MODULE=$out/fuzzmod
export PMCPROF_FUZZ_MODULE

status=0
for f in "$src"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$f" .c)
	case "$TARGETS" in *"$t:"*) ;; *)
		echo "$t: no line in the TARGETS table of $0"; status=1 ;;
	esac
done
printf '%-20s %12s %8s %8s\n' target execs crashes seconds
while IFS=: read -r target deps; do
	[ -n "$target" ] || continue
	work=$out/$target
	mkdir -p "$work/corpus" "$work/artifacts"
	srcs=$src/tests/fuzz/$target.c
	ldflags=
	for d in $deps; do
		# @FILE: a source generated in the build tree
		case "$d" in -*) ldflags="$ldflags $d" ;; @*) srcs="$srcs $build/${d#@}" ;;
			*) srcs="$srcs $src/$d" ;; esac
	done
	# shellcheck disable=SC2086
	if ! $CC $CFLAGS $srcs $libs $ldflags -o "$work/$target" 2>"$work/build.log"; then
		printf '%-20s %12s %8s %8s\n' "$target" "-" "build" "-"
		sed 's/^/    | /' "$work/build.log" | head -20
		status=1
		continue
	fi
	seeds=$src/tests/fuzz/corpus/${target#fuzz_}
	[ -d "$seeds" ] || seeds=
	trun=$(eval "echo \${FUZZ_RUNS_$target:-$runs}")
	start=$(date +%s)
	# New inputs go to the scratch corpus (first dir), never to the seeds.
	"$work/$target" -runs="$trun" ${FUZZ_SECONDS:+-max_total_time=$FUZZ_SECONDS} \
		-timeout=60 -report_slow_units=60 \
		-artifact_prefix="$work/artifacts/" -print_final_stats=1 \
		"$work/corpus" $seeds >"$work/run.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/run.log" | tail -1)
	# slow-unit-* files are reports, not failures: -timeout catches hangs
	crashes=$(find "$work/artifacts" -type f ! -name 'slow-unit-*' | wc -l)
	[ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
	printf '%-20s %12s %8s %8s\n' "$target" "${execs:-?}" "$crashes" $(( $(date +%s) - start ))
	if [ "$crashes" -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$work/run.log" | head -10 | sed 's/^/    | /'
		status=1
	fi
done <<EOF_TARGETS
$TARGETS
EOF_TARGETS
exit $status
