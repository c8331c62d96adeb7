/* Comparisons: in compare mode (query.base >= 0) each row of each run
 * against the base run, with an interval, a p-value and a flag that
 * controls the false discovery rate (docs/analyzer.md, "Comparing runs"),
 * and the number formatting every front end shares.  Comparisons are
 * made on the caller's row set (rows.h) and filled into the caller's
 * struct ana_cmp; the formatters write into the caller's buffer.
 */
#ifndef ANALYZER_ANA_COMPARE_H
#define ANALYZER_ANA_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/query.h"
#include "analyzer/ana/rows.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compare mode: row i of `run` against the query's base run, on query.kind
 * and each run's event for query.event (ana_set_run_event): shares of
 * different events compare, raw counts do not (ana_set_query refuses
 * ANA_RATIO_RAW then, ANA_EEVENTS).  docs/analyzer.md gives the formulas. */
enum ana_presence { ANA_IN_BOTH, ANA_ONLY_BASE, ANA_ONLY_RUN, ANA_IN_NEITHER };
struct ana_cmp {
	double ratio;			/* per query.ratio; NAN when undefined */
	double lo, hi;			/* confidence interval (query.conf) */
	bool significant;		/* interval excludes 1 (0 for DELTA) */
	double spread;			/* run-to-run spread: coefficient of variation of the
					 * row's share across the run's repeats; NAN if 1 repeat */
	enum ana_presence presence;
	bool withheld;			/* the interval excludes no change, but significant
					 * is false: a per-line comparison against a run
					 * under an emulator, whose line attribution is
					 * unreliable (ANA_TRUST_EMULATED) */
	double p;			/* two-sided p-value of "no change", the larger of
					 * the count-based and the repeats' one */
	double df;			/* degrees of freedom of the repeats' t interval
					 * (INFINITY: counts only) */
	bool from_repeats;		/* lo, hi come from the repeats' spread (wider than
					 * the count-based interval, which they replace) */
	bool per_row;			/* the interval alone excludes no change (before
					 * the false discovery rate control) */
	double uncorrected;		/* raw mode: the ratio before the loss correction
					 * (ratio = uncorrected x loss_scale of run / of
					 * base); NAN in other modes */
};
/* 0, or -ANA_ESTATE if the query had no base, -EINVAL for a bad index.
 * significant is the false-discovery-rate-controlled flag (query.fdr):
 * the first call ranks the p-values of every row x run of the set. */
ANA_API int ana_rows_compare(const struct ana_rows *r, size_t i, unsigned run, struct ana_cmp *out);

/* The false discovery rate the significant flags control (0: off) and the
 * number of comparisons it is controlled over (*m, may be NULL). */
ANA_API double ana_rows_fdr(const struct ana_rows *r, size_t *m);

/* Number formatting every front-end shares (analyzer/format.c).  A ratio
 * or delta with precision for its size: "0.98", "12.5", "150"; "+1.2",
 * "+15" (percentage points); "-" for NAN, "inf". */
ANA_API void ana_fmt_ratio(char *buf, size_t len, double x, enum ana_ratio mode);
/* A comparison's interval, "[lo,hi]" in the same precision; "" if none. */
ANA_API void ana_fmt_interval(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio mode);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_COMPARE_H */
