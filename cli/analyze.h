/* Shared by the report and diff commands (not part of the library). */
#ifndef CLI_ANALYZE_H
#define CLI_ANALYZE_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "analyzer/ana/table.h"
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

/* Option groups the analysis commands share, as rows of their tables bound
 * to a struct common *c (one text, one behaviour for every command). */
#define COMMON_EVENT_OPTS(c) /* -e */ \
	OPT_STRING('e', "event", &(c)->event, "NAME|N", \
		   "show and sort by this event (name, or its column from 1)")
#define COMMON_VIEW_OPTS(c) /* --lines --modules */ \
	OPT_SET_INT(0, "lines", &(c)->view, ANA_VIEW_LINES, "per source line"), \
	OPT_SET_INT(0, "modules", &(c)->view, ANA_VIEW_MODULES, "per module")
#define COMMON_WEIGHT_OPTS(c) /* --weight */ \
	OPT_BOOL(0, "weight", &(c)->o.weighted, "sample weights (count x period used), not counts")
#define COMMON_SPLIT_OPTS(c) /* --metric --by */ \
	OPT_LIST(0, "metric", &(c)->metrics, &(c)->n_metrics, "NAME=EXPR", \
		 "derived column, e.g. 'CPI=cycles/instructions'\n" \
		 "(+ - * / parentheses, event names, numbers)"), \
	OPT_ENUM(0, "by", &(c)->o.split, common_split_names, "WHAT", \
		 "one report per thread, process, rank, host or comm")
#define COMMON_TIME_OPTS(c) /* --time */ \
	OPT_CALLBACK(0, "time", required_argument, common_time, (c), "START,END|P%/N|A%-B%", \
		     "only the samples from START to END seconds after\n" \
		     "the run's start (either may be empty), or percent\n" \
		     "slices of the run (10%/2: the second tenth; 0%-25%;\n" \
		     "several, comma-separated); from the profiles'\n" \
		     "timelines (pmcprof script shows the times)")
#define COMMON_INPUT_PATHS(c) /* -i */ \
	OPT_LIST('i', "input", &(c)->paths, &(c)->n_paths, "PROFILE|DIR", \
		 "read this too (repeatable; as an operand, perf's -i)")
#define COMMON_INPUT_OPTS(c) /* --merge */ \
	OPT_BOOL(0, "merge", &(c)->merge, \
		 "merge the runs found under a directory (each\n" \
		 "directory holding profiles is one record run) into\n" \
		 "one; without it such a directory is refused")
#define COMMON_FILTER_OPTS(c) /* --comm --pid --tid --dso --symbols */ \
	OPT_JOIN(0, "comm", &(c)->filter[0], ",", OPT_ITEMS_NAMES, "COMM[,...]", \
		 "only the threads named COMM (their comm; repeatable)"), \
	OPT_JOIN(0, "comms", &(c)->filter[0], ",", OPT_ITEMS_NAMES, "COMM[,...]", \
		 "the same, perf's spelling"), \
	OPT_JOIN(0, "pid", &(c)->filter[1], ",", OPT_ITEMS_NUMBERS, "PID[,...]", \
		 "only these processes' threads"), \
	OPT_JOIN(0, "tid", &(c)->filter[2], ",", OPT_ITEMS_NUMBERS, "TID[,...]", \
		 "only these threads"), \
	OPT_JOIN(0, "dso", &(c)->filter[3], ",", OPT_ITEMS_NAMES, "MODULE[,...]", \
		 "only samples in these modules (basename or path);\n" \
		 "percentages stay of the whole run, as perf's"), \
	OPT_JOIN(0, "dsos", &(c)->filter[3], ",", OPT_ITEMS_NAMES, "MODULE[,...]", \
		 "the same, perf's spelling"), \
	OPT_JOIN(0, "symbols", &(c)->filter[4], ",", OPT_ITEMS_NAMES, "FUNC[,...]", \
		 "only samples in these functions (or code inlined\n" \
		 "into them); percentages of the whole run")
#define COMMON_SYMBOL_OPTS(c) /* COMMON_DEBUG_OPTS --no-inline --short-names */ \
	COMMON_DEBUG_OPTS(c), \
	OPT_BOOL(0, "no-inline", &(c)->o.no_inline, \
		 "charge inlined code to the function it was inlined\n" \
		 "into (as perf report --no-inline)"), \
	OPT_BOOL(0, "short-names", &(c)->o.short_names, \
		 "function names without their namespace and class")
