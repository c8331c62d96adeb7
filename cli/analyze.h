/* Shared by the report and diff commands (not part of the library). */
#ifndef CLI_ANALYZE_H
#define CLI_ANALYZE_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/analyzer.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUNTIME = 2 };

/* A text table: cells are copied; columns shrink to fit a width. */
struct tcol {
	const char *title;
	bool left;		/* left-aligned (text) */
	int shrink;		/* 0: never; higher numbers shrink first */
	int min;		/* narrowest it may get */
	int soft;		/* first pass shrinks only down to this */
};
struct table;
struct table *table_new(const struct tcol *cols, size_t n);
int table_add(struct table *t, const char *const *cells);
void table_print(struct table *t, FILE *f, int width);
void table_free(struct table *t);

/* Options both commands share; parse_common returns 1 if it took argv[*i]
 * (and maybe its argument), 0 if not ours, -1 on a usage error (printed). */
struct common {
	const char *prog;
	struct ana_opts o;
	const char *debug_dirs;
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
	char cache_dir[4096];
};
void common_init(struct common *c, const char *prog);
void common_free(struct common *c);
int parse_common(struct common *c, int argc, char **argv, int *i);
/* Report a usage error and return EXIT_USAGE. */
int usage_error(const struct common *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A set from the options (before ana_set_add). NULL: printed. */
struct ana_set *common_set(struct common *c);
/* After finish: add metrics, resolve --event.  Returns column or -1 (printed). */
int common_columns(struct common *c, struct ana_set *s);
/* Notes: in text mode as "# warning:" header lines to out and errors also
 * on stderr; otherwise all on stderr. */
void print_notes(const struct common *c, const struct ana_set *s, FILE *out);
/* The "what ran" header of one run; role is "run", "base", ... */
void print_run_header(const struct common *c, const struct ana_set *s, unsigned run,
		      const char *role, FILE *out);
/* Column text for a row (shared by flat tables). */
void fmt_source(char *buf, size_t len, const struct ana_row *r);
const char *base_name(const char *path);
/* Terminal width for text output: --width, else $COLUMNS, else 80. */
int out_width(const struct common *c);
/* A progress line on stderr when it is a terminal. */
void progress_cb(void *arg, const char *phase, uint64_t done, uint64_t total);
void progress_done(void);

#endif
