# collector/: the LD_PRELOAD collector (libpmcprof-collector.so).
# `pmcprof record`, the launcher, is built by cli/local.mk; docs/collector.md
# explains both.

coll_core_sources = collector/collector.h \
	collector/cct.c collector/cct.h collector/early.c collector/early.h collector/unseen.c collector/unseen.h collector/loadmap.c collector/loadmap.h \
	collector/settings.c collector/settings.h collector/kernel.c collector/kernel.h \
	collector/init.c collector/thread.c collector/handler.c collector/flush.c collector/interpose.c \
	collector/vdso.c collector/watch.c \
	collector/owntime.c collector/owntime.h collector/arch-aarch64.c \
	collector/timeline.c collector/timeline.h collector/throttle.h

pkglib_LTLIBRARIES += collector/libpmcprof-collector.la
collector_libpmcprof_collector_la_SOURCES = $(coll_core_sources)
collector_libpmcprof_collector_la_CFLAGS = $(AM_CFLAGS)
collector_libpmcprof_collector_la_LIBADD = backend/libpmc-core.la unwinder/libunwinder.la \
	profile/libprofile.la -ldl -lpthread
# -z now: no lazy binding from inside the signal handler.
collector_libpmcprof_collector_la_LDFLAGS = -module -avoid-version -shared $(AM_LDFLAGS) \
	-Wl,--version-script=$(top_srcdir)/collector/collector.map -Wl,-z,now
EXTRA_DIST += collector/collector.map

# ---- tests ----
check_PROGRAMS += tests/unit/test-cct tests/unit/test-settings tests/unit/test-loadmap \
	tests/unit/test-throttle
UNIT_TESTS += tests/unit/test-cct tests/unit/test-settings tests/unit/test-loadmap \
	tests/unit/test-throttle
tests_unit_test_throttle_SOURCES = tests/unit/test_throttle.c collector/throttle.h tests/harness.h
tests_unit_test_cct_SOURCES = tests/unit/test_cct.c collector/cct.c collector/cct.h tests/harness.h
tests_unit_test_cct_LDADD = profile/libprofile.la
tests_unit_test_settings_SOURCES = tests/unit/test_settings.c collector/settings.c \
	collector/settings.h tests/harness.h
tests_unit_test_loadmap_SOURCES = tests/unit/test_loadmap.c collector/loadmap.c collector/vdso.c \
	collector/loadmap.h tests/harness.h
tests_unit_test_loadmap_LDADD = profile/libprofile.la -ldl -lpthread

# Workloads for tests/integration/record_*.sh, built like user programs.
# Automake links with a program's own CFLAGS too: -pthread here is enough.
rec_cflags = -g -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread
check_PROGRAMS += tests/progs/rec_threads tests/progs/rec_exit tests/progs/rec_fork \
	tests/progs/rec_dl tests/progs/rec_signals tests/progs/rec_lockstep \
	tests/progs/rec_static tests/progs/rec_inspect tests/progs/rec_churn tests/progs/rec_fds \
	tests/progs/rec_coro tests/progs/rec_hostile tests/progs/rec_watch tests/progs/rec_systime \
	tests/progs/rec_inkernel
