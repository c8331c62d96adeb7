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

static void unsupported(struct pmc_calibration *out, int err, const char *what)
{
	out->trust = PMC_TRUST_UNSUPPORTED;
	out->err = err;
	pmc_fmt(out->why, sizeof(out->why), "%s: %s", what, pmc_strerror(err));
}

/* Count the known loop under e into out->measured, with the thread's CPU
 * time and the wall time around it; false (out says why) when the counter
 * cannot be opened or used. */
static bool count_loop(struct pmc_backend *be, const struct pmc_event *e,
		       struct pmc_calibration *out, uint64_t *cpu, uint64_t *wall)
{
	PMC_GROUP_OPTS(opts, .sample = false);
	struct pmc_group *g;
	struct pmc_count c;
	uint64_t cpu0, wall0;
	int ret = pmc_group_open(be, e, 1, &opts, &g);

	if (ret < 0) {
		unsupported(out, ret, "cannot be opened");
		return false;
	}
	known_loop(LOOPS / 10);		/* warm up: page in, settle the clock */
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	wall0 = clock_ns(CLOCK_MONOTONIC);
	ret = pmc_group_start(g);
	if (ret == 0) {
		known_loop(LOOPS);
		ret = pmc_group_stop(g);
	}
	*cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	*wall = clock_ns(CLOCK_MONOTONIC) - wall0;
	if (ret == 0)
		ret = pmc_group_read(g, &c, 1);
	pmc_group_close(g);
	if (ret < 0) {
		unsupported(out, ret, "opened but cannot be used");
		return false;
	}
	out->measured = c.value;
	return true;
}

/* The range x accepts for the loop into out->lo, out->hi. */
static void expected_range(const typeof(expectations[0]) *x, uint64_t cpu_ns, uint64_t wall_ns,
			   struct pmc_calibration *out)
{
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
		/* The counter ran inside the measured CPU time: at least most of
		 * the thread's CPU time, and at most the wall time (perf's
		 * clocks also count time the hypervisor stole). */
		uint64_t unit = x->expect == EXPECT_CPU_NS ? 1 : 1000;
		uint64_t cpu = cpu_ns / unit, wall = wall_ns / unit;
		out->lo = (x->expect == EXPECT_WALL_US ? wall : cpu) * 3 / 4;
		out->hi = wall + wall / 20 + 2000 / unit + 1;
		break;
	}
	}
}

/* The verdict on out->measured against [out->lo, out->hi]. */
static void judge(struct pmc_calibration *out)
{
	unsigned long long v = out->measured, lo = out->lo, hi = out->hi;

	if (v == 0) {
		out->trust = PMC_TRUST_ZERO;
		pmc_fmt(out->why, sizeof(out->why),
			"counted 0 over a loop that must count %llu..%llu: the counter "
			"does not count here", lo, hi);
	} else if (v < lo || v > hi) {
		out->trust = PMC_TRUST_IMPLAUSIBLE;
		pmc_fmt(out->why, sizeof(out->why),
			"counted %llu over a loop that must count %llu..%llu", v, lo, hi);
	} else {
		out->trust = PMC_TRUST_VALID;
		pmc_fmt(out->why, sizeof(out->why), "counted %llu, expected %llu..%llu", v, lo, hi);
	}
}

static void calibrate(struct pmc_backend *be, const struct pmc_event *ev,
		      struct pmc_calibration *out)
{
	struct pmc_event e = *ev;
	uint64_t cpu, wall;

	e.period = e.freq = 0;
	if (e.kind == PMC_KIND_PERF)
		e.exclude_kernel = true;	/* only the loop, and allowed at paranoid 2 */
	if (!count_loop(be, &e, out, &cpu, &wall))
		return;
	for (size_t i = 0; i < sizeof(expectations) / sizeof(expectations[0]); i++) {
		const typeof(expectations[0]) *x = &expectations[i];
		if (x->kind != e.kind)
			continue;
		if (e.kind == PMC_KIND_PLUGIN ? strcmp(x->plugin_event, e.name) != 0
					      : (x->type != e.type || x->config != e.config))
			continue;
		expected_range(x, cpu, wall, out);
		judge(out);
		return;
	}
	out->trust = PMC_TRUST_UNVERIFIED;
	pmc_fmt(out->why, sizeof(out->why), "counted %llu; no known expectation for this event",
		(unsigned long long)out->measured);
}

int pmc_calibrate_sz(struct pmc_backend *be, const struct pmc_event *ev,
		     struct pmc_calibration *out, size_t size)
{
	struct pmc_calibration full;

	memset(&full, 0, sizeof(full));
	calibrate(be, ev, &full);
	memcpy(out, &full, size < sizeof(full) ? size : sizeof(full));
	return 0;
}

int(pmc_calibrate)(struct pmc_backend *be, const struct pmc_event *ev, struct pmc_calibration *out)
{
	return pmc_calibrate_sz(be, ev, out, sizeof(*out));
}
