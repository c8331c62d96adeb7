/* The column model (table.h): the columns of a row set with their typed
 * accessors, and the text table that lays cells out to a width. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"

static const char *const mode_name[] = {
	[ANA_RATIO_SHARE] = "share", [ANA_RATIO_RAW] = "raw", [ANA_RATIO_DELTA] = "delta",
};
static const char *const presence_name[] = {
	[ANA_IN_BOTH] = "both", [ANA_ONLY_BASE] = "base_only", [ANA_ONLY_RUN] = "run_only",
	[ANA_IN_NEITHER] = "neither",
};

/* ---- accessors: one per kind of value ---- */

static const struct ana_query *query(const struct ana_at *at)
{
	return ana_rows_query(at->rows);
}

static const struct ana_row *row(const struct ana_at *at)
{
	return ana_rows_row(at->rows, at->row);
}

static unsigned base(const struct ana_at *at)
{
	return (unsigned)query(at)->base;
}

static void text(struct ana_value *v, const char *s)
{
	v->s = s;
	v->none = !s;
}

static void number(struct ana_value *v, double d)
{
	v->d = d;
	v->none = isnan(d);
}

/* event: the base's event in compare mode (they differ across sample
 * sources: run_event is the run's) */
static void get_event(const struct ana_at *at, struct ana_value *v)
{
	const struct ana_query *q = query(at);
	text(v, ana_set_event(ana_rows_set(at->rows), q->base >= 0 ? ana_rows_event(at->rows, base(at))
							       : at->ev));
}

static void get_run_event(const struct ana_at *at, struct ana_value *v)
{
	text(v, ana_set_event(ana_rows_set(at->rows), at->ev));
}

static void get_function(const struct ana_at *at, struct ana_value *v)
{
	text(v, query(at)->view == ANA_VIEW_MODULES ? NULL : row(at)->name);
}

static void get_module(const struct ana_at *at, struct ana_value *v)
{
	text(v, row(at)->module);
}

static void get_file(const struct ana_at *at, struct ana_value *v)
{
	text(v, row(at)->file);
}

static void get_inlined_into(const struct ana_at *at, struct ana_value *v)
{
	text(v, row(at)->inlined_into);
}

static void get_line(const struct ana_at *at, struct ana_value *v)
{
	v->u = row(at)->line;
	v->none = !v->u;
}

static void get_depth(const struct ana_at *at, struct ana_value *v)
{
	v->u = row(at)->depth;
	v->none = !v->u;
}

static void get_run(const struct ana_at *at, struct ana_value *v)
{
	text(v, ana_set_run(ana_rows_set(at->rows), at->run)->label);
}

static void get_base(const struct ana_at *at, struct ana_value *v)
{
	text(v, ana_set_run(ana_rows_set(at->rows), base(at))->label);
}

/* samples of a metric column: none */
static void samples(const struct ana_at *at, struct ana_value *v, unsigned run, size_t ev,
		    enum ana_kind k)
{
	v->none = ev >= ana_set_n_sampled_events(ana_rows_set(at->rows));
	v->u = v->none ? 0 : ana_rows_samples(at->rows, at->row, run, ev, k);
}

static void get_self_samples(const struct ana_at *at, struct ana_value *v)
{
	samples(at, v, at->run, at->ev, ANA_SELF);
}

static void get_incl_samples(const struct ana_at *at, struct ana_value *v)
{
	samples(at, v, at->run, at->ev, ANA_INCL);
}

static void get_base_samples(const struct ana_at *at, struct ana_value *v)
{
	v->none = false;
	v->u = ana_rows_samples(at->rows, at->row, base(at), ana_rows_event(at->rows, base(at)),
				query(at)->kind);
}

static void get_run_samples(const struct ana_at *at, struct ana_value *v)
{
	v->none = false;
	v->u = ana_rows_samples(at->rows, at->row, at->run, at->ev, query(at)->kind);
}

