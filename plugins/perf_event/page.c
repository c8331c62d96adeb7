/* The arithmetic of perf_event's shared pages: user-page (rdpmc) reads,
 * sign extension, TSC-to-ns conversion, multiplexing scaling and the ring
 * buffer's record scan.  Pure functions over their arguments, so tests can
 * feed crafted pages. */
#include "config.h"

#include <errno.h>

#include "plugins/perf_event/pe.h"

/* perf_event_mmap_page capability bits (an anonymous bitfield in the
 * struct, so read the word once and test bits). */
#define CAP_USER_RDPMC (1ULL << 2)
#define CAP_USER_TIME (1ULL << 3)
#define CAP_USER_TIME_SHORT (1ULL << 5)

#define barrier() __asm__ __volatile__("" ::: "memory")

#if defined(__x86_64__) || defined(__i386__)
static uint64_t rdpmc_insn(uint32_t counter, void *arg)
{
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t rdtsc_insn(void *arg)
{
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
/* The kernel's user index is the counter number + 1, the cycle counter's
 * 32 (arch/arm64/kernel/perf_event.c, armv8pmu_user_event_idx): counter
 * 31 is PMCCNTR_EL0, 0..30 PMEVCNTR<n>_EL0, whose number is part of the
 * instruction.  EL0 reads trap unless the kernel set PMUSERENR_EL0 for
 * this event (perf_user_access and config1 bit 1). */
#define PMEV(n) case n: __asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); break
static uint64_t rdpmc_insn(uint32_t counter, void *arg)
{
	uint64_t v = 0;

	(void)arg;
	switch (counter) {
	PMEV(0); PMEV(1); PMEV(2); PMEV(3); PMEV(4); PMEV(5); PMEV(6); PMEV(7);
	PMEV(8); PMEV(9); PMEV(10); PMEV(11); PMEV(12); PMEV(13); PMEV(14); PMEV(15);
	PMEV(16); PMEV(17); PMEV(18); PMEV(19); PMEV(20); PMEV(21); PMEV(22); PMEV(23);
	PMEV(24); PMEV(25); PMEV(26); PMEV(27); PMEV(28); PMEV(29); PMEV(30);
	case 31: __asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v)); break;
	}
	return v;
}
#undef PMEV

/* The clock behind cap_user_time on arm64: the generic timer. */
static uint64_t rdtsc_insn(void *arg)
{
	uint64_t v;

	(void)arg;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
#else
#error "user-page counter reads know x86-64 and AArch64 only"
#endif

const struct pe_hw pe_hw_native = { .rdpmc = rdpmc_insn, .rdtsc = rdtsc_insn };

uint64_t pe_sign_extend(uint64_t v, unsigned width)
{
	if (width == 0 || width >= 64)
		return v;
	/* Shift the top bit of the counter into bit 63, then back with the
	 * arithmetic shift (gcc and clang define >> on negative values). */
	return (uint64_t)((int64_t)(v << (64 - width)) >> (64 - width));
}

uint64_t pe_tsc_to_ns(uint64_t cyc, uint64_t time_offset, uint32_t mult, uint16_t shift,
		      uint64_t time_cycles, uint64_t time_mask)
{
	/* cap_user_time_short: the kernel's TSC view is only time_mask wide. */
	if (time_mask)
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	/* cyc * mult overflows 64 bits after minutes of uptime: split it the
	 * way the perf_event.h comment does.  The kernel's shift is <= 32; a
	 * torn or corrupt page must not make the shifts undefined. */
	shift &= 63;
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
	return time_offset + quot * mult + ((rem * mult) >> shift);
}

int pe_page_read(const volatile struct perf_event_mmap_page *pg, const struct pe_hw *hw,
		 struct pe_raw *out)
{
	uint32_t seq, idx;
	uint64_t ena, run, cnt, cyc = 0;
	uint64_t offset = 0, cycles = 0, mask = 0;
	uint32_t mult = 0;
	uint16_t shift = 0;
	bool user_time;

	do {
		seq = pg->lock;
		barrier();
		uint64_t caps = pg->capabilities;
		ena = pg->time_enabled;
		run = pg->time_running;
		idx = pg->index;
		if (!(caps & CAP_USER_RDPMC) || idx == 0)
			return -EAGAIN;
		user_time = caps & CAP_USER_TIME;
		if (!user_time && ena != run)
			return -EAGAIN;	/* would scale with stale times */
		if (user_time) {
			cyc = hw->rdtsc(hw->arg);
			mult = pg->time_mult;
			shift = pg->time_shift;
			offset = pg->time_offset;
			if (caps & CAP_USER_TIME_SHORT) {
				cycles = pg->time_cycles;
				mask = pg->time_mask;
			} else {
				mask = 0;
			}
		}
		cnt = (uint64_t)pg->offset;
		cnt += pe_sign_extend(hw->rdpmc(idx - 1, hw->arg), pg->pmc_width);
		barrier();
	} while (pg->lock != seq);

	if (user_time) {
		uint64_t delta = pe_tsc_to_ns(cyc, offset, mult, shift, cycles, mask);
		ena += delta;
		run += delta;	/* idx != 0: it is on a counter now */
	}
	out->count = cnt;
	out->enabled = ena;
	out->running = run;
	return 0;
}

/* Copy len bytes at ring offset off (the data area wraps at size). */
static void rb_copy(void *dst, const unsigned char *data, uint64_t size, uint64_t off,
		    size_t len)
{
	unsigned char *d = dst;

	for (size_t k = 0; k < len; k++)
		d[k] = data[(off + k) & (size - 1)];
}

uint64_t pe_rb_scan(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		    struct pmc_sample_stats *st, uint64_t *samples)
{
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t lost;

		rb_copy(&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			return head;	/* corrupt: give the whole buffer back */
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			(*samples)++;
			break;
		case PERF_RECORD_THROTTLE:
			st->throttled++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			st->unthrottled++;
			break;
		case PERF_RECORD_LOST:	/* header, u64 id, u64 lost */
			if (h.size >= sizeof(h) + 16) {
				rb_copy(&lost, data, size, tail + sizeof(h) + 8, sizeof(lost));
				st->lost += lost;
			}
			break;
		}
		tail += h.size;
	}
	return tail;
}
