# tests/stress: stress and fault programs (see run-stress.sh), built like
# user programs (frame pointers, no sibling calls) for `make check` and
# `make stress`.
stress_cflags = -g -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread
check_PROGRAMS += tests/progs/stress_threads tests/progs/stress_procs \
	tests/progs/stress_dl tests/progs/stress_signals
tests_progs_stress_threads_SOURCES = tests/progs/stress_threads.c
tests_progs_stress_threads_CFLAGS = $(stress_cflags)
tests_progs_stress_threads_LDFLAGS = -pthread
tests_progs_stress_procs_SOURCES = tests/progs/stress_procs.c
tests_progs_stress_procs_CFLAGS = $(stress_cflags)
tests_progs_stress_procs_LDFLAGS = -pthread
tests_progs_stress_dl_SOURCES = tests/progs/stress_dl.c
tests_progs_stress_dl_CFLAGS = $(stress_cflags)
tests_progs_stress_dl_LDFLAGS = -pthread
tests_progs_stress_dl_LDADD = -ldl
tests_progs_stress_signals_SOURCES = tests/progs/stress_signals.c
tests_progs_stress_signals_CFLAGS = $(stress_cflags)
tests_progs_stress_signals_LDFLAGS = -pthread
