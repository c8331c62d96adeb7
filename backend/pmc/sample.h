/* libpmc sampling, i-mode: a group opened with opts.sample raises a
 * realtime signal on the thread whose counter overflowed; the caller's
 * handler asks which event overflowed, takes what the kernel recorded of
 * the sample, and re-arms it.  No callbacks.
 *
 * Everything here is called from that signal handler: every function is
 * async-signal-safe, allocates nothing and (but for pmc_group_stats on a
 * backend that drains a kernel buffer) makes no system call.  The records
 * and chains are copied into the caller's buffers.
 */
#ifndef PMC_SAMPLE_H
#define PMC_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "group.h"

#ifdef __cplusplus
extern "C" {
#endif

/* i-mode bookkeeping kept by the backend. */
struct pmc_sample_stats {
	uint64_t overflows;		/* notifications that were ours */
	uint64_t spurious;		/* notifications for which no counter overflowed */
	uint64_t throttled, unthrottled;/* kernel throttling of the sample rate */
	uint64_t lost;			/* samples the kernel dropped */
	uint64_t fd_lost;		/* counter descriptors the program closed or
					 * replaced (dup2): left alone from then on */
};

/* Which event of the group raised this overflow signal: its index, or -1 if
 * the signal is not from this group.  si is the handler's siginfo_t *
 * (declared void so the header needs no POSIX feature macro: it compiles
 * as strict ISO C99/C11/C17 and C++).  Async-signal-safe. */
PMC_API int pmc_group_overflow(struct pmc_group *g, const void *si);
/* Re-arm event idx after its overflow; period 0 keeps the current one, else
 * the next interval is that many events.  Async-signal-safe. */
PMC_API int pmc_group_rearm(struct pmc_group *g, int idx, uint64_t period);
/* Copy the backend's i-mode bookkeeping into the first size bytes of st
 * (a backend that keeps some in a kernel buffer may drain it first): a
 * program built against an older, shorter struct passes its own size and
 * is never overrun.  Callable from any thread; never waits.
 * Async-signal-safe.  Call it as pmc_group_stats(g, st), which passes
 * sizeof(*st). */
PMC_API int pmc_group_stats_sz(struct pmc_group *g, struct pmc_sample_stats *st, size_t size);
#define pmc_group_stats(g, st) pmc_group_stats_sz((g), (st), sizeof(*(st)))
/* The pmc_group_stats(g, st) symbol of 0.1, for binaries built against it
 * (0.1's struct is today's). */
PMC_API int(pmc_group_stats)(struct pmc_group *g, struct pmc_sample_stats *st);
/* What pmc_group_kernel_chain found about the sample. */
enum pmc_kchain_flags {
	PMC_KCHAIN_KERNEL = 1 << 0,	/* the sample was taken in kernel mode */
	PMC_KCHAIN_TRUNCATED = 1 << 1,	/* the kernel chain had more than max pcs */
};

/* The kernel side of the overflow of event idx just reported by
 * pmc_group_overflow (call before pmc_group_rearm): kernel pcs, leaf
 * first, into pcs[max] (at most 127 come from the kernel by default),
 * flags in *flags.  Returns how many (0 for a user-mode sample or one
 * taken without chains), -ENODATA if the backend kept no record of it,
 * -PMC_ENOTSUP if the backend cannot tell.  No syscall, no allocation:
 * async-signal-safe. */
PMC_API int pmc_group_kernel_chain(struct pmc_group *g, int idx, uint64_t *pcs, size_t max,
				   unsigned *flags);
/* One record the kernel wrote for a sample (pmc_group_record).  The
 * pointers are into the caller's buffer. */
enum pmc_record_kind {
	PMC_REC_SAMPLE = 1,	/* a sample: the fields below */
	PMC_REC_LOST,		/* the ring was full: `lost` samples were not written */
};
enum pmc_record_ring {
	PMC_RING_SIGNALLED,	/* the records of the event that signals */
	PMC_RING_SILENT,	/* the kernel-mode twin's: no signal was sent for these */
};
struct pmc_record {
	enum pmc_record_kind kind;
	bool kernel;			/* taken in kernel mode */
	uint32_t pid, tid;		/* 0 when the event does not record them */
	uint64_t ip;			/* the sampled instruction */
	uint64_t period;		/* the interval behind the sample (0: unknown) */
	uint64_t lost;			/* PMC_REC_LOST */
	const uint64_t *kchain;		/* kernel pcs, leaf first, markers dropped */
	size_t n_kchain;
	const uint64_t *regs;		/* user registers, one per bit of regs_mask */
	uint64_t regs_mask;		/* (the kernel's PERF_REG_* numbering); 0: none */
	const void *stack;		/* the user stack from regs' sp up */
	uint64_t stack_size;		/* bytes of it that are valid */
};

/* The oldest record of event idx's ring `ring` not taken before: 1 and
 * *rec filled (the record is copied into buf[len] first and consumed), 0
 * when none waits, -ENOSPC when buf is too small for it (it is skipped),
 * -PMC_ENOTSUP without records, -EBUSY when another caller is taking
 * them.  Only for groups opened with kernel_silent or stack_copy, whose
 * records wait for this call.  No syscall, no allocation:
 * async-signal-safe. */
PMC_API int pmc_group_record(struct pmc_group *g, int idx, enum pmc_record_ring ring, void *buf,
			     size_t len, struct pmc_record *rec);
/* Tell the group that its descriptors are no longer the caller's: a
 * process that shares the counted one's memory but not its descriptor
 * table (the collector's watcher, once the program is dead).  From then
 * on no call makes a system call on them, and none counts them in
 * fd_lost: pmc_group_record still takes what waits in the rings (mapped
 * memory), but losses the kernel announced in no record (a ring found
 * full) cannot be asked for and are not reported.  Start, stop, read and
 * rearm are no use after it; close only frees.  0, or -PMC_ENOTSUP when
 * the backend cannot (then do not read its records from there).  No
 * syscall: async-signal-safe. */
PMC_API int pmc_group_orphan(struct pmc_group *g);

#ifdef __cplusplus
}
#endif
#endif /* PMC_SAMPLE_H */
