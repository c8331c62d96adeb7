/* Cells: which columns a view shows in a state, as the analyzer's columns
 * (analyzer/ana/table.h: heading, type, alignment, screen hints), and each
 * cell's text and role from analyzer rows: the values through the
 * columns' accessors, the ratio, names and places the viewer's own way. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/ana/table.h"
#include "viewer-tui/view.h"

void view_query(const struct view_state *st, enum ana_view v, struct ana_query *q)
{
	memset(q, 0, sizeof(*q));
	q->sz = sizeof(*q);
	q->view = v;
	q->event = st->event;
	q->kind = st->kind;
	q->sort = st->sort == ANA_SORT_RATIO && !st->compare ? ANA_SORT_VALUE : st->sort;
	q->base = st->compare ? (int)st->base : -1;
	q->ratio = st->ratio;
	q->min_samples = st->min_samples;
	q->conf = st->conf;
}

size_t view_run_event(const struct view_state *st, const struct ana_set *s, unsigned run)
{
	int e = st->compare ? ana_set_run_event(s, run, st->event) : -1;
	return e >= 0 ? (size_t)e : st->event;
}

bool view_events_differ(const struct view_state *st, const struct ana_set *s)
{
	for (unsigned r = 0; st->compare && r < ana_set_n_runs(s); r++)
		if (view_run_event(st, s, r) != view_run_event(st, s, st->base))
			return true;
	return false;
}

/* The model column (analyzer/ana/table.h) that kind k shows in state st:
 * its heading, type, alignment, screen hints and (but for the ratio, the
 * names and places, whose cells the viewer writes) its values. */
static enum ana_col_id model_col(const struct view_state *st, enum vcol_kind k)
{
	bool incl = st->kind == ANA_INCL;

	switch (k) {
	case VC_SELF: return ANA_COL_SELF_VALUE;
	case VC_INCL: return ANA_COL_INCL_VALUE;
	case VC_SELF_PCT: return ANA_COL_SELF_PCT;
	case VC_INCL_PCT: return ANA_COL_INCL_PCT;
	case VC_EVENT_PCT: return incl ? ANA_COL_INCL_PCT : ANA_COL_SELF_PCT;
	case VC_BASE:
		if (st->ratio == ANA_RATIO_RAW)
			return incl ? ANA_COL_INCL_VALUE : ANA_COL_SELF_VALUE;
		return ANA_COL_BASE_PCT;
	case VC_RATIO: return ANA_COL_RATIO;
	case VC_NAME: return ANA_COL_FUNCTION;
	case VC_MODULE: return ANA_COL_MODULE;
	case VC_SOURCE:
	case VC_LINE: return ANA_COL_FILE;
	}
	return ANA_COL_FUNCTION;
}

/* Where the view puts a column other than the model's hints say: another
 * event's share gives way early, the base's value in raw mode stays as
 * narrow as its share, a place leading the lines view and the modules'
 * name fill the row like a function's name. */
static void place(struct ana_screen *sc, enum vcol_kind k)
{
	static const struct ana_screen event_pct = { 7, 10, 30, false },
		base = { 6, 6, 90, false }, line = { 12, 32, 100, true };

	if (k == VC_EVENT_PCT)
		*sc = event_pct;
	else if (k == VC_BASE)
		*sc = base;
	else if (k == VC_LINE)
		*sc = line;
	else if (k == VC_NAME)
		*sc = ana_col(ANA_COL_FUNCTION)->screen;
}

/* Column id of the model as kind k at (run, ev), headed title (NULL: the
 * model's heading). */
