/* The options of a set (struct ana_opts, ANA_OPTS): how runs are split,
 * read, filtered and symbolized, and what is kept for later calls.  Sized
 * (sz first) so it can grow.  The set copies the strings it keeps
 * (ana_set_opts); the progress callback is called on the thread running
 * ana_set_add and ana_set_finish.
 */
#ifndef ANALYZER_ANA_OPTS_H
#define ANALYZER_ANA_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Split each run into groups by this profile metadata (--by). */
enum ana_split { ANA_SPLIT_NONE, ANA_SPLIT_THREAD, ANA_SPLIT_PROCESS, ANA_SPLIT_RANK, ANA_SPLIT_HOST,
		 ANA_SPLIT_COMM	/* the thread's comm (metadata thread_name): "comm=NAME" */ };

/* Progress: done out of total work units of the current phase ("read",
 * "symbolize"); total 0 when unknown. */
typedef void (*ana_progress_fn)(void *arg, const char *phase, uint64_t done, uint64_t total);

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
	const char *time_spec;		/* time's ranges as the user typed them (--time
					 * SPEC, copied), for the runs' slice fact; NULL:
					 * the analyzer writes them out itself */
};
#define ANA_OPTS(name, ...) struct ana_opts name = { .sz = sizeof(struct ana_opts), __VA_ARGS__ }

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_OPTS_H */
