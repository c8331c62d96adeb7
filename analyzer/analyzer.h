/* libpmcprof-analyzer: read and merge profiles, symbolize, aggregate, compare.
 *
 * A set holds one or more runs (a run = any mix of profile files and
 * directories, merged; for comparisons a run may hold several repeats).
 * Life cycle: ana_set_new -> ana_set_add (per path) -> ana_set_finish ->
 * queries -> ana_set_free.  A query returns a row set (struct ana_rows) the
 * caller frees; rows stay valid until then, even after later queries.
 *
 * Costly calls: ana_set_add (reads and merges files; memory grows with
 * distinct contexts, not samples or files) and ana_set_finish (opens the
 * load-map modules and their debug info, symbolizes every distinct address
 * once).  Run them on a worker thread if a UI must stay live; progress goes
 * to the optional callback.  A set is not thread-safe: queries fill lazy
 * caches (the first ANA_VIEW_BOTTOMUP query of a node expands it).
 *
 * Errors: 0 or -errno / -ANA_E* / -PROF_E*; pointers NULL with errno set.
 * ana_strerror() names any of them.  The library never prints and never
 * exits; problems met while reading or symbolizing become notes.
 */
#ifndef ANALYZER_ANALYZER_H
#define ANALYZER_ANALYZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ANA_API __attribute__((visibility("default")))

enum ana_err {
	ANA_ERR_BASE = 6000,
	ANA_ESTATE = ANA_ERR_BASE,	/* call not valid in this state (e.g. add after finish) */
	ANA_EMETRIC,			/* bad --metric expression */
	ANA_ENOFUNC,			/* no function of that name */
	ANA_ENODATA,			/* no profile found under a path */
	ANA_EEVENTS,			/* raw ratio between runs compared on different events */
	ANA_ERR_END
};
/* Static message for any code returned here (negative or positive). */
ANA_API const char *ana_strerror(int err);

/* Split each run into groups by this profile metadata (--by). */
enum ana_split { ANA_SPLIT_NONE, ANA_SPLIT_THREAD, ANA_SPLIT_PROCESS, ANA_SPLIT_RANK, ANA_SPLIT_HOST,
		 ANA_SPLIT_COMM	/* the thread's comm (metadata thread_name): "comm=NAME" */ };

/* Progress: done out of total work units of the current phase ("read",
 * "symbolize"); total 0 when unknown. */
typedef void (*ana_progress_fn)(void *arg, const char *phase, uint64_t done, uint64_t total);

/* A time range, seconds after the run's start (the launcher's start of
 * the command), or with pct percentages of the run's span (its start to
 * the end of its last thread).  end may be INFINITY. */
struct ana_time_range {
	double start, end;
	bool pct;
};
/* Parse perf's --time syntax: "START,END" in seconds (either may be empty),
 * or a comma-separated list of percent slices "P%/N" (the Nth slice of
 * P%) and ranges "A%-B%".  Fills out[max]; returns how many, or -EINVAL
 * with a one-line reason in msg. */
ANA_API int ana_time_parse(const char *spec, struct ana_time_range *out, size_t max, char *msg,
			   size_t len);

