# tests/: test workloads (tests/progs) and the harness.
EXTRA_DIST += tests/harness.h tests/lib.sh tests/remount-ro.sh tests/lsan.supp tests/rng.h tests/progs/loop2.h \
	tests/unit/plugin_test.h
# Built by record_firstlaw.sh itself (cc), not by make.
EXTRA_DIST += tests/progs/rec_firstlaw.c tests/progs/rec_ctorlib.c tests/progs/rec_ctorclose.c

# The bundled example (README's main job profiles it).
noinst_PROGRAMS += examples/hotspots
examples_hotspots_SOURCES = examples/hotspots.c
examples_hotspots_CFLAGS = -g -O2 -fno-omit-frame-pointer -pthread
examples_hotspots_LDFLAGS = -pthread

check_PROGRAMS += tests/progs/busy
# Known instruction counts for the arm64 guest's hardware-event tests
# (tests/arm64/guest.sh, run by scripts/arm64.sh).
check_PROGRAMS += tests/progs/hw_loop
tests_progs_hw_loop_SOURCES = tests/progs/hw_loop.c
# Leaf frames too: on AArch64 a leaf without a frame record keeps its
# return address in x30 only, which the frame-pointer walk cannot see.
tests_progs_hw_loop_CFLAGS = -g -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
EXTRA_DIST += tests/arm64/guest.sh
# `pmcprof vm`'s workload: phases of known character (tests/integration/vm_compare.sh).
check_PROGRAMS += tests/progs/vm_phases
tests_progs_vm_phases_SOURCES = tests/progs/vm_phases.c
tests_progs_vm_phases_CFLAGS = -g -O2 -fno-omit-frame-pointer
# Two phases of equal wall-clock time (tests/integration/diff_time.sh).
check_PROGRAMS += tests/progs/two_phases
tests_progs_two_phases_SOURCES = tests/progs/two_phases.c
tests_progs_two_phases_CFLAGS = -g -O2 -fno-omit-frame-pointer
tests_progs_busy_SOURCES = tests/progs/busy.c
tests_progs_busy_CFLAGS = -g -O1 -pthread
tests_progs_busy_LDFLAGS = -pthread
