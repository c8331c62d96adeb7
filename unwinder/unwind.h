/* Call-stack capture from a signal context.  Everything here that a signal
 * handler calls is async-signal-safe; uw_thread_init must run in the thread
 * beforehand, outside any handler. */
#ifndef UNWINDER_UNWIND_H
#define UNWINDER_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

enum uw_mode {
	UW_MODE_UNWIND,		/* libunwind (DWARF CFI), from the signal frame */
	UW_MODE_FP,		/* frame-pointer chain, validated against the stack */
	UW_MODE_NONE,		/* leaf pc only */
};

/* Per-thread state, filled in by uw_thread_init. */
struct uw_thread {
	uintptr_t stack_lo, stack_hi;	/* the thread's stack bounds */
	enum uw_mode mode;
};

enum uw_flags {
	UW_TRUNCATED = 1 << 0,	/* hit max depth */
	UW_FAILED = 1 << 1,	/* unwinding stopped on an error before the outermost frame */
};

/* Record the calling thread's stack bounds and choose a mode. 0 or -errno. */
int uw_thread_init(struct uw_thread *t, enum uw_mode mode);

/* Capture up to max pcs, leaf first, from the interrupted context uc.
 * pcs[0] is the interrupted pc; every later entry is a return address
 * (not adjusted).  Returns the number captured (>= 1 unless uc is unusable);
 * *flags gets UW_* bits.  Async-signal-safe; never faults on a bad frame
 * pointer. */
int uw_capture(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs, int max,
	       unsigned *flags);

/* Forget the unwind rules cached for every thread and by libunwind: call
 * after dlclose, when code at a cached pc may be gone or replaced.
 * Async-signal-safe; returns 0. */
int uw_cache_flush(void);

/* Process-wide setup: libunwind's one-time init and caching policy, and
 * fork handlers that keep a child from inheriting its locks held.  Call
 * once, outside handlers, before sampling starts.  0 or -errno. */
int uw_global_init(void);

#endif