struct ana_opts {
	size_t sz;			/* sizeof(struct ana_opts) */
	enum ana_split split;
	bool weighted;			/* values are sample weights (count x period
					 * actually used), not sample counts */
	const char *debug_dirs;		/* colon-separated extra debug-info roots, or NULL */
	const char *const *remap;	/* "OLD=NEW" module-path prefix rewrites, NULL-terminated */
	ana_progress_fn progress;
	void *progress_arg;
	const char *cache_dir;		/* persistent symbol cache (one file per build-id,
					 * created 0700), or NULL for none */
	bool no_inline;			/* charge inlined code to the function it was
					 * inlined into (perf's --no-inline); else an
					 * inlined function has its own rows, one per
					 * function it was inlined into */
	bool short_names;		/* "run", not "ns::Accum<double, 300>::run" (rows
					 * are still keyed by linkage name) */
	bool line_contexts;		/* also keep each calling context with the source
					 * line of every frame, for ana_set_write_pprof's
					 * line numbers (memory: about the raw contexts') */
	bool timeline;			/* keep each thread's samples in time order
					 * (ana_set_n_threads; memory: ~13 bytes a sample) */
	const struct ana_time_range *time;	/* only the samples in these ranges
					 * (perf's --time; ana_time_parse): counts come
					 * from the timelines, files without one add none */
	size_t n_time;
	/* perf report's filters: comma-separated lists (copied), NULL for all.
	 * Threads: only the files of the threads named (metadata thread_name,
	 * pid, tid) are read, and they are the run.  Samples: only those whose
	 * sampled instruction is in one of the modules (basename or path) and
	 * in one of the functions (name or linkage name; code inlined into a
	 * function counts as that function's too) reach any row, tree or
	 * export; the run's totals keep every sample, so percentages are of
	 * the whole run (perf's --percentage absolute). */
	const char *comms, *pids, *tids;
	const char *dsos, *symbols;
	bool addr_samples;		/* also keep the samples of each sampled
					 * instruction, per run and event, for
					 * ana_set_annotate (memory: addresses x runs
					 * x events x 8 bytes) */
	const char *keep_dir;		/* write the answers given to every sampled
					 * address here (one file per build-id, the
					 * kernel's too, perf maps cut to the lines
					 * used): what `pmcprof archive` keeps in a
					 * profile directory (DIR/symbols), or NULL */
};
#define ANA_OPTS(name, ...) struct ana_opts name = { .sz = sizeof(struct ana_opts), __VA_ARGS__ }

struct ana_set;

/* A new empty set; opts may be NULL.  NULL + errno on failure. */
ANA_API struct ana_set *ana_set_new(const struct ana_opts *opts);
/* Read path (a .pmcp file, or a directory searched recursively for *.pmcp)
 * into run `run`, as repeat `repeat` (runs and repeats are numbered from 0
 * and created on first use).  Bad files are skipped and noted (severity
 * ANA_NOTE_ERROR) while the rest is merged; returns 0 if every file was read,
 * else the first file's error.  Costly. */
ANA_API int ana_set_add(struct ana_set *s, unsigned run, unsigned repeat, const char *path);
/* Name run `run` in headers and CSV (default: its first path).  Copied. */
ANA_API int ana_set_label(struct ana_set *s, unsigned run, const char *label);
/* Done adding: symbolize and aggregate.  0 or -errno; -ANA_ENODATA if no
 * sample was read at all.  Costly. */
ANA_API int ana_set_finish(struct ana_set *s);
ANA_API void ana_set_free(struct ana_set *s);

/* ---- what ran (valid after finish) ---- */

/* Runs after finish: with a split, every (run, group) pair is one run,
 * labelled e.g. "rank=3" or "base rank=3". */
ANA_API unsigned ana_set_n_runs(const struct ana_set *s);

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
};

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
ANA_API const struct ana_run *ana_set_run(const struct ana_set *s, unsigned run);

/* Events across the set (union by used name, first-seen order), then any
 * metrics added with ana_set_add_metric.  Name of column i, or NULL. */
ANA_API size_t ana_set_n_events(const struct ana_set *s);
ANA_API const char *ana_set_event(const struct ana_set *s, size_t i);
/* Column index of an event as users type it ("cycles", "perf::CYCLES",
 * the requested "cycles@1000003" without the period, a metric's name), or -1. */
ANA_API int ana_set_event_index(const struct ana_set *s, const char *name);
/* The event column run `run` is compared on when a comparison selects
 * column ev: ev itself if the run sampled it; else, ev being the k-th
 * sampled event of the first run that sampled it, the run's own k-th
 * sampled event.  So a run that fell back from cycles to cpu-clock, or a
 * cputimer run (CPUTIME), is compared with the others' first event.
 * -1 if the run has no such event or ev is not an event column. */
