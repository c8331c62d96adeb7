/* The ring-buffer record parser behind the kernel_chain op (ring.c), on
 * crafted ring pages: the newest sample among other records, records that
 * wrap around the end of the data area, a record the kernel has not
 * finished (size past head), context markers, truncation at max, torn
 * heads; then the op itself on a real perf_event ring, where the machine
 * lets us (root or perf_event_paranoid <= 1). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc.h"
#include "plugins/perf_event/pe.h"
#include "tests/harness.h"

#define SZ 256				/* a tiny data area: records wrap often */
#define IPCC (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)
#define KMARK ((uint64_t)PERF_CONTEXT_KERNEL)
#define UMARK ((uint64_t)PERF_CONTEXT_USER)

struct ring {
	unsigned char d[SZ];
	uint64_t head;
};

static void put(struct ring *r, const void *src, size_t len)
{
	for (size_t k = 0; k < len; k++)
		r->d[(r->head + k) & (SZ - 1)] = ((const unsigned char *)src)[k];
	r->head += len;
}

/* A record of type with misc, and n u64 words of body. */
static void rec(struct ring *r, uint32_t type, uint16_t misc, const uint64_t *w, size_t n)
{
	struct perf_event_header h = { type, misc, (uint16_t)(sizeof(h) + 8 * n) };

	put(r, &h, sizeof(h));
	put(r, w, 8 * n);
}

/* A sample: ip, then a chain of n pcs (with a leading kernel marker). */
static void sample(struct ring *r, uint16_t misc, uint64_t ip, const uint64_t *pcs, size_t n)
{
	uint64_t w[40];

	w[0] = ip;
	w[1] = n + 1;
	w[2] = KMARK;
	if (n)	/* memcpy's source may be NULL only when n is 0, and not even then for UBSan */
		memcpy(w + 3, pcs, 8 * n);
	rec(r, PERF_RECORD_SAMPLE, misc, w, 3 + n);
}

static const uint64_t K1[] = { 0xffffffff81000010, 0xffffffff81000020, 0xffffffff81000030 };
static const uint64_t K2[] = { 0xffffffff82000010, 0xffffffff82000020 };
static const uint64_t LOST[] = { 7, 3 };