static void add_col(struct vcols *vc, enum vcol_kind k, enum ana_col_id id, unsigned run,
		    size_t ev, const char *title)
{
	if (vc->n >= VCOL_MAX)
		return;
	struct ana_col *col = &vc->col[vc->n];
	struct vcol *c = &vc->c[vc->n];
	*c = (struct vcol){ .kind = k, .run = run, .ev = ev };
	*col = *ana_col(id);
	snprintf(c->title, sizeof(c->title), "%s", title ? title : col->title);
	col->title = c->title;
	place(&col->screen, k);
	/* Of several ratio or event columns, the later ones give way first. */
	for (size_t j = 0; j < vc->n; j++)
		col->screen.keep -= vc->c[j].kind == k;
	/* Headings stay readable: short ones always, long ones when there is room. */
	int tw = text_width(c->title) + 1;
	if (!col->screen.fill) {
		if (col->screen.min < tw && tw <= 12)
			col->screen.min = tw;
		if (col->screen.pref < tw)
			col->screen.pref = tw < 24 ? tw : 24;
	}
	vc->n++;
}

static void add(struct vcols *vc, const struct view_state *st, enum vcol_kind k, unsigned run,
		size_t ev, const char *title)
{
	add_col(vc, k, model_col(st, k), run, ev, title);
}

void vcols_move(struct vcols *vc, size_t to, size_t from)
{
	vc->c[to] = vc->c[from];
	vc->col[to] = vc->col[from];
	vc->col[to].title = vc->c[to].title;
}

/* Compare mode: the base's share, a ratio per other run, the base's value. */
static void compare_cols(struct vcols *vc, const struct view_state *st, const struct ana_set *s)
{
	bool raw = st->ratio == ANA_RATIO_RAW;
	size_t bev = view_run_event(st, s, st->base);
	char title[64];

	add(vc, st, VC_BASE, st->base, bev, raw ? "Base" : NULL);
	if (st->sort == ANA_SORT_VALUE)
		vc->sort_col = 0;
	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		const struct ana_run *run = ana_set_run(s, r);
		if (r == st->base)
			continue;
		snprintf(title, sizeof(title), "%s%s", st->ratio == ANA_RATIO_DELTA ? "pp " : "",
			 run && run->label ? text_basename(run->label) : "run");
		if (st->sort == ANA_SORT_RATIO && vc->sort_col < 0)
			vc->sort_col = (int)vc->n;
		add(vc, st, VC_RATIO, r, view_run_event(st, s, r), title);
	}
	add(vc, st, st->kind == ANA_INCL ? VC_INCL : VC_SELF, st->base, bev,
	    st->kind == ANA_INCL ? "Incl" : "Self");
}

/* One run: the event's shares and values (inclusive ones where the view
 * has them), then every other event's share. */
static void value_cols(struct vcols *vc, const struct view_state *st, const struct ana_set *s,
		       bool incl_cols)
{
	char title[64];

	add(vc, st, VC_SELF_PCT, st->base, st->event, NULL);
	if (st->sort == ANA_SORT_VALUE && (st->kind == ANA_SELF || !incl_cols))
		vc->sort_col = 0;
	if (incl_cols) {
		if (st->sort == ANA_SORT_VALUE && st->kind == ANA_INCL)
			vc->sort_col = (int)vc->n;
		add(vc, st, VC_INCL_PCT, st->base, st->event, NULL);
	}
	add(vc, st, VC_SELF, st->base, st->event, "Self");
	if (incl_cols)
		add(vc, st, VC_INCL, st->base, st->event, "Incl");
	for (size_t e = 0; e < ana_set_n_events(s); e++) {
		if (e == st->event)
			continue;
		snprintf(title, sizeof(title), "%s%%", ana_set_event(s, e));
		add(vc, st, VC_EVENT_PCT, st->base, e, title);
	}
}

void vcols_build(struct vcols *vc, const struct view_state *st, const struct ana_set *s,
		 enum ana_view v)
{
	bool lines = v == ANA_VIEW_LINES, modules = v == ANA_VIEW_MODULES;

