# plugins/cputimer: pmc-cputimer.so, POSIX clocks and timers (no perf_event).
pkglib_LTLIBRARIES += plugins/pmc-cputimer.la
plugins_pmc_cputimer_la_SOURCES = plugins/cputimer/cputimer.c
plugins_pmc_cputimer_la_LIBADD = -lpthread
# -z now: no lazy binding of clock_gettime()/timer_settime() in handlers.
plugins_pmc_cputimer_la_LDFLAGS = $(plugin_ldflags) -Wl,-z,now

check_PROGRAMS += tests/unit/test-cputimer
UNIT_TESTS += tests/unit/test-cputimer
# The test holds the plugin's descriptor itself and drives its ops (own
# CFLAGS so cputimer.c gets a separate non-libtool object).
tests_unit_test_cputimer_SOURCES = tests/unit/test_cputimer.c plugins/cputimer/cputimer.c
tests_unit_test_cputimer_CFLAGS = $(AM_CFLAGS)
tests_unit_test_cputimer_LDADD = -lpthread
