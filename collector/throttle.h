/* The sampling handler's throttle, as the kernel's perf_cpu_time_max_percent:
 * the handler may use half of the thread's time since its previous run,
 * with THROTTLE_CAP_NS of credit to absorb a burst (a loaded host's slow
 * runs).  Past that, the sample is skipped (dropped_throttled) and the
 * event's period doubles (throttle_period_raised), at most once per
 * THROTTLE_CAP_NS; with credit to spare it halves back, a step per run.  A
 * program with 3000-deep stacks at 10 us periods would otherwise spend all
 * its time in the handler (every run re-arms into the next overflow).
 *
 * The once-per-THROTTLE_CAP_NS limit is for the signals queued behind one
 * slow run (a TCG guest whose host deschedules it mid-run): they arrive
 * back to back, and doubling at each took a 1 ms period to 65 s, after
 * which the thread was never sampled again.  Sustained overload still
 * climbs, a step per THROTTLE_CAP_NS.
 *
 * Pure and async-signal-safe: the handler gives it the time (CLOCK_MONOTONIC
 * ns) and charges it each run's; tests/unit/test_throttle.c drives it. */
#ifndef COLLECTOR_THROTTLE_H
#define COLLECTOR_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/pmc/core.h"	/* PMC_MAX_EVENTS */

#define THROTTLE_SHARE_SHIFT 1
#define THROTTLE_CAP_NS 20000000
#define THROTTLE_MAX_SLOW 16

/* One thread's throttle; all zero to start. */
struct throttle {
	int64_t credit_ns;			/* time the handler may still use */
	uint64_t last_ns;			/* when it last ran */
	uint8_t slow[PMC_MAX_EVENTS];		/* each event's period is times 2^slow */
	uint64_t raised_ns[PMC_MAX_EVENTS];	/* when slow last went up */
};

enum throttle_verdict {
	THROTTLE_PASS,		/* take the sample */
	THROTTLE_DROP,		/* skip it */
	THROTTLE_RAISE,		/* skip it, and the event's period doubled */
};

/* A run of the handler for event idx starts at now; periodic: the event
 * has a period the throttle may raise (not a frequency). */
static inline enum throttle_verdict throttle_check(struct throttle *th, int idx, bool periodic,
						   uint64_t now)
{
	int64_t credit = th->credit_ns + (int64_t)((now - th->last_ns) >> THROTTLE_SHARE_SHIFT);

	th->credit_ns = credit > THROTTLE_CAP_NS ? THROTTLE_CAP_NS : credit;
	th->last_ns = now;
	if (th->credit_ns >= 0) {
		if (th->slow[idx] && th->credit_ns >= THROTTLE_CAP_NS / 2)
			th->slow[idx]--;
		return THROTTLE_PASS;
	}
	if (!periodic || th->slow[idx] >= THROTTLE_MAX_SLOW ||
	    now - th->raised_ns[idx] < THROTTLE_CAP_NS)
		return THROTTLE_DROP;
	th->slow[idx]++;
	th->raised_ns[idx] = now;
	return THROTTLE_RAISE;
}

/* That run took ns. */
static inline void throttle_charge(struct throttle *th, uint64_t ns)
{
	th->credit_ns -= (int64_t)ns;
}

#endif
