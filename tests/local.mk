# tests/: test workloads (tests/progs) and the harness.
EXTRA_DIST += tests/harness.h tests/lib.sh tests/lsan.supp
# Built by record_firstlaw.sh itself (cc), not by make.
EXTRA_DIST += tests/progs/rec_firstlaw.c tests/progs/rec_ctorlib.c tests/progs/rec_ctorclose.c

# The bundled example (README's main job profiles it).
noinst_PROGRAMS += examples/hotspots
examples_hotspots_SOURCES = examples/hotspots.c
examples_hotspots_CFLAGS = -g -O2 -fno-omit-frame-pointer -pthread
examples_hotspots_LDFLAGS = -pthread

check_PROGRAMS += tests/progs/busy
# `pmcprof vm`'s workload: phases of known character (tests/integration/vm_compare.sh).
check_PROGRAMS += tests/progs/vm_phases
tests_progs_vm_phases_SOURCES = tests/progs/vm_phases.c
tests_progs_vm_phases_CFLAGS = -g -O2 -fno-omit-frame-pointer
tests_progs_busy_SOURCES = tests/progs/busy.c
tests_progs_busy_CFLAGS = -g -O1 -pthread
tests_progs_busy_LDFLAGS = -pthread
