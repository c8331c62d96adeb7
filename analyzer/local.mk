# analyzer/: libpmcprof-analyzer (merge, symbolize, aggregate, compare,
# export).  The commands over it (report, diff) are built by cli/local.mk.
noinst_LTLIBRARIES += analyzer/libpmcprof-analyzer.la
analyzer_libpmcprof_analyzer_la_SOURCES = \
	analyzer/analyzer.h analyzer/ana/core.h analyzer/ana/opts.h analyzer/ana/set.h analyzer/ana/run.h \
	analyzer/ana/trust.h analyzer/ana/facts.h analyzer/ana/event.h analyzer/ana/note.h analyzer/ana/query.h \
	analyzer/ana/rows.h analyzer/ana/compare.h analyzer/ana/export.h analyzer/ana/access.h \
	analyzer/ana/timeline.h analyzer/ana/annotate.h analyzer/ana/source.h \
	analyzer/facts.h analyzer/util.h analyzer/set.h analyzer/read.h analyzer/symbolize.h \
	analyzer/aggregate.h analyzer/query.h \
	analyzer/facts.c analyzer/facts_json.c \
	analyzer/idx.c analyzer/stats.c analyzer/metric.c analyzer/symbols.c analyzer/symcache.c analyzer/kallsyms.c \
	analyzer/set.c analyzer/trust.c analyzer/aggregate.c analyzer/query.c analyzer/export.c analyzer/format.c analyzer/json.c analyzer/ana/json.h \
	analyzer/table.c analyzer/ana/table.h \
	analyzer/flame.c analyzer/pprof.c analyzer/speedscope.c analyzer/linectx.c analyzer/timeline.c analyzer/trace.c \
	analyzer/annotate.c analyzer/access.c
nodist_analyzer_libpmcprof_analyzer_la_SOURCES = analyzer/profile.pb-c.c analyzer/profile.pb-c.h
analyzer_libpmcprof_analyzer_la_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS) $(DEBUGINFOD_CFLAGS) $(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS) \
	$(CAPSTONE_CFLAGS) $(YAJL_CFLAGS)
analyzer_libpmcprof_analyzer_la_LIBADD = profile/libprofile.la $(DW_LIBS) $(ZSTD_LIBS) \
	$(PROTOBUF_C_LIBS) $(ZLIB_LIBS) $(IBERTY_LIBS) $(CAPSTONE_LIBS) $(YAJL_LIBS) -lm

# pprof's profile.proto (the messages we write), compiled at build time.
EXTRA_DIST += analyzer/profile.proto
BUILT_SOURCES += analyzer/profile.pb-c.c analyzer/profile.pb-c.h
CLEANFILES += analyzer/profile.pb-c.c analyzer/profile.pb-c.h
analyzer/profile.pb-c.h: analyzer/profile.pb-c.c
analyzer/profile.pb-c.c: $(top_srcdir)/analyzer/profile.proto
	$(AM_V_GEN)mkdir -p analyzer && \
	$(PROTOC_C) --proto_path=$(top_srcdir) --c_out=. $(top_srcdir)/analyzer/profile.proto

# Test programs: a workload with known shares, inlining and a hot line, a
# copy built differently (a "rebuilt binary"), a profile generator, and a
# query sequence on one set with its peak memory.
check_PROGRAMS += tests/progs/ana_work tests/progs/ana_work_alt tests/progs/ana_mkprofile \
	tests/progs/ana_query
tests_progs_ana_work_SOURCES = tests/progs/ana_work.c
tests_progs_ana_work_CFLAGS = -g -O2 -fno-omit-frame-pointer
tests_progs_ana_work_alt_SOURCES = tests/progs/ana_work.c
tests_progs_ana_work_alt_CFLAGS = -g -O2 -fno-omit-frame-pointer -DANA_ALT=1
tests_progs_ana_mkprofile_SOURCES = tests/progs/ana_mkprofile.c
tests_progs_ana_mkprofile_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS)
tests_progs_ana_mkprofile_LDADD = profile/libprofile.la $(DW_LIBS) -lelf

tests_progs_ana_query_SOURCES = tests/progs/ana_query.c
tests_progs_ana_query_LDADD = analyzer/libpmcprof-analyzer.la
# the set's public tables, printed (tests/integration/analyzer_tables.sh)
check_PROGRAMS += tests/progs/ana_tables
tests_progs_ana_tables_SOURCES = tests/progs/ana_tables.c
tests_progs_ana_tables_LDADD = analyzer/libpmcprof-analyzer.la

check_PROGRAMS += tests/unit/test-analyzer tests/unit/test-analyzer-set tests/unit/test-json \
	tests/unit/test-facts
UNIT_TESTS += tests/unit/test-analyzer tests/unit/test-analyzer-set tests/unit/test-json \
	tests/unit/test-facts
tests_unit_test_facts_SOURCES = tests/unit/test_facts.c tests/harness.h
tests_unit_test_facts_LDADD = analyzer/libpmcprof-analyzer.la -lm
tests_unit_test_json_SOURCES = tests/unit/test_json.c tests/harness.h analyzer/json.c
tests_unit_test_json_LDADD = $(YAJL_LIBS) -lm
tests_unit_test_analyzer_SOURCES = tests/unit/test_analyzer.c tests/harness.h
tests_unit_test_analyzer_LDADD = analyzer/libpmcprof-analyzer.la
tests_unit_test_analyzer_set_SOURCES = tests/unit/test_analyzer_set.c tests/harness.h
# -g: the test symbolizes its own functions
tests_unit_test_analyzer_set_CFLAGS = $(AM_CFLAGS) -g -O1 -fno-inline
tests_unit_test_analyzer_set_LDADD = analyzer/libpmcprof-analyzer.la profile/libprofile.la \
	$(PROTOBUF_C_LIBS) $(ZLIB_LIBS)
# one function inlined into three callers (tests/integration/inline_callers.sh)
check_PROGRAMS += tests/progs/inl_work
tests_progs_inl_work_SOURCES = tests/progs/inl_work.c
tests_progs_inl_work_CFLAGS = -g -O2 -fno-omit-frame-pointer
# two static functions of one name (tests/integration/names_static.sh)
check_PROGRAMS += tests/progs/names_static
tests_progs_names_static_SOURCES = tests/progs/names_static.c tests/progs/names_static2.c
tests_progs_names_static_CFLAGS = -g -O2 -fno-omit-frame-pointer
# time in the vdso (tests/integration/vdso_names.sh)
check_PROGRAMS += tests/progs/vdso_loop
tests_progs_vdso_loop_SOURCES = tests/progs/vdso_loop.c
tests_progs_vdso_loop_CFLAGS = -g -O2
# benchmarks: 512 functions for synthetic trees to point at
check_PROGRAMS += tests/progs/ana_many
tests_progs_ana_many_SOURCES = tests/progs/ana_many.c
tests_progs_ana_many_CFLAGS = -g -O2
# the column model's text table and value renderers
check_PROGRAMS += tests/unit/test-table
UNIT_TESTS += tests/unit/test-table
tests_unit_test_table_SOURCES = tests/unit/test_table.c tests/harness.h
tests_unit_test_table_LDADD = analyzer/libpmcprof-analyzer.la
