/* Analyzer internals shared by its .c files; not installed. */
#ifndef ANALYZER_INTERNAL_H
#define ANALYZER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "profile/profile.h"

#define NONE UINT32_MAX

/* Grow *p (of *cap elements of size el) to hold at least need; new space zeroed.
 * 0 or -ENOMEM. */
int vec_reserve(void *p, size_t *cap, size_t need, size_t el);
/* The same, the new space left as it is (untouched pages cost nothing:
 * for arrays whose every element is written when it is added). */
int vec_grow(void *p, size_t *cap, size_t need, size_t el);

/* ---- hash index: maps 64-bit hashes to ids whose keys live elsewhere ---- */
struct idx {
	uint64_t *slot;		/* hash's top 32 bits | id; 0 = empty (idx.c) */
	size_t cap, n;
};
typedef bool (*idx_eq_fn)(const void *ctx, uint32_t id, const void *key);
uint64_t hash_bytes(const void *p, size_t len, uint64_t seed);
uint64_t hash_u64(uint64_t a, uint64_t b);
/* The id whose key equals key, or NONE. */
uint32_t idx_find(const struct idx *x, uint64_t h, idx_eq_fn eq, const void *ctx, const void *key);
/* Room for n ids in all without growing (a known count: one allocation,
 * not a doubling per power of two).  0 or -ENOMEM. */
int idx_reserve(struct idx *x, size_t n);
/* Add id under h (the caller checked it is absent).  0 or -ENOMEM. */
int idx_put(struct idx *x, uint64_t h, uint32_t id);
void idx_free(struct idx *x);

/* ---- interned strings: equal strings share one stable pointer ---- */
struct strpool {
	struct idx idx;
	char **str;
	size_t n, cap;
};
/* The interned copy of s (len bytes), or NULL on ENOMEM. */
const char *strpool_get(struct strpool *sp, const char *s, size_t len);
const char *strpool_str(struct strpool *sp, const char *s);
void strpool_free(struct strpool *sp);

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
bool virt_summary(const char *layers, char *buf, size_t len, const char **emu);
double z_for_conf(double conf);
/* Student's t: two-sided p of t with df degrees of freedom, and the t with
 * P(|T| <= t) = conf (df infinite or <= 0: the normal's). */
double t_two_sided_p(double t, double df);
double t_for_conf(double conf, double df);

/* ---- trust (set.c) ---- */
struct calib_verdict {
	char event[128];	/* "" for "not needed (...)" */
	char verdict[32];	/* valid, unverified, zero, implausible, unsupported, not needed */
	char why[256];
};
/* The next "EVENT=VERDICT (why)" of a `calibration` metadata value from *p
 * on, advancing *p; the why may hold ';' inside its parentheses.  false at
 * the end. */
bool calib_next(const char **p, struct calib_verdict *v);

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
struct orun;
/* Add one thread's profile p to the run's sums. */
void trust_file(struct trust_acc *t, const struct prof *p);
/* Fill the run's public trust fields from its sums and metadata, and note
 * what is flagged (who: the run's label). */
void trust_run(struct ana_set *s, struct orun *o, const char *who, int note_run);
/* The emulator a "hypervisor" metadata value names, or NULL. */
const char *trust_emulator(const char *hypervisor);

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

/* ---- symbolizer (symbols.c): one per module, each address once ---- */
struct sym_frame {
	const char *key;	/* interned: the linkage name (mangled), or the plain
				 * name of a C function; "name@0xADDR" for a local
				 * symbol whose name the module holds more than once */
	const char *func;	/* interned: what users read (demangled, qualified) */
	const char *file;	/* source file or NULL */
	unsigned line;
	const char *decl_file;	/* the function's declaration */
	unsigned decl_line;
};
struct symtab;
/* The demangled, qualified name of a linkage name (C++ Itanium ABI, Rust
 * legacy and v0) as perf shows it, interned; name itself when it is not
 * mangled.  NULL on ENOMEM. */
const char *sym_demangle(struct strpool *pool, const char *name);
/* name without its scope ("ns::Accum<double, 300>::run" -> "run"),
 * interned.  NULL on ENOMEM. */
const char *sym_short_name(struct strpool *pool, const char *name);
struct symtab_opts {
	const char *debug_dirs;		/* colon-separated, may be NULL */
	const char *cache_dir;		/* persistent symbol cache, or NULL */
	struct strpool *pool;
	/* the profiles' directories: their kept answers (DIR/symbols, one
	 * file per build-id, symcache.c's format) name what no local file
	 * with the recorded build-id can; the first is the one notes name */
	const char *const *profile_dirs;
	size_t n_profile_dirs;
	const char *keep_dir;		/* write every answer given here (the
					 * answers a profile keeps), or NULL */
};
struct symtab *symtab_new(const struct symtab_opts *o);
void symtab_free(struct symtab *st);
/* Load the module at path (already remapped) whose recorded build-id is
 * bid (may be NULL); msg gets a one-line note and *sev its severity when
 * something is worth saying (missing file, mismatch, no debug info).
 * Returns a handle >= 0 usable for symtab_lookup even when the file could
 * not be used (lookups then resolve nothing), or -ENOMEM. */