tests_progs_rec_threads_SOURCES = tests/progs/rec_threads.c tests/progs/rec_common.h
tests_progs_rec_threads_CFLAGS = $(rec_cflags)
tests_progs_rec_exit_SOURCES = tests/progs/rec_exit.c tests/progs/rec_common.h
tests_progs_rec_exit_CFLAGS = $(rec_cflags)
tests_progs_rec_churn_SOURCES = tests/progs/rec_churn.c tests/progs/rec_common.h
tests_progs_rec_churn_CFLAGS = $(rec_cflags)
tests_progs_rec_fork_SOURCES = tests/progs/rec_fork.c tests/progs/rec_common.h
tests_progs_rec_fork_CFLAGS = $(rec_cflags)
tests_progs_rec_dl_SOURCES = tests/progs/rec_dl.c tests/progs/rec_common.h
tests_progs_rec_dl_CFLAGS = $(rec_cflags)
tests_progs_rec_dl_LDADD = -ldl
# Descriptors (tests/integration/record_fds.sh); part of it has no unwind
# tables, so the unwinder has to guess there.
tests_progs_rec_fds_SOURCES = tests/progs/rec_fds.c tests/progs/rec_common.h
tests_progs_rec_fds_CFLAGS = $(rec_cflags)
tests_progs_rec_fds_LDADD = tests/progs/librecnoinfo.la
tests_progs_rec_coro_SOURCES = tests/progs/rec_coro.c tests/progs/rec_common.h
tests_progs_rec_coro_CFLAGS = $(rec_cflags)
check_LTLIBRARIES += tests/progs/librecnoinfo.la
tests_progs_librecnoinfo_la_SOURCES = tests/progs/rec_fds_noinfo.c tests/progs/rec_common.h
tests_progs_librecnoinfo_la_CFLAGS = $(rec_cflags) -fno-asynchronous-unwind-tables -fno-unwind-tables
tests_progs_rec_signals_SOURCES = tests/progs/rec_signals.c tests/progs/rec_common.h
tests_progs_rec_signals_CFLAGS = $(rec_cflags)
# Built at test time by record_hostile.sh (go build; cc -lseccomp).
EXTRA_DIST += tests/progs/go_cgo/main.go tests/progs/rec_libseccomp.c
tests_progs_rec_hostile_SOURCES = tests/progs/rec_hostile.c tests/progs/rec_common.h
tests_progs_rec_hostile_CFLAGS = $(rec_cflags)
# System calls a signal would cut short (tests/integration/record_intr.sh).
check_PROGRAMS += tests/progs/rec_intr
tests_progs_rec_intr_SOURCES = tests/progs/rec_intr.c tests/progs/rec_common.h
tests_progs_rec_intr_CFLAGS = $(rec_cflags)
tests_progs_rec_intr_LDADD = $(URING_LIBS)
tests_progs_rec_systime_SOURCES = tests/progs/rec_systime.c tests/progs/rec_common.h
tests_progs_rec_systime_CFLAGS = $(rec_cflags)
tests_progs_rec_inkernel_SOURCES = tests/progs/rec_inkernel.c
tests_progs_rec_inkernel_CFLAGS = $(rec_cflags)
tests_progs_rec_watch_SOURCES = tests/progs/rec_watch.c tests/progs/rec_common.h
tests_progs_rec_watch_CFLAGS = $(rec_cflags)
tests_progs_rec_lockstep_SOURCES = tests/progs/rec_lockstep.c
tests_progs_rec_lockstep_CFLAGS = $(rec_cflags)
# Statically linked on purpose: record must refuse it.
tests_progs_rec_static_SOURCES = tests/progs/rec_static.c
tests_progs_rec_static_LDFLAGS = -all-static
# Static: no sanitizer runtime can be linked in (the sanitizer CI build).
tests_progs_rec_static_CFLAGS = -O2
# The test's own profile reader and ELF symbolizer.
tests_progs_rec_inspect_SOURCES = tests/progs/rec_inspect.c
tests_progs_rec_inspect_LDADD = profile/libprofile.la $(DW_LIBS)
# The library rec_dl opens and closes.
check_LTLIBRARIES += tests/progs/rec_dllib.la
tests_progs_rec_dllib_la_SOURCES = tests/progs/rec_dllib.c tests/progs/rec_common.h
tests_progs_rec_dllib_la_CFLAGS = $(rec_cflags)
tests_progs_rec_dllib_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

# ---- benchmarks (make bench: tests/bench/record_*.sh) ----
check_PROGRAMS += tests/bench/record_work
tests_bench_record_work_SOURCES = tests/bench/record_work.c
tests_bench_record_work_CFLAGS = -g -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-fno-inline -pthread
tests_bench_record_work_LDFLAGS = -pthread
# The collector again, timing its handler (COLL_TIMING): handler_ns_* counters.
check_LTLIBRARIES += tests/bench/libpmcprof-collector-timed.la
tests_bench_libpmcprof_collector_timed_la_SOURCES = $(coll_core_sources)
tests_bench_libpmcprof_collector_timed_la_CFLAGS = $(AM_CFLAGS) -DCOLL_TIMING
tests_bench_libpmcprof_collector_timed_la_LIBADD = $(collector_libpmcprof_collector_la_LIBADD)
tests_bench_libpmcprof_collector_timed_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere \
	$(AM_LDFLAGS) -Wl,--version-script=$(top_srcdir)/collector/collector.map -Wl,-z,now
