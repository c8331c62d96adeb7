/* A query: which rows of a finished set to make (a view: flat per
 * function, line or module, callers and callees, a tree), on which event
 * column, sorted, cut and compared how.  Sized (sz first; ANA_QUERY).
 * Passed to ana_set_query (rows.h), which keeps its own copy.
 */
#ifndef ANALYZER_ANA_QUERY_H
#define ANALYZER_ANA_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- queries ---- */

enum ana_view {
	ANA_VIEW_FUNCS,		/* flat, per function (module basename + name) */
	ANA_VIEW_LINES,		/* flat, per source line */
	ANA_VIEW_MODULES,	/* flat, per module */
	ANA_VIEW_CALLERS,	/* functions calling query.func; incl = its cost under each */
	ANA_VIEW_CALLEES,	/* functions called by query.func; incl = their cost under it */
	ANA_VIEW_TOPDOWN,	/* children of query.node in the calling-context tree */
	ANA_VIEW_BOTTOMUP,	/* query.node's callers in the inverted tree; roots = functions
				 * (self, incl as in FUNCS), children = callers with the part
				 * of that cost through them (docs/analyzer.md) */
};
enum ana_kind { ANA_SELF, ANA_INCL };
enum ana_sort { ANA_SORT_VALUE, ANA_SORT_NAME, ANA_SORT_RATIO };
enum ana_ratio {
	ANA_RATIO_SHARE,	/* share of the run's total / share in base */
	ANA_RATIO_RAW,		/* count in run / count in base */
	ANA_RATIO_DELTA,	/* share in run - share in base, in percentage points */
};
#define ANA_ROOT 0u		/* query.node for the top level of a tree */

struct ana_query {
	size_t sz;			/* sizeof(struct ana_query) */
	enum ana_view view;
	const char *func;		/* CALLERS/CALLEES: "name" or "module:name"; or NULL
					 * and node = a FUNCS row's node.  LINES: only that
					 * function's lines (NULL: all) */
	uint32_t node;			/* TOPDOWN/BOTTOMUP: expand this node */
	size_t event;			/* column to sort, filter and compare on; in
					 * compare mode each run uses its corresponding
					 * event (ana_set_run_event) */
	enum ana_kind kind;		/* self or inclusive for sort/compare/filters (TOPDOWN:
					 * always inclusive; BOTTOMUP: always self) */
	enum ana_sort sort;		/* descending value, name, or |log ratio| vs base */
	size_t top;			/* keep the first N rows; 0 = all */
	/* Compare mode: base >= 0 makes ana_rows_compare valid. */
	int base;			/* run index of the base, or -1 */
	enum ana_ratio ratio;
	uint64_t min_samples;		/* drop rows with fewer samples than this in every run */
	double conf;			/* confidence level; 0 means 0.95 */
	/* Trees: levels below node to include, depth-first (0 or 1: children
	 * only); top then limits the children of each node. */
	unsigned max_depth;
	double min_pct;			/* drop rows under this % of the run's total in
					 * every run (query.event, query.kind) */
	/* added in 0.2 */
	double min_pct_base;		/* compare mode: drop rows under this % of the
					 * base's total (the paper's "functions with at
					 * least N% of native samples") */
	enum ana_space { ANA_SPACE_ALL, ANA_SPACE_USER, ANA_SPACE_KERNEL } space;
					/* only user-space or only kernel rows ("[k]",
					 * the kernel pseudo-module) */
	double fdr;			/* compare mode: the false discovery rate the
					 * significant flags control over every row x run
					 * compared (Benjamini-Hochberg); 0: 1 - conf;
					 * < 0: off (each interval on its own) */
};
/* Presets base = -1: assign q.base afterwards (a second designated
 * initializer for it would trip -Woverride-init). */
#define ANA_QUERY(name, ...) \
	struct ana_query name = { .sz = sizeof(struct ana_query), .base = -1, __VA_ARGS__ }

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_QUERY_H */
