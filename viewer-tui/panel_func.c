/* One function: its callers, its callees and its source lines, as three
 * sections of one table.  Enter on a caller or callee moves to it; Enter
 * on a line opens the annotated source there. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

enum sect { S_CALLERS, S_CALLEES, S_LINES, S_N };
#define HEADING SIZE_MAX	/* entry.i of a section heading */
#define EMPTY (SIZE_MAX - 1)	/* entry.i of "(none)" */

struct entry {
	enum sect sect;
	size_t i;		/* row in rs[sect], or HEADING / EMPTY */
};

struct func {
	struct panel p;
	char *name, *module, *file;
	unsigned line;
	uint32_t node;
	struct ana_rows *rs[S_N];
	struct entry *e;
	size_t n;
	struct vcols vc;
	struct view_state st;	/* ui->st, but callers and callees by inclusive cost */
};

static const char *const sect_title[] = {
	[S_CALLERS] = "Callers of", [S_CALLEES] = "Callees of", [S_LINES] = "Lines of",
};

static size_t func_n(void *ctx)
{
	return ((struct func *)ctx)->n;
}

static size_t sect_count(const struct func *f, enum sect s)
{
	size_t n = 0;

	for (size_t k = 0; k < f->n; k++)
		n += f->e[k].sect == s && f->e[k].i < EMPTY;
	return n;
}

static enum role func_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct func *f = ctx;
	const struct entry *e = &f->e[row];
	const struct vcol *c = &f->vc.c[col];

	buf[0] = '\0';
	if (e->i == HEADING || e->i == EMPTY) {
		if (c->kind != VC_NAME)
			return ROLE_NORMAL;
		if (e->i == EMPTY)
			snprintf(buf, len, "  (none)");
		else
			snprintf(buf, len, "%s %s (%zu)", sect_title[e->sect], f->name,
				 sect_count(f, e->sect));
		return e->i == EMPTY ? ROLE_DIM : ROLE_TITLE;
	}
	if (e->sect == S_LINES) {
		const struct ana_row *r = ana_rows_row(f->rs[S_LINES], e->i);
		if (c->kind == VC_NAME) {
			snprintf(buf, len, "  line %u  %s", r->line, text_basename(r->file));
			return ROLE_NORMAL;
		}
		if (c->kind == VC_MODULE || c->kind == VC_SOURCE || c->kind == VC_INCL ||
		    c->kind == VC_INCL_PCT)
			return ROLE_NORMAL;
	}
	const struct view_state *st = e->sect == S_LINES ? &f->p.ui->st : &f->st;
	enum role role = vcol_cell(st, &f->vc, col, f->rs[e->sect], e->i,
				   c->kind == VC_NAME ? width - 2 : width, buf, len);
	if (c->kind == VC_NAME) {	/* indent under the heading */
		char tmp[512];
		snprintf(tmp, sizeof(tmp), "  %s", buf);
		snprintf(buf, len, "%s", tmp);
	}
	return role;
}

static const char *func_match(void *ctx, size_t row)
{
	struct func *f = ctx;
	const struct entry *e = &f->e[row];
	const struct ana_row *r;

	if (e->i >= EMPTY)
		return NULL;
	r = ana_rows_row(f->rs[e->sect], e->i);
	return e->sect == S_LINES ? r->file : r->name;
}

static enum role func_row_role(void *ctx, size_t row)
{
	struct func *f = ctx;
	return f->e[row].i == HEADING ? ROLE_TITLE : ROLE_NORMAL;
}

static const struct tui_table_ops func_table = {
	.n_rows = func_n, .cell = func_cell, .match = func_match, .row_role = func_row_role,
};

/* Append an entry; false when out of memory. */
static bool push(struct entry **e, size_t *n, size_t *cap, enum sect s, size_t i)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct entry *ne = realloc(*e, c * sizeof(**e));
		if (!ne)
			return false;
		*e = ne;
		*cap = c;
	}
	(*e)[(*n)++] = (struct entry){ s, i };
	return true;
}