static void get_self_pct(const struct ana_at *at, struct ana_value *v)
{
	number(v, ana_rows_pct(at->rows, at->row, at->run, at->ev, ANA_SELF));
}

static void get_incl_pct(const struct ana_at *at, struct ana_value *v)
{
	number(v, ana_rows_pct(at->rows, at->row, at->run, at->ev, ANA_INCL));
}

static void get_base_pct(const struct ana_at *at, struct ana_value *v)
{
	number(v, ana_rows_pct(at->rows, at->row, base(at), ana_rows_event(at->rows, base(at)),
			       query(at)->kind));
}

static void get_run_pct(const struct ana_at *at, struct ana_value *v)
{
	number(v, ana_rows_pct(at->rows, at->row, at->run, at->ev, query(at)->kind));
}

static void get_self_value(const struct ana_at *at, struct ana_value *v)
{
	number(v, ana_rows_value(at->rows, at->row, at->run, at->ev, ANA_SELF));
}

static void get_incl_value(const struct ana_at *at, struct ana_value *v)
{
	number(v, ana_rows_value(at->rows, at->row, at->run, at->ev, ANA_INCL));
}

static void get_mode(const struct ana_at *at, struct ana_value *v)
{
	text(v, mode_name[query(at)->ratio]);
}

/* the comparison's fields: none outside compare mode */
static void get_ratio(const struct ana_at *at, struct ana_value *v)
{
	number(v, at->cmp ? at->cmp->ratio : NAN);
}

static void get_ci_low(const struct ana_at *at, struct ana_value *v)
{
	number(v, at->cmp ? at->cmp->lo : NAN);
}

static void get_ci_high(const struct ana_at *at, struct ana_value *v)
{
	number(v, at->cmp ? at->cmp->hi : NAN);
}

static void get_spread(const struct ana_at *at, struct ana_value *v)
{
	number(v, at->cmp ? at->cmp->spread : NAN);
}

static void get_significant(const struct ana_at *at, struct ana_value *v)
{
	v->b = at->cmp && at->cmp->significant;
	v->none = !at->cmp;
}

static void get_withheld(const struct ana_at *at, struct ana_value *v)
{
	v->b = at->cmp && at->cmp->withheld;
	v->none = !at->cmp;
}

static void get_presence(const struct ana_at *at, struct ana_value *v)
{
	text(v, at->cmp ? presence_name[at->cmp->presence] : NULL);
}

static void trust(const struct ana_at *at, struct ana_value *v, unsigned run)
{
	text(v, ana_trust_str(ana_set_run(ana_rows_set(at->rows), run)->trust, v->buf, sizeof(v->buf)));
}

static void get_run_trust(const struct ana_at *at, struct ana_value *v)
{
	trust(at, v, at->run);
}

static void get_base_trust(const struct ana_at *at, struct ana_value *v)
{
	trust(at, v, base(at));
}

/* ---- the column table ---- */

/* The optional last argument, SCREEN(min, pref, keep, fill): the screen
 * layout of a column the viewer shows (struct ana_screen). */
#define TEXT(id, n, t, sh, mi, so, g, ...) \
	[id] = { .name = n, .title = t, .type = ANA_T_TEXT, .left = true, .shrink = sh, \
		 .min = mi, .soft = so, .get = g, __VA_ARGS__ }
#define COL(id, n, t, ty, f, g, ...) \
	[id] = { .name = n, .title = t, .type = ty, .csv_fmt = f, .get = g, __VA_ARGS__ }
#define SCREEN(...) .screen = { __VA_ARGS__ }

