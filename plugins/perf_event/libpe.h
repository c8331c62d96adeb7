/* libpe: perf_event counters on one thread or task, for the backend
 * plugins built on perf_event.  Its contract with them.
 *
 * Who and why: pmc-perf_event.so, and pmc-kvm_vpmu.so, which is perf_event
 * limited to what a KVM guest's virtual PMU really counts.  Sampling
 * through perf_event without disturbing the program (credits, rings,
 * descriptors the program closes, kernel records) is subtle code: one
 * copy of it, tested once (tests/unit/test_perf_event.c, test_pe_ring.c,
 * test_rdpmc.c), rather than two.  docs/libpmc.md says more.
 *
 * The rules: libpe is a static convenience library (libpe.la) linked into
 * each plugin, so a plugin .so stays self-contained: it needs no other
 * plugin and calls nothing in libpmc, and its only exported symbol is
 * still its descriptor (libpe's symbols are hidden).  Like a plugin, libpe
 * uses only the types of backend/pmc_plugin.h.  This header is all a
 * plugin may use; plugins/perf_event/pe.h is libpe's own (its parts, for
 * its sources and tests).
 *
 * The pe_* functions have the signatures of struct pmc_plugin_ops:
 * PE_PLUGIN_OPS fills a descriptor's ops with them, around the plugin's
 * own probe, open (its checks, then pe_open) and read.  ctx is what
 * pe_open() returned.
 *
 * Design: one fd per event, read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING.
 * Counting-only events of a thread (no inherit, nothing sampled) form one
 * kernel group under ev[0]: started by enabling the members, then the
 * leader (which schedules them all in at once; see pe_start), stopped by
 * one ioctl, read by one read() (PERF_FORMAT_GROUP|ID, whose times are the
 * leader's alone); inherited or sampled events stay apart
 * (inherit and group reads do not mix on older kernels; a sampled event has
 * its own enable state).  Each fd is moved at open to a high number
 * (just below min(RLIMIT_NOFILE, 1024)) when there is room, so programs
 * that dup2 onto low numbers or close them in a loop leave it alone.  A
 * program may still close a counter's number or put its own file there:
 * before each use (ioctl, read, fcntl, close; and in stats) the fd is
 * checked to be the event opened (fstat's device and inode, then
 * PERF_EVENT_IOC_ID), and one that is not is counted in fd_lost and never
 * used again: the event stops at the end of its batch of credits.
 *
 * i-mode: a sampled event stays enabled across overflows and, being
 * O_ASYNC, raises exactly one signal per overflow (si_fd = the fd); the
 * kernel sends it from the overflow itself, so the handler's latency does
 * not delay the next interval (no drift).  The steady state needs no
 * syscall: rearm drains the event's ring buffer (one data page of 8-byte
 * sample records, which count the overflows, plus THROTTLE/UNTHROTTLE/
 * LOST records, counted in stats) and issues IOC_PERIOD only when the
 * period changes.  The kernel's event limit bounds the signals queued for
 * an event: IOC_REFRESH grants 128 overflows, the last of which would
 * signal POLL_HUP and stop the event; while the handler keeps up, rearm
 * tops the grant up to 128 once half is spent, on the running event (one
 * cheap ioctl per 64 samples, the event never stopped).  A batch in which
 * the handler fell behind gets no top-up and ends in POLL_HUP; it is
 * followed by batches of 1, 2, 4, ...: an overloaded handler, or a blocked
 * signo, pauses the event instead of queueing signals without end (which
 * ends in SIGIO once RLIMIT_SIGPENDING is spent).  Without a ring buffer
 * (mmap refused) every batch is 1: a refresh per sample.
 *
 * The fasync signal costs an irq_work self-interrupt per overflow, which
 * a KVM guest pays with VM exits (tests/bench/sample_cost.sh measures it:
 * about half of the per-sample floor here).  With signo SIGTRAP the
 * sampled events use the kernel's own synchronous scheme instead
 * (attr.sigtrap, Linux 5.13; remove_on_exec): the kernel queues the
 * signal from task_work on the way back to user space, no interrupt, and
 * si_perf_data names the event.  SIGTRAP does not queue, so no credits
 * are needed: the event is enabled once and rearm never makes a syscall;
 * overflows that merged into a pending SIGTRAP are counted lost.  The
 * cost: the program's SIGTRAP is taken (a debugger sees every sample).
 */
#ifndef LIBPE_H
#define LIBPE_H

#include <stdint.h>

#include "backend/pmc_plugin.h"

