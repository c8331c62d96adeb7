/* The kernel side of a sample, read from the event's ring buffer without a
 * syscall: the newest PERF_RECORD_SAMPLE between the consumer's position
 * and data_head, with sample_type PERF_SAMPLE_IP [| PERF_SAMPLE_CALLCHAIN]
 * (and exclude_callchain_user, so the chain is the kernel's part only).
 * Pure functions over the bytes they are given, so tests feed crafted
 * pages: wraparound, truncated and foreign records.  Also the chain depth
 * asked of the kernel (pe_kchain_max_stack). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugins/perf_event/pe.h"

/* Copy len bytes (at most size) at ring offset off (the data area wraps
 * at size): two pieces at most. */
static void copy(void *dst, const unsigned char *data, uint64_t size, uint64_t off, size_t len)
{
	uint64_t at = off & (size - 1);
	size_t first = len < size - at ? len : (size_t)(size - at);

	memcpy(dst, data + at, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, data, len - first);
}

static uint64_t u64_at(const unsigned char *data, uint64_t size, uint64_t off)
{
	uint64_t v;

	copy(&v, data, size, off, sizeof(v));
	return v;
}

int pe_rb_last_sample(const unsigned char *data, uint64_t size, uint64_t from, uint64_t head,
		      uint64_t sample_type, struct pe_ksample *out, uint64_t *pcs, size_t max)
{
	uint64_t off = from, last = 0, nr, avail, at;
	struct perf_event_header h, lh = { 0 };
	bool found = false;
	size_t n = 0;

	out->ip = 0;
	out->kernel = false;
	out->truncated = false;
	out->n = 0;
	out->next = from;
	/* More bytes than the area holds: a torn or foreign head. */
	if (head < from || head - from > size || !size || (size & (size - 1)))
		return -EIO;
	while (off + sizeof(h) <= head) {
		copy(&h, data, size, off, sizeof(h));
		/* A record the kernel has not finished, or a corrupt size:
		 * nothing after it can be trusted. */
		if (h.size < sizeof(h) || off + h.size > head)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			last = off;
			lh = h;
			found = true;
		}
		off += h.size;
	}
	if (!found)
		return -ENODATA;
	out->next = last + lh.size;
	at = last + sizeof(h);
	avail = lh.size - sizeof(h);
	/* PERF_RECORD_MISC_KERNEL: the overflow interrupted kernel code. */
	out->kernel = (lh.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	if (sample_type & PERF_SAMPLE_IP) {
		if (avail < 8)
			return -EIO;
		out->ip = u64_at(data, size, at);
		at += 8;
		avail -= 8;
	}
	if (!(sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	if (avail < 8)
		return -EIO;
	nr = u64_at(data, size, at);
	at += 8;
	avail -= 8;
	if (nr > avail / 8)
		return -EIO;
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t pc = u64_at(data, size, at + 8 * k);

		/* Context markers (PERF_CONTEXT_KERNEL, ...) sit at the top of
		 * the address space; a user part would follow PERF_CONTEXT_USER
		 * (excluded, but stop there if a kernel ever sends one). */
		if (pc == (uint64_t)PERF_CONTEXT_USER)
			break;
		if (pc >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (n == max) {
			out->truncated = true;
			break;
		}
		pcs[n++] = pc;
	}
	out->n = n;
	return (int)n;
}

/* PE_KCHAIN_MAX, unless the sysctl perf_event_max_stack is lower (a
 * larger sample_max_stack is EOVERFLOW): then 0, the sysctl's own. */
uint16_t pe_kchain_max_stack(void)
{
	static int cached = -1;		/* read once per process */
	char buf[32];
	int v = __atomic_load_n(&cached, __ATOMIC_RELAXED), fd;
	long r;

	if (v >= 0)
		return (uint16_t)v;
	fd = open("/proc/sys/kernel/perf_event_max_stack", O_RDONLY | O_CLOEXEC);
	r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	v = 0;
	if (r > 0) {
		buf[r] = '\0';
		v = strtol(buf, NULL, 10) >= PE_KCHAIN_MAX ? PE_KCHAIN_MAX : 0;
	}
	__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	return (uint16_t)v;
}

/* Drop the context markers from a chain, in place; stop at the user part. */
static size_t chain_compact(uint64_t *pcs, uint64_t nr)
{
	size_t n = 0;

	for (uint64_t k = 0; k < nr; k++) {
		if (pcs[k] == (uint64_t)PERF_CONTEXT_USER)
			break;
		if (pcs[k] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		pcs[n++] = pcs[k];
	}
	return n;
}

/* A sample record whole in buf[size] (8-aligned), parsed as sample_type
 * in the kernel's order into rec, whose pointers go into buf (the chain
 * compacted there): 1, or -EIO when it does not hold what sample_type
 * says.  Pure. */
static int sample_parse(unsigned char *buf, size_t size, uint16_t misc, uint64_t sample_type,
			uint64_t regs_mask, struct pmc_record *rec)
{
	const unsigned char *b = buf + sizeof(struct perf_event_header), *end = buf + size;
	uint64_t v;

#define TAKE(dst)                                      \
	do {                                           \
		if (end - b < 8)                       \
			return -EIO;                   \
		memcpy(&(dst), b, 8);                  \
		b += 8;                                \
	} while (0)
	rec->kind = PMC_REC_SAMPLE;
	rec->kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	if (sample_type & PERF_SAMPLE_IP)
		TAKE(rec->ip);
	if (sample_type & PERF_SAMPLE_TID) {
		uint32_t pt[2];

		TAKE(v);
		memcpy(pt, &v, 8);
		rec->pid = pt[0];
		rec->tid = pt[1];
	}
	if (sample_type & PERF_SAMPLE_PERIOD)
		TAKE(rec->period);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		TAKE(nr);
		if (nr > (uint64_t)(end - b) / 8)
			return -EIO;
		/* buf is the caller's, 8-aligned: compact the chain there */
		rec->kchain = (const uint64_t *)(const void *)b;
		rec->n_kchain = chain_compact((uint64_t *)(void *)b, nr);
		b += nr * 8;
	}
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		uint64_t abi, n = (uint64_t)__builtin_popcountll(regs_mask);

		TAKE(abi);
		if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
			if (n > (uint64_t)(end - b) / 8)
				return -EIO;
			rec->regs = (const uint64_t *)(const void *)b;
			rec->regs_mask = regs_mask;
			b += n * 8;
		}
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t sz, dyn;

		TAKE(sz);
		if (sz) {
			if (sz > (uint64_t)(end - b) || (uint64_t)(end - b) - sz < 8)
				return -EIO;
			rec->stack = b;
			memcpy(&dyn, b + sz, 8);
			rec->stack_size = dyn < sz ? dyn : sz;
			b += sz + 8;
		}
	}
#undef TAKE
	return 1;
}

int pe_rb_record(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		 uint64_t sample_type, uint64_t regs_mask, void *buf, size_t len,
		 struct pmc_record *rec, uint64_t *next)
{
	struct perf_event_header h;

	*next = tail;
	memset(rec, 0, sizeof(*rec));
	if (head < tail || head - tail > size || !size || (size & (size - 1)))
		return -EIO;
	if (tail + sizeof(h) > head)
		return -ENODATA;
	copy(&h, data, size, tail, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8)
		return -EIO;
	if (tail + h.size > head)
		return -ENODATA;	/* not finished: the kernel publishes whole records */
	*next = tail + h.size;
	if (h.type == PERF_RECORD_LOST) {
		if (h.size < sizeof(h) + 16)
			return -EIO;
		rec->kind = PMC_REC_LOST;
		rec->lost = u64_at(data, size, tail + sizeof(h) + 8);
		return 1;
	}
	if (h.type != PERF_RECORD_SAMPLE)
		return 0;
	if (h.size > len)
		return -ENOSPC;
	copy(buf, data, size, tail, h.size);
	return sample_parse(buf, h.size, h.misc, sample_type, regs_mask, rec);
}
