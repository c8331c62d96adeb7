/* A row set: what ana_set_query answers.  The caller owns it (free with
 * ana_rows_free); it stays valid until then, even after later queries,
 * but reads the set, which must outlive it.  Strings are the set's.
 */
#ifndef ANALYZER_ANA_ROWS_H
#define ANALYZER_ANA_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"
#include "analyzer/ana/query.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row.  Strings are owned by the set. */
enum ana_row_flags {
	ANA_ROW_UNRESOLVED = 1 << 0,	/* name is "[module+0xOFF]" */
	ANA_ROW_INLINED = 1 << 1,	/* (tree) this frame was inlined into its parent */
	ANA_ROW_EXPANDABLE = 1 << 2,	/* (tree) has children */
};
struct ana_row {
	const char *name;		/* function, module (MODULES) or function (LINES) */
	const char *module;		/* module path, or NULL */
	const char *file;		/* source file, or NULL */
	unsigned line;			/* declaration line, or the line (LINES); 0 = unknown */
	const char *inlined_into;	/* FUNCS: the function it was inlined into (one
					 * row per such function); NULL if not inlined */
	const char *const *inlined_into_all;	/* FUNCS: inlined_into as a list (one
					 * element: a row per caller), for JSON */
	size_t n_inlined_into;
	uint32_t node;			/* trees: pass as query.node to expand; FUNCS: the
					 * function, for CALLERS/CALLEES */
	unsigned depth;			/* tree views: depth below the root (roots: 1) */
	unsigned flags;
};

struct ana_rows;
/* Run q over the finished set; cost is proportional to the contexts
 * visited.  NULL + errno: EINVAL (bad query), ANA_ENOFUNC (unknown func),
 * ANA_ESTATE (not finished), ANA_EEVENTS (a raw ratio between runs
 * compared on different events), ENOMEM. */
ANA_API struct ana_rows *ana_set_query(struct ana_set *s, const struct ana_query *q);
ANA_API void ana_rows_free(struct ana_rows *r);
ANA_API size_t ana_rows_n(const struct ana_rows *r);
ANA_API const struct ana_row *ana_rows_row(const struct ana_rows *r, size_t i);
/* Sample count of row i in run, event column ev (a metric column: 0). */
ANA_API uint64_t ana_rows_samples(const struct ana_rows *r, size_t i, unsigned run, size_t ev,
				  enum ana_kind k);
/* The shown value: samples, or weight with opts.weighted, or the metric;
 * NAN when undefined. */
ANA_API double ana_rows_value(const struct ana_rows *r, size_t i, unsigned run, size_t ev,
			      enum ana_kind k);
/* Value as a percentage of the run's total for that event; NAN for metrics. */
ANA_API double ana_rows_pct(const struct ana_rows *r, size_t i, unsigned run, size_t ev,
			    enum ana_kind k);

/* The query r answers (its copy), the set it reads, and the event column
 * run is compared on (compare mode: ana_set_run_event), else query.event. */
ANA_API const struct ana_query *ana_rows_query(const struct ana_rows *r);
ANA_API struct ana_set *ana_rows_set(const struct ana_rows *r);
ANA_API size_t ana_rows_event(const struct ana_rows *r, unsigned run);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_ROWS_H */
