/* The flat panels: one row per function, per source line or per module. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

struct flat {
	struct panel p;
	enum flat_kind kind;
	struct ana_rows *rows;
	struct vcols vc;
};

static const enum ana_view views[] = {
	[FLAT_FUNCS] = ANA_VIEW_FUNCS, [FLAT_LINES] = ANA_VIEW_LINES,
	[FLAT_MODULES] = ANA_VIEW_MODULES,
};

static size_t flat_n(void *ctx)
{
	struct flat *f = ctx;
	return f->rows ? ana_rows_n(f->rows) : 0;
}

static enum role flat_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct flat *f = ctx;
	return vcol_cell(&f->p.ui->st, &f->vc, col, f->rows, row, width, buf, len);
}

static const char *flat_match(void *ctx, size_t row)
{
	struct flat *f = ctx;
	const struct ana_row *r = ana_rows_row(f->rows, row);
	return r ? r->name : NULL;
}

static const struct tui_table_ops flat_table = {
	.n_rows = flat_n, .cell = flat_cell, .match = flat_match,
};

static int flat_refresh(struct panel *p, struct ui *ui)
{
	struct flat *f = (struct flat *)p;
	const struct ana_row *old = f->rows ? ana_rows_row(f->rows, f->p.t.sel) : NULL;
	struct ana_row keep = old ? *old : (struct ana_row){ 0 };
	struct ana_query q;
	struct ana_rows *rows;

	view_query(&ui->st, views[f->kind], &q);
	rows = ana_set_query(ui->set, &q);
	if (!rows)
		return -errno;
	/* Stay on the same function (or line) when the order changes. */
	size_t sel = 0;
	for (size_t i = 0; old && i < ana_rows_n(rows); i++) {
		const struct ana_row *r = ana_rows_row(rows, i);
		if (text_same(r->name, keep.name) && text_same(r->module, keep.module) &&
		    (f->kind != FLAT_LINES ||
		     (text_same(r->file, keep.file) && r->line == keep.line))) {
			sel = i;
			break;
		}
	}
	ana_rows_free(f->rows);
	f->rows = rows;
	vcols_build(&f->vc, &ui->st, ui->set, views[f->kind]);
	panel_show_vcols(p, &f->vc, sel);
	return 0;
}

static enum react flat_key(struct panel *p, struct ui *ui, int key)
{
	struct flat *f = (struct flat *)p;
	const struct ana_row *r = f->rows ? ana_rows_row(f->rows, p->t.sel) : NULL;

	if (key == 'A' && f->kind == FLAT_FUNCS) {
		if (r)
			ui_push(ui, panel_annotate_new(ui, r));
		return REACT_ALL;
	}
	if (key != VK_ENTER && key != VK_RIGHT)
		return REACT_NONE;
	if (!r)
		return REACT_HANDLED;
	switch (f->kind) {
	case FLAT_FUNCS:
		ui_push(ui, panel_func_new(ui, r));
		return REACT_ALL;
	case FLAT_LINES:
		if (!r->file) {
			ui_message(ui, ROLE_WARN, "no source file known for this line");
			return REACT_ALL;
		}
		ui_push(ui, panel_source_new(ui, r->file, r->line));
		return REACT_ALL;
	case FLAT_MODULES:
		break;
	}
	return REACT_NONE;
}

static void flat_title(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	static const char *const what[] = {
		[FLAT_FUNCS] = "Functions", [FLAT_LINES] = "Source lines",
		[FLAT_MODULES] = "Modules",
	};
	struct flat *f = (struct flat *)p;
	const char *ev = ana_set_event(ui->set, ui->st.event);

	snprintf(buf, len, "%s: %zu, %s%s", what[f->kind], flat_n(f), ev ? ev : "?",
		 ui->st.compare ? " (compare)" : "");
}

static const struct ana_rows *flat_rows(struct panel *p)
{
	return ((struct flat *)p)->rows;
}

static const char *flat_slug(struct panel *p)
{
	static const char *const slug[] = {
		[FLAT_FUNCS] = "functions", [FLAT_LINES] = "lines", [FLAT_MODULES] = "modules",
	};
	return slug[((struct flat *)p)->kind];
}

static bool flat_command(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	static const char *const opt[] = {
		[FLAT_FUNCS] = "", [FLAT_LINES] = " --lines", [FLAT_MODULES] = " --modules",
	};
	char sort[128];

	cmd_sort_args(&ui->st, sort, sizeof(sort));
	snprintf(buf, len, "%s%s", opt[((struct flat *)p)->kind], sort);
	return true;
}

static void flat_done(struct panel *p)
{
	ana_rows_free(((struct flat *)p)->rows);
}

static const struct panel_ops flat_ops = {
	.refresh = flat_refresh, .on_key = flat_key, .title = flat_title,
	.rows = flat_rows, .slug = flat_slug, .command = flat_command, .done = flat_done,
};

struct panel *panel_flat_new(struct ui *ui, enum flat_kind k)
{
	struct flat *f = panel_alloc(sizeof(*f), ui, &flat_ops, &flat_table);

	if (!f)
		return NULL;
	f->kind = k;
	return &f->p;
}
