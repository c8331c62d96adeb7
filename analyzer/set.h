/* The set's layout, which the stages hand on to each other: read and merge
 * (set.c, trust.c, timeline.c) fills the runs, parts, modules and the raw
 * calling-context tree; symbolize and aggregate (aggregate.c, linectx.c)
 * turn them into functions, lines, the symbolized tree and its sums; query
 * (query.c) reads those and grows the bottom-up tree.  The exporters never
 * see it: they use analyzer.h.  Not installed. */
#ifndef ANALYZER_SET_H
#define ANALYZER_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "analyzer/util.h"

/* ---- trust flags (trust.c) ---- */
/* One run's sums for the trust checks, over its files. */
struct trust_acc {
	double cpu_ns, user_ns, handler_ns;	/* over files that record them */
	unsigned n_cpu, n_user, n_handler;
	double judged_want_ns, judged_got_ns;	/* threads expecting enough samples */
	/* The handler's time and the CPU time of the threads long enough
	 * (ANA_TRUST_MIN_EXPECTED samples) for the collector-time flag. */
	double judged_handler_ns, judged_cpu_ns;
	/* CPU time of threads the collector never sampled (raw clone, clone()
	 * with CLONE_VM), from the main threads' profiles, and the clones. */
	double unsampled_ns;
	uint64_t n_clones;
	unsigned n_judged, n_short;
	unsigned basis;			/* ANA_BASIS_* of the threads judged */
	double worst;			/* lowest coverage of a judged thread */
	char worst_who[96];
	/* counted events sampled by period: samples taken, and the samples
	 * their final counts imply (event_count_K / period) */
	double count_got, count_want;
	unsigned n_count_judged;
	char count_event[64];		/* the first such event's name */
};

/* ---- the set (set.c reads and merges, aggregate.c symbolizes and sums,
 * query.c answers) ---- */

/* An output run's merged facts while reading. */
struct meta_acc {
	const char *key;
	const char **val;		/* distinct interned values, first-seen order */
	size_t n, cap;
	struct idx seen;
};
struct orun {
	unsigned in_run;
	const char *group;		/* split value label ("rank=3"), or NULL */
	const char *label;
	struct meta_acc *meta;
	size_t n_meta, cap_meta;
	struct ana_event_fact *ev;	/* indexed by set event */
	size_t cap_ev;
	struct ana_counter_fact *ctr;
	size_t n_ctr, cap_ctr;
	uint64_t *mods;			/* bitmap of set modules seen */
	size_t cap_mods;
	unsigned n_files, n_partial, n_repeats;
	struct trust_acc trust;
	struct ana_run pub;
	struct ana_kv *kv;
};
/* One repeat of one output run (or of one --by group): its own counts over
 * the raw tree, only for the nodes it has.  Entries are appended per file
 * and merged (grouped by node) when they have doubled, so they follow the
 * part's distinct contexts, not its files or the whole set's contexts. */
struct part {
	unsigned orun, repeat;
	uint32_t *node;			/* raw node, event and count of each entry */
	uint8_t *ev;
	uint64_t *cnt;
	double *wt;			/* when weighted */
	size_t n, cap, n_merged;	/* n_merged: entries after the last merge */
	double t_start, t_end, steal;	/* earliest start, latest end, largest steal of
					 * its files; NAN until a file has them */
};
struct smodule {
	const char *path;		/* as recorded, after --remap */
	const char *base;		/* basename: what runs are matched on */
	uint8_t bid[64];
	uint32_t bid_len;
	int sym;			/* symtab handle */
	bool jit;			/* path is a perf map (/tmp/perf-PID.map) naming
					 * the JIT code of the frames in no module */
	uint8_t *image;			/* its bytes from a profile (the vdso), or NULL */
	uint32_t image_len;
	uint64_t start, end, bias;	/* where the first file that mapped it had it */
	bool main;			/* the program itself (a profile's command) */
};
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

/* One file's timeline (timeline.c): its samples in time order. */
struct tl_stream {
	size_t part;			/* index of its part (run, repeat) */
	unsigned in_run;
	struct ana_thread pub;
	uint64_t *t;			/* ns after the origin */
	uint32_t *raw;			/* raw node */
	uint8_t *ev;			/* set event */
	double *w;			/* [set event]: the file's mean period */
	size_t n_w;
	uint64_t span;			/* its input run's span, ns (percent --time) */
};

