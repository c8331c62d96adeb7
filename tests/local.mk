# tests/: test workloads (tests/progs) and the harness.
EXTRA_DIST += tests/harness.h tests/lib.sh
