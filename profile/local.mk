# profile/: the file format (writer, validating reader); `pmcprof dump` is
# built by cli/local.mk.
# A PIC convenience library: it is linked into the LD_PRELOAD collector.
noinst_LTLIBRARIES += profile/libprofile.la
profile_libprofile_la_SOURCES = profile/profile.h profile/format.h \
	profile/header.c profile/writer.c profile/reader.c \
	profile/array.c
profile_libprofile_la_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
profile_libprofile_la_LIBADD = $(ZSTD_LIBS)

check_PROGRAMS += tests/unit/test-profile
UNIT_TESTS += tests/unit/test-profile
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c tests/harness.h
tests_unit_test_profile_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
tests_unit_test_profile_LDADD = profile/libprofile.la $(ZSTD_LIBS)

# make bench: a recursive workload and a converter from `perf script`
# output to a profile, to compare sizes on identical samples.
check_PROGRAMS += tests/bench/recurse tests/bench/perf2pmcp
tests_bench_recurse_SOURCES = tests/bench/recurse.c
tests_bench_recurse_CFLAGS = $(AM_CFLAGS) -O1 -fno-omit-frame-pointer -fno-inline \
	-fno-optimize-sibling-calls
tests_bench_perf2pmcp_SOURCES = tests/bench/perf2pmcp.c
tests_bench_perf2pmcp_LDADD = profile/libprofile.la

