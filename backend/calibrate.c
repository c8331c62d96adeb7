/* Counter calibration: count a loop whose work is known exactly and see
 * whether the counter agrees.  A virtual PMU can open an event and still
 * count nothing (a hypervisor that does not save/restore the counters) or
 * count nonsense; a profile built on such a counter would lie. */
#include "config.h"

#include <linux/perf_event.h>
#include <string.h>
#include <time.h>

#include "backend/internal.h"

#define LOOPS 20000000ULL	/* ~10 ms at 2 GHz */

/* What a counter must read for the loop, per event, as data.  slack_div
 * sets the relative tolerance (1/slack_div) on top of abs_slack events. */
enum expect_kind { EXPECT_COUNT, EXPECT_CPU_NS, EXPECT_CPU_US, EXPECT_WALL_US };
static const struct {
	enum pmc_event_kind kind;
	uint32_t type;
	uint64_t config;
	const char *plugin_event;
	enum expect_kind expect;
	uint64_t per_loop_lo, per_loop_hi;	/* EXPECT_COUNT: x LOOPS */
	uint64_t abs_slack;
} expectations[] = {
	{ PMC_KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, NULL, EXPECT_COUNT, 2, 2, 200000 },
	{ PMC_KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL, EXPECT_COUNT, 1, 1, 100000 },
	/* dec/jnz fuses into one uop: >= 1/2 cycle per loop on any x86 core, and
	 * nothing sane takes 100 cycles for it. */
	{ PMC_KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, NULL, EXPECT_COUNT, 0, 100, 0 },
	{ PMC_KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, NULL, EXPECT_COUNT, 0, 100, 0 },
	{ PMC_KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, NULL, EXPECT_CPU_NS, 0, 0, 0 },
	{ PMC_KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, NULL, EXPECT_CPU_NS, 0, 0, 0 },
	{ PMC_KIND_PLUGIN, 0, 0, "CPUTIME", EXPECT_CPU_US, 0, 0, 0 },
	{ PMC_KIND_PLUGIN, 0, 0, "REALTIME", EXPECT_WALL_US, 0, 0, 0 },
};

const char *pmc_trust_name(enum pmc_trust t)
{
	static const char *const names[] = {
		[PMC_TRUST_VALID] = "valid",
		[PMC_TRUST_UNVERIFIED] = "unverified",
		[PMC_TRUST_ZERO] = "zero",
		[PMC_TRUST_IMPLAUSIBLE] = "implausible",
		[PMC_TRUST_UNSUPPORTED] = "unsupported",
	};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Exactly `n` iterations of dec/jnz (subs/b.ne): n branches, 2n
 * instructions. */
static void known_loop(uint64_t n)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#endif
}

int pmc_calibrate(struct pmc_backend *be, const struct pmc_event *ev, struct pmc_calibration *out)
{
	PMC_GROUP_OPTS(opts, .sample = false);
	struct pmc_event e = *ev;
	struct pmc_group *g;
	struct pmc_count c;
	uint64_t cpu0, cpu1, wall0, wall1;
	int ret;

	memset(out, 0, sizeof(*out));
	e.period = e.freq = 0;
	if (e.kind == PMC_KIND_PERF)
		e.exclude_kernel = true;	/* only the loop, and allowed at paranoid 2 */
	ret = pmc_group_open(be, &e, 1, &opts, &g);
	if (ret < 0) {
		out->trust = PMC_TRUST_UNSUPPORTED;
		out->err = ret;
		pmc_fmt(out->why, sizeof(out->why), "cannot be opened: %s", pmc_strerror(ret));
		return 0;
	}
	known_loop(LOOPS / 10);		/* warm up: page in, settle the clock */
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	wall0 = clock_ns(CLOCK_MONOTONIC);
	ret = pmc_group_start(g);
	if (ret == 0) {
		known_loop(LOOPS);
		ret = pmc_group_stop(g);
	}
	cpu1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	wall1 = clock_ns(CLOCK_MONOTONIC);
	if (ret == 0)
		ret = pmc_group_read(g, &c, 1);
	pmc_group_close(g);
	if (ret < 0) {
		out->trust = PMC_TRUST_UNSUPPORTED;
		out->err = ret;
		pmc_fmt(out->why, sizeof(out->why), "opened but cannot be used: %s",
			pmc_strerror(ret));
		return 0;
	}
	out->measured = c.value;

	for (size_t i = 0; i < sizeof(expectations) / sizeof(expectations[0]); i++) {
		const typeof(expectations[0]) *x = &expectations[i];
		if (x->kind != e.kind)
			continue;
		if (e.kind == PMC_KIND_PLUGIN ? strcmp(x->plugin_event, e.name) != 0
					      : (x->type != e.type || x->config != e.config))
			continue;
		switch (x->expect) {
		case EXPECT_COUNT:
			out->lo = x->per_loop_lo * LOOPS;
			out->hi = x->per_loop_hi * LOOPS + x->per_loop_hi * LOOPS / 100 + x->abs_slack;
			if (x->per_loop_lo == 0)
				out->lo = LOOPS / 2;
			break;
		case EXPECT_CPU_NS:
		case EXPECT_CPU_US:
		case EXPECT_WALL_US: {
			/* The counter ran inside [cpu0, cpu1]: at least most of the
			 * thread's CPU time, and at most the wall time (perf's
			 * clocks also count time the hypervisor stole). */
			uint64_t unit = x->expect == EXPECT_CPU_NS ? 1 : 1000;
			uint64_t cpu = (cpu1 - cpu0) / unit, wall = (wall1 - wall0) / unit;
			out->lo = (x->expect == EXPECT_WALL_US ? wall : cpu) * 3 / 4;
			out->hi = wall + wall / 20 + 2000 / unit + 1;
			break;
		}
		}
		if (c.value == 0) {
			out->trust = PMC_TRUST_ZERO;
			pmc_fmt(out->why, sizeof(out->why),
				"counted 0 over a loop that must count %llu..%llu: the counter "
				"does not count here",
				(unsigned long long)out->lo, (unsigned long long)out->hi);
		} else if (c.value < out->lo || c.value > out->hi) {
			out->trust = PMC_TRUST_IMPLAUSIBLE;
			pmc_fmt(out->why, sizeof(out->why),
				"counted %llu over a loop that must count %llu..%llu",
				(unsigned long long)c.value, (unsigned long long)out->lo,
				(unsigned long long)out->hi);
		} else {
			out->trust = PMC_TRUST_VALID;
			pmc_fmt(out->why, sizeof(out->why), "counted %llu, expected %llu..%llu",
				(unsigned long long)c.value, (unsigned long long)out->lo,
				(unsigned long long)out->hi);
		}
		return 0;
	}
	out->trust = PMC_TRUST_UNVERIFIED;
	pmc_fmt(out->why, sizeof(out->why), "counted %llu; no known expectation for this event",
		(unsigned long long)c.value);
	return 0;
}