	memset(vc, 0, sizeof(*vc));
	vc->sort_col = -1;
	if (st->compare)
		compare_cols(vc, st, s);
	else
		value_cols(vc, st, s, !lines && !modules);
	if (st->sort == ANA_SORT_NAME)
		vc->sort_col = (int)vc->n;
	if (lines) {
		add(vc, st, VC_LINE, 0, 0, "Line");
		add(vc, st, VC_NAME, 0, 0, NULL);
		vc->col[vc->n - 1].screen.fill = false;	/* the place fills the row */
		vc->col[vc->n - 1].screen.keep = 45;
	} else {
		add_col(vc, VC_NAME, modules ? ANA_COL_MODULE : ANA_COL_FUNCTION, 0, 0, NULL);
	}
	if (!modules)
		add(vc, st, VC_MODULE, 0, 0, NULL);
	if (!lines && !modules)
		add(vc, st, VC_SOURCE, 0, 0, NULL);
}

void cmd_sort_args(const struct view_state *st, char *buf, size_t len)
{
	size_t n;

	buf[0] = '\0';
	if (!st->compare) {
		if (st->sort == ANA_SORT_NAME)
			snprintf(buf, len, " --sort name");
		else if (st->kind == ANA_INCL)
			snprintf(buf, len, " --sort incl");
		return;
	}
	snprintf(buf, len, "%s%s%s", st->kind == ANA_INCL ? " --incl" : "",
		 st->sort == ANA_SORT_NAME ? " --sort name" : st->sort == ANA_SORT_RATIO ?
		 " --sort ratio" : "",
		 st->ratio == ANA_RATIO_RAW ? " --ratio raw" : st->ratio == ANA_RATIO_DELTA ?
		 " --delta" : "");
	n = strlen(buf);
	if (st->min_samples && n < len)
		snprintf(buf + n, len - n, " --min-samples %llu", (unsigned long long)st->min_samples);
}

static void file_line(char *buf, size_t len, const char *file, unsigned line)
{
	if (!file)
		snprintf(buf, len, "%s", "");
	else if (line)
		snprintf(buf, len, "%s:%u", text_basename(file), line);
	else
		snprintf(buf, len, "%s", text_basename(file));
}

/* The TUI's renderer of a model value: shares as percentages, values
 * scaled to the column's width, paths by their base name. */
static void fmt_value(char *buf, size_t len, const struct ana_value *v, int width)
{
	switch (v->type) {
	case ANA_T_PCT: fmt_pct(buf, len, v->d); break;
	case ANA_T_TEXT: snprintf(buf, len, "%s", text_basename(v->s)); break;
	case ANA_T_COUNT: fmt_count(buf, len, (double)v->u, width); break;
	default: fmt_count(buf, len, v->d, width); break;
	}
}

enum role vcol_cell(const struct view_state *st, const struct vcols *vc, size_t k,
		    const struct ana_rows *r, size_t i, int width, char *buf, size_t len)
{
	const struct ana_row *row = ana_rows_row(r, i);
	const struct vcol *c = &vc->c[k];
	struct ana_cmp cmp;

	buf[0] = '\0';
	if (!row)
		return ROLE_NORMAL;
	switch (c->kind) {
	case VC_RATIO:
		if (ana_rows_compare(r, i, c->run, &cmp) != 0) {
			snprintf(buf, len, "?");
			return ROLE_DIM;
		}
		fmt_ratio(buf, len, &cmp, st->ratio, width);
		return cmp_role(st, &cmp);
	case VC_NAME:
		if (row->inlined_into)
			snprintf(buf, len, "%s (inlined in %s)", row->name ? row->name : "?",
				 row->inlined_into);
		else
			snprintf(buf, len, "%s", row->name ? row->name : "?");
		return row->flags & ANA_ROW_UNRESOLVED ? ROLE_DIM : ROLE_NORMAL;
	case VC_SOURCE:
	case VC_LINE:
		file_line(buf, len, row->file, row->line);
		return ROLE_NORMAL;
	default: {
		struct ana_at at = { r, i, c->ev, c->run, NULL };
		struct ana_value v;
		ana_col_value(&vc->col[k], &at, &v);
		fmt_value(buf, len, &v, width);
		return ROLE_NORMAL;
	}
	}
}
