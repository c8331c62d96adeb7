/* Stage 3, query (query.c, metric.c, stats.c): rows over the aggregated
 * set, derived columns, and the statistics of comparisons.  The row set
 * (struct ana_rows) is query.c's; access.c hands it on through the calls
 * below, the exporters read it through analyzer.h.  Not installed. */
#ifndef ANALYZER_QUERY_H
#define ANALYZER_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"

/* ---- statistics (stats.c): docs/analyzer.md has the formulas ---- */
struct ratio_in {
	enum ana_ratio mode;
	double a, A;		/* samples of the row and total, in the run */
	double b, B;		/* same in the base */
	double va, vb;		/* shown values (samples or weights) for the point estimate */
	double vA, vB;
	double conf;
	double na, nb;		/* repeats of the run and of the base (raw: a mean
				 * per repeat, not a sum; 0 counts as 1) */
	/* each repeat's share (share, delta) or count (raw) of the row, for
	 * the repeats' own spread; n < 2: none */
	const double *ra, *rb;
	size_t nra, nrb;
	double la, lb;		/* raw: loss scales (ana_run.loss_scale); 0 = 1 */
};
void ratio_compute(const struct ratio_in *in, struct ana_cmp *out);
double z_for_conf(double conf);
/* Student's t: two-sided p of t with df degrees of freedom, and the t with
 * P(|T| <= t) = conf (df infinite or <= 0: the normal's). */
double t_two_sided_p(double t, double df);
double t_for_conf(double conf, double df);

/* ---- metrics (metric.c) ---- */
struct metric;
/* Parse "NAME=EXPR"; event names resolve through lookup (column index or
 * -1).  NULL + msg on error. */
struct metric *metric_parse(const char *spec, int (*lookup)(void *ctx, const char *name),
			    void *ctx, char *msg, size_t len);
const char *metric_name(const struct metric *m);
/* Evaluate with column values v[]; NAN on a division by zero. */
double metric_eval(const struct metric *m, const double *v);
void metric_free(struct metric *m);


/* A bottom-up node: a chain of functions f0 <- f1 <- ... (f0, the root's
 * function, called by f1, ...).  Its entries (pairs of symbolized nodes: an
 * occurrence of f0, and the cursor above it whose function is this node's)
 * live in one pool, s->bu_ent, and its
 * children are the consecutive nodes kid0 .. kid0 + n_kids - 1: no small
 * allocation per node or per entry. */
struct bunode {
	uint32_t parent, func;
	uint32_t kid0, n_kids;
	uint32_t ent, n_ent;		/* pairs s->bu_ent[2 * ent ..] */
	bool expanded, expandable;
};

/* ---- row sets (query.c) ---- */
const struct ana_query *rows_query(const struct ana_rows *r);
struct ana_set *rows_set(const struct ana_rows *r);
/* The event column run is compared on (compare mode), else query.event. */
size_t rows_event(const struct ana_rows *r, unsigned run);
/* Mark in is[] the functions q->func names (or q->node); how many. */
int funcs_match(const struct ana_set *s, const struct ana_query *q, uint8_t *is);

#endif
