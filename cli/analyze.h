/* Shared by the report and diff commands (not part of the library). */
#ifndef CLI_ANALYZE_H
#define CLI_ANALYZE_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "analyzer/table.h"
#include "cli/options.h"

/* Text tables are the analyzer's (analyzer/table.h): struct ana_table over
 * struct ana_col columns.  A cell's text, at most (a C++ name with its
 * inlining): */
#define CELL_MAX 2048
/* A text-only column: its heading, alignment and cut hints (ana_col's). */
static inline struct ana_col text_col(const char *title, bool left, int shrink, int min, int soft)
{
	return (struct ana_col){ .title = title, .left = left, .shrink = shrink, .min = min,
				 .soft = soft };
}
/* Model column id, with its heading and layout, for a text table. */
static inline struct ana_col model_col(enum ana_col_id id)
{
	return *ana_col(id);
}

/* Options both commands share: their tables (included into each command's
 * own where its --help lists them) and their state. */
enum {
	COMMON_CSV = OPT_LONG, COMMON_JSON, COMMON_WEIGHT, COMMON_NO_CACHE, COMMON_LINES,
	COMMON_MODULES, COMMON_WIDTH, COMMON_METRIC, COMMON_DEBUG_DIR, COMMON_REMAP, COMMON_BY,
	COMMON_NO_HEADER, COMMON_HEADER, COMMON_NO_INLINE, COMMON_SHORT_NAMES,
	COMMON_MERGE, COMMON_COMM, COMMON_PID, COMMON_TID, COMMON_DSO, COMMON_SYMBOLS,
	COMMON_LAST = OPT_LONG + 63	/* the commands' own ids start above */
};
extern const struct opt common_event_opts[];	/* -e */
extern const struct opt common_view_opts[];	/* --lines --modules */
extern const struct opt common_weight_opts[];	/* --weight */
extern const struct opt common_symbol_opts[];	/* --debug-dir --remap --no-cache */
extern const struct opt common_format_opts[];	/* --csv --json */
extern const struct opt common_text_opts[];	/* --width --no-header -q */
extern const struct opt common_split_opts[];	/* --metric --by */
extern const struct opt common_input_opts[];	/* --merge */
extern const struct opt common_filter_opts[];	/* --comm --pid --tid --dso --symbols */

struct common {
	const char *prog;
	struct ana_opts o;
	char *debug_dirs;
	const char **remap;
	size_t n_remap;
	const char **metrics;
	size_t n_metrics;
	const char *event;
	int width;
	enum { OUT_TEXT, OUT_CSV, OUT_JSON, OUT_COLLAPSED } out;
	enum ana_view view;
	const char *func;
	bool quiet;
	bool no_cache;
	bool no_header;
	bool header;		/* --header: every fact */
	bool merge;		/* --merge: the runs found under a directory, as one */
	char *filter[5];	/* --comm, --pid, --tid, --dso, --symbols lists (ana_opts) */
	char cache_dir[4096];
};
/* The allocator's settings for an analysis (call first; common_init does). */
void analysis_malloc_policy(void);
void common_init(struct common *c, const char *prog);
void common_free(struct common *c);
/* --comm, --pid, --tid, --dso, --symbols (id COMMON_COMM...): append v to
 * the list in filter[5] (malloc'd); 0, or -1 with the usage error printed
 * as prog. */
int filter_option(char **filter, const char *prog, int id, const char *v);
/* Take option id (with its argument): 1 if it is a common one, 0 if not,
 * -1 on a usage error (printed). */
int common_option(struct common *c, int id, const char *arg);
/* Report a usage error and return EXIT_USAGE. */
int usage_error(const struct common *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A set from the options (before ana_set_add). NULL: printed. */
struct ana_set *common_set(struct common *c);
/* Directories at or under path holding profiles (*.pmcp, as the analyzer
 * finds them): record writes one run per directory, so each is a run.
 * 0 for a file; -errno.  The first few, comma-separated, into names. */
int runs_under(const char *path, char *names, size_t len);
/* A directory holding several runs, refused unless merge (--merge), said
 * on stderr as prog: 0 or -1. */
int check_runs(const char *prog, const char *path, bool merge);
/* ana_set_add; out of memory is said (the progress line erased first) and
 * s freed: 0, or -1 (the command exits 2).  So is a directory of several
 * runs without --merge (check_runs). */
int common_add(struct common *c, struct ana_set *s, unsigned run, unsigned repeat, const char *path);
/* ana_set_finish, then the progress line erased.  runs: how many runs the
 * set must have (0: any), else it is -ANA_ENODATA, said as no_run (NULL:
 * the analyzer's words).  On failure the notes and the reason go to
 * stderr, s is freed and -1 returned. */
int common_finish(struct common *c, struct ana_set *s, unsigned runs, const char *no_run);
/* After finish: add metrics, resolve --event.  Returns column or -1 (printed). */
int common_columns(struct common *c, struct ana_set *s);
/* Notes: in text mode as "# warning:" header lines to out and errors also
 * on stderr; otherwise all on stderr. */
void print_notes(const struct common *c, const struct ana_set *s, FILE *out);
/* Errors among the notes, on stderr. */
void print_errors(const struct common *c, const struct ana_set *s);
/* The short header (data first): "# [ROLE: ]LABEL: COMMAND (N files, D s)"
 * and "# event: NAME period P: N samples", over every run of the set. */
void print_summary(const struct common *c, const struct ana_set *s, const char *role, FILE *out);
/* "# warning: ..." when something matters (a fallback, a note: losses over
 * 1%, a failed calibration, ...): the first, and how many more.  None with -q. */
void print_warning_line(const struct common *c, const struct ana_set *s, FILE *out);
/* One short line for a --by group or a compared run:
 * "# ROLE: LABEL (N files): EVENT ...: N samples". */
void print_group_line(const struct common *c, const struct ana_set *s, unsigned run,
		      const char *role, FILE *out);
/* The full "what ran" header of one run (--header); role is "run", "base", ... */
void print_run_header(const struct common *c, const struct ana_set *s, unsigned run,
		      const char *role, FILE *out);
/* A row's function name, indented, with "[inlined into CALLER]" (or, if
 * mark, " [inlined]" for an inlined instance). */
void fmt_name(char *buf, size_t len, const struct ana_row *r, int indent, bool mark);
/* Column text for a row (shared by flat tables). */
void fmt_source(char *buf, size_t len, const struct ana_row *r);
const char *base_name(const char *path);
/* Width for text output: --width; else, on a terminal, $COLUMNS or its
 * width; else 0: lines are never cut. */
int out_width(const struct common *c);
/* The progress line on stderr ("PROG: phase N%"), for the caller to pass
 * only when stderr is a terminal: progress_start when the analysis starts
 * (nothing is shown before it has run half a second), progress_cb as
 * ana_opts.progress, progress_done to erase the line before output. */
void progress_start(const char *prog);
void progress_cb(void *arg, const char *phase, uint64_t done, uint64_t total);
void progress_done(void);
/* The symbol cache directory into buf: $PMCPROF_CACHE_DIR (empty: none),
 * else $XDG_CACHE_HOME/pmcprof/symbols, else ~/.cache/pmcprof/symbols.
 * NULL for none (or no_cache: --no-cache). */
const char *symbol_cache_dir(bool no_cache, char *buf, size_t len);

#endif
