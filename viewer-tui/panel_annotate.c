/* A function's instructions with their share of its samples, under the
 * source lines they come from (the analyzer's ana_set_annotate, as
 * `pmcprof annotate` prints it); code inlined into it marked '|'. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

/* An instruction is hot from this share of the function's samples on. */
#define HOT_PCT 5.0

struct arow {
	const struct ana_insn *in;	/* NULL: a source line */
	char *text;			/* the source row's "file:line  text" */
};

struct ann {
	struct panel p;
	char *func;			/* as the row named it */
	struct ana_annotation *a;
	struct arow *r;
	size_t n;
	char err[512];
};

/* The columns: text-only columns of the model's type (analyzer/ana/table.h),
 * the annotation's own (a share, samples, an address, the text). */
static const struct ana_col ann_cols[] = {
	{ .title = "Percent", .type = ANA_T_PCT, .screen = { 7, 7, 9, false } },
	{ .title = "Samples", .type = ANA_T_COUNT, .screen = { 7, 8, 8, false } },
	{ .title = "Address", .type = ANA_T_TEXT, .screen = { 8, 8, 7, false } },
	{ .title = "Instruction / source", .type = ANA_T_TEXT, .left = true,
	  .screen = { 20, 80, 10, true } },
};

static size_t ann_n(void *ctx)
{
	return ((struct ann *)ctx)->n;
}

static enum role ann_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct ann *a = ctx;
	const struct arow *r = &a->r[row];
	(void)width;
	buf[0] = '\0';
	if (!r->in) {
		if (col == 3)
			snprintf(buf, len, "%s", r->text);
		return ROLE_DIM;
	}
	bool hot = r->in->samples && r->in->pct >= HOT_PCT;
	switch (col) {
	case 0:
		if (r->in->samples)
			snprintf(buf, len, "%.2f", r->in->pct);
		break;
	case 1:
		if (r->in->samples)
			snprintf(buf, len, "%llu", (unsigned long long)r->in->samples);
		break;
	case 2:
		snprintf(buf, len, "%llx", (unsigned long long)r->in->addr);
		break;
	default:
		snprintf(buf, len, "%s%s", r->in->inlined ? "| " : "", r->in->text);
	}
	return hot ? ROLE_HOT : ROLE_NORMAL;
}

static const char *ann_match(void *ctx, size_t row)
{
	const struct arow *r = &((struct ann *)ctx)->r[row];
	return r->in ? r->in->text : r->text;
}

static const struct tui_table_ops ann_table = {
	.n_rows = ann_n, .cell = ann_cell, .match = ann_match,
};

static void rows_free(struct ann *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->r[i].text);
	free(a->r);
	a->r = NULL;
	a->n = 0;
}

static int push_row(struct ann *a, size_t *cap, const struct ana_insn *in, char *text)
{
	if (a->n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct arow *r = realloc(a->r, c * sizeof(*r));
		if (!r) {
			free(text);
			return -ENOMEM;
		}
		a->r = r;
		*cap = c;
	}
	a->r[a->n++] = (struct arow){ in, text };
	return 0;
}

/* The rows: each instruction, a source row before it where the line (or
 * the inlined function) changes. */
static int build(struct ann *a)
{
	const struct ana_annotation *an = a->a;
	const char *file = NULL, *inl = NULL, *src_path = NULL;
	struct source *text = NULL;
	unsigned line = 0;
	size_t cap = 0, sel = 0;
	uint64_t best = 0;
	int e = 0;

	for (size_t i = 0; i < an->n && !e; i++) {
		const struct ana_insn *in = &an->insn[i];
		if (in->file && (i == 0 || in->line != line || in->inlined != inl || in->file != file)) {
			char path[4096], *row = NULL;
			if (in->file != src_path) {
				source_free(text);
				text = NULL;
				src_path = in->file;
				if (!ana_set_source_path(a->p.ui->set, in->file, path, sizeof(path)))
					text = source_read(path);
			}
			const char *t = text ? source_line(text, in->line) : "";
			while (*t == ' ' || *t == '\t')
				t++;
			if (asprintf(&row, "%s:%u%s%s%s  %s", text_basename(in->file), in->line,
				     in->inlined ? " [inlined " : "", in->inlined ? in->inlined : "",
				     in->inlined ? "]" : "", t) < 0) {
				e = -ENOMEM;
				break;
			}
			e = push_row(a, &cap, NULL, row);
		}
		file = in->file;
		line = in->line;
		inl = in->inlined;
		if (!e && in->samples > best) {
			best = in->samples;
			sel = a->n;
		}
		if (!e)
			e = push_row(a, &cap, in, NULL);
	}
	source_free(text);
	panel_show(&a->p, ann_cols, ARRAY_SIZE(ann_cols), -1, sel);	/* the hottest instruction */
	a->p.t.center = true;
	return e;
}

static int ann_refresh(struct panel *p, struct ui *ui)
{
	struct ann *a = (struct ann *)p;
	size_t ev = view_run_event(&ui->st, ui->set, ui->st.base);
	rows_free(a);
	ana_annotation_free(a->a);
	a->a = NULL;
	a->err[0] = '\0';
	int e = ana_set_annotate(ui->set, a->func, ui->st.base, ev, &a->a, a->err, sizeof(a->err));
	if (e) {
		if (!a->err[0])
			snprintf(a->err, sizeof(a->err), "%s", ana_strerror(e));
		tui_table_changed(&p->t);
		return 0;	/* said in the title */
	}
	return build(a);
}

static void ann_title(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct ann *a = (struct ann *)p;
	const char *ev = ana_set_event(ui->set, view_run_event(&ui->st, ui->set, ui->st.base));
	if (!a->a)
		snprintf(buf, len, "Annotate %s: %s", a->func, a->err);
	else
		snprintf(buf, len, "Annotate %s (%s): %llu samples of %s, '|' inlined", a->a->func,
			 text_basename(a->a->module), (unsigned long long)a->a->samples, ev ? ev : "?");
}

static const char *ann_slug(struct panel *p)
{
	(void)p;
	return "annotate";
}

static void ann_done(struct panel *p)
{
	struct ann *a = (struct ann *)p;
	rows_free(a);
	ana_annotation_free(a->a);
	free(a->func);
}

/* No keys of its own (navigation and search are the table's), no analyzer
 * rows (x has nothing to export). */
static const struct panel_ops ann_ops = {
	.refresh = ann_refresh, .title = ann_title, .slug = ann_slug, .done = ann_done,
};

struct panel *panel_annotate_new(struct ui *ui, const struct ana_row *fn)
{
	struct ann *a = panel_alloc(sizeof(*a), ui, &ann_ops, &ann_table);
	const char *mod = text_basename(fn->module);

	if (!a)
		return NULL;
	if (asprintf(&a->func, "%s%s%s", fn->module ? mod : "", fn->module ? ":" : "", fn->name) < 0) {
		free(a);
		return NULL;
	}
	panel_show(&a->p, ann_cols, ARRAY_SIZE(ann_cols), -1, 0);	/* also when it fails */
	return &a->p;
}