static void test_cases(void)
{
	struct {
		int line;
		uint64_t start;			/* ring offset of the first record */
		int build;			/* which layout */
		size_t max;
		int want_ret;
		bool want_kernel, want_trunc;
		uint64_t want_first;		/* pcs[0] */
	} cases[] = {
		/* one kernel-mode sample */
		{ __LINE__, 0, 0, 127, 3, true, false, K1[0] },
		/* two samples: the newest wins */
		{ __LINE__, 0, 1, 127, 2, true, false, K2[0] },
		/* the newest wraps around the end of the area */
		{ __LINE__, SZ - 40, 1, 127, 2, true, false, K2[0] },
		/* a sample, then THROTTLE and LOST records: still that sample */
		{ __LINE__, SZ - 8, 2, 127, 3, true, false, K1[0] },
		/* the newest is unfinished (size past head): the one before */
		{ __LINE__, 16, 3, 127, 3, true, false, K1[0] },
		/* user-mode sample: no kernel pcs, not kernel */
		{ __LINE__, 0, 4, 127, 0, false, false, 0 },
		/* only non-sample records */
		{ __LINE__, 0, 5, 127, -ENODATA, false, false, 0 },
		/* max 2 of 3: truncated, leaf kept */
		{ __LINE__, 0, 0, 2, 2, true, true, K1[0] },
		/* a user context marker ends the kernel part */
		{ __LINE__, 0, 6, 127, 1, true, false, K1[0] },
		/* nr larger than the record: corrupt */
		{ __LINE__, 0, 7, 127, -EIO, false, false, 0 },
		/* an empty range */
		{ __LINE__, 64, 8, 127, -ENODATA, false, false, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ring r;
		uint64_t pcs[127] = { 0 }, from, head;
		struct pe_ksample ks;

		memset(&r, 0xee, sizeof(r));
		r.head = cases[i].start;
		from = r.head;
		switch (cases[i].build) {
		case 0:
			sample(&r, PERF_RECORD_MISC_KERNEL, K1[0], K1, 3);
			break;
		case 1:
			sample(&r, PERF_RECORD_MISC_USER, 0x401000, K1, 0);
			sample(&r, PERF_RECORD_MISC_KERNEL, K2[0], K2, 2);
			break;
		case 2:
			sample(&r, PERF_RECORD_MISC_KERNEL, K1[0], K1, 3);
			rec(&r, PERF_RECORD_THROTTLE, 0, LOST, 2);
			rec(&r, PERF_RECORD_LOST, 0, LOST, 2);
			break;
		case 3: {
			sample(&r, PERF_RECORD_MISC_KERNEL, K1[0], K1, 3);
			uint64_t keep = r.head;
			sample(&r, PERF_RECORD_MISC_KERNEL, K2[0], K2, 2);
			r.head = keep + 12;	/* the kernel is half-way through it */
			break;
		}
		case 4:
			sample(&r, PERF_RECORD_MISC_USER, 0x401000, NULL, 0);
			break;
		case 5:
			rec(&r, PERF_RECORD_LOST, 0, LOST, 2);
			rec(&r, PERF_RECORD_UNTHROTTLE, 0, LOST, 2);
			break;
		case 6: {
			uint64_t w[] = { K1[0], 4, KMARK, K1[0], UMARK, 0x401000 };
			rec(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, w, 6);
			break;
		}
		case 7: {
			uint64_t w[] = { K1[0], 50, KMARK, K1[0] };
			rec(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, w, 4);
			break;
		}
		case 8:
			break;
		}
		head = r.head;
		int n = pe_rb_last_sample(r.d, SZ, from, head, IPCC, &ks, pcs, cases[i].max);
		bool ok = n == cases[i].want_ret;
		if (n >= 0)
			ok = ok && ks.kernel == cases[i].want_kernel &&
			     ks.truncated == cases[i].want_trunc &&
			     (n == 0 || pcs[0] == cases[i].want_first) && ks.next <= head;
		T_OK(ok, "ring line %d: ret %d (want %d), kernel %d, truncated %d, pcs[0] %#" PRIx64,
		     cases[i].line, n, cases[i].want_ret, ks.kernel, ks.truncated, pcs[0]);
	}
}

static void test_misc(void)
{
	struct ring r = { .head = 0 };
	struct pe_ksample ks;
	uint64_t pcs[4];

	/* IP only (no chain asked for): the mode, no pcs. */
	uint64_t w[] = { 0xffffffff81000010 };
	rec(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, w, 1);
	int n = pe_rb_last_sample(r.d, SZ, 0, r.head, PERF_SAMPLE_IP, &ks, pcs, 4);
	T_OK(n == 0 && ks.kernel && ks.ip == w[0] && ks.next == r.head,
	     "ip-only record: kernel mode, ip, no pcs (ret %d)", n);
	/* Taking from where the last one ended finds nothing new. */
	n = pe_rb_last_sample(r.d, SZ, ks.next, r.head, PERF_SAMPLE_IP, &ks, pcs, 4);
	T_OK(n == -ENODATA, "a record is taken once (ret %d)", n);
	/* A head more than the area ahead of the tail: torn. */
	n = pe_rb_last_sample(r.d, SZ, 0, SZ + 8, PERF_SAMPLE_IP, &ks, pcs, 4);
	T_OK(n == -EIO, "head - tail > size is refused (ret %d)", n);
	/* A record too short for its ip. */
	struct ring s = { .head = 0 };
	rec(&s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, NULL, 0);
	n = pe_rb_last_sample(s.d, SZ, 0, s.head, PERF_SAMPLE_IP, &ks, pcs, 4);
	T_OK(n == -EIO, "a sample without its ip is refused (ret %d)", n);
}

/* A task-clock event on this thread, sampled every 200 us with opts,
 * enabled but not armed (armed without a signal handler would kill us):
 * pe_start's result in *started; false after a SKIP where the kernel
 * refuses the event. */
static bool live_open(const char *what, const struct pmc_group_opts *opts, void **ctx,
		      int *started)
{
	struct pmc_event ev = { .kind = PMC_KIND_PERF, .type = PERF_TYPE_SOFTWARE,
				.config = PERF_COUNT_SW_TASK_CLOCK, .period = 200000 };
	int ret = pe_open(&ev, 1, opts, ctx);

	if (ret < 0) {
		T_SKIP("%s: perf_event_open refused (%s): kernel sampling not permitted here", what,
		       strerror(-ret));
		return false;
	}
	*started = pe_start(*ctx);
	return true;
}

/* Time in the kernel: 50 reads of 64 KiB from z (/dev/zero). */
static void read_zero(FILE *z)
{
	static char buf[65536];

	for (int k = 0; k < 50; k++)
		if (fread(buf, 1, sizeof(buf), z) == 0)
			break;
}

static void live_close(void *ctx, FILE *z)
{
	if (z)
		fclose(z);
	pe_stop(ctx);
	pe_close(ctx);
}

/* The op on a real ring: a task-clock event on this thread with chains,
 * a busy loop of read()s from /dev/zero, then the op must see kernel-mode
 * samples with kernel pcs (without a signal: the ring is read directly). */
static void test_live(void)
{
	PMC_GROUP_OPTS(opts, .sample = true, .kernel_chain = true);
	void *ctx = NULL;
	uint64_t pcs[PE_KCHAIN_MAX];
	unsigned flags = 0;
	int kernel = 0, with_pcs = 0, seen = 0, ret;

	if (!live_open("live ring", &opts, &ctx, &ret))
		return;
	FILE *z = fopen("/dev/zero", "re");
	for (int round = 0; z && round < 200 && seen < 5; round++) {
		read_zero(z);
		int n = pe_kernel_chain(ctx, 0, pcs, PE_KCHAIN_MAX, &flags);
		if (n < 0)
			continue;
		seen++;
		if (flags & PMC_KCHAIN_KERNEL) {
			kernel++;
			with_pcs += n > 0 && pcs[0] >= 0xffff800000000000ull;
		}
	}
	live_close(ctx, z);
	T_OK(ret == 0 && seen > 0, "live ring: sample records read without a syscall (%d)", seen);
	T_OK(kernel > 0 && with_pcs == kernel,
	     "live ring: kernel-mode samples carry kernel pcs (%d of %d kernel, %d seen)", with_pcs,
	     kernel, seen);
}


/* ---- pe_rb_record: whole records, oldest first (the record op) ---- */

#define FULL (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
	      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define RMASK 0x1c1ULL			/* ax, sp, ip, flags: 4 registers */

/* A FULL sample: ip, pid/tid, period, a chain of 2, 4 registers, a
 * stack of 16 bytes with dyn_size dyn. */
static void full_sample(struct ring *r, uint64_t ip, uint64_t dyn)
{
	uint64_t w[] = { ip, (uint64_t)77 << 32 | 76, 1000000, 3, KMARK, K2[0], K2[1],
			 PERF_SAMPLE_REGS_ABI_64, 1, 0x7ffd0000, ip, 0x246,
			 16, 0x1111, 0x2222, dyn };

	rec(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, w, sizeof(w) / 8);
}

static void test_record(void)
{
	struct ring r;
	uint64_t buf[64], next;
	struct pmc_record pr;
	int ret;
	static const uint64_t thr[] = { 1, 2, 3 };

	for (uint64_t start = 0; start < SZ; start += 24) {
		memset(&r, 0, sizeof(r));
		r.head = start;
		rec(&r, PERF_RECORD_THROTTLE, 0, thr, 3);
		full_sample(&r, 0xffffffff81001234, 16);
		rec(&r, PERF_RECORD_LOST, 0, LOST, 2);
		uint64_t at = start;
		ret = pe_rb_record(r.d, SZ, at, r.head, FULL, RMASK, buf, sizeof(buf), &pr, &next);
		bool ok = ret == 0 && next == start + 32;
		at = next;
		ret = pe_rb_record(r.d, SZ, at, r.head, FULL, RMASK, buf, sizeof(buf), &pr, &next);
		ok &= ret == 1 && pr.kind == PMC_REC_SAMPLE && pr.kernel && pr.ip == 0xffffffff81001234 &&
		      pr.pid == 76 && pr.tid == 77 && pr.period == 1000000 && pr.n_kchain == 2 &&
		      pr.kchain[0] == K2[0] && pr.kchain[1] == K2[1] && pr.regs_mask == RMASK &&
		      pr.regs[1] == 0x7ffd0000 && pr.stack_size == 16 &&
		      ((const uint64_t *)pr.stack)[1] == 0x2222;
		at = next;
		ret = pe_rb_record(r.d, SZ, at, r.head, FULL, RMASK, buf, sizeof(buf), &pr, &next);
		ok &= ret == 1 && pr.kind == PMC_REC_LOST && pr.lost == 3 && next == r.head;
		ret = pe_rb_record(r.d, SZ, next, r.head, FULL, RMASK, buf, sizeof(buf), &pr, &next);
		ok &= ret == -ENODATA;
		T_OK(ok, "record: THROTTLE skipped, the sample whole, LOST counted, then none "
		     "(start %" PRIu64 ")", start);
	}
	memset(&r, 0, sizeof(r));
	full_sample(&r, 1, 8);
	ret = pe_rb_record(r.d, SZ, 0, r.head, FULL, RMASK, buf, sizeof(buf), &pr, &next);
	T_OK(ret == 1 && pr.stack_size == 8, "record: dyn_size bounds the valid stack (%d)", ret);
	ret = pe_rb_record(r.d, SZ, 0, r.head, FULL, RMASK, buf, 64, &pr, &next);
	T_OK(ret == -ENOSPC && next == r.head, "record: too big for the buffer: -ENOSPC, skipped");
	ret = pe_rb_record(r.d, SZ, 0, r.head - 8, FULL, RMASK, buf, sizeof(buf), &pr, &next);
	T_OK(ret == -ENODATA, "record: a record past head is not taken (%d)", ret);
	{
		/* a chain longer than the record */
		uint64_t w[] = { 1, 2, 3, 100, KMARK, 5 };

		memset(&r, 0, sizeof(r));
		rec(&r, PERF_RECORD_SAMPLE, 0, w, 6);
		ret = pe_rb_record(r.d, SZ, 0, r.head, FULL, RMASK, buf, sizeof(buf), &pr, &next);
		T_OK(ret == -EIO, "record: a chain longer than its record: -EIO (%d)", ret);
	}
}

/* The record op on real rings: a kernel_silent group's kernel-mode twin
 * holds the samples taken in read(), with chains, registers and stack. */
static void test_live_silent(void)
{
	PMC_GROUP_OPTS(opts, .sample = true, .kernel_chain = true, .kernel_silent = true,
		       .stack_copy = 2048);
	void *ctx = NULL;
	static uint64_t rbuf[2048];
	struct pmc_record pr;
	int kernel = 0, chains = 0, copies = 0, user_in_silent = 0, kernel_in_sig = 0, ret;

	if (!live_open("live silent", &opts, &ctx, &ret))
		return;
	FILE *z = fopen("/dev/zero", "re");
	for (int round = 0; z && round < 100 && kernel < 5; round++) {
		read_zero(z);
		while (pe_record(ctx, 0, PMC_RING_SILENT, rbuf, sizeof(rbuf), &pr) == 1) {
			if (pr.kind != PMC_REC_SAMPLE)
				continue;
			kernel += pr.kernel;
			user_in_silent += !pr.kernel;
			chains += pr.n_kchain > 0 && pr.kchain[0] >= 0xffff800000000000ull;
			copies += pr.regs && pr.stack_size > 0 && pr.tid == (uint32_t)gettid();
		}
		while (pe_record(ctx, 0, PMC_RING_SIGNALLED, rbuf, sizeof(rbuf), &pr) == 1)
			kernel_in_sig += pr.kind == PMC_REC_SAMPLE && pr.kernel;
	}
	live_close(ctx, z);
	T_OK(ret == 0 && kernel > 0 && chains == kernel && copies == kernel,
	     "live silent: kernel-mode samples in the silent ring, each with a chain, registers "
	     "and a stack copy (%d, %d, %d)", kernel, chains, copies);
	T_OK(user_in_silent == 0 && kernel_in_sig == 0,
	     "live silent: no user-mode sample in the silent ring (%d), no kernel-mode one in the "
	     "signalling event's (%d)", user_in_silent, kernel_in_sig);
}

int main(void)
{
	test_cases();
	test_misc();
	test_live();
	test_record();
	test_live_silent();
	return T_DONE();
}
