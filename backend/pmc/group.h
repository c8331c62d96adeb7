/* libpmc counter groups, a-mode: open a group of events for a thread (or
 * a task), start, read, stop, close.  The same group can be armed for
 * i-mode sampling (pmc/sample.h).
 *
 * A struct pmc_group is the library's (pmc_group_open allocates,
 * pmc_group_close frees); pmc_group_opts and the pmc_count array are the
 * caller's.  Signal safety: pmc_group_read is async-signal-safe (a signal
 * handler may read its own thread's counters); open, start, stop and
 * close are not.
 */
#ifndef PMC_GROUP_H
#define PMC_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "core.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmc_group;

/* Options for pmc_group_open; sz first so the struct can grow. */
struct pmc_group_opts {
	size_t sz;			/* sizeof(struct pmc_group_opts) */
	pid_t pid;			/* 0: calling thread; >0: that task (a-mode only) */
	bool inherit;			/* count children too (a-mode, pid > 0) */
	bool enable_on_exec;		/* start counting at the task's next exec */
	bool sample;			/* arm i-mode on events with a period/freq */
	int signo;			/* overflow signal for i-mode (default SIGRTMIN+4) */
	/* i-mode: also record the kernel part of each sample's call chain
	 * (events that do not exclude the kernel), for pmc_group_kernel_chain.
	 * Needs the right to sample the kernel (root, CAP_PERFMON or
	 * perf_event_paranoid <= 1). */
	bool kernel_chain;
	/* Appended (sz says whether a caller has them). */
	/* i-mode: no signal for a sample taken in kernel mode.  An event that
	 * counts both modes is split into a user-mode event that signals and
	 * a kernel-mode twin whose samples only go to its ring buffer; an
	 * event that counts the kernel only never signals.  Take the records
	 * with pmc_group_record.  Needs the right to sample the kernel. */
	bool kernel_silent;
	/* i-mode: bytes of the user stack (from the sampled sp up) the kernel
	 * copies into every sample record, with the user registers (0: none;
	 * rounded down to 8, at most 65000). */
	uint32_t stack_copy;
};
/* Designated initializers: C99 and later, C++20 (in C++17 zero the struct
 * and set sz by hand). */
#define PMC_GROUP_OPTS(name, ...) \
	struct pmc_group_opts name = { .sz = sizeof(struct pmc_group_opts), __VA_ARGS__ }

/* One counter value. */
struct pmc_count {
	uint64_t value;			/* scaled estimate when multiplexed, else raw */
	uint64_t raw;			/* as counted */
	uint64_t enabled, running;	/* ns the event was enabled / on a counter */
	bool scaled;			/* value was extrapolated (running < enabled) */
};

/* Open a group of n events on the backend.  For i-mode (opts->sample) each
 * event with a period or freq is armed; overflow raises opts->signo on the
 * counted thread.  The group is created stopped unless enable_on_exec. */
PMC_API int pmc_group_open(struct pmc_backend *be, const struct pmc_event *evs, size_t n,
			   const struct pmc_group_opts *opts, struct pmc_group **out);
PMC_API int pmc_group_start(struct pmc_group *g);
PMC_API int pmc_group_stop(struct pmc_group *g);
/* Read all n counters.  Async-signal-safe. */
PMC_API int pmc_group_read(struct pmc_group *g, struct pmc_count *vals, size_t n);
/* Stop, release everything. g may be NULL. */
PMC_API int pmc_group_close(struct pmc_group *g);

#ifdef __cplusplus
}
#endif
#endif /* PMC_GROUP_H */
