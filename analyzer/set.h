/* The set's layout: struct ana_set, which the stages hand on to each other.
 * Read and merge (read.h: set.c, trust.c, timeline.c) fills its runs,
 * parts, modules and raw calling-context tree; symbolize and aggregate
 * (aggregate.h: aggregate.c, linectx.c) turn them into functions, lines,
 * the symbolized tree and its sums; query (query.h: query.c) reads those
 * and grows the bottom-up tree.  Each stage's header defines the types it
 * owns; only the sums (struct agg) are held here by value.  The exporters
 * never see it: they use analyzer.h.  Not installed. */
#ifndef ANALYZER_SET_H
#define ANALYZER_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/aggregate.h"
#include "analyzer/analyzer.h"
#include "analyzer/util.h"

struct ana_set {
	struct ana_opts o;
	struct ana_time_range *time;	/* copy of o.time */
	char *time_spec;		/* o.time_spec copied, or o.time written out */
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
	struct lsample *lsmp;
	size_t n_lsmp, cap_lsmp;

	/* timeline (timeline.c): one stream per file that has one */
	struct tl_stream *tls;
	size_t n_tls, cap_tls;
	size_t n_tl_missing;		/* files read without a timeline */
	uint64_t tl_lost;		/* samples in no timeline (buffers full) */
	uint32_t *tl_rparent, *tl_raddr;	/* the raw tree, kept past finish */
};

#endif