static int func_refresh(struct panel *p, struct ui *ui)
{
	struct func *f = (struct func *)p;
	static const enum ana_view view[] = {
		[S_CALLERS] = ANA_VIEW_CALLERS, [S_CALLEES] = ANA_VIEW_CALLEES,
		[S_LINES] = ANA_VIEW_LINES,
	};
	struct ana_rows *rs[S_N] = { 0 };
	struct entry *e = NULL, keep = f->n ? f->e[p->t.sel] : (struct entry){ S_CALLERS, HEADING };
	const struct ana_row *kr = keep.i < EMPTY ? ana_rows_row(f->rs[keep.sect], keep.i) : NULL;
	size_t n = 0, cap = 0, sel = SIZE_MAX;
	int rc = 0;

	/* A caller's or callee's own self cost says nothing about this
	 * function: their rows are the cost on paths through it, inclusive. */
	f->st = ui->st;
	f->st.kind = ANA_INCL;
	/* the lines: the analyzer's own per-function query (what report
	 * --lines --function MODULE:f prints) */
	char qf[1024];
	snprintf(qf, sizeof(qf), "%s%s%s", f->module ? text_basename(f->module) : "",
		 f->module ? ":" : "", f->name);
	for (int s = 0; s < S_N; s++) {
		struct ana_query q;
		view_query(s == S_LINES ? &ui->st : &f->st, view[s], &q);
		if (s != S_LINES)
			q.node = f->node;
		else
			q.func = qf;
		rs[s] = ana_set_query(ui->set, &q);
		if (!rs[s]) {
			rc = -errno;
			goto fail;
		}
	}
	for (int s = 0; s < S_N; s++) {
		size_t before = n;
		if (!push(&e, &n, &cap, (enum sect)s, HEADING))
			goto nomem;
		for (size_t i = 0; i < ana_rows_n(rs[s]); i++) {
			const struct ana_row *r = ana_rows_row(rs[s], i);
			if (kr && (int)keep.sect == s && text_same(r->name, kr->name) &&
			    text_same(r->module, kr->module) && r->line == kr->line)
				sel = n;
			if (!push(&e, &n, &cap, (enum sect)s, i))
				goto nomem;
		}
		if (n == before + 1 && !push(&e, &n, &cap, (enum sect)s, EMPTY))
			goto nomem;
		if (sel == SIZE_MAX && !kr && s == S_CALLERS)
			sel = before + 1;	/* first open: the first caller */
	}
	for (int s = 0; s < S_N; s++) {
		ana_rows_free(f->rs[s]);
		f->rs[s] = rs[s];
	}
	free(f->e);
	f->e = e;
	f->n = n;
	vcols_build(&f->vc, &f->st, ui->set, ANA_VIEW_CALLERS);
	panel_show_vcols(p, &f->vc, sel == SIZE_MAX ? 0 : sel);
	return 0;
nomem:
	rc = -ENOMEM;
fail:
	for (int s = 0; s < S_N; s++)
		ana_rows_free(rs[s]);
	free(e);
	return rc;
}

/* The hottest line of the function (lines are sorted by value), or NULL. */
static const struct ana_row *hottest_line(struct func *f)
{
	for (size_t k = 0; k < f->n; k++)
		if (f->e[k].sect == S_LINES && f->e[k].i < EMPTY)
			return ana_rows_row(f->rs[S_LINES], f->e[k].i);
	return NULL;
}

static enum react func_key(struct panel *p, struct ui *ui, int key)
{
	struct func *f = (struct func *)p;
	const struct entry *e = f->n ? &f->e[p->t.sel] : NULL;
	const struct ana_row *r = e && e->i < EMPTY ? ana_rows_row(f->rs[e->sect], e->i) : NULL;

