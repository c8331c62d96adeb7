# unwinder/: call-stack capture from a signal ucontext (libunwind; frame pointers).
# A PIC convenience library: it is linked into the LD_PRELOAD collector.
noinst_LTLIBRARIES += unwinder/libunwinder.la
unwinder_libunwinder_la_SOURCES = unwinder/unwind.h unwinder/internal.h unwinder/arch.h \
	unwinder/unwind.c unwinder/cache.c unwinder/cfi.c unwinder/modules.c unwinder/fp.c \
	unwinder/stack.c
unwinder_libunwinder_la_CFLAGS = $(AM_CFLAGS) $(UNWIND_CFLAGS) -fPIC
unwinder_libunwinder_la_LIBADD = $(UNWIND_LIBS) -lpthread

# Real signals into known call chains; frame pointers kept for UW_MODE_FP.
# Its crafted frames are x86-64 asm; arm64's walks are checked in the guest
# (tests/arm64/guest.sh).
if HOST_X86
check_PROGRAMS += tests/unit/test-unwind
UNIT_TESTS += tests/unit/test-unwind
endif
tests_unit_test_unwind_SOURCES = tests/unit/test_unwind.c tests/harness.h
tests_unit_test_unwind_CFLAGS = $(AM_CFLAGS) -fno-omit-frame-pointer -fno-optimize-sibling-calls
tests_unit_test_unwind_LDADD = unwinder/libunwinder.la -lpthread

# The .eh_frame reader on crafted tables, one case per line.
check_PROGRAMS += tests/unit/test-cfi
UNIT_TESTS += tests/unit/test-cfi
tests_unit_test_cfi_SOURCES = tests/unit/test_cfi.c tests/harness.h
tests_unit_test_cfi_LDADD = unwinder/libunwinder.la -lpthread

# make bench: tests/bench/unwind_cost.sh runs this.
check_PROGRAMS += tests/bench/unwind-cost
tests_bench_unwind_cost_SOURCES = tests/bench/unwind_cost.c
tests_bench_unwind_cost_CFLAGS = $(AM_CFLAGS) $(UNWIND_CFLAGS) -fno-omit-frame-pointer -fno-optimize-sibling-calls
tests_bench_unwind_cost_LDADD = unwinder/libunwinder.la $(UNWIND_LIBS) -ldl

# uw_unwind_copy: a register set and a stack copy, as the kernel's records.
check_PROGRAMS += tests/unit/test-unwind-copy
UNIT_TESTS += tests/unit/test-unwind-copy
tests_unit_test_unwind_copy_SOURCES = tests/unit/test_unwind_copy.c tests/harness.h
tests_unit_test_unwind_copy_CFLAGS = $(AM_CFLAGS) -fno-omit-frame-pointer -fno-optimize-sibling-calls
tests_unit_test_unwind_copy_LDADD = unwinder/libunwinder.la -lpthread
