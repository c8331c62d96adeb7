/* The calling-context tree, top-down (callees under callers) or bottom-up
 * (callers under the functions that took the samples), expanded on
 * demand: each expansion is one analyzer query for one node's children. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

#define HOT_PATH_DEPTH 16	/* top-down opens along the hottest path this deep */

struct tentry {
	const struct ana_rows *rs;
	size_t i;
	unsigned depth;		/* roots: 0 */
	bool open;
};

struct tree {
	struct panel p;
	bool bottomup;
	char *select_name;	/* first refresh: select (and open) this root */
	bool opened;		/* first refresh done */
	struct tentry *e;
	size_t n, cap;
	struct ana_rows **owned;	/* every row set queried since the last refresh */
	size_t n_owned, cap_owned;
	struct vcols vc;
	struct view_state st;	/* ui->st, on the cost the tree sorts by */
	struct ana_rows *full;	/* the whole tree, for export */
};

static const struct ana_row *row_of(const struct tree *t, size_t k)
{
	return ana_rows_row(t->e[k].rs, t->e[k].i);
}

static size_t tree_n(void *ctx)
{
	return ((struct tree *)ctx)->n;
}

static enum role tree_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct tree *t = ctx;
	const struct tentry *e = &t->e[row];
	const struct vcol *c = &t->vc.c[col];
	enum role role = vcol_cell(&t->st, &t->vc, col, e->rs, e->i, width, buf, len);

	if (c->kind == VC_NAME) {
		const struct ana_row *r = row_of(t, row);
		const char *mark = !(r->flags & ANA_ROW_EXPANDABLE) ? "  "
				   : e->open ? (text_utf8 ? "\u25be " : "- ")
					     : (text_utf8 ? "\u25b8 " : "+ ");
		char tmp[1024];
		unsigned indent = e->depth < 40 ? e->depth : 40;
		snprintf(tmp, sizeof(tmp), "%*s%s%s%s", (int)indent * 2, "", mark, buf,
			 r->flags & ANA_ROW_INLINED ? " [inlined]" : "");
		snprintf(buf, len, "%s", tmp);
	}
	return role;
}

static const char *tree_match(void *ctx, size_t row)
{
	return row_of(ctx, row)->name;
}

static const struct tui_table_ops tree_table = {
	.n_rows = tree_n, .cell = tree_cell, .match = tree_match,
};

static int own(struct tree *t, struct ana_rows *rs)
{
	if (t->n_owned == t->cap_owned) {
		size_t c = t->cap_owned ? t->cap_owned * 2 : 16;
		struct ana_rows **o = realloc(t->owned, c * sizeof(*o));
		if (!o)
			return -ENOMEM;
		t->owned = o;
		t->cap_owned = c;
	}
	t->owned[t->n_owned++] = rs;
	return 0;
}

