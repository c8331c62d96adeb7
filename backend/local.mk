# backend/: libpmc (event specs, plugin loading, counter API, environment probe)
noinst_LTLIBRARIES += backend/libpmc-core.la
backend_libpmc_core_la_SOURCES = \
	backend/pmc.h $(pmcinclude_HEADERS) backend/pmc_plugin.h backend/internal.h \
	backend/error.c backend/event.c backend/alias.c backend/plugin.c \
	backend/group.c backend/env.c backend/env_aarch64.c backend/plan.c backend/calibrate.c
backend_libpmc_core_la_CFLAGS = $(AM_CFLAGS) -fPIC
backend_libpmc_core_la_LIBADD = $(PFM_LIBS) -ldl

lib_LTLIBRARIES += backend/libpmc.la
# compat.c: 0.1's calls whose interface changed, as NAME@PMC_0.1 (shared only).
backend_libpmc_la_SOURCES = backend/compat.c
backend_libpmc_la_LIBADD = backend/libpmc-core.la
backend_libpmc_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-Wl,--version-script=$(top_srcdir)/backend/libpmc.map
EXTRA_DIST += backend/libpmc.map backend/pmc.pc.in
include_HEADERS += backend/pmc.h
# One header per object, installed as <pmc/NAME.h> (pmc.h includes them all).
pmcincludedir = $(includedir)/pmc
pmcinclude_HEADERS = backend/pmc/core.h backend/pmc/event.h backend/pmc/env.h \
	backend/pmc/backend.h backend/pmc/group.h backend/pmc/sample.h backend/pmc/plan.h \
	backend/pmc/calibrate.h
pkgconfig_DATA += backend/pmc.pc

check_PROGRAMS += tests/unit/test-event tests/unit/test-plugin tests/unit/test-calibrate \
	tests/unit/test-env
UNIT_TESTS += tests/unit/test-event tests/unit/test-plugin tests/unit/test-calibrate \
	tests/unit/test-env
tests_unit_test_env_SOURCES = tests/unit/test_env.c tests/harness.h
tests_unit_test_env_LDADD = backend/libpmc-core.la
tests_unit_test_event_SOURCES = tests/unit/test_event.c tests/harness.h
tests_unit_test_event_LDADD = backend/libpmc-core.la
tests_unit_test_plugin_SOURCES = tests/unit/test_plugin.c
tests_unit_test_plugin_LDADD = backend/libpmc-core.la
# A plugin deliberately built for the wrong ABI: the loader must refuse it.
check_LTLIBRARIES += tests/unit/pmc-badabi.la
tests_unit_pmc_badabi_la_SOURCES = tests/unit/badabi_plugin.c
tests_unit_pmc_badabi_la_LDFLAGS = -module -avoid-version -rpath /nowhere
tests_unit_test_calibrate_SOURCES = tests/unit/test_calibrate.c
tests_unit_test_calibrate_LDADD = backend/libpmc-core.la
# A hardware plugin that counts zeros or garbage: calibration must catch it.
check_LTLIBRARIES += tests/unit/pmc-fakecounter.la
tests_unit_pmc_fakecounter_la_SOURCES = tests/unit/fake_plugin.c
tests_unit_pmc_fakecounter_la_LDFLAGS = -module -avoid-version -rpath /nowhere
# The same with the descriptor size of ABI 1 before kernel_chain: accepted,
# the op taken as NULL.
check_LTLIBRARIES += tests/unit/pmc-oldsize.la
tests_unit_pmc_oldsize_la_SOURCES = tests/unit/fake_plugin.c
tests_unit_pmc_oldsize_la_CFLAGS = $(AM_CFLAGS) -DFAKE_OLD_SIZE
tests_unit_pmc_oldsize_la_LDFLAGS = -module -avoid-version -rpath /nowhere
