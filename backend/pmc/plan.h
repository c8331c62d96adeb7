/* libpmc plans: from what the user asked for (event specs, perhaps a
 * backend) to the backend and events that will actually be used, tried
 * for real, with the documented fallback chain and the reason in one line.
 *
 * The plan is the library's and holds a loaded backend: pmc_plan_free
 * unloads it and frees the plan.  Signal safety: none (it loads plugins
 * and opens counters); plan before sampling starts.
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

/* The backend and events that will actually be used for a request: the
 * library's, opaque (it holds two lists of events and can grow). */
struct pmc_plan;

/* Resolve requested specs (n may be 0: the machine's best default) and an
 * optional backend name into a plan, trying each event for real and
 * following the documented fallback chain (EVENT -> EVENT:u where
 * perf_event_paranoid 2 refuses this user the kernel and the event has
 * neither ':u' nor ':k'; hardware event -> cpu-clock -> CPUTIME) unless
 * PMC_PLAN_NO_FALLBACK or a backend is named.  diag gets per-element parse
 * errors; err_msg one line for other failures.  On success *out is a new
 * plan (free it with pmc_plan_free); else *out is NULL. */
PMC_API int pmc_plan_new(const char *const *specs, size_t n, const char *backend, unsigned flags,
			 struct pmc_plan **out, struct pmc_diag *diag, char *err_msg, size_t len);
/* Unload the plan's backend and free it.  plan may be NULL. */
PMC_API void pmc_plan_free(struct pmc_plan *plan);

/* The accessors take NULL as the empty plan (no backend, no events).
 * What they return lives as long as the plan. */
/* The loaded backend the events are for. */
PMC_API struct pmc_backend *pmc_plan_backend(const struct pmc_plan *plan);
/* How many events will be used (fallback may merge some: n or fewer). */
PMC_API size_t pmc_plan_nevents(const struct pmc_plan *plan);
/* The events that will be used, an array of pmc_plan_nevents(): what
 * pmc_group_open takes. */
PMC_API const struct pmc_event *pmc_plan_events(const struct pmc_plan *plan);
/* The events as requested (parsed), *n of them: the request's order. */
PMC_API const struct pmc_event *pmc_plan_requested(const struct pmc_plan *plan, size_t *n);
/* Whether an event was replaced (the fallback chain, or ':u' added). */
PMC_API bool pmc_plan_fell_back(const struct pmc_plan *plan);
/* One line: what was chosen and why ("" for NULL). */
PMC_API const char *pmc_plan_why(const struct pmc_plan *plan);

#ifdef __cplusplus
}
#endif
#endif /* PMC_PLAN_H */
