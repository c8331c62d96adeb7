/* The calls of libpmc 0.1 whose interface has changed since, kept for the
 * binaries built against 0.1 (backend/libpmc.map, node PMC_0.1).  New code
 * cannot link them: they are not in the headers, and their symbols are
 * versioned (NAME@PMC_0.1, not the default NAME@@).  Built into libpmc.so
 * only: the static core has no version nodes. */
#include "config.h"

#include <string.h>

#include "backend/internal.h"

/* 0.1's struct pmc_plan, which the caller allocated. */
struct pmc_plan_0_1 {
	struct pmc_backend *be;
	size_t n;
	struct pmc_event ev[PMC_MAX_EVENTS];
	struct pmc_event req[PMC_MAX_EVENTS];
	bool fell_back;
	char why[512];
};

PMC_API int pmc_plan_make_0_1(const char *const *specs, size_t n, const char *backend,
			      unsigned flags, struct pmc_plan_0_1 *old, struct pmc_diag *diag,
			      char *err_msg, size_t len);
PMC_API void pmc_plan_release_0_1(struct pmc_plan_0_1 *old);
__asm__(".symver pmc_plan_make_0_1, pmc_plan_make@PMC_0.1");
__asm__(".symver pmc_plan_release_0_1, pmc_plan_release@PMC_0.1");

/* The plan made as today, its backend handed over to the old struct. */
int pmc_plan_make_0_1(const char *const *specs, size_t n, const char *backend, unsigned flags,
		      struct pmc_plan_0_1 *old, struct pmc_diag *diag, char *err_msg, size_t len)
{
	struct pmc_plan *plan;
	int ret = pmc_plan_new(specs, n, backend, flags, &plan, diag, err_msg, len);

	memset(old, 0, sizeof(*old));
	if (ret < 0)
		return ret;
	old->be = plan->be;
	plan->be = NULL;
	old->n = plan->n;
	memcpy(old->ev, plan->ev, sizeof(old->ev));
	memcpy(old->req, plan->req, sizeof(old->req));
	old->fell_back = plan->fell_back;
	memcpy(old->why, plan->why, sizeof(old->why));
	pmc_plan_free(plan);
	return 0;
}

void pmc_plan_release_0_1(struct pmc_plan_0_1 *old)
{
	pmc_backend_unload(old->be);
	old->be = NULL;
}
