/* The table widget: column headings, rows fetched through ops (only the
 * visible ones, so a 100k-row table costs one screenful), selection,
 * scrolling and search.  Every panel is one of these. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "viewer-tui/view.h"

void tui_table_init(struct tui_table *t, const struct tui_table_ops *ops, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->ops = ops;
	t->ctx = ctx;
	t->sort_col = -1;
	t->body_h = 1;
}

void tui_table_changed(struct tui_table *t)
{
	t->measured = false;
}

size_t tui_table_n_rows(const struct tui_table *t)
{
	return t->ops ? t->ops->n_rows(t->ctx) : 0;
}

void tui_table_select(struct tui_table *t, size_t row)
{
	size_t n = tui_table_n_rows(t);

	t->sel = n == 0 ? 0 : row < n ? row : n - 1;
}

enum react tui_table_on_key(struct tui_table *t, int key)
{
	size_t n = tui_table_n_rows(t), old = t->sel, page = t->body_h > 1 ? (size_t)t->body_h - 1 : 1;

	switch (key) {
	case VK_UP:
	case 'k':
		t->sel = t->sel > 0 ? t->sel - 1 : 0;
		break;
	case VK_DOWN:
	case 'j':
		t->sel = t->sel + 1 < n ? t->sel + 1 : t->sel;
		break;
	case VK_WHEEL_UP:
		t->sel = t->sel > 3 ? t->sel - 3 : 0;
		break;
	case VK_WHEEL_DOWN:
		tui_table_select(t, t->sel + 3);
		break;
	case VK_PGUP:
		t->sel = t->sel > page ? t->sel - page : 0;
		t->top = t->top > page ? t->top - page : 0;
		break;
	case VK_PGDN:
		tui_table_select(t, t->sel + page);
		t->top += page;
		break;
	case VK_HOME:
		t->sel = 0;
		break;
	case VK_END:
		tui_table_select(t, n ? n - 1 : 0);
		break;
	default:
		return REACT_NONE;
	}
	return t->sel != old || key == VK_PGUP || key == VK_PGDN ? REACT_BODY : REACT_HANDLED;
}

bool tui_table_search(struct tui_table *t, const char *pat, size_t from, int dir)
{
	size_t n = tui_table_n_rows(t);

	if (n == 0 || !t->ops->match)
		return false;
	from %= n;
	for (size_t k = 0; k < n; k++) {
		size_t r = dir >= 0 ? (from + k) % n : (from + n - k % n) % n;
		if (text_contains(t->ops->match(t->ctx, r), pat)) {
			t->sel = r;
			return true;
		}
	}
	return false;
}

/* Keep the selection on screen and the last page full. */
static void scroll_to_sel(struct tui_table *t, size_t n, size_t h)
{
	if (t->sel >= n)
		t->sel = n ? n - 1 : 0;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->center) {
		t->top = t->sel > h / 2 ? t->sel - h / 2 : 0;
		t->center = false;
	}
	if (t->top + h > n)
		t->top = n > h ? n - h : 0;
}

/* Widest cell per column over the first rows and those on screen. */
static void measure(struct tui_table *t, size_t nc, size_t n, size_t h)
{
	char raw[1024];

	if (!t->measured)
		for (size_t i = 0; i < nc; i++)
			t->need[i] = text_width(t->cols[i].title) + 1;	/* + sort mark */
	for (int pass = 0; pass < 2; pass++) {
		size_t from = pass == 0 ? 0 : t->top, to = pass == 0 ? 256 : t->top + h;
		if (pass == 0 && t->measured)
			continue;
		for (size_t r = from; r < to && r < n; r++)
			for (size_t i = 0; i < nc; i++) {
				const struct ana_screen *sc = &t->cols[i].screen;
				int pref = sc->pref > sc->min ? sc->pref : sc->min;
				raw[0] = '\0';
				t->ops->cell(t->ctx, r, i, pref, raw, sizeof(raw));
				int cw = text_width(raw);
				if (cw > t->need[i])
					t->need[i] = cw;
			}
	}
	t->measured = true;
}

void tui_table_draw(struct tui_table *t, struct canvas *c, int y, int h)
{
	int x[VCOL_MAX + 8], w[VCOL_MAX + 8];
	struct ana_col spec[VCOL_MAX + 8];
	size_t nc = t->n_cols < ARRAY_SIZE(x) ? t->n_cols : ARRAY_SIZE(x);
	size_t n = tui_table_n_rows(t);
	char raw[1024], fit[2048];

	if (h <= 0)
		return;
	scroll_to_sel(t, n, (size_t)(h > 1 ? h - 1 : 1));
	measure(t, nc, n, (size_t)(h > 1 ? h - 1 : 1));
	/* No column wants more than its content; the name takes the rest. */
	for (size_t i = 0; i < nc; i++) {
		spec[i] = t->cols[i];
		if (spec[i].screen.pref > t->need[i])
			spec[i].screen.pref = t->need[i];
		if (spec[i].screen.min > t->need[i] && !spec[i].screen.fill)
			spec[i].screen.min = t->need[i];
	}
	layout_columns(spec, nc, c->w, x, w);
	c->clear(c, y, ROLE_COLHEAD);
	for (size_t i = 0; i < nc; i++) {
		if (!w[i])
			continue;
		bool sorted = (int)i == t->sort_col;
		snprintf(raw, sizeof(raw), "%s%s", t->cols[i].title,
			 sorted ? (text_utf8 ? "\u25bc" : "v") : "");
		text_fit(fit, sizeof(fit), raw, w[i], !t->cols[i].left);
		c->put(c, y, x[i], fit, sorted ? ROLE_SORTED : ROLE_COLHEAD);
	}
	t->body_h = h - 1;
	for (int k = 0; k < h - 1; k++) {
		size_t r = t->top + (size_t)k;
		int row_y = y + 1 + k;

		if (r >= n) {
			c->clear(c, row_y, ROLE_NORMAL);
			if (n == 0 && k == 0)
				c->put(c, row_y, 1, "(nothing to show)", ROLE_DIM);
			continue;
		}
		bool sel = r == t->sel;
		enum role rr = t->ops->row_role ? t->ops->row_role(t->ctx, r) : ROLE_NORMAL;
		c->clear(c, row_y, sel ? ROLE_SELECTED : rr);
		for (size_t i = 0; i < nc; i++) {
			if (!w[i])
				continue;
			raw[0] = '\0';
			enum role cr = t->ops->cell(t->ctx, r, i, w[i], raw, sizeof(raw));
			text_fit(fit, sizeof(fit), raw, w[i], !t->cols[i].left);
			c->put(c, row_y, x[i], fit,
			       sel ? ROLE_SELECTED : cr != ROLE_NORMAL ? cr : rr);
		}
	}
}