static const struct ana_col cols[ANA_COL_N] = {
	TEXT(ANA_COL_EVENT, "event", "Event", 0, 0, 0, get_event),
	TEXT(ANA_COL_FUNCTION, "function", "Function", 1, 14, 24, get_function,
	     SCREEN(12, 40, 100, true)),
	TEXT(ANA_COL_MODULE, "module", "Module", 2, 6, 12, get_module, SCREEN(8, 20, 40)),
	TEXT(ANA_COL_FILE, "file", "Source", 3, 8, 16, get_file, SCREEN(10, 28, 20)),
	COL(ANA_COL_LINE, "line", "Line", ANA_T_COUNT, NULL, get_line, SCREEN(6, 7, 95)),
	COL(ANA_COL_SELF_SAMPLES, "self_samples", "Self", ANA_T_COUNT, NULL, get_self_samples),
	COL(ANA_COL_SELF_PCT, "self_pct", "Self%", ANA_T_PCT, "%.4f", get_self_pct, SCREEN(6, 6, 90)),
	COL(ANA_COL_INCL_SAMPLES, "incl_samples", "Incl", ANA_T_COUNT, NULL, get_incl_samples),
	COL(ANA_COL_INCL_PCT, "incl_pct", "Incl%", ANA_T_PCT, "%.4f", get_incl_pct, SCREEN(6, 6, 80)),
	COL(ANA_COL_SELF_VALUE, "self_value", "Self value", ANA_T_NUMBER, NULL, get_self_value,
	    SCREEN(6, 9, 60)),
	COL(ANA_COL_INCL_VALUE, "incl_value", "Incl value", ANA_T_NUMBER, NULL, get_incl_value,
	    SCREEN(6, 9, 50)),
	TEXT(ANA_COL_RUN, "run", "Run", 0, 0, 0, get_run),
	TEXT(ANA_COL_INLINED_INTO, "inlined_into", "Inlined into", 2, 6, 12, get_inlined_into),
	COL(ANA_COL_DEPTH, "depth", "Depth", ANA_T_COUNT, NULL, get_depth),
	TEXT(ANA_COL_BASE, "base", "Base", 0, 0, 0, get_base),
	TEXT(ANA_COL_RUN_EVENT, "run_event", "Run event", 0, 0, 0, get_run_event),
	COL(ANA_COL_BASE_SAMPLES, "base_samples", "Base", ANA_T_COUNT, NULL, get_base_samples),
	COL(ANA_COL_RUN_SAMPLES, "run_samples", "Run", ANA_T_COUNT, NULL, get_run_samples),
	COL(ANA_COL_BASE_PCT, "base_pct", "Base%", ANA_T_PCT, "%.4f", get_base_pct, SCREEN(6, 6, 90)),
	COL(ANA_COL_RUN_PCT, "run_pct", "Run%", ANA_T_PCT, "%.4f", get_run_pct),
	TEXT(ANA_COL_MODE, "mode", "Mode", 0, 0, 0, get_mode),
	COL(ANA_COL_RATIO, "ratio", "Ratio", ANA_T_RATIO, "%.6g", get_ratio, SCREEN(8, 19, 85)),
	COL(ANA_COL_CI_LOW, "ci_low", "Low", ANA_T_RATIO, "%.6g", get_ci_low),
	COL(ANA_COL_CI_HIGH, "ci_high", "High", ANA_T_RATIO, "%.6g", get_ci_high),
	COL(ANA_COL_SIGNIFICANT, "significant", "", ANA_T_FLAG, NULL, get_significant),
	COL(ANA_COL_SPREAD, "spread", "Spread", ANA_T_RATIO, "%.6g", get_spread),
	TEXT(ANA_COL_PRESENCE, "presence", "Presence", 0, 0, 0, get_presence),
	TEXT(ANA_COL_RUN_TRUST, "run_trust", "Trust", 0, 0, 0, get_run_trust),
	TEXT(ANA_COL_BASE_TRUST, "base_trust", "Base trust", 0, 0, 0, get_base_trust),
	COL(ANA_COL_WITHHELD, "withheld", "?", ANA_T_FLAG, NULL, get_withheld),
};

const struct ana_col *ana_col(enum ana_col_id id)
{
	return (unsigned)id < ANA_COL_N ? &cols[id] : NULL;
}