struct ana_set {
	struct ana_opts o;
	struct ana_time_range *time;	/* copy of o.time */
	char *debug_dirs, *cache_dir, *keep_dir;
	char *filter[5];		/* copies of opts comms, pids, tids, dsos, symbols */
	size_t n_filtered_out;		/* files left out by comms/pids/tids */
	uint64_t *addr_smp;		/* opts.addr_samples: [addr][orun][ev] self samples */
	const char **prof_dirs;		/* the profiles' directories (interned) */
	size_t n_prof_dirs, cap_prof_dirs;
	char **remap;
	size_t n_remap;
	bool finished;
	struct strpool pool;

	struct ana_note *notes;
	size_t n_notes, cap_notes, n_errors;

	const char **in_label;		/* input runs */
	size_t n_in, cap_in;
	struct orun *orun;
	size_t n_orun, cap_orun;
	struct part *part;
	size_t n_part, cap_part;

	const char **ev_name;		/* set events */
	const char **ev_unit;
	size_t n_ev, cap_ev;
	struct metric **metric;
	size_t n_metric, cap_metric;

	struct smodule *mod;
	size_t n_mod, cap_mod;
	struct idx mod_idx;

	/* scratch for part_merge: [raw node] -> 1 + its position among the
	 * nodes seen (0: not seen), the nodes in order, their sums [pos][event] */
	uint32_t *merge_at;
	size_t cap_merge_at;
	uint32_t *merge_nodes;
	size_t cap_merge_nodes;
	uint64_t *merge_cnt;
	double *merge_wt;
	size_t cap_merge_cnt, cap_merge_wt;

	/* raw calling-context tree (merged, unsymbolized), freed by finish */
	uint32_t *rparent, *rmod;
	uint64_t *roff;
	size_t n_raw, cap_raw;
	struct idx raw_idx;
	uint32_t *raddr, *rsym;		/* per raw node, from symbolization */
	uint32_t nostack;		/* sym node for samples without a stack, or NONE */

	/* symbols */
	struct func *func;
	size_t n_func, cap_func;
	struct idx func_idx;
	struct line *line;
	size_t n_line, cap_line;
	struct idx line_idx;
	struct modrow *modrow;
	size_t n_modrow, cap_modrow;
	struct idx modrow_idx;
	struct frame *frame;
	size_t n_frame, cap_frame;
	struct addr *addr;
	size_t n_addr, cap_addr;
	struct idx addr_idx;

	/* symbolized tree: node 0 is the root */
	uint32_t *sparent, *sfunc, *sfirst, *snext;
	uint8_t *sinl;
	size_t n_sym, cap_sym;
	struct idx sym_idx;

	struct agg a_func, a_line, a_mod, a_sym;
	uint64_t *ptot;			/* [part][ev] samples */
	double *ptot_wt;
	uint64_t *rtot;			/* [run][ev] */
	double *rtot_val;

	struct bunode *bu;
	size_t n_bu, cap_bu;
	uint32_t *bu_ent;		/* pairs, see struct bunode */
	size_t n_bu_ent, cap_bu_ent;
	uint32_t *bu_slot;		/* scratch while expanding: [func] -> kid, or NONE */
	uint64_t count_sum;		/* every count read so far (kept below 2^64) */
	size_t bu_root_ent;		/* entries of the root's children (every sampled node) */
	bool bu_cut;			/* an expansion was refused: too many entries */
	uint32_t *bu_kfunc, *bu_kcnt;	/* scratch: [kid] -> func, entries */
	uint32_t *bu_up;		/* [sym] nearest ancestor of the same function, or NONE */
	uint32_t *bu_mark;		/* [sym] the bottom-up node it was last an entry of */
	struct agg a_bu;		/* dense, grown with the nodes */
	size_t cap_a_bu;

	/* line contexts (opts.line_contexts, linectx.c): node 0 the root, each
	 * node a frame (function, source line, inlined into its parent); and
	 * the self samples of each (run, node, event), sorted */
	uint32_t *lparent, *lfunc, *lno;
	uint32_t *laddr;		/* the address (s->addr) of the frame, or NONE */
	uint8_t *linl;
	size_t n_lctx, cap_lctx;
	struct idx lctx_idx;
	struct lsample {
		uint32_t run, node, ev;
		uint64_t cnt;
		double wt;
	} *lsmp;
	size_t n_lsmp, cap_lsmp;

	/* timeline (timeline.c): one stream per file that has one */
	struct tl_stream *tls;
	size_t n_tls, cap_tls;
	size_t n_tl_missing;		/* files read without a timeline */
	uint64_t tl_lost;		/* samples in no timeline (buffers full) */
	uint32_t *tl_rparent, *tl_raddr;	/* the raw tree, kept past finish */
};

#endif
