/* libpe's own header: the parts behind its contract (libpe.h), for its
 * sources (pe.c, page.c, ring.c) and its tests: the pure arithmetic of a
 * counter read and the ring-buffer parsers.  No plugin includes this. */
#ifndef PE_H
#define PE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "plugins/perf_event/libpe.h"

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


/* sample_max_stack for kernel chains: PE_KCHAIN_MAX, or 0 (the sysctl's
 * own) when kernel.perf_event_max_stack is lower.  Read once per process;
 * not for the handler. */
uint16_t pe_kchain_max_stack(void);


#endif /* PE_H */
