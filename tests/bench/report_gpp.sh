#!/bin/sh
# Symbolization speed on big stripped binaries: `g++ -O2 -c` of a
# header-heavy C++ file (<bits/stdc++.h>, templates) recorded by pmcprof
# and by perf in the same run, each sampling cpu-clock every 1 ms; then
# `pmcprof report` against `perf report --stdio --no-children -g none`.
# cc1plus is 30 MB and stripped (.dynsym and a debug link only); libc has
# its DWARF when libc6-dbg is installed.  pmcprof is timed cold (an empty
# symbol cache: every module opened, on as many threads as CPUs, its symbol
# table sorted once, DWARF decompressed where there is some, /proc/kallsyms
# read) and warm (the cache filled by the cold run: no module opened, the
# kernel's symbols mapped from the cache).  record keeps the names of the
# sampled addresses in the profile directory (DIR/symbols): a cold report
# reads those instead of opening any module; the run's copy without them
# (as recorded with --no-archive) shows the cold cost they save.  Best of 3
# of each: wall-clock time, CPU time
# (user + system: on a loaded host the wall clock mostly measures the
# scheduler) and peak RSS.  Target: pmcprof report <= 0.2 x perf report's
# time.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
for t in g++ perf python3; do
	command -v $t >/dev/null || { echo "skipped: $t not installed"; exit 0; }
done
if [ ! -x "$PMCPROF_BUILD/pmcprof-record" ]; then
	echo "skipped: pmcprof-record not built"
	exit 0
fi
cat >heavy.cc <<'CC'
#include <bits/stdc++.h>
template <int N> struct Fib { static constexpr long v = Fib<N - 1>::v + Fib<N - 2>::v; };
template <> struct Fib<1> { static constexpr long v = 1; };
template <> struct Fib<0> { static constexpr long v = 0; };
template <typename T> T sum(const std::vector<T> &v) { return std::accumulate(v.begin(), v.end(), T{}); }
template <typename K, typename V> struct Table {
	std::map<K, std::vector<V>> m;
	void add(const K &k, const V &v) { m[k].push_back(v); }
	size_t size() const { return m.size(); }
};
int main()
{
	Table<std::string, std::pair<int, double>> t;
	Table<long, std::set<std::string>> u;
	t.add("a", { 1, 2.0 });
	u.add(3, { "x" });
	std::vector<long> v(10, Fib<40>::v);
	std::sort(v.begin(), v.end());
	std::regex r("a+b*");
	std::ostringstream os;
	os << std::fixed << std::setprecision(3) << sum(v);
	return (int)(t.size() + u.size()) + std::regex_match("aab", r) + (int)os.str().size();
}
CC
if ! perf record -q -e cpu-clock -c 1000000 -o perf.data -- g++ -O2 -c heavy.cc -o a.o >perf.log 2>&1; then
	echo "skipped: perf record failed:"
	sed 's/^/    /' perf.log | tail -3
	exit 0
fi
PMCPROF_CACHE_DIR="$tmp/record-cache" "$PMCPROF_BUILD/pmcprof" record -e cpu-clock@1000000 -o rec \
	-- g++ -O2 -c heavy.cc -o b.o >rec.log 2>&1 ||
	{ echo "pmcprof record failed"; sed 's/^/    /' rec.log | tail -3; exit 1; }
mkdir bare && cp rec/*.pmcp bare/

python3 - "$PMCPROF_BUILD/pmcprof" <<'PY'
import os, shutil, subprocess, sys, time

def run(cmd, env=None):
    """wall seconds, CPU seconds and peak RSS (KiB) of one run"""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    t = time.perf_counter() - t
    if status:
        sys.exit("command failed: " + " ".join(cmd))
    return t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss

def best(cmd, before=None, env=None):
    res = []
    for _ in range(3):
        if before:
            before()
        res.append(run(cmd, env))
    return min(r[0] for r in res), min(r[1] for r in res), max(r[2] for r in res)

pm = sys.argv[1]
cache = os.path.abspath("symbols")
env = dict(os.environ, PMCPROF_CACHE_DIR=cache)
perf = best(["perf", "report", "-i", "perf.data", "--stdio", "--no-children", "-g", "none"])
bare = best([pm, "report", "bare"], before=lambda: shutil.rmtree(cache, ignore_errors=True), env=env)
cold = best([pm, "report", "rec"], before=lambda: shutil.rmtree(cache, ignore_errors=True), env=env)
warm = best([pm, "report", "rec"], env=env)
out = subprocess.run(["perf", "report", "-i", "perf.data", "--stdio", "--no-children", "-g", "none"],
                     capture_output=True, text=True).stdout
samples = next((l.split(":")[1].split()[0] for l in out.splitlines() if l.startswith("# Samples")), "?")
print("workload: g++ -O2 -c (bits/stdc++.h, templates), cpu-clock every 1 ms; perf samples: %s" % samples)
print("%-42s %7s %7s %7s %7s %12s" % ("command", "wall s", "x perf", "CPU s", "x perf", "peak RSS"))
print("%-42s %7.3f %7s %7.3f %7s %8d KiB" % ("perf report --stdio --no-children -g none",
      perf[0], "1", perf[1], "1", perf[2]))
for name, r in (("pmcprof report, cold, no kept names", bare),
                ("pmcprof report, cold, kept names", cold),
                ("pmcprof report, warm symbol cache", warm)):
    print("%-42s %7.3f %6.2fx %7.3f %6.2fx %8d KiB" % (name, r[0], r[0] / perf[0], r[1],
          r[1] / max(perf[1], 1e-3), r[2]))
def verdict(r):
    return "met" if min(r[0] / perf[0], r[1] / max(perf[1], 1e-3)) <= 0.2 else "missed"
print("target <= 0.2x perf report (wall or CPU): warm %s, cold %s" % (verdict(warm), verdict(cold)))
PY
