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
	UW_COPY_SHORT = 1 << 2,	/* uw_unwind_copy: the walk needed stack past the copy's
				 * end (the copy was shorter than the stack) */
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

/* ---- Unwinding from a register set and a copy of the stack ----
 *
 * For samples the kernel took itself (a perf_event record's
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER): of this process (the
 * collector, for kernel-mode and late samples) or of another one (record
 * -p/-a, whose stack reads come from the copy and whose code and unwind
 * tables come from the files the target mapped). */

/* The sampled user registers, in DWARF numbering (libunwind's
 * UNW_X86_64_*): rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
enum uw_reg {
	UW_REG_RAX, UW_REG_RDX, UW_REG_RCX, UW_REG_RBX, UW_REG_RSI, UW_REG_RDI,
	UW_REG_RBP, UW_REG_RSP, UW_REG_R8, UW_REG_R9, UW_REG_R10, UW_REG_R11,
	UW_REG_R12, UW_REG_R13, UW_REG_R14, UW_REG_R15, UW_REG_RIP, UW_NREGS
};

struct uw_regs {
	uint64_t r[UW_NREGS];
	uint32_t have;			/* bit i: r[i] is known; rip and rsp must be */
};

/* Fill r from a PERF_SAMPLE_REGS_USER block: vals holds one u64 per bit
 * set in mask (sample_regs_user, the kernel's PERF_REG_X86_* order: ax bx
 * cx dx si di bp sp ip flags cs ss ds es fs gs, then r8..r15 at 16..23).
 * Registers not in mask stay unknown.  Async-signal-safe. */
void uw_regs_from_perf(struct uw_regs *r, const uint64_t *vals, uint64_t mask);
/* The sample_regs_user mask uw_unwind_copy can use (every general register
 * and ip): what a perf_event_attr should ask for. */
#define UW_PERF_REGS_MASK 0xff01ffULL

/* The target's stack from its sampled sp up: data[0] is the byte at
 * address start (normally r[UW_REG_RSP]), size bytes are valid (a
 * record's dyn_size).  Memory below start and above start + size is
 * never read. */
struct uw_stack_copy {
	uint64_t start;
	const void *data;
	size_t size;
};

/* Where the code side of the target is read: its modules' unwind tables.
 * NULL image: this process's loaded objects (the collector's case); a
 * reader of another process maps the target's files itself.  Both ops must
 * be async-signal-safe when uw_unwind_copy is called from a handler. */
struct uw_image_ops {
	/* The module that holds pc in the target: the target address of its
	 * .eh_frame_hdr (0: none), and its executable range [*lo, *hi).  0,
	 * or -1 when pc is in no known module. */
	int (*find)(void *arg, uint64_t pc, uint64_t *eh_hdr, uint64_t *lo, uint64_t *hi);
	/* The target's bytes at addr: a pointer to them here, *len set to how
	 * many may be read there in one piece (at least 1), or NULL when
	 * addr is not mapped in the image. */
	const void *(*map)(void *arg, uint64_t addr, size_t *len);
};
struct uw_image {
	const struct uw_image_ops *ops;
	void *arg;
};

/* Capture up to max pcs, leaf first (as uw_capture: pcs[0] = the sampled
 * rip, every later entry a return address, not adjusted), from the
 * registers regs and the stack copy stack, with the unwind tables of
 * image (NULL: this process's).  Returns the number captured (>= 1 when
 * rip is known); *flags gets UW_* bits: UW_COPY_SHORT when the walk ran
 * off the copy's end before the outermost frame (the copy is shorter than
 * the stack), UW_FAILED when it stopped for another reason.
 * Async-signal-safe (with a NULL image, or an image whose ops are); never
 * reads the target's stack outside the copy.  With a NULL image, on a
 * thread that ran uw_thread_init in UW_MODE_UNWIND, the thread's recipe
 * cache serves it too. */
int uw_unwind_copy(const struct uw_regs *regs, const struct uw_stack_copy *stack,
		   const struct uw_image *image, uintptr_t *pcs, int max, unsigned *flags);

#endif
