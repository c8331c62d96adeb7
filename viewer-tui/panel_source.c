/* Annotated source: every line of a file with its samples, hot lines
 * marked.  Without the file's text, the lines that have samples. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

/* A line is hot from this share of the file's samples on. */
#define HOT_SHARE 0.10

struct src {
	struct panel p;
	char *file;		/* as recorded: what the rows name */
	char *path;		/* where its text was read (--remap, --debug-dir), or NULL */
	unsigned want_line;
	struct source *text;	/* NULL: not readable */
	int text_err;
	struct ana_rows *rows;	/* LINES, all files */
	size_t *at;		/* per table row: row in `rows`, or SIZE_MAX */
	unsigned *lineno;	/* per table row: its line number */
	size_t n;
	double total, hot_min;	/* the file's value; hot from hot_min on */
	struct vcols vc;	/* value columns, then Line and Text */
	size_t n_value;
};

/* The source text: a text-only column (analyzer/ana/table.h), the viewer's own. */
static const struct ana_col src_text_col = {
	.title = "Source", .type = ANA_T_TEXT, .left = true, .screen = { 10, 80, 99, true },
};

static size_t src_n(void *ctx)
{
	return ((struct src *)ctx)->n;
}

static double line_value(const struct src *s, size_t row)
{
	return s->at[row] == SIZE_MAX ? 0
	       : ana_rows_value(s->rows, s->at[row], s->p.ui->st.base,
				view_run_event(&s->p.ui->st, s->p.ui->set, s->p.ui->st.base), ANA_SELF);
}

static bool hot(const struct src *s, size_t row)
{
	double v = line_value(s, row);
	return v > 0 && v >= s->hot_min;
}

static enum role src_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct src *s = ctx;
	const struct vcol *c = &s->vc.c[col];

	buf[0] = '\0';
	if (c->kind == VC_LINE) {	/* the line number, '>' on hot lines */
		snprintf(buf, len, "%s%u", hot(s, row) ? ">" : " ", s->lineno[row]);
		return hot(s, row) ? ROLE_HOT : ROLE_DIM;
	}
	if (c->kind == VC_NAME) {	/* the text */
		snprintf(buf, len, "%s", s->text ? source_line(s->text, s->lineno[row]) : "");
		return ROLE_NORMAL;
	}
	if (s->at[row] == SIZE_MAX)
		return ROLE_NORMAL;
	return vcol_cell(&s->p.ui->st, &s->vc, col, s->rows, s->at[row], width, buf, len);
}

static enum role src_row_role(void *ctx, size_t row)
{
	return hot(ctx, row) ? ROLE_HOT : ROLE_NORMAL;
}

static const char *src_match(void *ctx, size_t row)
{
	struct src *s = ctx;
	return s->text ? source_line(s->text, s->lineno[row]) : NULL;
}

static const struct tui_table_ops src_table = {
	.n_rows = src_n, .cell = src_cell, .match = src_match, .row_role = src_row_role,
};

