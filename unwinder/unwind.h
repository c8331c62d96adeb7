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

/* Forget the unwind rules cached for every thread (lazily, at each
 * thread's next capture).  Async-signal-safe; returns 0. */
int uw_cache_flush(void);

/* After dlopen/dlmopen/dlclose: rescan the loaded objects (their unwind
 * tables and readable segments) and flush the caches.  Not
 * async-signal-safe.  0 or -errno. */
int uw_map_changed(void);

/* Around a dlclose: begin waits (up to 100 ms) until no capture reads an
 * object's memory and keeps new ones from starting (they do without it:
 * cached recipes only, the rest UW_FAILED); end lets them go on.  Call
 * uw_map_changed after a dlclose that succeeded.  Not async-signal-safe. */
void uw_unload_begin(void);
void uw_unload_end(void);

/* Process-wide setup: the loaded objects, libunwind's address space with
 * our accessors (no descriptor is ever read or written by a capture), and
 * fork handlers that keep a child from inheriting libunwind's locks held.
 * Idempotent; uw_thread_init calls it.  Outside handlers.  0 or -errno. */
int uw_global_init(void);

#endif
