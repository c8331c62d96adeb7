/* The user-page read arithmetic of the perf_event plugin, against crafted
 * perf_event_mmap_page contents and an injected rdpmc/rdtsc: this is the
 * path a real PMU takes, which this test machine may not have. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "plugins/perf_event/pe.h"
#include "tests/harness.h"
#include "tests/unit/plugin_test.h"

/* The fake instructions: rdpmc returns vals[calls] and may bump the page's
 * seqlock once, as a concurrent kernel update would. */
struct fake {
	struct perf_event_mmap_page *pg;
	uint64_t vals[4];
	int calls;
	uint32_t last_counter;
	int bump_on_call;	/* bump pg->lock during this call (1-based), 0 never */
	uint64_t tsc;
};

static uint64_t fake_rdpmc(uint32_t counter, void *arg)
{
	struct fake *f = arg;
	uint64_t v = f->vals[f->calls < 4 ? f->calls : 3];

	f->calls++;
	f->last_counter = counter;
	if (f->calls == f->bump_on_call)
		f->pg->lock += 2;
	return v;
}

static uint64_t fake_rdtsc(void *arg)
{
	return ((struct fake *)arg)->tsc;
}

static void test_sign_extend(void)
{
	check_sign_extend(pe_sign_extend);
}

static void test_tsc_to_ns(void)
{
/* 3 GHz TSC with the kernel's usual shift of 31. */
#define M3 ((uint32_t)((1ULL << 31) / 3))
	static const struct {
		int line;
		uint64_t cyc, offset;
		uint32_t mult;
		uint16_t shift;
		uint64_t cycles, mask;
	} cases[] = {
		{ __LINE__, 3000000000ULL, 0, M3, 31, 0, 0 },
		{ __LINE__, 1ULL << 60, 0, M3, 31, 0, 0 },		/* cyc * mult > 2^64 */
		{ __LINE__, 123456789ULL, (uint64_t)-5000000, M3, 31, 0, 0 },	/* negative offset */
		{ __LINE__, 1000, 7, 1, 0, 0, 0 },			/* 1:1 clock */
		{ __LINE__, (1ULL << 40) + 100, 0, M3, 31, 1ULL << 40, (1ULL << 32) - 1 },	/* short */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t mult = cases[i].mult;
		uint16_t shift = cases[i].shift;
		uint64_t cyc = cases[i].cyc;
		if (cases[i].mask)
			cyc = cases[i].cycles + ((cyc - cases[i].cycles) & cases[i].mask);
		/* Reference: the exact 128-bit product. */
		uint64_t want = cases[i].offset +
				(uint64_t)(((unsigned __int128)cyc * mult) >> shift);
		uint64_t got = pe_tsc_to_ns(cases[i].cyc, cases[i].offset, mult, shift,
					    cases[i].cycles, cases[i].mask);
		T_OK(got == want, "tsc_to_ns line %d: %" PRIu64 " (want %" PRIu64 ")", cases[i].line,
		     got, want);
	}
	T_OK(pe_tsc_to_ns(3000000000ULL, 0, M3, 31, 0, 0) / 1000 == 999999,
	     "tsc_to_ns: 3e9 cycles at 3 GHz is ~1 s");
}

enum { CAP_RDPMC = 1, CAP_TIME = 2, CAP_SHORT = 4 };

static void page_init(struct perf_event_mmap_page *pg, unsigned caps, uint32_t index,
		      int64_t offset, uint16_t width, uint64_t ena, uint64_t run)
{
	memset(pg, 0, sizeof(*pg));
	pg->lock = 10;
	pg->cap_bit0_is_deprecated = 1;
	pg->cap_user_rdpmc = !!(caps & CAP_RDPMC);
	pg->cap_user_time = !!(caps & CAP_TIME);
	pg->cap_user_time_short = !!(caps & CAP_SHORT);
	pg->index = index;
	pg->offset = offset;
	pg->pmc_width = width;
	pg->time_enabled = ena;
	pg->time_running = run;
	/* 1 GHz TSC, ns = cyc (mult 1, shift 0), offset -100. */
	pg->time_mult = 1;
	pg->time_shift = 0;
	pg->time_offset = (uint64_t)-100;
}

