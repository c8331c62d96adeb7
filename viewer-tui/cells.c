/* Cells: which columns a view shows in a state, and each cell's text and
 * role from analyzer rows: the values through the analyzer's column model
 * (analyzer/table.h), the ratio and the names the viewer's own way. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/table.h"
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

/* Column shapes, by kind: the table, not code, says what survives a narrow
 * terminal (prio) and what grows (pref). */
static const struct {
	enum vcol_kind kind;
	int min, pref, prio;
	unsigned flags;
} shapes[] = {
	{ VC_NAME, 12, 40, 100, COL_FLEX },
	{ VC_LINE, 12, 32, 100, COL_FLEX },
	{ VC_SELF_PCT, 6, 6, 90, COL_RIGHT },
	{ VC_BASE, 6, 6, 90, COL_RIGHT },
	{ VC_RATIO, 8, 19, 85, COL_RIGHT },
	{ VC_INCL_PCT, 6, 6, 80, COL_RIGHT },
	{ VC_SELF, 6, 9, 60, COL_RIGHT },
	{ VC_INCL, 6, 9, 50, COL_RIGHT },
	{ VC_MODULE, 8, 20, 40, 0 },
	{ VC_EVENT_PCT, 7, 10, 30, COL_RIGHT },
	{ VC_SOURCE, 10, 28, 20, 0 },
};

static void add(struct vcols *vc, enum vcol_kind k, unsigned run, size_t ev, const char *title)
{
	struct vcol *c;
	size_t s;

	if (vc->n >= VCOL_MAX)
		return;
	c = &vc->c[vc->n];
	c->kind = k;
	c->run = run;
	c->ev = ev;
	snprintf(c->title, sizeof(c->title), "%s", title);
	for (s = 0; s < ARRAY_SIZE(shapes) && shapes[s].kind != k; s++)
		;
	/* Of several ratio or event columns, the later ones give way first. */
	int same = 0;
	for (size_t j = 0; j < vc->n; j++)
		same += vc->c[j].kind == k;
	vc->spec[vc->n] = (struct col_spec){
		.title = c->title, .min = shapes[s].min, .pref = shapes[s].pref,
		.prio = shapes[s].prio - same, .flags = shapes[s].flags,
	};
	/* Headings stay readable: short ones always, long ones when there is room. */
	int tw = text_width(title) + 1;
	if (!(shapes[s].flags & COL_FLEX)) {
		if (vc->spec[vc->n].min < tw && tw <= 12)
			vc->spec[vc->n].min = tw;
		if (vc->spec[vc->n].pref < tw)
			vc->spec[vc->n].pref = tw < 24 ? tw : 24;
	}
	vc->n++;
}

/* Compare mode: the base's share, a ratio per other run, the base's value. */
static void compare_cols(struct vcols *vc, const struct view_state *st, const struct ana_set *s)
{
	bool raw = st->ratio == ANA_RATIO_RAW;
	size_t bev = view_run_event(st, s, st->base);
	char title[64];

	add(vc, VC_BASE, st->base, bev, raw ? "Base" : "Base%");
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
		add(vc, VC_RATIO, r, view_run_event(st, s, r), title);
	}
	add(vc, st->kind == ANA_INCL ? VC_INCL : VC_SELF, st->base, bev,
	    st->kind == ANA_INCL ? "Incl" : "Self");
}

/* One run: the event's shares and values (inclusive ones where the view
 * has them), then every other event's share. */
static void value_cols(struct vcols *vc, const struct view_state *st, const struct ana_set *s,
		       bool incl_cols)
{
	char title[64];

	add(vc, VC_SELF_PCT, st->base, st->event, "Self%");
	if (st->sort == ANA_SORT_VALUE && (st->kind == ANA_SELF || !incl_cols))
		vc->sort_col = 0;
	if (incl_cols) {
		if (st->sort == ANA_SORT_VALUE && st->kind == ANA_INCL)
			vc->sort_col = (int)vc->n;
		add(vc, VC_INCL_PCT, st->base, st->event, "Incl%");
	}
	add(vc, VC_SELF, st->base, st->event, "Self");
	if (incl_cols)
		add(vc, VC_INCL, st->base, st->event, "Incl");
	for (size_t e = 0; e < ana_set_n_events(s); e++) {
		if (e == st->event)
			continue;
		snprintf(title, sizeof(title), "%s%%", ana_set_event(s, e));
		add(vc, VC_EVENT_PCT, st->base, e, title);
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
		add(vc, VC_LINE, 0, 0, "Line");
		add(vc, VC_NAME, 0, 0, "Function");
		vc->spec[vc->n - 1].flags &= ~(unsigned)COL_FLEX;
		vc->spec[vc->n - 1].prio = 45;
	} else {
		add(vc, VC_NAME, 0, 0, modules ? "Module" : "Function");
	}
	if (!modules)
		add(vc, VC_MODULE, 0, 0, "Module");
	if (!lines && !modules)
		add(vc, VC_SOURCE, 0, 0, "Source");
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

/* The model column (analyzer/table.h) whose value kind k shows in state
 * st, or -1 for the viewer's own columns (the ratio, the names). */
static int model_col(const struct view_state *st, enum vcol_kind k)
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
		return incl ? ANA_COL_INCL_PCT : ANA_COL_SELF_PCT;
	case VC_MODULE: return ANA_COL_MODULE;
	default: return -1;
	}
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

enum role vcol_cell(const struct view_state *st, const struct vcol *c,
		    const struct ana_rows *r, size_t i, int width, char *buf, size_t len)
{
	const struct ana_row *row = ana_rows_row(r, i);
	int id = model_col(st, c->kind);
	struct ana_cmp cmp;

	buf[0] = '\0';
	if (!row)
		return ROLE_NORMAL;
	if (id >= 0) {
		struct ana_at at = { r, i, c->ev, c->run, NULL };
		struct ana_value v;
		ana_col_value(ana_col((enum ana_col_id)id), &at, &v);
		fmt_value(buf, len, &v, width);
		return ROLE_NORMAL;
	}
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
		break;
	default:
		break;
	}
	return ROLE_NORMAL;
}