int symtab_load(struct symtab *st, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev);
/* symtab_load in two steps, so that modules can be opened in parallel: a
 * new handle (>= 0, or -ENOMEM), then the module opened into it (0 or
 * -ENOMEM).  symtab_open and symtab_open_image may run at once on several
 * threads for different handles, as long as no handle is added meanwhile;
 * they touch neither the string pool nor anything shared. */
int symtab_add(struct symtab *st);
int symtab_open(struct symtab *st, int h, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev);
/* Load a module from its bytes (the vdso, saved in the profile); like
 * symtab_load otherwise.  The bytes are copied. */
int symtab_load_image(struct symtab *st, const char *path, const uint8_t *img, size_t len,
		      const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev);
int symtab_open_image(struct symtab *st, int h, const char *path, const uint8_t *img, size_t len,
		      const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev);
/* Load a perf map file ("START SIZE name" per line, hex; the format of
 * perf's jit-interface.txt, which LuaJIT, Node's --perf-basic-prof, the
 * JVM's perf-map-agent and Python's -X perf write): lookups then take
 * absolute addresses.  Same returns as symtab_load. */
int symtab_load_perfmap(struct symtab *st, const char *path, char *msg, size_t len,
			enum ana_severity *sev);
/* Frames at ELF address off of module h, innermost first, into fr[max].
 * Returns the number of frames (0 = unresolved). */
size_t symtab_lookup(struct symtab *st, int h, uint64_t off, struct sym_frame *fr, size_t max);
/* How many addresses of module h were left unnamed because the answers
 * kept for it lack them and no file here has its build-id; hint: the
 * command that would keep them. */
size_t symtab_unnamed(struct symtab *st, int h, char *hint, size_t len);

/* ---- kernel symbols (kallsyms.c) for the [kernel.kallsyms] module ---- */
struct kallsyms;
/* Whether a load-map path is the collector's kernel pseudo-module. */
bool kallsyms_is_kernel(const char *path);
/* Kernel symbols from kallsyms_path (NULL: $PMCPROF_KALLSYMS or
 * /proc/kallsyms), used only when the build-id in notes_path (NULL:
 * $PMCPROF_KERNEL_NOTES or /sys/kernel/notes) is the recorded bid; msg and
 * *sev as symtab_load's.  With a cache_dir (may be NULL) the sorted table is
 * kept there, keyed by what identifies the running kernel's symbols, and
 * read from there while it fits.  Returns NULL only when out of memory: a
 * kernel that does not fit gives an object whose lookups name addresses. */
struct kallsyms *kallsyms_load(const char *kallsyms_path, const char *notes_path,
			       const uint8_t *bid, size_t bid_len, const char *cache_dir,
			       char *msg, size_t len, enum ana_severity *sev);
/* Whether ks names addresses (the recorded kernel's symbols, visible). */
bool kallsyms_usable(const struct kallsyms *ks);
/* One frame for offset off (kernel address - 0xffff800000000000): "[k] name",
 * "[kernel]" for offset 0, "[k] 0xADDR" when unknown.  Returns 1 (0 if max
 * is 0 or out of memory). */
size_t kallsyms_lookup(struct kallsyms *ks, struct strpool *pool, uint64_t off,
		       struct sym_frame *fr, size_t max);
void kallsyms_free(struct kallsyms *ks);
/* The report's note for a profile's kernel_frames metadata, or NULL. */
const char *kallsyms_frames_note(const char *kernel_frames);

/* ---- persistent symbol cache (symcache.c), one per build-id ---- */
struct symcache;
/* kind names the answers' source: "sym" (with DWARF) or "elfsym" (the
 * module has no debug info to be found: its ELF symbols are all there is),
 * so that debug info found later is not hidden by older answers. */
struct symcache *symcache_new(const uint8_t *bid, size_t n, const char *kind);
/* The cache file for bid under dir, mapped; NULL if absent or not valid. */
struct symcache *symcache_open(const char *dir, const uint8_t *bid, size_t n, const char *kind);
/* The frames cached for off into fr[max] (*n of them; strings interned in
 * pool), or false if off is not cached (or on ENOMEM). */
bool symcache_get(struct symcache *c, struct strpool *pool, uint64_t off, struct sym_frame *fr,
		  size_t max, size_t *n);
