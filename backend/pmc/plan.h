/* libpmc plans: from what the user asked for (event specs, perhaps a
 * backend) to the backend and events that will actually be used, tried
 * for real, with the documented fallback chain and the reason in one line.
 *
 * The plan holds a loaded backend: pmc_plan_release unloads it.  Signal
 * safety: none (it loads plugins and opens counters); plan before
 * sampling starts.
 */
#ifndef PMC_PLAN_H
#define PMC_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "core.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmc_plan_flags {
	PMC_PLAN_NO_FALLBACK = 1 << 0,	/* an unusable event is an error */
	PMC_PLAN_SAMPLING = 1 << 1,	/* events will be sampled (need a period) */
};

/* The backend and events that will actually be used for a request. */
struct pmc_plan {
	struct pmc_backend *be;
	size_t n;
	struct pmc_event ev[PMC_MAX_EVENTS];	/* used */
	struct pmc_event req[PMC_MAX_EVENTS];	/* requested (parsed) */
	bool fell_back;
	char why[512];			/* one line: what was chosen and why */
};

/* Resolve requested specs (n may be 0: the machine's best default) and an
 * optional backend name into a plan, trying each event for real and
 * following the documented fallback chain (EVENT -> EVENT:u where
 * perf_event_paranoid 2 refuses this user the kernel and the event has
 * neither ':u' nor ':k'; hardware event -> cpu-clock -> CPUTIME) unless
 * PMC_PLAN_NO_FALLBACK or a backend is named.  diag gets per-element parse errors;
 * err_msg one line for other failures.  Free with pmc_plan_release(). */
PMC_API int pmc_plan_make(const char *const *specs, size_t n, const char *backend, unsigned flags,
			  struct pmc_plan *plan, struct pmc_diag *diag, char *err_msg, size_t len);
PMC_API void pmc_plan_release(struct pmc_plan *plan);

#ifdef __cplusplus
}
#endif
#endif /* PMC_PLAN_H */
