/* Export: RFC 4180 CSV and JSON of a row set, FlameGraph collapsed stacks
 * of the tree.  CSV and JSON are renderers over the column model
 * (table.h): which columns each writes are lists of column ids here, what
 * the columns are is in table.c and docs/analyzer.md. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "analyzer/facts.h"
#include "analyzer/ana/json.h"
#include "analyzer/ana/table.h"

/* report --csv: one line per row, run and column (event or metric) */
static const enum ana_col_id report_cols[] = {
	ANA_COL_EVENT, ANA_COL_FUNCTION, ANA_COL_MODULE, ANA_COL_FILE, ANA_COL_LINE,
	ANA_COL_SELF_SAMPLES, ANA_COL_SELF_PCT, ANA_COL_INCL_SAMPLES, ANA_COL_INCL_PCT,
	ANA_COL_SELF_VALUE, ANA_COL_INCL_VALUE, ANA_COL_RUN, ANA_COL_INLINED_INTO, ANA_COL_DEPTH,
	ANA_COL_RUN_TRUST,
};
/* diff --csv: one line per row and non-base run, on the compared events
 * (event: the base's, run_event: the run's; they differ across sample
 * sources) */
static const enum ana_col_id diff_cols[] = {
	ANA_COL_EVENT, ANA_COL_FUNCTION, ANA_COL_MODULE, ANA_COL_FILE, ANA_COL_LINE, ANA_COL_RUN,
	ANA_COL_BASE, ANA_COL_RUN_EVENT, ANA_COL_BASE_SAMPLES, ANA_COL_RUN_SAMPLES,
	ANA_COL_BASE_PCT, ANA_COL_RUN_PCT, ANA_COL_MODE, ANA_COL_RATIO, ANA_COL_CI_LOW,
	ANA_COL_CI_HIGH, ANA_COL_SIGNIFICANT, ANA_COL_SPREAD, ANA_COL_PRESENCE,
	ANA_COL_INLINED_INTO, ANA_COL_RUN_TRUST, ANA_COL_BASE_TRUST, ANA_COL_WITHHELD,
};
/* JSON: a row's values per run and event (samples only of events, not
 * metrics), and its comparison with the base per run */
static const enum ana_col_id value_cols[] = {
	ANA_COL_SELF_SAMPLES, ANA_COL_INCL_SAMPLES, ANA_COL_SELF_PCT, ANA_COL_INCL_PCT,
	ANA_COL_SELF_VALUE, ANA_COL_INCL_VALUE,
};
static const enum ana_col_id compare_cols[] = {
	ANA_COL_MODE, ANA_COL_RATIO, ANA_COL_CI_LOW, ANA_COL_CI_HIGH, ANA_COL_SIGNIFICANT,
	ANA_COL_SPREAD, ANA_COL_PRESENCE, ANA_COL_WITHHELD,
};
#define N_OF(a) (sizeof(a) / sizeof(*(a)))

/* One CSV line: the cells at at, or (at NULL) the header. */
static void csv_line(FILE *f, const enum ana_col_id *ids, size_t n, const struct ana_at *at)
{
	struct ana_value v;
	for (size_t k = 0; k < n; k++) {
		const struct ana_col *c = ana_col(ids[k]);
		if (k)
			putc(',', f);
		if (!at) {
			fputs(c->name, f);
			continue;
		}
		ana_col_value(c, at, &v);
		ana_value_write_csv(&v, c->csv_fmt, f);
	}
	fputs("\r\n", f);	/* RFC 4180 line break */
}

