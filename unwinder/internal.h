/* Shared between the unwinder's own files; not part of its API. */
#ifndef UNWINDER_INTERNAL_H
#define UNWINDER_INTERNAL_H

#include <stdint.h>

/* The calling thread's stack as [*lo, *hi).  0 or -errno.  Not
 * async-signal-safe (reads /proc/self/maps for the main thread). */
int uw_stack_bounds(uintptr_t *lo, uintptr_t *hi);

/* Walk the rbp chain starting at (pc, sp, fp), reading memory only inside
 * [max(lo, sp), hi).  Same contract as uw_capture; async-signal-safe. */
int uw_fp_walk(uintptr_t lo, uintptr_t hi, uintptr_t pc, uintptr_t sp, uintptr_t fp,
	       uintptr_t *pcs, int max, unsigned *flags);

#endif