/* Open n PMC_KIND_PERF events (else -PMC_EBACKEND) for opts->pid, stopped
 * unless opts->enable_on_exec.  Self-monitoring counters (pid 0, no
 * inherit) get their user page mapped (MAP_POPULATE) for rdpmc reads.
 * Sampling with inherit is -PMC_ENOTSUP.  Returns 0 or -errno from
 * perf_event_open (EOPNOTSUPP/ENOENT: no such PMU event here, EACCES:
 * paranoid). */
int pe_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
	    void **ctx);
/* Enable every event; on the counted thread (it blocks signo meanwhile).
 * A sampled event's credits are topped up to its batch. */
int pe_start(void *ctx);
/* Disable every event: once it returns no overflow signal follows (the
 * last ones are delivered by the ioctl's return at the latest), and
 * overflow() refuses any that was queued while signo was blocked. */
int pe_stop(void *ctx);
/* Read min(n, opened) counters: rdpmc from the user pages when the kernel
 * allows it for every one, else one read() for a group, one per fd
 * otherwise.  Async-signal-safe. */
int pe_read(void *ctx, struct pmc_count *vals, size_t n);
/* Route overflow signals of every event with a period/freq to signo on the
 * counted thread (pid 0: the caller; pid > 0: that tid).  Call before start. */
int pe_arm(void *ctx, int signo);
/* Index of the event whose overflow raised si (POLL_IN, or POLL_HUP for
 * the last of a batch, matched by si_fd; with SIGTRAP: TRAP_PERF matched
 * by si_perf_data), or -1: another code or fd (not
 * ours), or ours but not an overflow to sample (counted spurious: another
 * POLL_ code, or queued before stop() and delivered after).  Call it for
 * every signal of signo, and rearm after each overflow: a POLL_HUP left
 * without rearm stops the event until the next start().
 * Async-signal-safe. */
int pe_overflow(void *ctx, const siginfo_t *si);
/* Call after each overflow of event idx (in its handler): drains the
 * event's ring buffer, and at the end of a batch of credits grants the
 * next (IOC_REFRESH).  period != 0 and different from the current one (a
 * frequency for a freq event) is set with IOC_PERIOD, which restarts the
 * interval (a software event other than the clocks is also disabled and
 * re-enabled around it, or its next overflow would come at the next
 * event).  Without rearm the event stops at the end of its batch.
 * Async-signal-safe. */
int pe_rearm(void *ctx, int idx, uint64_t period);
/* Copy the counts, after draining the ring buffers when sampling is
 * stopped or on the counted thread (signo blocked meanwhile); another
 * thread gets what the last rearm counted.  No lock, never waits:
 * async-signal-safe, from any thread. */
int pe_stats(void *ctx, struct pmc_sample_stats *st);
/* Close fds, unmap, free.  ctx may be NULL. */
int pe_close(void *ctx);

/* The pmc_plugin_ops orphan op (pmc_group_orphan): ev[].fd index another
 * process's descriptor table from now on (fd_check says no, counting
 * nothing), so no syscall is made on them; close only unmaps and frees. */
int pe_orphan(void *ctx);
/* The pmc_plugin_ops record op (pmc_group_record). */
int pe_record(void *ctx, int idx, int ring, void *buf, size_t len, struct pmc_record *rec);
/* The pmc_plugin_ops kernel_chain op: the newest sample record of event
 * idx not handed out before (each is taken once), read with data_head's
 * acquire ordering; the ring is not consumed (rearm drains it).  pcs are
 * the kernel's chain when the group was opened with opts->kernel_chain,
 * none otherwise; *flags says PMC_KCHAIN_KERNEL from the record's cpumode.
 * Async-signal-safe. */
int pe_kernel_chain(void *ctx, int idx, uint64_t *pcs, size_t max, unsigned *flags);

/* A descriptor's ops for a plugin built on libpe: its own probe_op,
 * open_op and read_op (pe_open and pe_read when it has nothing to add),
 * libpe's for the rest. */
#define PE_PLUGIN_OPS(probe_op, open_op, read_op)                                          \
	{                                                                                  \
		.probe = (probe_op), .open = (open_op), .start = pe_start, .stop = pe_stop,  \
		.read = (read_op), .arm = pe_arm, .overflow = pe_overflow,                 \
		.rearm = pe_rearm, .stats = pe_stats, .close = pe_close,                   \
		.kernel_chain = pe_kernel_chain, .record = pe_record,                      \
		.orphan = pe_orphan,                                                         \
	}

#endif /* LIBPE_H */