/* Insert m entries at position at. */
static int make_room(struct tree *t, size_t at, size_t m)
{
	if (t->n + m > t->cap) {
		size_t c = t->cap ? t->cap : 64;
		while (c < t->n + m)
			c *= 2;
		struct tentry *ne = realloc(t->e, c * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		t->e = ne;
		t->cap = c;
	}
	memmove(t->e + at + m, t->e + at, (t->n - at) * sizeof(*t->e));
	t->n += m;
	return 0;
}

/* The children of node (ANA_ROOT: the roots) after entry `at` - 1. */
static int insert_children(struct tree *t, size_t at, uint32_t node, unsigned depth)
{
	struct ana_query q;
	struct ana_rows *rs;
	size_t m;

	view_query(&t->st, t->bottomup ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN, &q);
	q.node = node;
	rs = ana_set_query(t->p.ui->set, &q);
	if (!rs)
		return -errno;
	if (own(t, rs) != 0) {
		ana_rows_free(rs);
		return -ENOMEM;
	}
	m = ana_rows_n(rs);
	if (make_room(t, at, m) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		t->e[at + i] = (struct tentry){ .rs = rs, .i = i, .depth = depth };
	return 0;
}

static int expand(struct tree *t, size_t k)
{
	const struct ana_row *r = row_of(t, k);
	int rc;

	if (t->e[k].open || !(r->flags & ANA_ROW_EXPANDABLE))
		return 0;
	rc = insert_children(t, k + 1, r->node, t->e[k].depth + 1);
	if (rc == 0)
		t->e[k].open = true;
	return rc;
}

static void collapse(struct tree *t, size_t k)
{
	size_t end = k + 1;

	while (end < t->n && t->e[end].depth > t->e[k].depth)
		end++;
	memmove(t->e + k + 1, t->e + end, (t->n - end) * sizeof(*t->e));
	t->n -= end - (k + 1);
	t->e[k].open = false;
}

static void forget(struct tree *t)
{
	ana_rows_free(t->full);
	t->full = NULL;
	for (size_t i = 0; i < t->n_owned; i++)
		ana_rows_free(t->owned[i]);
	t->n_owned = 0;
	t->n = 0;
}

static bool in(const uint32_t *set, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

static int tree_refresh(struct panel *p, struct ui *ui)
{
	struct tree *t = (struct tree *)p;
	uint32_t *open = NULL, sel_node = t->n ? row_of(t, p->t.sel)->node : ANA_ROOT;
	size_t n_open = 0, sel = 0;
	int rc;

	/* top-down rows sort (and compare) by inclusive cost, bottom-up rows
	 * by self cost (the cost a function spreads over its callers): the
	 * sort mark sits on that column */
	t->st = ui->st;
	t->st.kind = t->bottomup ? ANA_SELF : ANA_INCL;
	/* Re-open what was open, now in the new order. */
	if (t->n && !(open = malloc(t->n * sizeof(*open))))
		return -ENOMEM;
	for (size_t k = 0; k < t->n; k++)
		if (t->e[k].open)
			open[n_open++] = row_of(t, k)->node;
	forget(t);
	rc = insert_children(t, 0, ANA_ROOT, 0);
	for (size_t k = 0; rc == 0 && k < t->n; k++)
		if (in(open, n_open, row_of(t, k)->node))
			rc = expand(t, k);
	free(open);
	if (rc != 0)
		return rc;
	for (size_t k = 0; k < t->n; k++)
		if (row_of(t, k)->node == sel_node)
			sel = k;
	if (!t->opened) {
		t->opened = true;
		if (t->select_name) {
			for (size_t k = 0; k < t->n; k++)
				if (strcmp(row_of(t, k)->name, t->select_name) == 0) {
					sel = k;
					expand(t, k);
					break;
				}
		} else if (!t->bottomup) {
			/* Open along the hottest path: the first child each time. */
			for (size_t k = 0; k < t->n && t->e[k].depth < HOT_PATH_DEPTH; k++)
				if (expand(t, k) != 0 || !t->e[k].open)
					break;
		}
	}
	vcols_build(&t->vc, &t->st, ui->set, t->bottomup ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN);
	panel_show_vcols(p, &t->vc, sel);
	return 0;
}

static enum react tree_key(struct panel *p, struct ui *ui, int key)
{
	struct tree *t = (struct tree *)p;
	size_t k = p->t.sel;
	int rc = 0;

	if (key == 't') {	/* top-down -> bottom-up -> back */
		bool bu = t->bottomup;
		ui_pop(ui);
		if (!bu)
			ui_push(ui, panel_tree_new(ui, true, NULL));
		return REACT_ALL;
	}
	if (t->n == 0)
		return REACT_NONE;
	if (key == 'A') {	/* annotate this frame's function */
		ui_push(ui, panel_annotate_new(ui, ana_rows_row(t->e[k].rs, t->e[k].i)));
		return REACT_ALL;
	}
	switch (key) {
	case VK_ENTER:
	case ' ':
		if (t->e[k].open)
			collapse(t, k);
		else
			rc = expand(t, k);
		break;
	case VK_RIGHT:
	case '+':
		if (t->e[k].open && k + 1 < t->n)
			tui_table_select(&p->t, k + 1);
		else
			rc = expand(t, k);
		break;
	case VK_LEFT:
	case '-':
		if (t->e[k].open) {
			collapse(t, k);
			break;
		}
		if (t->e[k].depth == 0)
			return REACT_NONE;	/* a closed root: Left goes back */
		while (t->e[k].depth >= t->e[p->t.sel].depth)
			k--;	/* up to the parent, which is above */
		tui_table_select(&p->t, k);
		break;
	default:
		return REACT_NONE;
	}
	if (rc != 0)
		ui_message(ui, ROLE_WARN, "cannot expand: %s", ana_strerror(rc));
	return REACT_BODY;
}

static void tree_title(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct tree *t = (struct tree *)p;
	const char *ev = ana_set_event(ui->set, ui->st.event);

	snprintf(buf, len, "%s tree, %s (Enter/arrows open and close; t: %s)",
		 t->bottomup ? "Bottom-up" : "Top-down", ev ? ev : "?",
		 t->bottomup ? "back" : "bottom-up");
}

/* The whole tree, every level, as `report --tree` has it: the part on
 * screen depends on what was opened, which no command can repeat. */
static const struct ana_rows *tree_rows(struct panel *p)
{
	struct tree *t = (struct tree *)p;
	struct ana_query q;

	if (!t->full) {
		view_query(&t->st, t->bottomup ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN, &q);
		q.node = ANA_ROOT;
		q.max_depth = UINT_MAX;
		t->full = ana_set_query(t->p.ui->set, &q);
	}
	return t->full;
}

static bool tree_command(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct tree *t = (struct tree *)p;
	char sort[128];

	if (ui->st.compare)
		return false;	/* diff compares flat views only */
	cmd_sort_args(&t->st, sort, sizeof(sort));
	snprintf(buf, len, " --tree%s%s", t->bottomup ? "=bottom-up" : "", sort);
	return true;
}

static const char *tree_slug(struct panel *p)
{
	return ((struct tree *)p)->bottomup ? "bottomup" : "topdown";
}

static void tree_done(struct panel *p)
{
	struct tree *t = (struct tree *)p;
	forget(t);
	FREE_EACH(t->owned, t->e, t->select_name);
}

static const struct panel_ops tree_ops = {
	.refresh = tree_refresh, .on_key = tree_key, .title = tree_title,
	.rows = tree_rows, .slug = tree_slug, .command = tree_command, .done = tree_done,
};

struct panel *panel_tree_new(struct ui *ui, bool bottomup, const char *select_name)
{
	struct tree *t = panel_alloc(sizeof(*t), ui, &tree_ops, &tree_table);

	if (!t)
		return NULL;
	t->bottomup = bottomup;
	if (select_name && !(t->select_name = strdup(select_name))) {
		free(t);
		return NULL;
	}
	return &t->p;
}
