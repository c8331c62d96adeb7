# plugins/kvm_vpmu: pmc-kvm_vpmu.so.  The CPUID decoding is pure code in a
# convenience library (libvpmu.la, internal header vpmu.h) for the tests;
# counting and sampling are libpe's (plugins/perf_event/libpe.h), the
# perf_event plugin's counters, linked in.
noinst_LTLIBRARIES += plugins/kvm_vpmu/libvpmu.la
plugins_kvm_vpmu_libvpmu_la_SOURCES = plugins/kvm_vpmu/vpmu.h plugins/kvm_vpmu/cpuid.c

pkglib_LTLIBRARIES += plugins/pmc-kvm_vpmu.la
plugins_pmc_kvm_vpmu_la_SOURCES = plugins/kvm_vpmu/plugin.c
plugins_pmc_kvm_vpmu_la_LIBADD = plugins/kvm_vpmu/libvpmu.la plugins/perf_event/libpe.la
plugins_pmc_kvm_vpmu_la_LDFLAGS = $(plugin_ldflags) -Wl,-z,now

check_PROGRAMS += tests/unit/test-kvm_vpmu
UNIT_TESTS += tests/unit/test-kvm_vpmu
tests_unit_test_kvm_vpmu_SOURCES = tests/unit/test_kvm_vpmu.c tests/harness.h
tests_unit_test_kvm_vpmu_LDADD = plugins/kvm_vpmu/libvpmu.la backend/libpmc-core.la
