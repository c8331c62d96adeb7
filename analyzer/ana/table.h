/* The presentation model of query results: rows of typed columns.
 *
 * A column is what every output of a row set shares: its identity (the
 * CSV header and JSON key, "self_pct"), its heading in a text table
 * ("Self%"), the type of its values, how a text table and a screen lay it
 * out, and an accessor that gives the typed value of one cell, at (row,
 * run, event) of a row set.  CSV (ana_rows_write_csv), JSON
 * (ana_rows_write_json), the text tables of report and diff and the
 * viewer's tables (whose column lists are lists of these) are renderers
 * over these columns; each writes a type its own way (a percentage: 4
 * decimals in CSV, every digit in JSON, 2 in a text table, "12.3%" on a
 * screen).
 *
 * The text table (struct ana_table) is the one table type: cells by
 * columns, each column as wide as its widest cell, cut to fit a width by
 * the columns' layout hints.  Nothing here prints but the ana_*_write
 * renderers, to the FILE they are given. */
#ifndef ANALYZER_ANA_TABLE_H
#define ANALYZER_ANA_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/rows.h"
#include "analyzer/ana/compare.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a column's values are. */
enum ana_type {
	ANA_T_TEXT,		/* a string */
	ANA_T_COUNT,		/* an unsigned integer: samples, a line, a depth */
	ANA_T_PCT,		/* a share in percent */
	ANA_T_NUMBER,		/* a value, a weight, a metric */
	ANA_T_RATIO,		/* a comparison: ratio, delta, interval end, spread */
	ANA_T_FLAG,		/* yes or no */
};

/* One cell's value.  none: no value (blank in CSV and text, null in
 * JSON). */
struct ana_value {
	enum ana_type type;
	bool none;
	const char *s;		/* TEXT: valid while the row set is (or points into buf) */
	uint64_t u;		/* COUNT */
	double d;		/* PCT, NUMBER, RATIO (NAN: none) */
	bool b;			/* FLAG */
	char buf[128];		/* a text made for this cell (a trust string) */
};

/* Where a cell is: row `row` of `rows`, run `run`, event column `ev` (an
 * index of ana_set_event), and in compare mode the run's comparison with
 * the base (ana_rows_compare; NULL outside compare mode). */
struct ana_at {
	const struct ana_rows *rows;
	size_t row, ev;
	unsigned run;
	const struct ana_cmp *cmp;
};

struct ana_col {
	const char *name;	/* CSV header, JSON key; NULL: a text-only column */
	const char *title;	/* heading of a text table and a screen */
	enum ana_type type;
	/* text layout */
	bool left;		/* left-aligned (on a screen too) */
	int shrink;		/* 0: never cut; higher numbers are cut first */
	int min;		/* narrowest it may get */
	int soft;		/* the first pass cuts it only down to this */
	const char *csv_fmt;	/* CSV's printf format of a number (NULL: whole numbers
				 * exactly, others "%g") */
	/* Screen layout: how the viewer (viewer-tui/layout.c) fits the column
	 * into a terminal, in terminal columns.  A text table sizes columns by
	 * their cells once; a screen is resized, scrolled and often narrow,
	 * so it drops whole columns instead of cutting every one.  All 0: the
	 * column has no place on a screen unless its user gives it one. */
	struct ana_screen {
		int min;	/* narrowest it is shown; dropped rather than narrower */
		int pref;	/* widest it grows to while others want room (0: min) */
		int keep;	/* dropped in rising order of keep when space runs out */
		bool fill;	/* takes what is left (a table's one name column) */
	} screen;
	/* The value of the cell at `at` into v (v->type is set before); NULL
	 * for a text-only column, whose cells the caller writes. */
	void (*get)(const struct ana_at *at, struct ana_value *v);
};

/* The columns of CSV and JSON rows (docs/analyzer.md, "CSV columns"). */
enum ana_col_id {
	ANA_COL_EVENT, ANA_COL_FUNCTION, ANA_COL_MODULE, ANA_COL_FILE, ANA_COL_LINE,
	ANA_COL_SELF_SAMPLES, ANA_COL_SELF_PCT, ANA_COL_INCL_SAMPLES, ANA_COL_INCL_PCT,
	ANA_COL_SELF_VALUE, ANA_COL_INCL_VALUE, ANA_COL_RUN, ANA_COL_INLINED_INTO, ANA_COL_DEPTH,
	ANA_COL_BASE, ANA_COL_RUN_EVENT, ANA_COL_BASE_SAMPLES, ANA_COL_RUN_SAMPLES,
	ANA_COL_BASE_PCT, ANA_COL_RUN_PCT, ANA_COL_MODE, ANA_COL_RATIO, ANA_COL_CI_LOW,
	ANA_COL_CI_HIGH, ANA_COL_SIGNIFICANT, ANA_COL_SPREAD, ANA_COL_PRESENCE,
	ANA_COL_RUN_TRUST, ANA_COL_BASE_TRUST, ANA_COL_WITHHELD,
	ANA_COL_N
};
/* The column table's entry for id (static; NULL for a bad id). */
ANA_API const struct ana_col *ana_col(enum ana_col_id id);
/* The column whose name is name, or NULL. */
ANA_API const struct ana_col *ana_col_named(const char *name);
/* Cell value of column c at at (none for a text-only column). */
ANA_API void ana_col_value(const struct ana_col *c, const struct ana_at *at, struct ana_value *v);
/* A value as a text table shows it, into buf: a percentage "%.2f", a
 * number "%.4g", a count in full, a flag "*"; none: "".  Returns buf. */
ANA_API char *ana_value_text(const struct ana_value *v, char *buf, size_t len);

/* The CSV field of a value (RFC 4180: quoted when it holds a comma, quote
 * or line break, or starts with a blank): none is blank, a flag 1 or 0, a
 * count in full, a whole number below 2^53 exactly, other numbers in fmt
 * (NULL: "%g"), infinities "inf" and "-inf". */
ANA_API void ana_value_write_csv(const struct ana_value *v, const char *fmt, FILE *f);

/* A text table over columns (the array is not copied: keep it alive).
 * Cells are copied, control bytes shown as '?'.  NULL + errno. */
struct ana_table;
ANA_API struct ana_table *ana_table_new(const struct ana_col *cols, size_t n);
/* A row of n text cells (NULL: ""). 0 or -ENOMEM. */
ANA_API int ana_table_add(struct ana_table *t, const char *const *cells);
/* Headings, then the rows; columns cut (long cells end in '+') so that
 * lines fit width (0: never cut); trailing blanks dropped.  0 or -errno. */
ANA_API int ana_table_write_text(const struct ana_table *t, FILE *f, int width);
/* The same as a Markdown (GFM) table: a heading row, the alignment row,
 * a row per row, '|' in a cell escaped; nothing is cut.  0 or -errno. */
ANA_API int ana_table_write_markdown(const struct ana_table *t, FILE *f);
ANA_API void ana_table_free(struct ana_table *t);

#ifdef __cplusplus
}
#endif

#endif