ANA_API int ana_set_run_event(const struct ana_set *s, unsigned run, size_t ev);
/* Add a derived column "NAME=EXPR" (+ - * / parentheses, event names,
 * numbers; a division by zero yields NAN).  Returns its column index, or
 * -ANA_EMETRIC with a one-line reason in msg.  Valid after finish. */
ANA_API int ana_set_add_metric(struct ana_set *s, const char *spec, char *msg, size_t len);

enum ana_severity { ANA_NOTE_INFO, ANA_NOTE_WARN, ANA_NOTE_ERROR };
/* One line each: bad files (with the reader's message), build-id
 * mismatches, missing or stripped modules, loss counters above 1%, runs
 * with different events/periods/binaries.  run is -1 for the whole set. */
struct ana_note {
	enum ana_severity severity;
	int run;
	const char *msg;
};
ANA_API size_t ana_set_n_notes(const struct ana_set *s);
ANA_API const struct ana_note *ana_set_note(const struct ana_set *s, size_t i);
/* Number of notes with severity ANA_NOTE_ERROR (exit status 2 if any). */
ANA_API size_t ana_set_n_errors(const struct ana_set *s);

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

/* ---- export ---- */

/* RFC 4180 CSV of the row set, header row first, exactly as `report --csv`
 * and (compare mode) `diff --csv`; docs/analyzer.md lists the columns.
 * 0 or -errno (write error). */
ANA_API int ana_rows_write_csv(const struct ana_rows *r, FILE *f);
/* The same rows as one JSON object. */
ANA_API int ana_rows_write_json(const struct ana_rows *r, FILE *f);
/* FlameGraph collapsed stacks ("a;b;c count", root first) for run and
 * event column ev. */
ANA_API int ana_set_write_collapsed(struct ana_set *s, unsigned run, size_t ev, FILE *f);

/* ---- the set's tables, for exporters and front ends (access.c) ----
 * Valid after finish; what export.c's collapsed stacks, flame.c, pprof.c,
 * speedscope.c and annotate.c stand on. */

/* Whether ana_set_finish succeeded (queries and the calls below work). */
ANA_API bool ana_set_finished(const struct ana_set *s);
/* The options as the set keeps them: strings and time are its own copies;
 * remap is not kept (NULL). */
ANA_API const struct ana_opts *ana_set_opts(const struct ana_set *s);
/* Event columns that have samples: the first ones (metric columns follow). */
ANA_API size_t ana_set_n_sampled_events(const struct ana_set *s);
/* The unit of event column ev's periods as recorded ("ns", "us"), or NULL
 * (a count, a metric column, past the end). */
ANA_API const char *ana_set_event_unit(const struct ana_set *s, size_t ev);
/* Run run's totals on event column ev: its samples (every one: --dsos and
 * --symbols do not apply, they are what percentages are of) and their
 * shown value (samples, or weights with opts.weighted); either pointer may
 * be NULL.  0, or -EINVAL (a metric column, no such run, not finished). */
ANA_API int ana_set_total(const struct ana_set *s, unsigned run, size_t ev, uint64_t *samples,
			  double *value);
/* Files read without a timeline (opts.timeline: their samples are in no
 * thread's). */
ANA_API size_t ana_set_n_untimed(const struct ana_set *s);

/* A function of the set: what rows of it show, and its module. */
struct ana_function {
	size_t sz;			/* sizeof(struct ana_function), set by the caller */
	const char *name;		/* as rows show it ("[module+0xOFF]" if unresolved) */
	const char *module;		/* module path, or NULL */
	const char *module_base;	/* its basename */
	const char *file;		/* the declaration's source file, or NULL */
	unsigned line;			/* and its line; 0 unknown */
	uint32_t module_id;		/* ana_set_module's index */
	uint32_t inlined_into;		/* the function it was inlined into (rows of
					 * an inlined function are one per caller), or
					 * UINT32_MAX */
};
ANA_API size_t ana_set_n_functions(const struct ana_set *s);
/* Function f (< ana_set_n_functions; an ana_frame's key / 2) into *out.
 * 0, or -EINVAL. */
