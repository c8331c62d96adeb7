/* Shared between the unwinder's own files; not part of its API. */
#ifndef UNWINDER_INTERNAL_H
#define UNWINDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "unwinder/unwind.h"

/* The calling thread's stack as [*lo, *hi).  0 or -errno.  Not
 * async-signal-safe (reads /proc/self/maps for the main thread). */
int uw_stack_bounds(uintptr_t *lo, uintptr_t *hi);

/* Walk the rbp chain starting at (pc, sp, fp), reading memory only inside
 * [max(lo, sp), hi).  Same contract as uw_capture; async-signal-safe. */
int uw_fp_walk(uintptr_t lo, uintptr_t hi, uintptr_t pc, uintptr_t sp, uintptr_t fp,
	       uintptr_t *pcs, int max, unsigned *flags);

/* How to go from a frame to its caller's, read from .eh_frame (cfi.c). */
enum uw_recipe_kind {
	UW_RECIPE_RSP = 1,	/* CFA = rsp + cfa_off */
	UW_RECIPE_RBP,		/* CFA = rbp + cfa_off */
	UW_RECIPE_END,		/* the outermost frame */
	UW_RECIPE_SLOW,		/* anything else: let libunwind step it */
	UW_RECIPE_GUESS,	/* no unwind info: the frame-pointer chain, as
				 * libunwind guesses it (CFA = rbp + 16) */
};

/* For RSP, RBP and GUESS: the return address is at CFA - 8, the caller's rsp is
 * the CFA, and its rbp is saved at CFA + rbp_off (0: rbp unchanged). */
struct uw_recipe {
	int32_t cfa_off;
	int16_t rbp_off;
	uint8_t kind;
};

/* The calling thread's recipe cache (cache.c).  uw_cache_thread_init
 * allocates it (0 or -errno; not async-signal-safe); the rest are
 * async-signal-safe and touch only the calling thread's cache.  A key is
 * the pc whose unwind row applies: the interrupted pc, or a return
 * address - 1. */
int uw_cache_thread_init(void);
bool uw_cache_ready(void);
bool uw_cache_lookup(uintptr_t key, struct uw_recipe *r);
void uw_cache_insert(uintptr_t key, const struct uw_recipe *r);
void uw_cache_invalidate(void);	/* every thread's, lazily */

/* The plain libunwind walk (our address space and accessors), without
 * the cache: for tests and benchmarks to compare against.  Same contract
 * as uw_capture, on the calling thread. */
int uw_walk_libunwind(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs, int max,
		      unsigned *flags);

/* The recipe at key (a pc whose unwind row applies) from the .eh_frame of
 * the object holding it: RSP, RBP or END, or SLOW for what only libunwind
 * can step.  -1 (and SLOW) when the object has no unwind info there.
 * Async-signal-safe; call inside uw_guard_enter. */
int uw_cfi_recipe(uintptr_t key, struct uw_recipe *r);
/* The same from an image's tables (NULL: uw_cfi_recipe). */
int uw_cfi_recipe_image(const struct uw_image *img, uintptr_t key, struct uw_recipe *r);
/* The same with the .eh_frame_hdr given (for tests: crafted tables, which
 * must lie in a loaded object's readable segment). */
int uw_cfi_recipe_in(uintptr_t eh_hdr, uintptr_t key, struct uw_recipe *r);

/* ---- modules.c: the loaded objects' readable segments ---- */
struct uw_seg {
	uintptr_t lo, hi;	/* a PT_LOAD segment with PF_R */
	uintptr_t eh_hdr;	/* its object's .eh_frame_hdr, or 0 */
	bool exec;		/* PF_X */
};

/* Rescan with dl_iterate_phdr and publish.  0 or -errno; not
 * async-signal-safe. */
int uw_modules_scan(void);
/* The segment holding addr, or NULL; whether [addr, addr + len) is inside
 * one.  Async-signal-safe; call inside uw_guard_enter. */
const struct uw_seg *uw_seg_find(uintptr_t addr);
bool uw_readable(uintptr_t addr, size_t len);

/* Reader side (captures; async-signal-safe): false when a blocker is
 * waiting, and the objects' memory and libunwind must be left alone. */
bool uw_guard_enter(void);
void uw_guard_leave(void);
/* Blocker side (fork, dlclose, rescans; not in handlers): wait (up to
 * 100 ms) until no reader is inside; true if none is.  Always pair with
 * unblock.  reset: in a forked child. */
bool uw_guard_block(void);
void uw_guard_unblock(void);
void uw_guard_reset(void);
/* pthread_atfork handlers: the rescan lock and the guard. */
void uw_modules_fork_prepare(void);
void uw_modules_fork_parent(void);
void uw_modules_fork_child(void);

#endif
