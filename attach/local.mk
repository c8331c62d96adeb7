# attach/: profiling and counting what already runs (record/stat -p, -t, -a),
# from the kernel's records and /proc/PID: no code in the target.  A static
# convenience library, linked into pmcprof-record and pmcprof-stat; it
# shares the collector's calling-context tree (collector/cct.c, pure code)
# and writes with profile/ (programs link profile/ and backend/ themselves).
# docs/attach.md explains it.
noinst_LTLIBRARIES += attach/libattach.la
attach_libattach_la_SOURCES = attach/attach.h attach/internal.h \
	attach/session.c attach/records.c attach/procmap.c attach/facts.c attach/write.c \
	attach/count.c attach/image.c collector/cct.c collector/cct.h

attach_libattach_la_CFLAGS = $(AM_CFLAGS)

# ---- tests ----
# What tests/integration/attach_*.sh attach to: dynamic and static.
check_PROGRAMS += tests/progs/att_target tests/progs/att_target_static
tests_progs_att_target_SOURCES = tests/progs/att_target.c
tests_progs_att_target_CFLAGS = -g -O2 -fno-omit-frame-pointer -pthread
tests_progs_att_target_LDFLAGS = -pthread
tests_progs_att_target_static_SOURCES = tests/progs/att_target.c
tests_progs_att_target_static_CFLAGS = -g -O2 -fno-omit-frame-pointer -pthread
tests_progs_att_target_static_LDFLAGS = -all-static -pthread
# Without frame pointers: its stacks need the CFI walk.
check_PROGRAMS += tests/progs/att_target_nofp
tests_progs_att_target_nofp_SOURCES = tests/progs/att_target.c
tests_progs_att_target_nofp_CFLAGS = -g -O2 -fomit-frame-pointer -pthread
tests_progs_att_target_nofp_LDFLAGS = -pthread

# Load maps from /proc against the loader's biases; crafted records into
# trees, counters and a profile the reader validates.
check_PROGRAMS += tests/unit/test-attach
UNIT_TESTS += tests/unit/test-attach
tests_unit_test_attach_SOURCES = tests/unit/test_attach.c tests/harness.h
tests_unit_test_attach_LDADD = attach/libattach.la unwinder/libunwinder.la profile/libprofile.la \
	backend/libpmc-core.la -ldl