static int cmp_lines(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* v[n] sorted, each value once; returns how many are left. */
static size_t uniq(unsigned *v, size_t n)
{
	size_t u = 0;

	qsort(v, n, sizeof(*v), cmp_lines);
	for (size_t k = 0; k < n; k++)
		if (u == 0 || v[u - 1] != v[k])
			v[u++] = v[k];
	return u;
}

/* The table's rows for file: with its text, every line (and samples past
 * the end: the file changed); without, the lines that have samples, one
 * row each even if two functions share it.  at[] (each line's row of
 * rows) all SIZE_MAX.  0 or -ENOMEM. */
static int list_lines(struct src *s, const struct ana_rows *rows, size_t **at_out,
		      unsigned **lineno_out, size_t *n_out)
{
	size_t nr = ana_rows_n(rows), n = s->text ? source_n_lines(s->text) : 0, k = 0;
	unsigned max_line = 0;

	for (size_t i = 0; i < nr; i++) {
		const struct ana_row *r = ana_rows_row(rows, i);
		if (text_same(r->file, s->file) && r->line > max_line)
			max_line = r->line;
		if (!s->text)
			n += text_same(r->file, s->file);
	}
	if (s->text && n < max_line)
		n = max_line;
	size_t *at = malloc((n ? n : 1) * sizeof(*at));
	unsigned *lineno = malloc((n ? n : 1) * sizeof(*lineno));
	if (!at || !lineno) {
		free(at);
		free(lineno);
		return -ENOMEM;
	}
	if (s->text) {
		for (k = 0; k < n; k++)
			lineno[k] = (unsigned)k + 1;
	} else {
		for (size_t i = 0; i < nr; i++)
			if (text_same(ana_rows_row(rows, i)->file, s->file))
				lineno[k++] = ana_rows_row(rows, i)->line;
		n = uniq(lineno, n);
	}
	for (k = 0; k < n; k++)
		at[k] = SIZE_MAX;
	*at_out = at;
	*lineno_out = lineno;
	*n_out = n;
	return 0;
}

/* Each line's row: rows are sorted by value, so the first match of a
 * line is its row. */
static void find_rows(struct src *s)
{
	for (size_t i = 0; i < ana_rows_n(s->rows); i++) {
		const struct ana_row *r = ana_rows_row(s->rows, i);
		if (!text_same(r->file, s->file) || r->line == 0)
			continue;
		unsigned *hit = bsearch(&r->line, s->lineno, s->n, sizeof(*s->lineno), cmp_lines);
		if (hit && s->at[hit - s->lineno] == SIZE_MAX)
			s->at[hit - s->lineno] = i;
	}
}

/* The file's total and hot threshold; returns the hottest line's row. */
static size_t weigh(struct src *s)
{
	double top = 0;
	size_t top_row = 0;

	s->total = 0;
	for (size_t k = 0; k < s->n; k++) {
		double v = line_value(s, k);
		s->total += v;
		if (v > top)
			top = v, top_row = k;
	}
	s->hot_min = s->total * HOT_SHARE;
	return top_row;
}

/* Columns: the flat lines' value columns, then Line and Text. */
static void src_columns(struct src *s, struct ui *ui)
{
	size_t m = 0;

	vcols_build(&s->vc, &ui->st, ui->set, ANA_VIEW_LINES);
	for (size_t i = 0; i < s->vc.n; i++)
		if (s->vc.c[i].kind != VC_LINE && s->vc.c[i].kind != VC_NAME &&
		    s->vc.c[i].kind != VC_MODULE)
			vcols_move(&s->vc, m++, i);
	s->n_value = m;
	/* the line number (the model's line), then the text (the viewer's own) */
	s->vc.c[m] = (struct vcol){ .kind = VC_LINE };
	s->vc.col[m] = *ana_col(ANA_COL_LINE);
	m++;
	s->vc.c[m] = (struct vcol){ .kind = VC_NAME };
	s->vc.col[m] = src_text_col;
	s->vc.n = m + 1;
	s->vc.sort_col = -1;
}

static int src_refresh(struct panel *p, struct ui *ui)
{
	struct src *s = (struct src *)p;
	struct ana_query q;
	struct ana_rows *rows;
	size_t n, *at;
	unsigned *lineno, keep = s->n ? s->lineno[p->t.sel] : s->want_line;

	view_query(&ui->st, ANA_VIEW_LINES, &q);
	q.sort = ANA_SORT_VALUE;
	rows = ana_set_query(ui->set, &q);
	if (!rows)
		return -errno;
	if (list_lines(s, rows, &at, &lineno, &n) != 0) {
		ana_rows_free(rows);
		return -ENOMEM;
	}
	ana_rows_free(s->rows);
	free(s->at);
	free(s->lineno);
	s->rows = rows;
	s->at = at;
	s->lineno = lineno;
	s->n = n;
	find_rows(s);
	size_t sel = weigh(s);
	for (size_t k = 0; keep && k < n; k++)
		if (lineno[k] == keep)
			sel = k;
	src_columns(s, ui);
	p->t.center = p->gen == 0;	/* opening: the line in the middle */
	panel_show_vcols(p, &s->vc, sel);
	return 0;
}

static enum react src_key(struct panel *p, struct ui *ui, int key)
{
	struct src *s = (struct src *)p;
	(void)ui;
	/* ] and [: the next and previous hot line. */
	if (key != ']' && key != '[')
		return REACT_NONE;
	for (size_t k = 1; k < s->n; k++) {
		size_t r = key == ']' ? (p->t.sel + k) % s->n : (p->t.sel + s->n - k) % s->n;
		if (hot(s, r)) {
			tui_table_select(&p->t, r);
			return REACT_BODY;
		}
	}
	return REACT_HANDLED;
}

static void src_title(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct src *s = (struct src *)p;
	char total[32];

	(void)ui;
	fmt_count(total, sizeof(total), s->total, 12);
	if (s->text && s->path)
		snprintf(buf, len, "%s (from %s): %zu lines, %s samples; hot lines > ([ ] jump)",
			 s->file, s->path, s->n, total);
	else if (s->text)
		snprintf(buf, len, "%s: %zu lines, %s samples; hot lines > ([ ] jump)", s->file,
			 s->n, total);
	else if (s->text_err == ENOENT)
		snprintf(buf, len, "%s (not found here; --remap OLD=NEW or --debug-dir DIR): "
			 "the %zu lines with samples", s->file, s->n);
	else
		snprintf(buf, len, "%s (text not readable: %s): the %zu lines with samples",
			 s->file, strerror(s->text_err), s->n);
}

static const char *src_slug(struct panel *p)
{
	(void)p;
	return "source";
}

static void src_done(struct panel *p)
{
	struct src *s = (struct src *)p;
	ana_rows_free(s->rows);
	source_free(s->text);
	FREE_EACH(s->at, s->lineno, s->file, s->path);
}

/* No rows: the lines of one file are not a row set of their own. */
static const struct panel_ops src_ops = {
	.refresh = src_refresh, .on_key = src_key, .title = src_title, .slug = src_slug,
	.done = src_done,
};

struct panel *panel_source_new(struct ui *ui, const char *file, unsigned line)
{
	struct src *s = panel_alloc(sizeof(*s), ui, &src_ops, &src_table);

	if (!s)
		return NULL;
	s->want_line = line;
	s->file = strdup(file);
	if (!s->file) {
		free(s);
		return NULL;
	}
	/* the analyzer knows where a recorded file is on this machine: the
	 * path with --remap applied, as recorded, or under a --debug-dir */
	char where[4096];
	int rc = ana_set_source_path(ui->set, file, where, sizeof(where));
	s->text = rc == 0 ? source_read(where) : NULL;
	s->text_err = rc < 0 ? -rc : s->text ? 0 : errno;
	if (s->text && strcmp(where, file) != 0 && !(s->path = strdup(where))) {
		panel_free(&s->p);
		return NULL;
	}
	return &s->p;
}
