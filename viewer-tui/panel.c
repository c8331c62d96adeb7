/* What every panel does alike: its allocation with the table over it,
 * the end of a refresh (columns, measure, selection), and the ops a panel
 * may leave out. */
#include "config.h"

#include <stdlib.h>

#include "viewer-tui/view.h"

void *panel_alloc(size_t size, struct ui *ui, const struct panel_ops *ops,
		  const struct tui_table_ops *table)
{
	struct panel *p = calloc(1, size);

	if (!p)
		return NULL;
	p->ops = ops;
	p->ui = ui;
	tui_table_init(&p->t, table, p);
	return p;
}

void panel_free(struct panel *p)
{
	if (!p)
		return;
	if (p->ops->done)
		p->ops->done(p);
	free(p);
}

void view_free_many(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

void panel_show(struct panel *p, const struct ana_col *cols, size_t n, int sort_col,
		size_t sel)
{
	p->t.cols = cols;
	p->t.n_cols = n;
	p->t.sort_col = sort_col;
	tui_table_changed(&p->t);
	tui_table_select(&p->t, sel);
}

void panel_show_vcols(struct panel *p, const struct vcols *vc, size_t sel)
{
	panel_show(p, vc->col, vc->n, vc->sort_col, sel);
}

const struct ana_rows *panel_rows(struct panel *p)
{
	return p->ops->rows ? p->ops->rows(p) : NULL;
}

enum react panel_on_key(struct panel *p, struct ui *ui, int key)
{
	return p->ops->on_key ? p->ops->on_key(p, ui, key) : REACT_NONE;
}
