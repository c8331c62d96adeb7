/* pmc-perfctr_xen.so: per-thread hardware counters in a Xen guest through
 * the perfctr-xen driver (a-mode reads in user space, i-mode sampling). */
#include "config.h"

#include "plugins/perfctr_xen/pcx.h"

static const struct pmc_plugin_event events[] = {
	{ PCX_TSC_EVENT,
	  "time-stamp counter cycles while this thread runs, virtualized per VCPU (counting only)",
	  "events", 1, 0, 0 },
};

PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
	PMC_PLUGIN_HEAD("perfctr_xen",
			"Xen guests with perfctr-xen: per-thread counters virtualized per VCPU "
			"(rdpmc reads, overflow sampling)",
			"1.0"),
	.flags = PMC_PLUGIN_PERF_ATTR | PMC_PLUGIN_HARDWARE,
	.events = events,
	.n_events = sizeof(events) / sizeof(events[0]),
	.ops = {
		.probe = pcx_probe,
		.open = pcx_open,
		.start = pcx_start,
		.stop = pcx_stop,
		.read = pcx_read,
		.arm = pcx_arm,
		.overflow = pcx_overflow,
		.rearm = pcx_rearm,
		.stats = pcx_stats,
		.close = pcx_close,
	},
};