const struct ana_col *ana_col_named(const char *name)
{
	for (size_t i = 0; name && i < ANA_COL_N; i++)
		if (!strcmp(cols[i].name, name))
			return &cols[i];
	return NULL;
}

void ana_col_value(const struct ana_col *c, const struct ana_at *at, struct ana_value *v)
{
	v->type = c->type;
	v->none = true;
	v->s = NULL;
	v->u = 0;
	v->d = NAN;
	v->b = false;
	if (c->get)
		c->get(at, v);
}

char *ana_value_text(const struct ana_value *v, char *buf, size_t len)
{
	if (v->none) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	switch (v->type) {
	case ANA_T_TEXT: snprintf(buf, len, "%s", v->s); break;
	case ANA_T_COUNT: snprintf(buf, len, "%llu", (unsigned long long)v->u); break;
	case ANA_T_PCT: snprintf(buf, len, "%.2f", v->d); break;
	case ANA_T_NUMBER:
	case ANA_T_RATIO: snprintf(buf, len, "%.4g", v->d); break;
	case ANA_T_FLAG: snprintf(buf, len, "%s", v->b ? "*" : ""); break;
	}
	return buf;
}

/* ---- CSV (RFC 4180) ---- */

static void csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")] && s[0] != ' ') {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

/* A number: whole ones exactly unless the column has a format of its own
 * (NAN never comes here: it is none). */
static void csv_num(FILE *f, double v, const char *fmt)
{
	if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", f);
	else if (!fmt && v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, fmt ? fmt : "%g", v);
}

void ana_value_write_csv(const struct ana_value *v, const char *fmt, FILE *f)
{
	if (v->none)
		return;
	switch (v->type) {
	case ANA_T_TEXT: csv_str(f, v->s); break;
	case ANA_T_COUNT: fprintf(f, "%llu", (unsigned long long)v->u); break;
	case ANA_T_FLAG: fputs(v->b ? "1" : "0", f); break;
	default: csv_num(f, v->d, fmt); break;
	}
}

/* ---- the text table ---- */

struct ana_table {
	const struct ana_col *col;
	size_t ncol, n, cap;
	char **cell;
};

struct ana_table *ana_table_new(const struct ana_col *c, size_t n)
{
	struct ana_table *t = calloc(1, sizeof(*t));
	if (t) {
		t->col = c;
		t->ncol = n;
	}
	return t;
}

/* Control bytes from a profile (names, paths, metadata are untrusted) must
 * not reach the terminal as escape sequences: shown as '?'. */
static void clean_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int ana_table_add(struct ana_table *t, const char *const *cells)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **c = realloc(t->cell, cap * t->ncol * sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->cell = c;
		t->cap = cap;
	}
	for (size_t k = 0; k < t->ncol; k++) {
		if (!(t->cell[t->n * t->ncol + k] = strdup(cells[k] ? cells[k] : "")))
			return -ENOMEM;
		clean_controls(t->cell[t->n * t->ncol + k]);
	}
	t->n++;
	return 0;
}

/* Display width: count UTF-8 lead bytes only. */
static int dwidth(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* A line being built: one buffer for every line (a report prints
 * thousands of padded rows; stdio per cell cost more than the rest of it). */
struct linebuf {
	char *s;
	size_t n, cap;
};

static bool lb_room(struct linebuf *b, size_t more)
{
	if (b->n + more <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + more)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s)
		return false;
	b->s = s;
	b->cap = cap;
	return true;
}