ANA_API int ana_set_function(const struct ana_set *s, uint32_t f, struct ana_function *out);
/* Set is[f] (the caller's ana_set_n_functions bytes) for each function
 * FUNC names, as ana_query.func does ("name" or "module:name"; the shown
 * or the linkage name).  Returns how many. */
ANA_API size_t ana_set_match_functions(const struct ana_set *s, const char *func, uint8_t *is);
/* The function of an ANA_VIEW_TOPDOWN row's node, or UINT32_MAX (the root,
 * past the end). */
ANA_API uint32_t ana_set_node_function(const struct ana_set *s, uint32_t node);

/* The symbolized calling-context tree, whose nodes ANA_VIEW_TOPDOWN rows
 * are: node 0 is the root, every other node a function called from its
 * parent's (or inlined into it), children in the set's order. */
struct ana_node {
	size_t sz;			/* sizeof(struct ana_node), set by the caller */
	uint32_t parent;		/* 0: the root */
	uint32_t child;			/* its first child, or UINT32_MAX: none */
	uint32_t next;			/* its parent's next child, or UINT32_MAX */
	uint32_t func;			/* ana_set_function's index; UINT32_MAX: the root */
	bool inlined;			/* inlined into the parent's function */
};
/* Nodes of the tree, the root included; 0 before finish. */
ANA_API size_t ana_set_n_nodes(const struct ana_set *s);
/* Node node (< ana_set_n_nodes) into *out.  0, or -EINVAL. */
ANA_API int ana_set_node(const struct ana_set *s, uint32_t node, struct ana_node *out);
/* Node node's self or inclusive (k) samples of run on event column ev,
 * and their shown value (samples, or weights with opts.weighted), as
 * ANA_VIEW_TOPDOWN rows count them (--dsos and --symbols apply); either
 * pointer may be NULL.  0, or -EINVAL (a metric column, no such run or
 * node, not finished). */
ANA_API int ana_set_node_total(const struct ana_set *s, uint32_t node, unsigned run, size_t ev,
			       enum ana_kind k, uint64_t *samples, double *value);

/* A module the rows name (one per path: the processes that mapped it
 * share it), with where it was mapped. */
struct ana_module {
	size_t sz;			/* sizeof(struct ana_module), set by the caller */
	const char *path;		/* as recorded, after --remap; NULL if only a name */
	const char *base;		/* basename: what runs are matched on */
	const uint8_t *build_id;	/* recorded (a mapping of the path that has one) */
	size_t build_id_len;		/* 0: none recorded */
	uint64_t start, end;		/* where the first process that mapped it had it
					 * (0, 0: unknown) */
	uint64_t bias;			/* start - its ELF address there */
	bool file;			/* a file (an absolute path), not the kernel,
					 * the vdso or an anonymous name */
	bool main;			/* the program itself (a profile's command) */
	/* what no module file holds */
	bool kernel;			/* the kernel (kallsyms) */
	bool jit;			/* a perf map naming JIT code (/tmp/perf-PID.map) */
	bool embedded;			/* its bytes are in the profile (the vdso) */
};
ANA_API size_t ana_set_n_modules(const struct ana_set *s);
/* Module m (< ana_set_n_modules, ana_function.module_id) into *out.  0, or
 * -EINVAL. */
ANA_API int ana_set_module(const struct ana_set *s, uint32_t m, struct ana_module *out);
/* The modules as the profiles mapped them: one per path and build-id (a
 * file rebuilt between runs is two), which addresses are in. */
ANA_API size_t ana_set_n_mappings(const struct ana_set *s);
/* Mapping i (< ana_set_n_mappings, ana_address.mapping) into *out, with its
 * own path and build-id.  0, or -EINVAL. */
ANA_API int ana_set_mapping(const struct ana_set *s, uint32_t i, struct ana_module *out);

/* The distinct addresses of the calling contexts (sampled instructions
 * and call sites), as symbolized. */
