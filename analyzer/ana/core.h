/* libpmcprof-analyzer core: the export macro, the error codes and time
 * ranges.
 *
 * ANA_API marks the interface the commands (cli/, viewer-tui/) may call.
 * The library is a static convenience library (not installed), so the
 * mark changes nothing at link time today: tests/integration/analyzer_api.sh
 * checks that every analyzer function the commands call is declared with
 * it (docs/analyzer.md, "Library API in brief").
 *
 * Errors: 0 or -errno / -ANA_E* / -PROF_E*; pointers NULL with errno set.
 * ana_strerror() names any of them.  The library never prints and never
 * exits; problems met while reading or symbolizing become notes (note.h).
 * The strings returned here are static.
 */
#ifndef ANALYZER_ANA_CORE_H
#define ANALYZER_ANA_CORE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ANA_API __attribute__((visibility("default")))

enum ana_err {
	ANA_ERR_BASE = 6000,
	ANA_ESTATE = ANA_ERR_BASE,	/* call not valid in this state (e.g. add after finish) */
	ANA_EMETRIC,			/* bad --metric expression */
	ANA_ENOFUNC,			/* no function of that name */
	ANA_ENODATA,			/* no profile found under a path */
	ANA_EEVENTS,			/* raw ratio between runs compared on different events */
	ANA_ERR_END
};
/* Static message for any code returned here (negative or positive). */
ANA_API const char *ana_strerror(int err);

/* A time range, seconds after the run's start (the launcher's start of
 * the command), or with pct percentages of the run's span (its start to
 * the end of its last thread).  end may be INFINITY. */
struct ana_time_range {
	double start, end;
	bool pct;
};
/* Parse perf's --time syntax: "START,END" in seconds (either may be empty),
 * or a comma-separated list of percent slices "P%/N" (the Nth slice of
 * P%) and ranges "A%-B%".  Fills out[max]; returns how many, or -EINVAL
 * with a one-line reason in msg. */
ANA_API int ana_time_parse(const char *spec, struct ana_time_range *out, size_t max, char *msg,
			   size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_CORE_H */