static void test_page_read(void)
{
	static const struct {
		int line;
		unsigned caps;
		uint32_t index;
		int64_t offset;
		uint16_t width;
		uint64_t ena, run, tsc;
		uint64_t pmc;		/* what rdpmc returns */
		int rc;
		uint64_t count, enabled, running;
	} cases[] = {
		/* plain read: offset + counter, times advanced by tsc+offset */
		{ __LINE__, CAP_RDPMC | CAP_TIME, 3, 1000, 48, 500, 500, 1100,
		  0x0000000000001000ULL, 0, 1000 + 4096, 1500, 1500 },
		/* counter preloaded with -period: 48-bit negative */
		{ __LINE__, CAP_RDPMC | CAP_TIME, 1, 10000, 48, 0, 0, 100,
		  0x0000fffffffff000ULL, 0, 10000 - 4096, 0, 0 },
		/* garbage above the width is dropped */
		{ __LINE__, CAP_RDPMC | CAP_TIME, 2, 0, 40, 0, 0, 100,
		  0xffff000000000007ULL, 0, 7, 0, 0 },
		/* 40-bit negative with a negative offset */
		{ __LINE__, CAP_RDPMC | CAP_TIME, 2, -5, 40, 0, 0, 100,
		  0x000000fffffffffeULL, 0, (uint64_t)-7, 0, 0 },
		/* multiplexed: both times advance by the same delta */
		{ __LINE__, CAP_RDPMC | CAP_TIME, 4, 0, 48, 2000, 1000, 600,
		  42, 0, 42, 2500, 1500 },
		/* not on a counter now: read() instead */
		{ __LINE__, CAP_RDPMC | CAP_TIME, 0, 0, 48, 0, 0, 100, 1, -EAGAIN, 0, 0, 0 },
		/* no rdpmc permission */
		{ __LINE__, CAP_TIME, 3, 0, 48, 0, 0, 100, 1, -EAGAIN, 0, 0, 0 },
		/* no user time but nothing to scale: page times as they are */
		{ __LINE__, CAP_RDPMC, 3, 7, 48, 800, 800, 100, 3, 0, 10, 800, 800 },
		/* no user time and multiplexed: stale times would mis-scale */
		{ __LINE__, CAP_RDPMC, 3, 7, 48, 900, 800, 100, 3, -EAGAIN, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_mmap_page pg;
		struct fake f = { .pg = &pg, .tsc = cases[i].tsc };
		struct pe_hw hw = { fake_rdpmc, fake_rdtsc, &f };
		struct pe_raw raw = { 0, 0, 0 };

		page_init(&pg, cases[i].caps, cases[i].index, cases[i].offset, cases[i].width,
			  cases[i].ena, cases[i].run);
		for (int k = 0; k < 4; k++)
			f.vals[k] = cases[i].pmc;
		int rc = pe_page_read(&pg, &hw, &raw);
		T_OK(rc == cases[i].rc, "page_read line %d: rc %d", cases[i].line, rc);
		if (rc != 0 || cases[i].rc != 0)
			continue;
		T_OK(f.last_counter == cases[i].index - 1, "page_read line %d: rdpmc(index - 1)",
		     cases[i].line);
		T_OK(raw.count == cases[i].count && raw.enabled == cases[i].enabled &&
			     raw.running == cases[i].running,
		     "page_read line %d: count %" PRId64 " ena %" PRIu64 " run %" PRIu64,
		     cases[i].line, (int64_t)raw.count, raw.enabled, raw.running);
	}
}

static void test_seqlock(void)
{
	struct perf_event_mmap_page pg;
	struct fake f = { .pg = &pg, .vals = { 111, 222, 333, 444 }, .bump_on_call = 1,
			  .tsc = 100 };
	struct pe_hw hw = { fake_rdpmc, fake_rdtsc, &f };
	struct pe_raw raw;

	page_init(&pg, CAP_RDPMC | CAP_TIME, 1, 0, 48, 0, 0);
	int rc = pe_page_read(&pg, &hw, &raw);
	T_OK(rc == 0 && f.calls == 2 && raw.count == 222,
	     "seqlock: a concurrent update retries once and keeps the second read (calls %d, count %" PRIu64 ")",
	     f.calls, raw.count);

	f.calls = 0;
	f.bump_on_call = 0;
	rc = pe_page_read(&pg, &hw, &raw);
	T_OK(rc == 0 && f.calls == 1 && raw.count == 111, "seqlock: no update, one rdpmc");
}

static void test_time_short(void)
{
	struct perf_event_mmap_page pg;
	struct fake f = { .pg = &pg, .vals = { 0 }, .tsc = (1ULL << 40) + 50 };
	struct pe_hw hw = { fake_rdpmc, fake_rdtsc, &f };
	struct pe_raw raw;

	page_init(&pg, CAP_RDPMC | CAP_TIME | CAP_SHORT, 1, 0, 48, 1000, 1000);
	pg.time_offset = 0;
	pg.time_cycles = 20;
	pg.time_mask = 0xff;	/* the kernel sees only 8 bits of TSC */
	int rc = pe_page_read(&pg, &hw, &raw);
	/* cyc = 20 + ((2^40 + 50 - 20) & 0xff) = 50 */
	T_OK(rc == 0 && raw.enabled == 1050 && raw.running == 1050,
	     "time_short: TSC folded into time_mask (ena %" PRIu64 ")", raw.enabled);
}

static void test_scale(void)
{
	static const struct {
		int line;
		uint64_t count, ena, run, value;
		bool scaled;
	} cases[] = {
		{ __LINE__, 1000, 500, 500, 1000, false },
		{ __LINE__, 1000, 1000, 250, 4000, true },
		{ __LINE__, 1000, 1000, 0, 0, true },		/* never on a counter */
		{ __LINE__, 0, 0, 0, 0, false },		/* never enabled */
		{ __LINE__, 3, 3, 2, 4, true },			/* 4.5 truncates */
		{ __LINE__, 1ULL << 50, 1ULL << 40, 1ULL << 39, 1ULL << 51, true },	/* 128-bit */
		{ __LINE__, 7, 100, 101, 7, false },		/* rounding noise: not scaled */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pe_raw raw = { cases[i].count, cases[i].ena, cases[i].run };
		struct pmc_count c;

		pe_count_scale(&raw, &c);
		T_OK(c.value == cases[i].value && c.scaled == cases[i].scaled &&
			     c.raw == cases[i].count && c.enabled == cases[i].ena &&
			     c.running == cases[i].run,
		     "scale line %d: value %" PRIu64 " scaled %d", cases[i].line, c.value, c.scaled);
	}
}

/* Write a record of type and size at ring offset off, with u64 payload
 * words (payload[1] is a LOST record's count), wrapping at size. */
static void rb_put(unsigned char *data, uint64_t size, uint64_t off, uint32_t type,
		   uint16_t rsize, uint64_t lost)
{
	unsigned char rec[64];
	struct perf_event_header h = { .type = type, .misc = 0, .size = rsize };

	memset(rec, 0xa5, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	if (type == PERF_RECORD_LOST)
		memcpy(rec + sizeof(h) + 8, &lost, sizeof(lost));
	for (uint16_t k = 0; k < rsize; k++)
		data[(off + k) & (size - 1)] = rec[k];
}

static void test_rb_scan(void)
{
	enum { S = PERF_RECORD_SAMPLE, T = PERF_RECORD_THROTTLE, U = PERF_RECORD_UNTHROTTLE,
	       L = PERF_RECORD_LOST };
	static const struct {
		int line;
		uint64_t tail;		/* absolute start (wraps at 64) */
		struct {
			uint32_t type;
			uint16_t size;
			uint64_t lost;
		} rec[6];
		uint64_t throttled, unthrottled, lost, samples;
	} cases[] = {
		/* each case fills at most the 64-byte ring */
		{ __LINE__, 0, { { S, 8, 0 }, { S, 8, 0 } }, 0, 0, 0, 2 },
		{ __LINE__, 0, { { S, 8, 0 }, { T, 32, 0 }, { L, 24, 9 } }, 1, 0, 9, 1 },
		{ __LINE__, 16, { { U, 32, 0 }, { S, 8, 0 }, { S, 8, 0 } }, 0, 1, 0, 2 },
		/* the LOST count straddles the end of the ring */
		{ __LINE__, 48, { { L, 24, 0x1122334455667788ULL } }, 0, 0, 0x1122334455667788ULL, 0 },
		/* a header in the last 8 bytes, its body after the wrap */
		{ __LINE__, 56, { { T, 32, 0 }, { U, 32, 0 } }, 1, 1, 0, 0 },
		/* absolute offsets far past the size */
		{ __LINE__, 1000, { { S, 8, 0 }, { T, 32, 0 }, { L, 24, 5 } }, 1, 0, 5, 1 },
		{ __LINE__, 8, { { L, 24, 3 }, { L, 24, 4 }, { S, 8, 0 }, { S, 8, 0 } }, 0, 0, 7, 2 },
		/* a full ring of sample records, wrapping */
		{ __LINE__, 40, { { S, 8, 0 }, { S, 8, 0 }, { S, 8, 0 }, { S, 8, 0 }, { S, 8, 0 },
				  { S, 8, 0 } }, 0, 0, 0, 6 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char data[64];
		struct pmc_sample_stats st = { 0 };
		uint64_t head = cases[i].tail, samples = 0;

		memset(data, 0, sizeof(data));
		for (int r = 0; r < 6 && cases[i].rec[r].size; r++) {
			rb_put(data, sizeof(data), head, cases[i].rec[r].type, cases[i].rec[r].size,
			       cases[i].rec[r].lost);
			head += cases[i].rec[r].size;
		}
		uint64_t nt = pe_rb_scan(data, sizeof(data), cases[i].tail, head, &st, &samples);
		T_OK(nt == head && st.throttled == cases[i].throttled &&
			     st.unthrottled == cases[i].unthrottled && st.lost == cases[i].lost &&
			     samples == cases[i].samples,
		     "rb_scan line %d: throttled %" PRIu64 " unthrottled %" PRIu64 " lost %#" PRIx64
		     " samples %" PRIu64,
		     cases[i].line, st.throttled, st.unthrottled, st.lost, samples);
	}

	/* A record with size 0 would loop forever: the scan gives up. */
	unsigned char data[64];
	struct pmc_sample_stats st = { 0 };
	uint64_t samples = 0;
	memset(data, 0, sizeof(data));
	rb_put(data, sizeof(data), 0, T, 0, 0);
	T_OK(pe_rb_scan(data, sizeof(data), 0, 40, &st, &samples) == 40 && st.throttled == 0,
	     "rb_scan: a zero-size record ends the scan at head");
	rb_put(data, sizeof(data), 0, T, 48, 0);
	T_OK(pe_rb_scan(data, sizeof(data), 0, 40, &st, &samples) == 40 && st.throttled == 0 &&
		     samples == 0,
	     "rb_scan: a record running past head is not counted");
}

int main(void)
{
	test_sign_extend();
	test_tsc_to_ns();
	test_page_read();
	test_seqlock();
	test_time_short();
	test_scale();
	test_rb_scan();
	return T_DONE();
}
