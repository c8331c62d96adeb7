# plugins/perfctr_xen: pmc-perfctr_xen.so.  The code is a convenience library
# (libpcx.la, internal header pcx.h) so the unit tests and the Xen model
# (tests/xenmodel) drive the same code through its kernel seam.
noinst_LTLIBRARIES += plugins/perfctr_xen/libpcx.la
plugins_perfctr_xen_libpcx_la_SOURCES = plugins/perfctr_xen/abi.h plugins/perfctr_xen/pcx.h \
	plugins/perfctr_xen/seam.h \
	plugins/perfctr_xen/pcx.c plugins/perfctr_xen/marshal.c plugins/perfctr_xen/sys.c

pkglib_LTLIBRARIES += plugins/pmc-perfctr_xen.la
plugins_pmc_perfctr_xen_la_SOURCES = plugins/perfctr_xen/plugin.c
plugins_pmc_perfctr_xen_la_LIBADD = plugins/perfctr_xen/libpcx.la
# -z now: no lazy binding on the read and sampling paths.
plugins_pmc_perfctr_xen_la_LDFLAGS = $(plugin_ldflags) -Wl,-z,now

# Tests: the pure parts and the probe; the executable Xen model drives the
# same code through the seam (tests/xenmodel).
check_PROGRAMS += tests/unit/test-perfctr_xen tests/unit/test-perfctr_xen_model
UNIT_TESTS += tests/unit/test-perfctr_xen tests/unit/test-perfctr_xen_model
tests_unit_test_perfctr_xen_SOURCES = tests/unit/test_perfctr_xen.c tests/harness.h
tests_unit_test_perfctr_xen_LDADD = plugins/perfctr_xen/libpcx.la backend/libpmc-core.la
tests_unit_test_perfctr_xen_model_SOURCES = tests/unit/test_perfctr_xen_model.c \
	tests/xenmodel/xenmodel.c tests/xenmodel/xenmodel.h tests/xenmodel/perfctr_abi.h \
	tests/xenmodel/xp_marshal.c tests/harness.h
tests_unit_test_perfctr_xen_model_LDADD = plugins/perfctr_xen/libpcx.la

# The paper's section 5.3 scenarios in the model: profiles through the
# profile/ writer, tables through `pmcprof diff`.
check_PROGRAMS += tests/unit/test-perfctr_xen_scenarios
UNIT_TESTS += tests/unit/test-perfctr_xen_scenarios
tests_unit_test_perfctr_xen_scenarios_SOURCES = tests/unit/test_perfctr_xen_scenarios.c \
	tests/xenmodel/xenmodel.c tests/xenmodel/xenmodel.h tests/xenmodel/perfctr_abi.h \
	tests/xenmodel/xp_marshal.c tests/harness.h
tests_unit_test_perfctr_xen_scenarios_CFLAGS = $(AM_CFLAGS) -g -fno-ipa-icf
tests_unit_test_perfctr_xen_scenarios_LDADD = plugins/perfctr_xen/libpcx.la profile/libprofile.la \
	$(ZSTD_LIBS)
