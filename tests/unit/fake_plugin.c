/* A hardware-counter plugin that lies, for the calibration tests: it opens
 * any perf_event encoding and reads zeros (PMC_FAKE_MODE=zero) or garbage
 * (PMC_FAKE_MODE=garbage), as a broken virtual PMU might; or, for stat's
 * <not counted>, counters enabled but never scheduled (PMC_FAKE_MODE=
 * unscheduled: running 0, as perf_event reports a multiplexed-out event). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "backend/pmc_plugin.h"

static int fake_probe(const struct pmc_env *env, struct pmc_probe *out)
{
	(void)env;
	out->usable = out->hardware = true;
	return 0;
}

static int fake_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *o,
		     void **ctx)
{
	(void)evs, (void)n, (void)o;
	*ctx = NULL;
	return 0;
}

static int fake_nop(void *ctx)
{
	(void)ctx;
	return 0;
}

static int fake_read(void *ctx, struct pmc_count *vals, size_t n)
{
	const char *mode = getenv("PMC_FAKE_MODE");
	uint64_t v = mode && strcmp(mode, "garbage") == 0 ? 0xdeadbeef12345ULL : 0;
	bool idle = mode && strcmp(mode, "unscheduled") == 0;

	(void)ctx;
	for (size_t i = 0; i < n; i++)
		vals[i] = (struct pmc_count){ .value = v, .raw = v, .enabled = idle ? 1000 : 1,
					     .running = !idle };
	return 0;
}

/* Sampling "works" but never fires, as on a vPMU without overflow interrupts. */
static int fake_arm(void *ctx, int signo)
{
	(void)ctx, (void)signo;
	return 0;
}

static int fake_overflow(void *ctx, const siginfo_t *si)
{
	(void)ctx, (void)si;
	return -1;
}

static int fake_rearm(void *ctx, int idx, uint64_t period)
{
	(void)ctx, (void)idx, (void)period;
	return 0;
}

#ifdef FAKE_OLD_SIZE
/* Built as pmc-oldsize.so: a descriptor from before kernel_chain was
 * appended (its size says so), so the core must take the op as NULL and
 * never call what lies past the size. */
static int kernel_chain_abort(void *ctx, int idx, uint64_t *pcs, size_t max, unsigned *flags)
{
	(void)ctx, (void)idx, (void)pcs, (void)max, (void)flags;
	abort();
}
#define FAKE_SIZE PMC_PLUGIN_SIZE_MIN_1
#define FAKE_NAME "oldsize"
#else
#define FAKE_SIZE sizeof(struct pmc_plugin)
#define FAKE_NAME "fakecounter"
#endif

PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
	.abi = PMC_PLUGIN_ABI,
	.size = FAKE_SIZE,
	.name = FAKE_NAME,
	.description = "test plugin: a PMU that counts zeros or garbage",
	.version = "0",
	.flags = PMC_PLUGIN_PERF_ATTR | PMC_PLUGIN_HARDWARE,
	.ops = {
		.probe = fake_probe,
		.open = fake_open,
		.start = fake_nop,
		.stop = fake_nop,
		.read = fake_read,
		.arm = fake_arm,
		.overflow = fake_overflow,
		.rearm = fake_rearm,
		.close = fake_nop,
#ifdef FAKE_OLD_SIZE
		.kernel_chain = kernel_chain_abort,
#endif
	},
};
