# plugins/perf_event: pmc-perf_event.so.  The counter code is libpe, a
# static convenience library for the plugins built on perf_event (this one
# and kvm_vpmu): its contract is libpe.h, its own parts pe.h; docs/libpmc.md.
noinst_LTLIBRARIES += plugins/perf_event/libpe.la
plugins_perf_event_libpe_la_SOURCES = plugins/perf_event/libpe.h plugins/perf_event/pe.h \
	plugins/perf_event/pe.c plugins/perf_event/page.c plugins/perf_event/ring.c

pkglib_LTLIBRARIES += plugins/pmc-perf_event.la
plugins_pmc_perf_event_la_SOURCES = plugins/perf_event/plugin.c
plugins_pmc_perf_event_la_LIBADD = plugins/perf_event/libpe.la
# -z now: no lazy binding of read()/ioctl() on the sampling and read paths.
plugins_pmc_perf_event_la_LDFLAGS = $(plugin_ldflags) -Wl,-z,now

check_PROGRAMS += tests/unit/test-perf_event tests/unit/test-rdpmc
UNIT_TESTS += tests/unit/test-perf_event tests/unit/test-rdpmc
# The test holds the plugin's descriptor itself and drives its ops (own
# CFLAGS so plugin.c gets a separate non-libtool object).
tests_unit_test_perf_event_SOURCES = tests/unit/test_perf_event.c plugins/perf_event/plugin.c
tests_unit_test_perf_event_LDADD = plugins/perf_event/libpe.la -lpthread
tests_unit_test_perf_event_CFLAGS = $(AM_CFLAGS)
tests_unit_test_rdpmc_SOURCES = tests/unit/test_rdpmc.c
tests_unit_test_rdpmc_LDADD = plugins/perf_event/libpe.la

# The user-space read on a real PMU (tests/arm64/guest.sh): page, deltas, cost.
check_PROGRAMS += tests/progs/hw_selfread
tests_progs_hw_selfread_SOURCES = tests/progs/hw_selfread.c
tests_progs_hw_selfread_LDADD = plugins/perf_event/libpe.la backend/libpmc-core.la
tests_progs_hw_selfread_LDFLAGS = $(AM_LDFLAGS) -Wl,-z,now

# Read-cost benchmark (tests/bench/read_cost.sh): libpmc vs read(), PAPI, getpid.
check_PROGRAMS += tests/bench/bench_read
tests_bench_bench_read_SOURCES = tests/bench/bench_read.c
tests_bench_bench_read_LDADD = backend/libpmc-core.la
tests_bench_bench_read_LDFLAGS = $(AM_LDFLAGS) -Wl,-z,now
if HAVE_PAPI
tests_bench_bench_read_CPPFLAGS = $(AM_CPPFLAGS) -DBENCH_PAPI $(PAPI_CFLAGS)
tests_bench_bench_read_LDADD += $(PAPI_LIBS)
endif

# Sampling-cost benchmarks (tests/bench/sample_cost.sh, overhead_vs_perf.sh):
# the signal floor and gap meter, and a CPU-time wrapper for process trees.
check_PROGRAMS += tests/bench/sample_floor tests/bench/cputime
tests_bench_sample_floor_SOURCES = tests/bench/sample_floor.c
tests_bench_sample_floor_CFLAGS = $(AM_CFLAGS) -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls
tests_bench_cputime_SOURCES = tests/bench/cputime.c
# The ring-record parser behind the kernel_chain op (crafted pages), and
# the op on a live ring where kernel sampling is permitted.
check_PROGRAMS += tests/unit/test-pe-ring
UNIT_TESTS += tests/unit/test-pe-ring
tests_unit_test_pe_ring_SOURCES = tests/unit/test_pe_ring.c tests/harness.h
tests_unit_test_pe_ring_LDADD = plugins/perf_event/libpe.la
