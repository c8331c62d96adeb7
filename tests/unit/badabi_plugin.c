/* A plugin built for a future ABI: the loader must refuse it without
 * calling anything (its ops abort if called). */
#include "config.h"

#include <stdlib.h>

#include "backend/pmc_plugin.h"

static int must_not_be_called(const struct pmc_env *env, struct pmc_probe *out)
{
	(void)env;
	(void)out;
	abort();
}

static int open_abort(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *o,
		      void **ctx)
{
	(void)evs, (void)n, (void)o, (void)ctx;
	abort();
}

static int close_abort(void *ctx)
{
	(void)ctx;
	abort();
}

PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
	.abi = PMC_PLUGIN_ABI + 1,
	.size = sizeof(struct pmc_plugin),
	.name = "badabi",
	.description = "test plugin with a wrong ABI version",
	.version = "0",
	.ops = { .probe = must_not_be_called, .open = open_abort, .close = close_abort },
};