struct ana_address {
	size_t sz;			/* sizeof(struct ana_address), set by the caller */
	uint32_t mapping;		/* ana_set_mapping's index */
	uint64_t addr;			/* in the module: a module file's ELF address
					 * (the kernel's, the vdso's: ana_context.addr
					 * less the mapping's bias) */
	uint32_t func;			/* the function whose code it is (its outermost
					 * frame: what code is inlined into), or
					 * UINT32_MAX: no frame */
};
ANA_API size_t ana_set_n_addresses(const struct ana_set *s);
/* Address a (< ana_set_n_addresses) into *out.  0, or -EINVAL. */
ANA_API int ana_set_address(const struct ana_set *s, size_t a, struct ana_address *out);
/* The samples of run on event column ev whose sampled instruction is
 * address a (opts.addr_samples: 0 without it, past the end, for a metric
 * column). */
ANA_API uint64_t ana_set_address_samples(const struct ana_set *s, size_t a, unsigned run,
					 size_t ev);

/* Calling contexts with the source line of each frame (opts.line_contexts):
 * a tree whose node 0 is the root and whose every other node is one frame,
 * and the self samples of each (run, context, event). */
struct ana_context {
	size_t sz;			/* sizeof(struct ana_context), set by the caller */
	uint32_t parent;		/* the next outer frame's context; 0: the root */
	uint32_t func;			/* ana_set_function's index */
	unsigned line;			/* the frame's source line (the sampled
					 * instruction's, a call's); 0 unknown */
	bool inlined;			/* inlined into the parent frame */
	uint64_t addr;			/* the instruction: its ELF address in a module
					 * file, its run-time address in the kernel or the
					 * vdso; 0 unknown */
};
/* Contexts kept (the root included); 0 without opts.line_contexts. */
ANA_API size_t ana_set_n_contexts(const struct ana_set *s);
/* Context ctx (1 .. ana_set_n_contexts - 1) into *out.  0, or -EINVAL. */
ANA_API int ana_set_context(const struct ana_set *s, uint32_t ctx, struct ana_context *out);
struct ana_context_samples {
	size_t sz;			/* sizeof(struct ana_context_samples), set by the caller */
	unsigned run;
	uint32_t context;		/* UINT32_MAX: samples with no stack */
	size_t event;			/* event column */
	uint64_t samples;		/* self samples */
	double weight;			/* and their weight */
};
/* The contexts' self samples, sorted by run then context. */
ANA_API size_t ana_set_n_context_samples(const struct ana_set *s);
/* Record i into *out.  0, or -EINVAL. */
ANA_API int ana_set_context_samples(const struct ana_set *s, size_t i,
				    struct ana_context_samples *out);

/* The query r answers (its copy), the set it reads, and the event column
 * run is compared on (compare mode: ana_set_run_event), else query.event. */
ANA_API const struct ana_query *ana_rows_query(const struct ana_rows *r);
ANA_API struct ana_set *ana_rows_set(const struct ana_rows *r);
ANA_API size_t ana_rows_event(const struct ana_rows *r, unsigned run);

/* ---- pictures and other tools' formats (flame.c, pprof.c, speedscope.c;
 * docs/exports.md) ---- */

struct ana_flame_opts {
	size_t sz;			/* sizeof(struct ana_flame_opts) */
	const char *title;		/* heading; NULL: made from the runs' labels */
	bool html;			/* an HTML page holding the SVG, else an SVG file */
	bool icicle;			/* roots at the top (default: at the bottom) */
	unsigned run;			/* compare mode: the run drawn against the base
					 * (if it is the base: the first run that is not) */
};
#define ANA_FLAME_OPTS(name, ...) \
	struct ana_flame_opts name = { .sz = sizeof(struct ana_flame_opts), __VA_ARGS__ }
/* A flame graph of r, a tree row set (ANA_VIEW_TOPDOWN: widths inclusive;
 * ANA_VIEW_BOTTOMUP: self, split among callers) on an event column: one
 * self-contained file, no network, with hover details, click to zoom,
 * search (#s=REGEX) and colours by module.  Without a base, every run is
 * drawn (several: one root frame each); in compare mode (query.base >= 0)
 * only opts.run, its frames coloured by ana_rows_compare's ratio against
 * the base (strongly only where significant) with the interval on hover.
 * Frames narrower than 0.1 px at full width are left out.  0, -EINVAL (not
 * a tree, or a metric column), or -EIO (write error). */