#define COMMON_DEBUG_OPTS(c) /* --debug-dir --remap --no-cache */ \
	OPT_JOIN(0, "debug-dir", &(c)->debug_dirs, ":", OPT_ITEMS_ANY, "DIR", \
		 "look for debug info and sources under DIR too\n" \
		 "(repeatable; DIR may be a colon-separated list)"), \
	OPT_CALLBACK(0, "remap", required_argument, common_remap, (c), "OLD=NEW", \
		     "read modules and sources under OLD from NEW\n" \
		     "(repeatable)"), \
	OPT_BOOL(0, "no-cache", &(c)->no_cache, \
		 "do not use the symbol cache ($PMCPROF_CACHE_DIR, else\n" \
		 "~/.cache/pmcprof/symbols; PMCPROF_CACHE_DIR= disables it)")
#define COMMON_FORMAT_OPTS(c) /* --csv --json */ \
	OPT_SET_INT(0, "csv", &(c)->out, OUT_CSV, "CSV (RFC 4180) instead of text"), \
	OPT_SET_INT(0, "json", &(c)->out, OUT_JSON, "JSON instead of text")
#define COMMON_TEXT_OPTS(c) /* --width --header --no-header -q */ \
	OPT_UINT(0, "width", &(c)->width, 20, 10000, "N", \
		 "cut text to N columns (default: a terminal's width;\n" \
		 "piped output is never cut)"), \
	OPT_BOOL(0, "header", &(c)->header, \
		 "every fact of the run (metadata, collector counters,\n" \
		 "all notes), not the short header"), \
	OPT_BOOL(0, "no-header", &(c)->no_header, \
		 "no header lines in text output (warnings on stderr)"), \
	OPT_BOOL('q', "quiet", &(c)->quiet, "no informational notes or progress")

/* --by's names (ana_split). */
extern const struct opt_name common_split_names[];
/* --remap OLD=NEW (ctx: the struct common): checked, appended to remap. */
int common_remap(void *ctx, const char *v);
/* --time SLICES (ctx: the struct common): the samples' time ranges, each
 * run's own (percentages of its span, seconds after its start). */
int common_time(void *ctx, const char *v);

struct common {
	const char *prog;
	const char **paths;	/* -i, then the operands (common_operands) */
	size_t n_paths;
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
	const char *time_spec;	/* --time, as given */
	struct ana_time_range time[16];
	char cache_dir[4096];
};
/* The allocator's settings for an analysis (call first; common_init does). */
void analysis_malloc_policy(void);
void common_init(struct common *c, const char *prog);
void common_free(struct common *c);
/* argv[first...] appended to paths: 0, or -1 out of memory. */
int common_operands(struct common *c, int argc, char **argv, int first);
/* The skeleton of an analysis command's main: c made ready for prog,
 * prepare reads the options and loads the set (NULL: the exit status is
 * in *rc, said), run prints from it (and frees it), then c is freed: the
 * exit status. */
struct command {
	const char *prog;
	struct common *c;
	struct ana_set *(*prepare)(int argc, char **argv, int *first, int *rc);
	int (*run)(struct ana_set *s, int argc, char **argv, int first);
};
int command_main(const struct command *cmd, int argc, char **argv);
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
/* With --time, after finish: a run left with no samples in the slice (a
 * profile without a timeline, a slice past its end) is said on stderr
 * with the notes, naming it; s is freed and -1 returned.  Else 0. */
int common_time_check(const struct common *c, struct ana_set *s);
/* After finish: add metrics, resolve --event.  Returns column or -1 (printed). */
int common_columns(struct common *c, struct ana_set *s);
/* common_columns where the column must be an event: a metric's is said as
 * "PROG: NO_METRIC"; on failure s is freed and -1 returned. */
int common_event_column(struct common *c, struct ana_set *s, const char *no_metric);
/* A set of c->paths as one run: common_set, common_add of each (the one
 * path labels the run if label), common_finish with runs.  NULL: said. */
struct ana_set *common_load(struct common *c, unsigned runs, bool label);
/* Notes: in text mode as "# warning:" header lines to out and errors also
 * on stderr; otherwise all on stderr. */
void print_notes(const struct common *c, const struct ana_set *s, FILE *out);
/* Errors among the notes, on stderr. */
void print_errors(const struct common *c, const struct ana_set *s);
/* The short header (data first): "# [ROLE: ]LABEL: COMMAND (N files, D s)"
 * and "# event: NAME period P: N samples", over every run of the set. */
void print_summary(const struct common *c, const struct ana_set *s, const char *role, FILE *out);
/* With --time, "# time: only the samples in --time SPEC (from the
 * timelines)": the counts that follow are of that slice only. */
void print_time_line(const struct ana_set *s, FILE *out);
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
