/* Trust flags: when a run's numbers cannot be trusted (samples lost or
 * in excess, an emulator, the collector's own time, steal, a virtual
 * machine), their thresholds and names (docs/analyzer.md, "Trust flags").
 * A run's flags are struct ana_run's trust and basis (run.h).  The
 * strings returned are static, or the caller's buf.
 */
#ifndef ANALYZER_ANA_TRUST_H
#define ANALYZER_ANA_TRUST_H

#include <stddef.h>

#include "analyzer/ana/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a time-based event's samples should add up to: all of the thread's
 * CPU time, or the part its event can see (an event that excludes the
 * kernel, ':u', sees user time; one that counts only the kernel, ':k',
 * system time). */
enum ana_basis {
	ANA_BASIS_CPU = 1 << 0,		/* thread_cpu_ns */
	ANA_BASIS_USER = 1 << 1,	/* thread_user_ns */
	ANA_BASIS_SYSTEM = 1 << 2,	/* thread_cpu_ns - thread_user_ns */
};

/* Thresholds of the trust flags (docs/analyzer.md). */
#define ANA_TRUST_MIN_EXPECTED 50	/* samples a thread must expect to be judged */
#define ANA_TRUST_LOST_SHARE 0.20		/* coverage below 1 - this: samples lost */
#define ANA_TRUST_UNSAMPLED_SHARE 0.05	/* CPU time in threads never sampled (raw clone) */
#define ANA_TRUST_EXCESS_SHARE 0.20		/* coverage above 1 + this: samples in excess */
#define ANA_TRUST_TICK_HZ 100			/* the coarsest kernel tick (CONFIG_HZ) */
#define ANA_TRUST_MIN_SPLIT 100			/* what a user or system time must be worth,
						 * in samples: good to 1/sqrt(this) */
#define ANA_TRUST_HANDLER_SHARE 0.05		/* handler time above this share of CPU time */
#define ANA_TRUST_STEAL_SHARE 0.05		/* host steal above this share of CPU time */
enum ana_trust {
	ANA_TRUST_SAMPLES_LOST = 1 << 0,	/* time-based samples short of CPU time */
	ANA_TRUST_SAMPLES_EXCESS = 1 << 1,	/* more samples than CPU time */
	ANA_TRUST_EMULATED = 1 << 2,		/* ran under an emulator (QEMU-TCG, ...) */
	ANA_TRUST_COLLECTOR_TIME = 1 << 3,	/* the handler's share of CPU time is high */
	ANA_TRUST_STEAL = 1 << 4,		/* a noisy neighbour (steal_share) */
	ANA_TRUST_VIRTUALIZED = 1 << 5,		/* ran in a virtual machine: never bare
						 * metal, even as a "native" baseline */
	ANA_TRUST_N = 6
};
/* What ANA_BASIS_* bits name: "CPU time", "user time", "system time", or
 * for more than one "CPU, user or system time"; "" for none.  Static. */
ANA_API const char *ana_basis_str(unsigned basis);
/* Name of one ANA_TRUST_* bit ("samples-lost", "emulated", ...), or NULL. */
ANA_API const char *ana_trust_name(unsigned bit);
/* The flags as "samples-lost;emulated" into buf (as CSV and JSON show them);
 * "" when none.  Returns buf. */
ANA_API const char *ana_trust_str(unsigned flags, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_TRUST_H */