ANA_API int ana_rows_write_flame(const struct ana_rows *r, const struct ana_flame_opts *o, FILE *f);

/* pprof's profile.proto, gzip-compressed (`go tool pprof` reads it): one
 * sample per calling context with self samples, for every run (several:
 * each sample labelled "run"); locations hold a frame and the frames
 * inlined into it as pprof lines; one sample type per event (value:
 * samples x period in the event's unit, or the count where no fixed
 * period was used; weights with opts.weighted); run metadata as comments.
 * Line numbers (of the sampled instruction, and of each call and inlined
 * call site) only with opts.line_contexts, else 0 ("unknown").
 * 0, -ENOMEM, -EIO. */
ANA_API int ana_set_write_pprof(struct ana_set *s, FILE *f);

/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * with opts.timeline and every file holding a timeline, one "evented"
 * profile per thread in real time order (as ana_set_write_trace's slices;
 * event column ev only); else one "sampled" profile per run (with --by
 * thread, per thread) on event column ev, one sample per calling context
 * weighted by its self samples.
 * 0, -EINVAL (ev is a metric), -ENOMEM, -EIO. */
ANA_API int ana_set_write_speedscope(struct ana_set *s, size_t ev, FILE *f);

/* ---- the timeline (timeline.c; docs/analyzer.md, "Timeline") ----
 * With opts.timeline, each profiled thread's samples in time order, for
 * the files that have a timeline (`record` keeps one unless --no-timeline). */

struct ana_thread {
	unsigned run;			/* output run (a --by group is one) */
	const char *path;		/* the profile file */
	const char *command;		/* the command's basename */
	const char *comm;		/* the thread's name */
	long pid, tid;
	uint64_t origin_ns;		/* CLOCK_MONOTONIC of its run's start */
	uint64_t start_ns, end_ns;	/* sampled from .. profile written, after the origin */
	uint64_t n_samples;		/* in the timeline */
	uint64_t lost;			/* samples of the thread not in it (buffer full) */
	uint64_t interval_ns;		/* median time between its samples (0: < 2) */
};
/* Threads with a timeline, in file order; NULL past the end. */
ANA_API size_t ana_set_n_threads(const struct ana_set *s);
ANA_API const struct ana_thread *ana_set_thread(const struct ana_set *s, size_t i);

struct ana_sample {
	uint64_t time_ns;		/* after its run's start */
	uint32_t stack;			/* ana_set_stack's argument */
	size_t event;			/* event column */
	uint64_t period;		/* the event's mean period in this file, or 1 */
	bool selected;			/* inside opts.time (true without it) */
};
/* Sample i of thread t.  0, or -EINVAL past the end. */
ANA_API int ana_set_thread_sample(const struct ana_set *s, size_t t, uint64_t i,
				  struct ana_sample *out);

struct ana_frame {
	const char *name;		/* function ("[module+0xOFF]" if unresolved) */
	const char *module;		/* module path, or NULL */
	const char *file;		/* source file of the address, or NULL */
	unsigned line;			/* 0: unknown */
	uint64_t addr;			/* ELF address in the module (addr2line's) */
	bool inlined;			/* inlined into the next (outer) frame */
	uint32_t key;			/* the same function and inlining, the same key */
};
/* The frames of a sample's stack, leaf first, into fr[max] (inlined
 * frames each their own).  Returns the number of frames, which may be
 * more than max (then only max were filled). */
ANA_API size_t ana_set_stack(const struct ana_set *s, uint32_t stack, struct ana_frame *fr,
			     size_t max);

/* Thread t's selected samples of event column ev (SIZE_MAX: every event)
 * as slices, "frame on the stack from t0 to t1" (trace.c): a sample stands
 * from its time until the next one, but at most twice the thread's
 * interval (a longer gap: the thread did not run, every slice closes).
 * open and close are called in time order, properly nested (close
 * innermost first), t in ns after the run's start; they return 0 or
 * -errno, which stops the walk.  0, -EINVAL (no thread t), -ENOMEM, or
 * the callback's error. */
