/* Stage 3, symbolize and aggregate the set (aggregate.c, linectx.c): at
 * ana_set_finish, the raw tree's distinct addresses are named through
 * symbolize.h, giving the functions, lines, module rows and the symbolized
 * tree, and the parts' counts are summed into struct agg per item and run;
 * the parts and the raw tree are freed then.  Not installed. */
#ifndef ANALYZER_AGGREGATE_H
#define ANALYZER_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/util.h"

struct ana_set;

/* ---- what symbolizing the set makes (aggregate.c) ---- */
struct func {
	const char *key;		/* linkage name (see struct sym_frame): with the
					 * module basename and inl_caller, what rows and
					 * runs are matched on */
	const char *name, *base, *path;	/* function, module basename and path */
	const char *file;		/* declaration */
	unsigned line;
	unsigned flags;			/* ANA_ROW_UNRESOLVED */
	uint32_t modrow;
	uint32_t inl_caller;		/* the function it was inlined into (part of the
					 * key: one row per caller), or NONE */
	uint32_t inl_n;			/* 1 when inlined, else 0 */
	const char *inl_name;		/* inl_caller's name (the one element of a row's
					 * inlined_into_all), or NULL */
	const char *inl_text;
};
struct line {
	uint32_t func;
	const char *file;
	unsigned line;
};
struct modrow {
	const char *base, *path;
};
struct frame {
	uint32_t func, line;
	bool inlined;			/* inlined into the next-outer frame */
};
struct addr {
	uint32_t mod;
	uint64_t off;
	uint32_t first, n;		/* frames[first..first+n), outermost first */
};
/* The self samples of one (run, line context, event) (linectx.c). */
struct lsample {
	uint32_t run, node, ev;
	uint64_t cnt;
	double wt;
};

/* ---- the sums ---- */
/* Sums per item (function, line, module, tree node) x event, [0] self and
 * [1] incl, kept per part.  A part's block for an item holds 2 * ne values,
 * [ev * 2 + kind], at index = the item (a dense part) or its position in
 * the part's sorted item list (a sparse part: only the items it has, as a
 * --by group with a small share of the contexts). */
struct agg_part {
	uint32_t *item;			/* sorted items, or NULL: dense */
	size_t n;			/* blocks */
	uint64_t *cnt;
	double *wt;			/* NULL unless weighted */
};
struct agg {
	struct agg_part *p;
	size_t np, ne, n;		/* parts, events, items */
	bool weighted;
};
/* np dense parts of n zeroed items.  0 or -ENOMEM. */
int agg_alloc(struct agg *a, size_t n, size_t np, size_t ne, bool weighted);
/* Grow dense parts to n items (zeroed). 0 or -ENOMEM. */
int agg_grow(struct agg *a, size_t n);
void agg_free(struct agg *a);
/* The block index of item in part p, or -1 if the part has none of it. */
static inline long agg_at(const struct agg *a, size_t p, size_t item)
{
	const struct agg_part *ap = &a->p[p];
	if (!ap->item)
		return item < ap->n ? (long)item : -1;
	size_t lo = 0, hi = ap->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ap->item[mid] < item)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ap->n && ap->item[lo] == item ? (long)lo : -1;
}
/* The 2 * ne counts (weights: NULL unless weighted) of block i of part p. */
static inline uint64_t *agg_cnt(const struct agg *a, size_t p, long i)
{
	return &a->p[p].cnt[(size_t)i * a->ne * 2];
}
static inline double *agg_wt(const struct agg *a, size_t p, long i)
{
	return a->p[p].wt ? &a->p[p].wt[(size_t)i * a->ne * 2] : NULL;
}

/* ---- the steps (ana_set_finish) ---- */
/* Name every raw node's address and build the symbolized tree.  0 or
 * -ENOMEM. */
int set_symbolize(struct ana_set *s);
/* Sum the parts into the per-item sums and the runs' totals.  0 or -ENOMEM. */
int set_aggregate(struct ana_set *s);
void set_free_symbols(struct ana_set *s);
/* linectx.c: build the line contexts from the raw tree and the parts'
 * entries (after set_symbolize, before set_aggregate frees the parts);
 * nothing unless opts.line_contexts.  0 or -ENOMEM. */
int set_line_contexts(struct ana_set *s);
void set_free_line_contexts(struct ana_set *s);
/* Whether samples in function f pass --dso and --symbols. */
bool func_kept(const struct ana_set *s, uint32_t f);

#endif
