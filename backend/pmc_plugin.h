/* The backend plugin ABI.
 *
 * A plugin is pmc-NAME.so exporting exactly one symbol, PMC_PLUGIN_SYMBOL, a
 * const struct pmc_plugin.  The core checks abi and size before calling
 * anything; a NULL op means "not supported" and the core never patches the
 * table.  Plugins are self-contained: they call nothing in libpmc.
 */
#ifndef PMC_PLUGIN_H
#define PMC_PLUGIN_H

#include <signal.h>
#include <stddef.h>

#include "pmc.h"

#define PMC_PLUGIN_ABI 1
#define PMC_PLUGIN_SYMBOL "pmc_plugin"
/* Size of the first ABI 1 descriptor (before kernel_chain was appended):
 * the core accepts any size from this up to sizeof(struct pmc_plugin). */
#define PMC_PLUGIN_SIZE_MIN_1 (offsetof(struct pmc_plugin, ops) + offsetof(struct pmc_plugin_ops, kernel_chain))

/* An event the plugin defines itself (PMC_KIND_PLUGIN). */
struct pmc_plugin_event {
	const char *name;		/* e.g. "CPUTIME" */
	const char *desc;
	const char *unit;		/* unit of the period: "us", "ns", "events" */
	uint32_t type;			/* plugin-private */
	uint64_t config;		/* plugin-private */
	uint64_t default_period;	/* for ~1 kHz sampling */
};

enum pmc_plugin_flags {
	PMC_PLUGIN_PERF_ATTR = 1 << 0,	/* accepts PMC_KIND_PERF events */
	PMC_PLUGIN_HARDWARE = 1 << 1,	/* only hardware events (perf_event-based vPMU) */
	PMC_PLUGIN_NO_INHERIT = 1 << 2,	/* opts.inherit is ignored: counters cannot
					 * follow the children of the counted process */
	PMC_PLUGIN_SILENT_KERNEL = 1 << 3,	/* opts.kernel_silent works: kernel-mode
					 * samples go to a ring, not to a signal */
};

struct pmc_plugin_ops {
	/* Can it work here, and why not.  Must be cheap and side-effect free. */
	int (*probe)(const struct pmc_env *env, struct pmc_probe *out);
	/* Open n counters for opts->pid (0 = calling thread), stopped unless
	 * opts->enable_on_exec.  *ctx is the plugin's. */
	int (*open)(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
		    void **ctx);
	int (*start)(void *ctx);
	int (*stop)(void *ctx);
	/* Async-signal-safe. */
	int (*read)(void *ctx, struct pmc_count *vals, size_t n);
	/* Arm i-mode on every event with a period/freq: overflow -> signo on
	 * the counted thread. */
	int (*arm)(void *ctx, int signo);
	/* Async-signal-safe: index of the event this signal is about, or -1. */
	int (*overflow)(void *ctx, const siginfo_t *si);
	/* Async-signal-safe: re-arm event idx (period 0 = unchanged). */
	int (*rearm)(void *ctx, int idx, uint64_t period);
	/* Copy the i-mode counts kept in ctx (any thread, never waits).
	 * Async-signal-safe. */
	int (*stats)(void *ctx, struct pmc_sample_stats *st);
	int (*close)(void *ctx);
	/* Appended in ABI 1 (descriptor size grew; the core accepts the
	 * shorter one and takes this op as NULL).  Async-signal-safe, no
	 * syscall, called in the handler after overflow() returned idx and
	 * before rearm(): the kernel side of that overflow's sample, kernel
	 * pcs leaf first (the sampled instruction, then return addresses)
	 * into pcs[max], *flags from enum pmc_kchain_flags.  Returns the
	 * number of pcs (0: none, e.g. a user-mode sample), -ENODATA when no
	 * sample record is waiting, -EBUSY when the record area is in use. */
	int (*kernel_chain)(void *ctx, int idx, uint64_t *pcs, size_t max, unsigned *flags);
	/* Appended later in ABI 1: pmc_group_record.  Async-signal-safe. */
	int (*record)(void *ctx, int idx, int ring, void *buf, size_t len, struct pmc_record *rec);
	/* Appended later in ABI 1: pmc_group_orphan.  No syscall: from then
	 * on no op makes one on the group's descriptors. */
	int (*orphan)(void *ctx);
};

struct pmc_plugin {
	uint32_t abi;			/* PMC_PLUGIN_ABI */
	uint32_t size;			/* sizeof(struct pmc_plugin) */
	const char *name;		/* matches pmc-NAME.so */
	const char *description;
	const char *version;
	unsigned flags;			/* enum pmc_plugin_flags */
	const struct pmc_plugin_event *events;
	size_t n_events;
	struct pmc_plugin_ops ops;
};

#define PMC_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The head of a descriptor: abi and size from this header (what the core
 * checks before it calls anything), then the plugin's name, description
 * and version.  For designated initializers:
 *   PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
 *           PMC_PLUGIN_HEAD("NAME", "what it counts", "1.0"),
 *           .flags = ..., .ops = { ... },
 *   }; */
#define PMC_PLUGIN_HEAD(name_, description_, version_)                                   \
	.abi = PMC_PLUGIN_ABI, .size = sizeof(struct pmc_plugin), .name = (name_),          \
	.description = (description_), .version = (version_)

#endif /* PMC_PLUGIN_H */
