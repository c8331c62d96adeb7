/* perf_event counters on one thread or task: the code shared by the
 * perf_event and kvm_vpmu plugins (internal, not installed).
 *
 * The pe_* context functions have the signatures of struct pmc_plugin_ops,
 * so a plugin puts them in its descriptor directly and adds only its own
 * probe and any checks before pe_open().  ctx is what pe_open() returned.
 *
 * Design: one fd per event (no group leader, so inherit works), read_format
 * TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING.  i-mode uses IOC_REFRESH(1): each
 * overflow disables its event and raises exactly one signal (si_code
 * POLL_HUP, si_fd = the fd) until rearm re-enables it.  A two-page ring
 * buffer per sampled event carries THROTTLE/UNTHROTTLE/LOST records, drained
 * in rearm without syscalls.
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
 * Returns 0 or -errno from perf_event_open (EOPNOTSUPP/ENOENT: no such
 * PMU event here, EACCES: paranoid). */
int pe_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
	    void **ctx);
int pe_start(void *ctx);
int pe_stop(void *ctx);
/* Read min(n, opened) counters: rdpmc from the user page when the kernel
 * allows it, else one read() per fd.  Async-signal-safe. */
int pe_read(void *ctx, struct pmc_count *vals, size_t n);
/* Route overflow signals of every event with a period/freq to signo on the
 * counted thread (pid 0: the caller; pid > 0: that tid).  Call before start. */
int pe_arm(void *ctx, int signo);
/* Index of the event whose overflow raised si (matched by si_fd), or -1.
 * Async-signal-safe. */
int pe_overflow(void *ctx, const siginfo_t *si);
/* Re-enable event idx after its overflow; period != 0 sets the next
 * interval (IOC_PERIOD) first.  Drains the event's ring buffer into the
 * throttle/lost counts.  Async-signal-safe. */
int pe_rearm(void *ctx, int idx, uint64_t period);
/* Drains the ring buffers too: call it on the counted thread (its handler
 * skips draining meanwhile) or once sampling has stopped. */
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

/* The real rdpmc/rdtsc instructions (x86-64). */
extern const struct pe_hw pe_hw_x86;

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
 * [tail, head) of a data area of size bytes (a power of two) into st.
 * Returns the tail to publish (head, or head on a corrupt record).
 * Async-signal-safe. */
uint64_t pe_rb_scan(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		    struct pmc_sample_stats *st);

#endif /* PE_H */
