/* perf_event counters on one thread or task: the code shared by the
 * perf_event and kvm_vpmu plugins (internal, not installed).
 *
 * The pe_* context functions have the signatures of struct pmc_plugin_ops,
 * so a plugin puts them in its descriptor directly and adds only its own
 * probe and any checks before pe_open().  ctx is what pe_open() returned.
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
#ifndef PE_H
#define PE_H

#include <linux/perf_event.h>
#include <stdbool.h>
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

/* For tests and benchmarks: event idx's fd (-1 if none), and its mapped
 * user page (NULL if none). */
int pe_fd(const void *ctx, size_t idx);
const struct perf_event_mmap_page *pe_page(const void *ctx, size_t idx);

/* ---- pure arithmetic of a counter read (no syscalls; unit-tested) ---- */

/* A counter as the kernel reports it: count, ns enabled, ns running. */
struct pe_raw {
	uint64_t count, enabled, running;
};

/* The two instructions a user-space read needs; injectable for tests. */
struct pe_hw {
	uint64_t (*rdpmc)(uint32_t counter, void *arg);
	uint64_t (*rdtsc)(void *arg);
	void *arg;
};

/* This machine's instructions: rdpmc/rdtsc on x86-64; on AArch64 an mrs
 * of PMEVCNTR<n>_EL0 (n = index - 1) or PMCCNTR_EL0 (index 32) and of
 * CNTVCT_EL0, the clock the kernel's cap_user_time describes there. */
extern const struct pe_hw pe_hw_native;

/* Read a counter from its user page: seqlock loop, rdpmc(index - 1)
 * sign-extended to pmc_width plus offset, enabled/running advanced by the
 * TSC delta when cap_user_time.  Returns 0, or -EAGAIN when the page cannot
 * give the value (no cap_user_rdpmc, index 0 = not on a counter, or times
 * that would need scaling without cap_user_time): use read() instead.
 * Without cap_user_time (and no multiplexing) enabled/running are those of
 * the last context switch.  Async-signal-safe. */
int pe_page_read(const volatile struct perf_event_mmap_page *pg, const struct pe_hw *hw,
		 struct pe_raw *out);

/* Sign-extend the low width bits of v (width 0 or >= 64: unchanged). */
uint64_t pe_sign_extend(uint64_t v, unsigned width);

/* ns since time_offset for TSC value cyc: offset + cyc * mult >> shift,
 * with the cap_user_time_short wrap (mask 0: no wrap). */
uint64_t pe_tsc_to_ns(uint64_t cyc, uint64_t time_offset, uint32_t mult, uint16_t shift,
		      uint64_t time_cycles, uint64_t time_mask);

/* Fill a pmc_count from raw figures: value = raw * enabled / running when
 * running < enabled (scaled); running 0 with enabled > 0: value 0, scaled.
 * Inline: it is on every read. */
static inline void pe_count_scale(const struct pe_raw *raw, struct pmc_count *out)
{
	out->raw = raw->count;
	out->enabled = raw->enabled;
	out->running = raw->running;
	out->value = raw->count;
	out->scaled = false;
	if (__builtin_expect(raw->running >= raw->enabled, 1))
		return;
	out->scaled = true;
	/* 128-bit product: count * enabled overflows 64 bits for long runs. */
	out->value = raw->running ? (uint64_t)((unsigned __int128)raw->count * raw->enabled /
					       raw->running)
				  : 0;
}

/* Count the THROTTLE, UNTHROTTLE and LOST records in ring-buffer bytes
 * [tail, head) of a data area of size bytes (a power of two) into st, and
 * the SAMPLE records into *samples.  Returns the tail to publish (head, or
 * head on a corrupt record).  Async-signal-safe. */
uint64_t pe_rb_scan(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		    struct pmc_sample_stats *st, uint64_t *samples);

/* ---- the kernel side of a sample (ring.c; see pe_kernel_chain) ---- */

/* sample_regs_user of records with a stack copy: every general register
 * and ip (PERF_REG_X86_AX..IP, R8..R15), what uw_unwind_copy can use. */
#define PE_REGS_USER_MASK 0xff01ffULL

/* Most kernel pcs taken from one sample: perf's default max stack. */
#define PE_KCHAIN_MAX 127

/* What the newest sample record says. */
struct pe_ksample {
	uint64_t ip;			/* PERF_SAMPLE_IP, 0 without it */
	bool kernel;			/* PERF_RECORD_MISC_KERNEL */
	bool truncated;			/* more kernel pcs than max */
	size_t n;			/* pcs stored */
	uint64_t next;			/* ring offset just past the record */
};

/* Find the newest PERF_RECORD_SAMPLE in ring bytes [from, head) of a data
 * area of size bytes (a power of two), walking from `from` (a record
 * boundary: the consumer's tail or the end of the last record taken), and
 * parse it as sample_type (only PERF_SAMPLE_IP and PERF_SAMPLE_CALLCHAIN
 * are understood): its kernel pcs, leaf first, context markers dropped, at
 * most max into pcs.  A truncated last record (size past head) ends the
 * walk.  Returns the number of pcs, -ENODATA without a sample record,
 * -EIO for a record that does not hold what sample_type says.  No
 * syscalls, no allocation: async-signal-safe. */
int pe_rb_last_sample(const unsigned char *data, uint64_t size, uint64_t from, uint64_t head,
		      uint64_t sample_type, struct pe_ksample *out, uint64_t *pcs, size_t max);

/* The record at ring offset tail of [tail, head), parsed as sample_type
 * (IP, TID, PERIOD, CALLCHAIN, REGS_USER with regs_mask, STACK_USER, in
 * the kernel's order): a sample is copied whole into buf[len] (8-aligned)
 * and rec points into it, the chain's context markers dropped; a LOST
 * record gives its count.  Returns 1 (rec filled), 0 (another record
 * type: skip it), -ENODATA (no whole record), -ENOSPC (a sample larger
 * than len), -EIO (corrupt); *next is the offset past it (tail when there
 * is none or on -EIO).  Pure: async-signal-safe. */
int pe_rb_record(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		 uint64_t sample_type, uint64_t regs_mask, void *buf, size_t len,
		 struct pmc_record *rec, uint64_t *next);

/* The pmc_plugin_ops record op (pmc_group_record). */
int pe_record(void *ctx, int idx, int ring, void *buf, size_t len, struct pmc_record *rec);

/* sample_max_stack for kernel chains: PE_KCHAIN_MAX, or 0 (the sysctl's
 * own) when kernel.perf_event_max_stack is lower.  Read once per process;
 * not for the handler. */
uint16_t pe_kchain_max_stack(void);

/* The pmc_plugin_ops kernel_chain op: the newest sample record of event
 * idx not handed out before (each is taken once), read with data_head's
 * acquire ordering; the ring is not consumed (rearm drains it).  pcs are
 * the kernel's chain when the group was opened with opts->kernel_chain,
 * none otherwise; *flags says PMC_KCHAIN_KERNEL from the record's cpumode.
 * Async-signal-safe. */
int pe_kernel_chain(void *ctx, int idx, uint64_t *pcs, size_t max, unsigned *flags);

#endif /* PE_H */
