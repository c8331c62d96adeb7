# collector/: the LD_PRELOAD collector (libpmcprof-collector.so) and
# `pmcprof record` (pmcprof-record).  docs/collector.md explains both.

coll_core_sources = collector/collector.h \
	collector/cct.c collector/cct.h collector/loadmap.c collector/loadmap.h \
	collector/settings.c collector/settings.h \
	collector/init.c collector/thread.c collector/flush.c collector/interpose.c

pkglib_LTLIBRARIES += collector/libpmcprof-collector.la
collector_libpmcprof_collector_la_SOURCES = $(coll_core_sources)
collector_libpmcprof_collector_la_CFLAGS = $(AM_CFLAGS)
collector_libpmcprof_collector_la_LIBADD = backend/libpmc-core.la unwinder/libunwinder.la \
	profile/libprofile.la -ldl -lpthread
# -z now: no lazy binding from inside the signal handler.
collector_libpmcprof_collector_la_LDFLAGS = -module -avoid-version -shared $(AM_LDFLAGS) \
	-Wl,--version-script=$(top_srcdir)/collector/collector.map -Wl,-z,now
EXTRA_DIST += collector/collector.map

pkglibexec_PROGRAMS += pmcprof-record
pmcprof_record_SOURCES = collector/cmd_record.c collector/exe.c collector/exe.h \
	collector/settings.c collector/settings.h
pmcprof_record_LDADD = backend/libpmc-core.la