struct ana_walk_cb {
	int (*open)(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t);
	int (*close)(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t);
};
ANA_API int ana_set_walk_thread(const struct ana_set *s, size_t t, size_t ev,
				const struct ana_walk_cb *cb, void *arg);

/* A Chrome / Perfetto trace (the Trace Event format's JSON object form):
 * each thread's samples on a timeline, a slice per function on the stack
 * while consecutive samples keep it there (a gap of more than twice the
 * thread's interval closes every slice), pids and tids as recorded,
 * process and thread names as metadata events.  0, -ENODATA (no
 * timeline), -EIO. */
ANA_API int ana_set_write_trace(struct ana_set *s, FILE *f);
/* ---- a function's instructions (annotate.c) ---- */

struct ana_insn {
	uint64_t addr;			/* ELF address in the module */
	unsigned size;			/* bytes */
	const char *text;		/* "mnemonic operands" (capstone, Intel syntax) */
	const char *file;		/* its source line (the innermost, as the line
					 * table says), or NULL */
	unsigned line;
	const char *inlined;		/* the innermost function inlined here, or NULL:
					 * the function's own code */
	uint64_t samples;		/* samples whose sampled instruction is this one */
	double pct;			/* of the function's samples */
};
struct ana_annotation {
	const char *func;		/* the function disassembled: FUNC, or the one
					 * it was inlined into */
	const char *module;		/* its module's path */
	uint64_t lo, hi;		/* its ELF symbol's range [lo, hi) */
	uint64_t samples;		/* its samples in the run, on the event */
	uint64_t outside;		/* of them, at no instruction start of the range */
	size_t n;
	const struct ana_insn *insn;	/* in address order */
};
/* Disassemble FUNC ("name" or "module:name"; an inlined function: the
 * function it was inlined into) with each instruction's samples of run on
 * event column ev.  Needs ana_opts.addr_samples and a finished set; reads
 * the module from its file (--remap applies; its build-id must be the
 * recorded one) and debug info as symbolization does.  Where several
 * functions match, the one with the most samples.  0 and *out (free with
 * ana_annotation_free; func and module are the set's strings, the
 * instructions' strings the annotation's); -ANA_ENOFUNC; -ANA_ESTATE;
 * -ENOTSUP (kernel, vdso, JIT code, another architecture), -ENOENT, -ESTALE
 * (rebuilt), -EFBIG (over 1 MiB), -EIO, -ENOMEM, with a line in msg. */
ANA_API int ana_set_annotate(struct ana_set *s, const char *func, unsigned run, size_t ev,
			     struct ana_annotation **out, char *msg, size_t len);
ANA_API void ana_annotation_free(struct ana_annotation *a);

/* ---- source files ---- */

/* Where to read source file `file` (a row's file) on this machine: the
 * first regular, readable file among file with opts.remap applied (first
 * matching OLD prefix), file itself, then under each opts.debug_dirs root
 * DIR: DIR/file (remapped, then as recorded) and DIR/basename(file).
 * Writes the path into buf[len] (the caller's).  0; -ENOENT if none is
 * there (buf then holds the first candidate, for a message); -ENAMETOOLONG
 * if a candidate does not fit; -EINVAL for an empty name.  Valid at any
 * time; reads nothing but file metadata. */
ANA_API int ana_set_source_path(const struct ana_set *s, const char *file, char *buf, size_t len);

/* Number formatting every front-end shares (analyzer/format.c).  A ratio
 * or delta with precision for its size: "0.98", "12.5", "150"; "+1.2",
 * "+15" (percentage points); "-" for NAN, "inf". */
ANA_API void ana_fmt_ratio(char *buf, size_t len, double x, enum ana_ratio mode);
/* A comparison's interval, "[lo,hi]" in the same precision; "" if none. */
ANA_API void ana_fmt_interval(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio mode);

#include "analyzer/facts.h"

#endif
