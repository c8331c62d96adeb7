/* Frame-pointer walk: follow saved rbp links from the interrupted context.
 * Every frame pointer is checked before it is dereferenced, so a garbage
 * rbp (code built without frame pointers, or hand-written asm) ends the
 * walk instead of faulting. */
#include "config.h"

#include "unwinder/internal.h"
#include "unwinder/unwind.h"

/* The initial sp, exported by ld.so; main's frame is just below it. */
extern void *__libc_stack_end;

/* glibc's start code (_start, __libc_start_main, __libc_start_call_main)
 * has no frame pointers: main's saved rbp is whatever those left in the
 * register (1 on glibc 2.36), so the chain cannot end with a zero rbp there
 * as it does in threads.  Their frames take the last 272 bytes below
 * __libc_stack_end on glibc 2.36; a walk that breaks right after a frame in
 * that window has reached them and is complete, not failed. */
#define START_CODE_BYTES 512

static int is_start_code_frame(uintptr_t fp)
{
	uintptr_t end = (uintptr_t)__libc_stack_end;

	return fp < end && fp >= end - START_CODE_BYTES;
}

int uw_fp_walk(uintptr_t lo, uintptr_t hi, uintptr_t pc, uintptr_t sp, uintptr_t fp,
	       uintptr_t *pcs, int max, unsigned *flags)
{
	uintptr_t last = 0;	/* the frame whose saved rbp is being checked */
	int n = 0;

	pcs[n++] = pc;
	/* A signal taken on some other stack (a coroutine, or code already
	 * running on the sigaltstack): its frames cannot be checked. */
	if (sp < lo || sp >= hi) {
		*flags |= UW_FAILED;
		return n;
	}
	/* Callers' frames lie above the interrupted sp, and [sp, hi) is mapped
	 * even on the main thread, whose nominal range reaches pages the stack
	 * has not grown into (touching those may fault near another mapping). */
	lo = sp;
	for (;;) {
		const uintptr_t *frame = (const uintptr_t *)fp;

		/* glibc's _start and thread start clear rbp: the outermost frame. */
		if (fp == 0)
			return n;
		if (fp < lo || fp > hi - 2 * sizeof(uintptr_t) || (fp & 7)) {
			if (!(last && is_start_code_frame(last)))
				*flags |= UW_FAILED;
			return n;
		}
		if (n == max) {
			*flags |= UW_TRUNCATED;
			return n;
		}
		if (frame[1] == 0)	/* no return address: nothing called us */
			return n;
		pcs[n++] = frame[1];
		/* Strictly increasing, and past this frame's two words: no loops. */
		lo = fp + 2 * sizeof(uintptr_t);
		last = fp;
		fp = frame[0];
	}
}