static bool lb_put(struct linebuf *b, const char *s, size_t n, size_t pad, bool pad_first)
{
	if (!lb_room(b, n + pad))
		return false;
	if (pad_first) {
		memset(b->s + b->n, ' ', pad);
		b->n += pad;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	if (!pad_first) {
		memset(b->s + b->n, ' ', pad);
		b->n += pad;
	}
	return true;
}

static bool put_cell(struct linebuf *b, const char *s, int w, bool left)
{
	int n = dwidth(s);
	if (n <= w)
		return lb_put(b, s, strlen(s), (size_t)(w - n), !left);
	/* too long: keep the start and mark the cut with '+' */
	const char *p = s;
	for (int k = 0; *p; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && ++k > w - 1)
			break;
	}
	return lb_put(b, s, (size_t)(p - s), 0, false) && lb_put(b, "+", 1, 0, false);
}

#define MAX_COLS 32

/* Each column as wide as its widest cell; then, while the lines are wider
 * than width, the most shrinkable columns are cut first: to their soft
 * width, then (second pass) to their minimum. */
static void widths(const struct ana_table *t, size_t nc, int width, int *w)
{
	int total = 0;
	for (size_t k = 0; k < nc; k++) {
		w[k] = dwidth(t->col[k].title);
		for (size_t i = 0; i < t->n; i++) {
			int x = dwidth(t->cell[i * t->ncol + k]);
			if (x > w[k])
				w[k] = x;
		}
		total += w[k] + (k ? 2 : 0);
	}
	for (int pass = 0; pass < 2; pass++)
		for (int pr = 9; pr > 0 && width > 0 && total > width; pr--)
			for (size_t k = 0; k < nc && total > width; k++) {
				int floor = pass ? t->col[k].min : t->col[k].soft;
				if (floor < t->col[k].min)
					floor = t->col[k].min;
				if (t->col[k].shrink != pr || w[k] <= floor)
					continue;
				int cut = total - width;
				if (cut > w[k] - floor)
					cut = w[k] - floor;
				w[k] -= cut;
				total -= cut;
			}
}

/* Line i (0: the headings) into b, trailing blanks cut, with its newline. */
static bool line(const struct ana_table *t, size_t nc, const int *w, size_t i, struct linebuf *b)
{
	b->n = 0;
	for (size_t k = 0; k < nc; k++) {
		const char *s = i ? t->cell[(i - 1) * t->ncol + k] : t->col[k].title;
		if ((k && !lb_put(b, "  ", 2, 0, false)) || !put_cell(b, s, w[k], t->col[k].left))
			return false;
	}
	while (b->n && b->s[b->n - 1] == ' ')
		b->n--;
	if (!lb_room(b, 1))
		return false;
	b->s[b->n++] = '\n';
	return true;
}

int ana_table_write_text(const struct ana_table *t, FILE *f, int width)
{
	int w[MAX_COLS];
	size_t nc = t->ncol < MAX_COLS ? t->ncol : MAX_COLS;
	struct linebuf b = { 0 };
	int e = 0;

	widths(t, nc, width, w);
	for (size_t i = 0; i <= t->n && !e; i++)
		if (!line(t, nc, w, i, &b))
			e = -ENOMEM;
		else
			fwrite(b.s, 1, b.n, f);
	free(b.s);
	return e ? e : ferror(f) ? -EIO : 0;
}

/* A Markdown cell: a '|' (in a C++ name) would end it. */
static void md_cell(FILE *f, const char *s)
{
	fputc(' ', f);
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[2]){ *s, 0 }, f);
	fputs(" |", f);
}

int ana_table_write_markdown(const struct ana_table *t, FILE *f)
{
	fputc('|', f);
	for (size_t k = 0; k < t->ncol; k++)
		fprintf(f, " %s |", t->col[k].title);
	fputs("\n|", f);
	for (size_t k = 0; k < t->ncol; k++)
		fputs(t->col[k].left ? ":---|" : "---:|", f);
	fputc('\n', f);
	for (size_t i = 0; i < t->n; i++) {
		fputc('|', f);
		for (size_t k = 0; k < t->ncol; k++)
			md_cell(f, t->cell[i * t->ncol + k]);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

void ana_table_free(struct ana_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n * t->ncol; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t);
}
