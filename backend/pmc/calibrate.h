/* libpmc calibration: can this counter be trusted here?  A loop of known
 * work is counted and the result classified, as the KVM PMU self-tests do
 * (a vPMU may count zeros or garbage).
 *
 * The verdict is the caller's struct; the names are static.  Signal
 * safety: none (it opens a counter and runs ~10 ms of work).
 */
#ifndef PMC_CALIBRATE_H
#define PMC_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "core.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmc_trust {
	PMC_TRUST_VALID,	/* counted a known loop within the expected bounds */
	PMC_TRUST_UNVERIFIED,	/* counted, but there is no known expectation for it */
	PMC_TRUST_ZERO,		/* counted nothing where work certainly happened */
	PMC_TRUST_IMPLAUSIBLE,	/* counted outside the bounds (e.g. garbage) */
	PMC_TRUST_UNSUPPORTED,	/* could not be opened */
};

struct pmc_calibration {
	enum pmc_trust trust;
	uint64_t measured;		/* what the counter said */
	uint64_t lo, hi;		/* the accepted range (0, 0 when unverified) */
	int err;			/* open/read error for UNSUPPORTED */
	char why[200];			/* one line for the user */
};

/* Run a loop of exactly known work (a counted dec/jnz loop: N branches,
 * 2N instructions, a known CPU time) under ev, user space only, on the
 * calling thread, and classify the counter (like the KVM PMU self-tests).
 * Takes ~10 ms.  Returns 0 (the verdict is in the first size bytes of
 * out: an older, shorter struct is never overrun) or -errno.  Call it as
 * pmc_calibrate(be, ev, out), which passes sizeof(*out). */
PMC_API int pmc_calibrate_sz(struct pmc_backend *be, const struct pmc_event *ev,
			     struct pmc_calibration *out, size_t size);
#define pmc_calibrate(be, ev, out) pmc_calibrate_sz((be), (ev), (out), sizeof(*(out)))
/* The pmc_calibrate symbol of 0.1, for binaries built against it (0.1's
 * struct is today's). */
PMC_API int(pmc_calibrate)(struct pmc_backend *be, const struct pmc_event *ev,
			   struct pmc_calibration *out);
/* "valid", "unverified", "zero", "implausible", "unsupported" (static). */
PMC_API const char *pmc_trust_name(enum pmc_trust t);

#ifdef __cplusplus
}
#endif
#endif /* PMC_CALIBRATE_H */