/* Keep off's frames (interned strings); 0, or -ENOMEM. */
int symcache_put(struct symcache *c, uint64_t off, const struct sym_frame *fr, size_t n);
/* Write it with what was added (if anything was): temp file + rename.
 * 0 or -errno. */
int symcache_save(struct symcache *c, struct strpool *pool, const char *dir);
/* The same, the file made with mode (minus umask) and dir with dir_mode:
 * the answers a profile keeps are as readable as the profile. */
int symcache_save_mode(struct symcache *c, struct strpool *pool, const char *dir, int mode,
		       int dir_mode);
/* Answers in c (read from its file or added since). */
size_t symcache_count(const struct symcache *c);
void symcache_free(struct symcache *c);
/* dir and its parents (mode 0700).  0 or -errno. */
int symcache_mkdirs(const char *dir);
int symcache_mkdirs_mode(const char *dir, int mode);
/* dir/name made of iov[n], whole or not at all (temp file + rename, mode
 * 0600), dir created.  0 or -errno. */
struct iovec;
int symcache_write(const char *dir, const char *name, const struct iovec *iov, int n);
int symcache_write_mode(const char *dir, const char *name, const struct iovec *iov, int n,
			int mode, int dir_mode);

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

/* set.c */
int set_note(struct ana_set *s, enum ana_severity sev, int run, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* aggregate.c */
int set_symbolize(struct ana_set *s);
int set_aggregate(struct ana_set *s);
void set_free_symbols(struct ana_set *s);
/* Merge part p's entries: one per (node, event), grouped by node.  Uses
 * s->merge_* scratch.  0 or -ENOMEM. */
int part_merge(struct ana_set *s, struct part *p);
void part_free(struct part *p);
/* linectx.c: build the line contexts from the raw tree and the parts'
 * entries (after set_symbolize, before set_aggregate frees the parts);
 * nothing unless opts.line_contexts.  0 or -ENOMEM. */
int set_line_contexts(struct ana_set *s);
void set_free_line_contexts(struct ana_set *s);
/* Room for n more entries in part p.  0 or -ENOMEM. */
int part_reserve(struct part *p, size_t n, bool weighted);
/* timeline.c: keep a file's timeline (map: its nodes' raw nodes, evmap:
 * its events' set events) as part pt's; notes what is missing. */
int tl_merge(struct ana_set *s, size_t pt, unsigned in_run, const char *path,
	     const struct prof *p, const int *evmap, const uint32_t *map);
/* With opts.time: the selected samples' counts into their parts (before
 * finish's facts). 0 or -ENOMEM. */
int tl_apply_time(struct ana_set *s);
/* At finish, before the raw tree is freed: keep what stacks need. */
void tl_keep_raw(struct ana_set *s);
void tl_free(struct ana_set *s);
/* trace.c: thread t's samples as slices (see tl_walk); open and close
 * return 0 or -errno, which stops the walk. */
struct tl_walk_cb {
	int (*open)(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t);
	int (*close)(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t);
};
int tl_walk(const struct ana_set *s, size_t t, size_t ev, const struct tl_walk_cb *cb, void *arg);

/* query.c */
const struct ana_query *rows_query(const struct ana_rows *r);
struct ana_set *rows_set(const struct ana_rows *r);
/* The event column run is compared on (compare mode), else query.event. */
size_t rows_event(const struct ana_rows *r, unsigned run);

/* Whether v is an element of the comma-separated list (ana_opts filters). */
bool filter_has(const char *list, const char *v);
/* Whether samples in function f pass --dso and --symbols (aggregate.c). */
bool func_kept(const struct ana_set *s, uint32_t f);
/* Mark in is[] the functions q->func names (or q->node); how many (query.c). */
int funcs_match(const struct ana_set *s, const struct ana_query *q, uint8_t *is);

/* s as a JSON string: quotes, backslashes and control bytes escaped, bytes
 * that are not UTF-8 as '?' (a JSON file must be UTF-8); NULL as "". */
void json_put_str(FILE *f, const char *s);

/* ---- small helpers the analyzer's files share (issue 27's duplicates) ---- */

/* free() each of p[n] in turn (idx.c; systemd's free_many), for destructors
 * that release a list of members: FREE_EACH(r->a, r->b, r) frees r last. */
void free_many(void *const *p, size_t n);
#define FREE_EACH(...) \
	free_many((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
/* -1, 0 or 1 as a is below, equal to or above b: for qsort comparators
 * (idx.c). */
int cmp_u64(uint64_t a, uint64_t b);
/* A note (set_note) unless the same text is already there (set.c): --by
 * groups of one run share its metadata, and would say it once each. */
int set_note_once(struct ana_set *s, enum ana_severity sev, int run, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