int ana_rows_write_csv(const struct ana_rows *r, FILE *f)
{
	const struct ana_query *q = ana_rows_query(r);
	unsigned nr = ana_set_n_runs(ana_rows_set(r));
	size_t nc = ana_set_n_events(ana_rows_set(r));
	bool cmp_mode = q->base >= 0;
	const enum ana_col_id *ids = cmp_mode ? diff_cols : report_cols;
	size_t n = cmp_mode ? N_OF(diff_cols) : N_OF(report_cols);

	csv_line(f, ids, n, NULL);
	for (size_t i = 0; i < ana_rows_n(r); i++)
		for (unsigned run = 0; run < nr; run++) {
			struct ana_cmp cmp;
			if (cmp_mode && (run == (unsigned)q->base || ana_rows_compare(r, i, run, &cmp)))
				continue;
			/* compare mode: the run's compared event; else every column */
			size_t ev0 = cmp_mode ? ana_rows_event(r, run) : 0, ev1 = cmp_mode ? ev0 + 1 : nc;
			for (size_t ev = ev0; ev < ev1; ev++) {
				struct ana_at at = { r, i, ev, run, cmp_mode ? &cmp : NULL };
				csv_line(f, ids, n, &at);
			}
		}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* The JSON renderer of a value: null for none, flags true and false. */
static void json_value(struct json *j, const struct ana_value *v)
{
	if (v->none) {
		json_null(j);
		return;
	}
	switch (v->type) {
	case ANA_T_TEXT: json_str(j, v->s); break;
	case ANA_T_COUNT: json_u64(j, v->u); break;
	case ANA_T_FLAG: json_bool(j, v->b); break;
	default: json_num(j, v->d); break;
	}
}

/* Members "name": value of the columns at at. */
static void json_cols(struct json *j, const enum ana_col_id *ids, size_t n, const struct ana_at *at)
{
	struct ana_value v;
	for (size_t k = 0; k < n; k++) {
		const struct ana_col *c = ana_col(ids[k]);
		ana_col_value(c, at, &v);
		json_key(j, c->name);
		json_value(j, &v);
	}
}

static const char *const view_name[] = {
	[ANA_VIEW_FUNCS] = "functions", [ANA_VIEW_LINES] = "lines", [ANA_VIEW_MODULES] = "modules",
	[ANA_VIEW_CALLERS] = "callers", [ANA_VIEW_CALLEES] = "callees",
	[ANA_VIEW_TOPDOWN] = "top-down", [ANA_VIEW_BOTTOMUP] = "bottom-up",
};

/* "values": the row's columns per run and event. */
static void json_values(struct json *j, const struct ana_rows *r, size_t i)
{
	const struct ana_set *s = ana_rows_set(r);
	unsigned nr = ana_set_n_runs(s);
	size_t nc = ana_set_n_events(s);

	json_key(j, "values");
	json_arr_begin(j);
	for (unsigned run = 0; run < nr; run++)
		for (size_t ev = 0; ev < nc; ev++) {
			struct ana_at at = { r, i, ev, run, NULL };
			size_t metric = ev < ana_set_n_sampled_events(s) ? 0 : 2;	/* no samples */
			json_obj_begin(j);
			json_ku64(j, "run", run);
			json_ku64(j, "event", ev);
			json_cols(j, value_cols + metric, N_OF(value_cols) - metric, &at);
			json_obj_end(j);
		}
	json_arr_end(j);
}

/* "compare": the row's comparison with the base per other run. */
static void json_compare(struct json *j, const struct ana_rows *r, size_t i)
{
	unsigned base = (unsigned)ana_rows_query(r)->base;

	json_key(j, "compare");
	json_arr_begin(j);
	for (unsigned run = 0; run < ana_set_n_runs(ana_rows_set(r)); run++) {
		struct ana_cmp c;
		if (run == base || ana_rows_compare(r, i, run, &c))
			continue;
		struct ana_at at = { r, i, ana_rows_event(r, run), run, &c };
		json_obj_begin(j);
		json_ku64(j, "run", run);
		json_ku64(j, "event", ana_rows_event(r, run));
		json_ku64(j, "base_event", ana_rows_event(r, base));
		json_cols(j, compare_cols, N_OF(compare_cols), &at);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* A row's names and numbers, as JSON calls them. */
static const struct {
	const char *name;
	size_t off;
} row_texts[] = {
	{ "name", offsetof(struct ana_row, name) }, { "module", offsetof(struct ana_row, module) },
	{ "file", offsetof(struct ana_row, file) },
};
static const char *const row_nums[] = { "line", "depth", "node" };

/* Row i, whose parent is row `parent` (-1: none). */
static void json_row(struct json *j, const struct ana_rows *r, size_t i, long parent)
{
	const struct ana_row *row = ana_rows_row(r, i);

	json_obj_begin(j);
	json_ku64(j, "id", i);
	json_key(j, "parent");
	if (parent >= 0)
		json_u64(j, (uint64_t)parent);
	else
		json_null(j);
	for (size_t k = 0; k < N_OF(row_texts); k++)
		json_kstr(j, row_texts[k].name, *(const char *const *)((const char *)row +
								      row_texts[k].off));
	unsigned nums[] = { row->line, row->depth, row->node };
	for (size_t k = 0; k < N_OF(nums); k++)
		json_ku64(j, row_nums[k], nums[k]);
	/* inlined: an inlined instance (trees) or a function that was
	 * inlined somewhere (inlined_into lists where) */
	json_kbool(j, "inlined", row->flags & ANA_ROW_INLINED || row->n_inlined_into);
	json_key(j, "inlined_into");
	json_str_list(j, row->inlined_into_all, row->n_inlined_into);
	json_values(j, r, i);
	if (ana_rows_query(r)->base >= 0)
		json_compare(j, r, i);
	json_obj_end(j);
}

static bool is_tree(enum ana_view v)
{
	return v == ANA_VIEW_TOPDOWN || v == ANA_VIEW_BOTTOMUP;
}

/* "rows": tree rows come depth first, so a row's parent is the last row
 * one level up (ids are row indexes).  0 or -ENOMEM. */
static int json_rows(struct json *j, const struct ana_rows *r)
{
	bool tree = is_tree(ana_rows_query(r)->view);
	size_t *up = NULL, n_up = 0;

	json_key(j, "rows");
	json_arr_begin(j);
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		long parent = -1;
		if (tree && row->depth >= 1) {
			if (row->depth > n_up) {
				size_t *u = realloc(up, row->depth * sizeof(*u));
				if (!u) {
					free(up);
					return -ENOMEM;
				}
				up = u;
				n_up = row->depth;
			}
			up[row->depth - 1] = i;
			parent = row->depth >= 2 ? (long)up[row->depth - 2] : -1;
		}
		json_newline(j);
		json_row(j, r, i, parent);
	}
	json_newline(j);
	json_arr_end(j);
	free(up);
	return 0;
}

/* docs/report-schema.json describes this output. */
int ana_rows_write_json(const struct ana_rows *r, FILE *f)
{
	const struct ana_set *s = ana_rows_set(r);
	unsigned nr = ana_set_n_runs(s);
	struct json *j = json_open(f);
	if (!j)
		return -errno;

	json_obj_begin(j);
	json_kstr(j, "schema", "pmcprof-report/1");
	json_kstr(j, "view", view_name[ana_rows_query(r)->view]);
	json_key(j, "runs");
	json_arr_begin(j);
	for (unsigned run = 0; run < nr; run++) {
		json_newline(j);	/* a run a line, a row a line */
		json_run(j, ana_set_run(s, run));
	}
	json_arr_end(j);
	json_key(j, "trust");
	json_arr_begin(j);
	for (unsigned run = 0; run < nr; run++)
		json_trust(j, ana_set_run(s, run));
	json_arr_end(j);
	json_key(j, "events");
	json_arr_begin(j);
	for (size_t ev = 0; ev < ana_set_n_events(s); ev++)
		json_str(j, ana_set_event(s, ev));
	json_arr_end(j);
	int e = json_rows(j, r);
	json_obj_end(j);
	int ec = json_close(j);
	if (!e && !ec)
		fputc('\n', f);
	return e ? e : ec ? ec : ferror(f) ? -EIO : 0;
}

/* Frame names for FlameGraph: ';' separates frames and the last space
 * the count, so neither may appear in a name; inlined frames get "_[i]"
 * as in stackcollapse-perf, and kernel frames ("[k] name", kallsyms.c)
 * "_[k]", which flamegraph.pl colors as such.  Appends to *buf (grown as
 * needed: a stack is as deep as the profile says); returns the new length,
 * or SIZE_MAX when out of memory. */
static size_t put_frame(char **buf, size_t *cap, size_t at, const char *name, bool inl)
{
	bool kernel = !strncmp(name, "[k] ", 4);
	size_t need = at + 1 + 2 * strlen(name) + 4;

	if (need > *cap) {
		size_t c = *cap * 2 > need ? *cap * 2 : need;
		char *b = realloc(*buf, c);
		if (!b)
			return SIZE_MAX;
		*buf = b;
		*cap = c;
	}
	if (at)
		(*buf)[at++] = ';';
	for (const char *p = kernel ? name + 4 : name; *p; p++)
		(*buf)[at++] = *p == ';' ? ':' : *p == ' ' ? '_' : *p;
	for (const char *p = inl ? "_[i]" : kernel ? "_[k]" : ""; *p; p++)
		(*buf)[at++] = *p;
	return at;
}

/* Depth-first walk of the tree from the root, each child pushed in the
 * set's order (so popped last first); len[] is the path's length at each
 * level.  Writes each node with self samples.  0 or -ENOMEM. */
static int collapsed_walk(const struct ana_set *s, unsigned run, size_t ev, uint32_t *stack,
			  size_t *len, char **buf, size_t *cap, FILE *f)
{
	struct ana_node nd = { .sz = sizeof(nd) };
	struct ana_function fn = { .sz = sizeof(fn) };
	size_t sp = 0;

	ana_set_node(s, 0, &nd);
	for (uint32_t c = nd.child; c != UINT32_MAX; c = nd.next) {
		stack[sp] = c;
		len[sp++] = 0;
		ana_set_node(s, c, &nd);
	}
	while (sp) {
		uint32_t x = stack[--sp];
		double v = 0;
		ana_set_node(s, x, &nd);
		ana_set_function(s, nd.func, &fn);
		size_t at = put_frame(buf, cap, len[sp], fn.name, nd.inlined);
		if (at == SIZE_MAX)
			return -ENOMEM;
		ana_set_node_total(s, x, run, ev, ANA_SELF, NULL, &v);
		if (v > 0)
			fprintf(f, "%.*s %.0f\n", (int)at, *buf, v);
		/* nd becomes each child in turn: its next is the sibling's */
		for (uint32_t c = nd.child; c != UINT32_MAX; c = nd.next) {
			stack[sp] = c;
			len[sp++] = at;
			ana_set_node(s, c, &nd);
		}
	}
	return 0;
}

int ana_set_write_collapsed(struct ana_set *s, unsigned run, size_t ev, FILE *f)
{
	if (!ana_set_finished(s))
		return -ANA_ESTATE;
	if (run >= ana_set_n_runs(s) || ev >= ana_set_n_sampled_events(s))
		return -EINVAL;
	size_t cap = 65536, n = ana_set_n_nodes(s) + 1;
	char *buf = malloc(cap);
	uint32_t *stack = malloc(n * sizeof(*stack));
	size_t *len = malloc(n * sizeof(*len));
	int e = buf && stack && len ? collapsed_walk(s, run, ev, stack, len, &buf, &cap, f) : -ENOMEM;
	free(buf);
	free(stack);
	free(len);
	if (e)
		return e;
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