	switch (key) {
	case 'A': {	/* annotate the page's function (a caller: Enter, then A) */
		struct ana_row me = { .name = f->name, .module = f->module };
		ui_push(ui, panel_annotate_new(ui, &me));
		return REACT_ALL;
	}
	case VK_ENTER:
	case VK_RIGHT:
		if (!r)
			return REACT_HANDLED;
		if (e->sect != S_LINES)
			ui_push(ui, panel_func_new(ui, r));
		else
			ui_push(ui, panel_source_new(ui, r->file, r->line));
		return REACT_ALL;
	case 'l': {
		const struct ana_row *hot = hottest_line(f);
		const char *file = hot ? hot->file : f->file;
		if (!file) {
			ui_message(ui, ROLE_WARN, "no source file known for %s", f->name);
			return REACT_ALL;
		}
		ui_push(ui, panel_source_new(ui, file, hot ? hot->line : f->line));
		return REACT_ALL;
	}
	case 't':
		ui_push(ui, panel_tree_new(ui, true, f->name));
		return REACT_ALL;
	case VK_TAB:	/* next section */
		for (size_t k = p->t.sel + 1; k < p->t.sel + f->n; k++)
			if (f->e[k % f->n].i == HEADING) {
				tui_table_select(&p->t, k % f->n);
				return REACT_BODY;
			}
		return REACT_HANDLED;
	}
	return REACT_NONE;
}

static void func_title(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct func *f = (struct func *)p;
	char loc[256] = "";

	(void)ui;
	if (f->file)
		snprintf(loc, sizeof(loc), f->line ? "  %s:%u" : "  %s", text_basename(f->file),
			 f->line);
	snprintf(buf, len, "%s  [%s%s]", f->name, text_basename(f->module), loc);
}

/* The row set of the section with the selection: what `x` exports. */
static const struct ana_rows *func_rows(struct panel *p)
{
	struct func *f = (struct func *)p;
	const struct entry *e = f->n ? &f->e[p->t.sel] : NULL;

	return e ? f->rs[e->sect] : NULL;
}

static const char *func_slug(struct panel *p)
{
	struct func *f = (struct func *)p;
	const struct entry *e = f->n ? &f->e[p->t.sel] : NULL;
	return !e ? "callers" : e->sect == S_CALLEES ? "callees" : e->sect == S_LINES ? "lines"
									      : "callers";
}

static bool func_command(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct func *f = (struct func *)p;
	const struct entry *e = f->n ? &f->e[p->t.sel] : NULL;
	char sort[128];

	if (ui->st.compare || !func_rows(p))
		return false;	/* diff compares flat views only */
	/* callers and callees go by inclusive cost, lines as the flat lines */
	bool lines = e->sect == S_LINES;
	cmd_sort_args(lines ? &ui->st : &f->st, sort, sizeof(sort));
	snprintf(buf, len, " --%s %s%s%s%s", lines ? "lines --function" : func_slug(p),
		 f->module ? text_basename(f->module) : "", f->module ? ":" : "", f->name, sort);
	return true;
}

static void func_done(struct panel *p)
{
	struct func *f = (struct func *)p;
	for (int s = 0; s < S_N; s++)
		ana_rows_free(f->rs[s]);
	FREE_EACH(f->e, f->name, f->module, f->file);
}

static const struct panel_ops func_ops = {
	.refresh = func_refresh, .on_key = func_key, .title = func_title,
	.rows = func_rows, .slug = func_slug, .command = func_command, .done = func_done,
};

struct panel *panel_func_new(struct ui *ui, const struct ana_row *fn)
{
	struct func *f = panel_alloc(sizeof(*f), ui, &func_ops, &func_table);

	if (!f)
		return NULL;
	f->node = fn->node;
	f->line = fn->line;
	f->name = strdup(fn->name ? fn->name : "?");
	f->module = fn->module ? strdup(fn->module) : NULL;
	f->file = fn->file ? strdup(fn->file) : NULL;
	if (!f->name || (fn->module && !f->module) || (fn->file && !f->file)) {
		panel_free(&f->p);
		errno = ENOMEM;
		return NULL;
	}
	return &f->p;
}
