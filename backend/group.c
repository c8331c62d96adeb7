/* Counter groups: the core checks arguments, the plugin does the work.
 * The read/overflow/rearm paths are one indirect call: they run in signal
 * handlers and on self-monitoring hot paths. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend/internal.h"

#define DEFAULT_SIGNO (SIGRTMIN + 4)

int pmc_group_open(struct pmc_backend *be, const struct pmc_event *evs, size_t n,
		   const struct pmc_group_opts *opts, struct pmc_group **out)
{
	struct pmc_group_opts o = { .sz = sizeof(o) };
	const struct pmc_plugin *pl = be->plugin;
	struct pmc_group *g;
	int ret;

	*out = NULL;
	if (n == 0)
		return -EINVAL;
	if (n > PMC_MAX_EVENTS)
		return -PMC_ETOOMANY;
	if (opts) {
		if (opts->sz < offsetof(struct pmc_group_opts, signo) + sizeof(int))
			return -EINVAL;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
		o.sz = sizeof(o);
	}
	if (!o.signo)
		o.signo = DEFAULT_SIGNO;
	if (o.signo < 1 || o.signo > SIGRTMAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!pmc_backend_accepts(be, &evs[i]))
			return -PMC_EBACKEND;
	if (o.sample && !pl->ops.arm)
		return -PMC_ENOTSUP;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->be = be;
	g->n = n;
	ret = pl->ops.open(evs, n, &o, &g->ctx);
	if (ret < 0) {
		free(g);
		return ret;
	}
	if (o.sample) {
		ret = pl->ops.arm(g->ctx, o.signo);
		if (ret < 0) {
			pl->ops.close(g->ctx);
			free(g);
			return ret;
		}
	}
	*out = g;
	return 0;
}

int pmc_group_start(struct pmc_group *g)
{
	return g->be->plugin->ops.start ? g->be->plugin->ops.start(g->ctx) : -PMC_ENOTSUP;
}

int pmc_group_stop(struct pmc_group *g)
{
	return g->be->plugin->ops.stop ? g->be->plugin->ops.stop(g->ctx) : -PMC_ENOTSUP;
}

int pmc_group_read(struct pmc_group *g, struct pmc_count *vals, size_t n)
{
	if (n > g->n)
		return -EINVAL;
	return g->be->plugin->ops.read ? g->be->plugin->ops.read(g->ctx, vals, n) : -PMC_ENOTSUP;
}

int pmc_group_overflow(struct pmc_group *g, const void *si)
{
	return g->be->plugin->ops.overflow ? g->be->plugin->ops.overflow(g->ctx, si) : -1;
}

int pmc_group_rearm(struct pmc_group *g, int idx, uint64_t period)
{
	if (idx < 0 || (size_t)idx >= g->n)
		return -EINVAL;
	return g->be->plugin->ops.rearm ? g->be->plugin->ops.rearm(g->ctx, idx, period)
					: -PMC_ENOTSUP;
}

int pmc_group_stats_sz(struct pmc_group *g, struct pmc_sample_stats *st, size_t size)
{
	struct pmc_sample_stats full;
	int ret;

	memset(&full, 0, sizeof(full));
	ret = g->be->plugin->ops.stats ? g->be->plugin->ops.stats(g->ctx, &full) : 0;
	memcpy(st, &full, size < sizeof(full) ? size : sizeof(full));
	return ret;
}

int(pmc_group_stats)(struct pmc_group *g, struct pmc_sample_stats *st)
{
	return pmc_group_stats_sz(g, st, sizeof(*st));
}

int pmc_group_kernel_chain(struct pmc_group *g, int idx, uint64_t *pcs, size_t max,
			   unsigned *flags)
{
	const struct pmc_plugin *pl = g->be->plugin;

	*flags = 0;
	/* A descriptor of the first ABI 1 size ends before this op. */
	if (pl->size < offsetof(struct pmc_plugin, ops.kernel_chain) + sizeof(void *) ||
	    !pl->ops.kernel_chain)
		return -PMC_ENOTSUP;
	return pl->ops.kernel_chain(g->ctx, idx, pcs, max, flags);
}

int pmc_group_record(struct pmc_group *g, int idx, enum pmc_record_ring ring, void *buf,
		     size_t len, struct pmc_record *rec)
{
	const struct pmc_plugin *pl = g->be->plugin;

	if (idx < 0 || (size_t)idx >= g->n)
		return -EINVAL;
	if (pl->size < offsetof(struct pmc_plugin, ops.record) + sizeof(void *) || !pl->ops.record)
		return -PMC_ENOTSUP;
	return pl->ops.record(g->ctx, idx, (int)ring, buf, len, rec);
}

int pmc_group_orphan(struct pmc_group *g)
{
	const struct pmc_plugin *pl = g->be->plugin;

	if (pl->size < offsetof(struct pmc_plugin, ops.orphan) + sizeof(void *) || !pl->ops.orphan)
		return -PMC_ENOTSUP;
	return pl->ops.orphan(g->ctx);
}

int pmc_group_close(struct pmc_group *g)
{
	int ret;

	if (!g)
		return 0;
	ret = g->be->plugin->ops.close(g->ctx);
	free(g);
	return ret;
}
