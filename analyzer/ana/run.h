/* What ran: the facts about each run of a finished set (struct ana_run),
 * owned by the set and valid until ana_set_free.  Its trust bits are
 * trust.h's; the same facts as typed records are facts.h's.
 */
#ifndef ANALYZER_ANA_RUN_H
#define ANALYZER_ANA_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what ran (valid after finish) ---- */

/* Runs after finish: with a split, every (run, group) pair is one run,
 * labelled e.g. "rank=3" or "base rank=3". */
ANA_API unsigned ana_set_n_runs(const struct ana_set *s);

struct ana_facts;

struct ana_kv {
	const char *key;
	const char *value;		/* the common value, or "v1, v2, ... (N distinct)" */
	const char *const *values;	/* every distinct value, first-seen order */
	size_t n_values;
};
struct ana_event_fact {
	const char *name;		/* used, canonical */
	const char *requested;		/* as asked; "" if not recorded */
	const char *unit;
	uint64_t period, freq, random_mask;	/* from the first file; see mixed */
	bool mixed;			/* period/freq/mask differ between files */
	uint64_t samples;		/* total samples of this event in the run */
	double weight;			/* total sample weight */
};
struct ana_counter_fact {
	const char *name;
	uint64_t value;			/* summed over the run's files */
	double pct;			/* of the run's samples (NAN if not a loss counter) */
	bool warn;			/* a loss counter above 1% of samples */
};
/* Facts about one run; owned by the set.  Arrays may grow at the end. */
struct ana_run {
	const char *label;
	unsigned n_files, n_repeats, n_partial;	/* n_partial: files marked partial */
	size_t n_meta;
	const struct ana_kv *meta;	/* merged metadata, in first-seen key order */
	size_t n_events;
	const struct ana_event_fact *events;	/* indexed like the set's events; samples 0 if absent */
	size_t n_counters;
	const struct ana_counter_fact *counters;
	double duration;		/* s, wall clock: latest end_time - earliest start_time
					 * of its files (overlapping threads and processes are
					 * not summed; gaps between processes count); with
					 * repeats, the mean over repeats.  NAN if unknown */
	double steal;			/* s, host steal time during the run (largest
					 * steal_end - steal_start of its files; with repeats,
					 * the mean over repeats); NAN if unknown */
	double steal_share;		/* steal / (duration x the guest's cpus): the share
					 * of the run's CPU time the host gave to others,
					 * 0..1; NAN if unknown */
	/* Trust (docs/analyzer.md, "Trust flags"); times are means per repeat. */
	double cpu_time;		/* s, the threads' own CPU time while sampled, as
					 * the kernel counts it (thread_cpu_ns); NAN if the
					 * profiles do not record it */
	double user_time;		/* s, its user-mode part (thread_user_ns); NAN if
					 * the profiles do not record it */
	double sampled_time;		/* s, time-based samples x period, same threads */
	double expected_time;		/* s, the time those samples should add up to:
					 * CPU, user or system time (basis) */
	double coverage;		/* sampled / expected time over the threads
					 * expecting >= ANA_TRUST_MIN_EXPECTED samples;
					 * NAN if none */
	unsigned basis;			/* ANA_BASIS_* bits: what the judged threads'
					 * samples were compared with */
	unsigned n_judged, n_short;	/* threads judged; of them, below the threshold */
	double handler_time;		/* s, the collector's signal handler (handler_ns);
					 * NAN if not recorded */
	const char *emulator;		/* "QEMU-TCG", ... when it ran under an emulator */
	unsigned trust;			/* ANA_TRUST_* bits */
	const char *virtualization;	/* the layers it ran on, innermost first: "Xen
					 * 4.17.7 (PV dom0) on QEMU-TCG (emulation)", from
					 * the profiles' "virtualization" (or older
					 * profiles' "hypervisor"); NULL: bare metal */
	double loss_scale;		/* expected / sampled time of a run that lost
					 * samples (coverage < 1), else 1: what a raw
					 * count is multiplied by to stand for the CPU
					 * time the run had (docs/analyzer.md) */
	const struct ana_facts *facts;	/* all of the above as typed records, with
					 * what to show and warn about (facts.h) */
	const char *time_slice;		/* the slice of the run its counts are of
					 * (opts.time: opts.time_spec as typed), or
					 * NULL for the whole run */
	double time_slice_s;		/* s of the run's span (its longest repeat's)
					 * the slice covers; NAN without a slice or a
					 * timeline */
};

/* What run `run` (< ana_set_n_runs) was; owned by the set.  NULL + EINVAL
 * before finish or past the end. */
ANA_API const struct ana_run *ana_set_run(const struct ana_set *s, unsigned run);

/* Run run's totals on event column ev: its samples (every one: --dsos and
 * --symbols do not apply, they are what percentages are of) and their
 * shown value (samples, or weights with opts.weighted); either pointer may
 * be NULL.  0, or -EINVAL (a metric column, no such run, not finished). */
ANA_API int ana_set_total(const struct ana_set *s, unsigned run, size_t ev, uint64_t *samples,
			  double *value);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_RUN_H */
