/* libpmc events: parsing and encoding event specs, and listing the names
 * that can be asked for.
 *
 * A struct pmc_event is plain data the caller owns and may copy; the
 * parser keeps no pointer to the spec.  The listing callbacks get structs
 * the library owns, valid during the callback only.  Signal safety: none
 * of these functions is async-signal-safe (libpfm4 allocates); parse
 * before sampling starts.
 */
#ifndef PMC_EVENT_H
#define PMC_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an event is encoded: for a perf_event-based backend, or by the
 * plugin's own event table. */
enum pmc_event_kind {
	PMC_KIND_PERF = 1,	/* type/config* hold a perf_event_attr encoding */
	PMC_KIND_PLUGIN = 2,	/* type/config are from the plugin's event table */
};

/* One parsed and encoded event.  Plain data, copyable. */
struct pmc_event {
	char spec[PMC_NAME_MAX];	/* the element as written, e.g. "cycles:u@100003" */
	char name[PMC_NAME_MAX];	/* canonical name, e.g. "perf::CYCLES:u" or "CPUTIME" */
	char plugin[32];		/* plugin that owns a PMC_KIND_PLUGIN event */
	enum pmc_event_kind kind;
	uint32_t type;
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel;
	bool hardware;			/* needs a hardware PMU */
	uint64_t period;		/* sampling period in event units; 0 = counting only */
	uint64_t freq;			/* or a sampling frequency in Hz (then period is 0) */
	const char *unit;		/* "events", "ns", "us" (static) */
};

/* Diagnostics from parsing: one message per bad element. */
struct pmc_diag {
	int n;
	struct {
		int index;		/* which element (0-based) */
		int err;		/* -PMC_E* */
		char msg[256];
	} item[PMC_MAX_EVENTS];
};

/* Parse one spec "EVENT[:MOD...][@PERIOD|@fFREQ]" and encode it.
 * Aliases (cycles, instructions, cpu-clock, task-clock, page-faults, ...),
 * libpfm4 names (pmu::event:umask) and backend events (CPUTIME, REALTIME) are
 * accepted.  On error, msg says what was wrong (with a suggestion for a
 * misspelled name).  Returns 0 or -PMC_E*. */
PMC_API int pmc_event_parse(const char *spec, struct pmc_event *ev, char *msg, size_t msglen);

/* Parse a list; every element is checked, and each bad one gets its own
 * diag entry.  Returns 0 if all parsed, else the first error. */
PMC_API int pmc_event_parse_list(const char *const *specs, size_t n, struct pmc_event *evs,
				 struct pmc_diag *diag);

/* Default sampling period for an event without one: ~1 kHz per thread. */
PMC_API uint64_t pmc_event_default_period(const struct pmc_event *ev);

/* ---- listing what can be asked for ---- */

/* A PMU libpfm4 finds present here.  Filled by the library, valid during
 * the callback only; fields may be added at the end. */
struct pmc_pmu_desc {
	const char *name;		/* libpfm4's PMU name, e.g. "perf", "amd64_fam17h" */
	const char *desc;
	int nevents;
};
/* Calls fn for each PMU present.  A non-zero return from fn stops the walk
 * and is returned; else 0, or -PMC_EEVENT when libpfm4 cannot start. */
PMC_API int pmc_pmu_foreach(int (*fn)(const struct pmc_pmu_desc *pmu, void *arg), void *arg);

/* An event name pmc_event_parse takes.  Filled by the library, valid during
 * the callback only; fields may be added at the end. */
struct pmc_event_desc {
	const char *name;		/* "cycles", or libpfm4's "pmu::EVENT" */
	const char *target;		/* an alias: the event it stands for; else NULL */
	const char *desc;		/* may be NULL */
	const char *pmu;		/* a libpfm4 event: its PMU; else NULL */
};
enum pmc_event_set {
	PMC_EVENTS_ALIASES = 1 << 0,	/* perf-style aliases */
	PMC_EVENTS_PFM = 1 << 1,	/* libpfm4's events of the PMUs present */
};
/* Calls fn for each event of the sets asked for (PMC_EVENTS_*), aliases
 * first.  The plugins' own events come from pmc_backend_events.  Stops and
 * returns fn's value when it is non-zero; else 0, or -PMC_EEVENT when
 * libpfm4 cannot start. */
PMC_API int pmc_event_foreach(unsigned sets, int (*fn)(const struct pmc_event_desc *ev, void *arg),
			      void *arg);

#ifdef __cplusplus
}
#endif
#endif /* PMC_EVENT_H */
