/* `pmcprof diff --table`: the paper's kind of table (perfctr-xen, Tables
 * 3-5): one row per function, one column per run compared with the base,
 * each cell the ratio with its interval and flag; as text, Markdown, CSV
 * or JSON.  The rows are diff's (filters, sort, FDR control); this file
 * only lays them out. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/ana/json.h"
#include "cli/pivot.h"

/* CSV fields, as the analyzer writes them (RFC 4180). */
static void csv_text(FILE *f, const char *s)
{
	struct ana_value v = { .type = ANA_T_TEXT, .s = s, .none = !s };

	ana_value_write_csv(&v, NULL, f);
}

/* Ratios, intervals, shares: 6 digits; NAN blank. */
static void csv_num(FILE *f, double x)
{
	struct ana_value v = { .type = ANA_T_RATIO, .d = x, .none = isnan(x) };

	ana_value_write_csv(&v, "%.6g", f);
}

/* A member "key": x with 6 digits (NAN and infinities: null). */
static void json_num6(struct json *j, const char *key, double x)
{
	char b[32];

	json_key(j, key);
	if (isnan(x) || isinf(x)) {
		json_null(j);
		return;
	}
	snprintf(b, sizeof(b), "%.6g", x);
	json_raw_num(j, b);
}

/* "1.23 [1.10, 1.40] *", "new", "gone". */
static void cell_text(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio m)
{
	char r[32], iv[80];

	if (c->presence == ANA_IN_NEITHER) {
		snprintf(buf, len, "-");
		return;
	}
	if (c->presence == ANA_ONLY_RUN && m != ANA_RATIO_DELTA)
		snprintf(r, sizeof(r), "new");
	else if (c->presence == ANA_ONLY_BASE && m != ANA_RATIO_DELTA)
		snprintf(r, sizeof(r), "gone");
	else
		ana_fmt_ratio(r, sizeof(r), c->ratio, m);
	ana_fmt_interval(iv, sizeof(iv), c, m);
	snprintf(buf, len, "%s %s%s", r, iv, c->significant ? " *" : c->withheld ? " ?" : "");
}

static const char *label(const struct ana_set *s, unsigned r)
{
	return ana_set_run(s, r)->label;
}

/* The lines above and below the table: what each column is, what the
 * intervals cover, what a flag means. */
static void notes(const struct pivot *pv, const struct ana_set *s, const struct ana_rows *rows,
		  FILE *out, const char *pre)
{
	unsigned nr = ana_set_n_runs(s);
	size_t m = 0;
	double fdr = ana_rows_fdr(rows, &m);
	unsigned with = 0;
	char fl[128];

	for (unsigned r = 0; r < nr; r++) {
		const struct ana_run *ru = ana_set_run(s, r);
		with += ru->n_repeats > 1;
		fprintf(out, "%s%s %s: %u repeat%s; %s; flags: %s\n", pre,
			r == pv->base ? "base" : "column", ru->label, ru->n_repeats,
			ru->n_repeats == 1 ? "" : "s",
			ru->virtualization ? ru->virtualization : "bare metal (no hypervisor seen)",
			ru->trust ? ana_trust_str(ru->trust, fl, sizeof(fl)) : "none");
	}
	if (ana_set_run(s, pv->base)->virtualization)
		fprintf(out, "%sthe base itself ran virtualized (%s): ratios are against a virtual "
			"machine, not bare metal\n", pre, ana_set_run(s, pv->base)->virtualization);
	fprintf(out, "%scells: %s of each run against %s, %g%% interval%s; ", pre,
		pv->ratio == ANA_RATIO_DELTA ? "share - base share (points)"
		: pv->ratio == ANA_RATIO_RAW ? "raw count ratio (loss-corrected)"
					     : "share ratio",
		label(s, pv->base), 100 * (pv->conf > 0 ? pv->conf : 0.95),
		with == nr ? " (the wider of the repeats' t interval and the counts')"
		: with ? " (the wider of the repeats' t interval and the counts' where a side has "
			 "repeats; a run of 1 repeat against a base of 1 covers no run-to-run variance)"
		       : " from sample counts only: run-to-run variance is not covered (record repeats)");
	if (fdr > 0)
		fprintf(out, "*: significant with a false discovery rate of %g%% over the %zu "
			"comparisons (Benjamini-Hochberg)\n", 100 * fdr, m);
	else
		fprintf(out, "*: the interval excludes no change (no FDR control)\n");
	if (pv->noise[0])
		fprintf(out, "%snoise floor: %s\n", pre, pv->noise);
	if (pv->time_spec)
		fprintf(out, "%stime: only the samples in --time %s (from the timelines)\n", pre,
			pv->time_spec);
}

/* The text or Markdown table's columns: the function, its module, the
 * base's share, a column per other run. */
static size_t text_cols(const struct pivot *pv, struct ana_set *s, struct ana_col *cols,
			char *bt, size_t len)
{
	size_t nc = 0;

	cols[nc++] = text_col("Function", true, 1, 14, 24);
	cols[nc++] = text_col("Module", true, 2, 6, 12);
	snprintf(bt, len, "%s%%", label(s, pv->base));
	cols[nc++] = text_col(bt, false, 0, 0, 0);
	for (unsigned r = 0; r < ana_set_n_runs(s) && nc < 64; r++)
		if (r != pv->base)
			cols[nc++] = text_col(label(s, r), true, 0, 0, 0);
	return nc;
}

/* Row i's text cells into buf: 0 or -EINVAL. */
static int text_cells(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, size_t i,
		      char (*buf)[CELL_MAX])
{
	const struct ana_row *row = ana_rows_row(rows, i);
	size_t k = 0;

	snprintf(buf[k++], CELL_MAX, "%s", row->name);
	snprintf(buf[k++], CELL_MAX, "%s", base_name(row->module));
	double bp = ana_rows_pct(rows, i, pv->base, pv->event_of(pv, s, pv->base), pv->kind);
	snprintf(buf[k++], CELL_MAX, isnan(bp) ? "" : "%.2f", bp);
	for (unsigned r = 0; r < ana_set_n_runs(s) && k < 64; r++) {
		struct ana_cmp c;
		if (r == pv->base)
			continue;
		if (ana_rows_compare(rows, i, r, &c))
			return -EINVAL;
		cell_text(buf[k++], CELL_MAX, &c, pv->ratio);
	}
	return 0;
}

static int text(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out,
		bool md)
{
	static char buf[64][CELL_MAX];
	const char *cell[64];
	struct ana_col cols[64];
	char bt[80];
	size_t nc = text_cols(pv, s, cols, bt, sizeof(bt));
	struct ana_table *t = ana_table_new(cols, nc);
	int e = t ? 0 : -ENOMEM;

	for (size_t j = 0; j < nc; j++)
		cell[j] = buf[j];
	for (size_t i = 0; i < ana_rows_n(rows) && !e; i++)
		if (!(e = text_cells(pv, s, rows, i, buf)))
			e = ana_table_add(t, cell);
	if (!e && !pv->no_header)
		notes(pv, s, rows, out, md ? "- " : "# ");
	if (!e && md)
		e = fputs(pv->no_header ? "" : "\n", out) < 0 ? -EIO : ana_table_write_markdown(t, out);
	else if (!e)
		e = ana_table_write_text(t, out, pv->width);
	ana_table_free(t);
	return e;
}

/* Run `run`'s cell of a row: its share and its comparison with the base. */
struct cell {
	unsigned run;
	double pct;
	struct ana_cmp c;
};

/* Row i's cells, one per run but the base, into cells: 0 or -EINVAL. */
static int row_cells(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, size_t i,
		     struct cell *cells)
{
	size_t k = 0;

	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		if (r == pv->base)
			continue;
		if (ana_rows_compare(rows, i, r, &cells[k].c))
			return -EINVAL;
		cells[k].run = r;
		cells[k++].pct = ana_rows_pct(rows, i, r, pv->event_of(pv, s, r), pv->kind);
	}
	return 0;
}

static void csv_header(const struct pivot *pv, struct ana_set *s, FILE *out)
{
	static const char *const sub[] = { "pct", "ratio", "ci_low", "ci_high", "significant", "p",
					   "from_repeats" };

	fputs("function,module,base_pct", out);
	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		if (r == pv->base)
			continue;
		for (size_t k = 0; k < sizeof(sub) / sizeof(*sub); k++) {
			char h[300];
			snprintf(h, sizeof(h), "%s:%s", label(s, r), sub[k]);
			fputc(',', out);
			csv_text(out, h);
		}
	}
	fputc('\n', out);
}

static void csv_row(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, size_t i,
		    const struct cell *cells, FILE *out)
{
	const struct ana_row *row = ana_rows_row(rows, i);

	csv_text(out, row->name ? row->name : "");
	fputc(',', out);
	csv_text(out, row->module ? row->module : "");
	fputc(',', out);
	csv_num(out, ana_rows_pct(rows, i, pv->base, pv->event_of(pv, s, pv->base), pv->kind));
	for (unsigned k = 0; k + 1 < ana_set_n_runs(s); k++) {
		const struct ana_cmp *c = &cells[k].c;
		double nums[] = { cells[k].pct, c->ratio, c->lo, c->hi };
		for (size_t n = 0; n < sizeof(nums) / sizeof(*nums); n++) {
			fputc(',', out);
			csv_num(out, nums[n]);
		}
		fprintf(out, ",%s,", c->significant ? "true" : "false");
		csv_num(out, c->p);
		fprintf(out, ",%s", c->from_repeats ? "true" : "false");
	}
	fputc('\n', out);
}

static int csv(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	struct cell *cells = malloc(ana_set_n_runs(s) * sizeof(*cells));
	int e = cells ? 0 : -ENOMEM;

	if (!e)
		csv_header(pv, s, out);
	for (size_t i = 0; i < ana_rows_n(rows) && !e; i++)
		if (!(e = row_cells(pv, s, rows, i, cells)))
			csv_row(pv, s, rows, i, cells, out);
	free(cells);
	return e;
}

/* The runs: label, repeats, where they ran, how far to trust them. */
static void json_runs(struct json *j, struct ana_set *s)
{
	char fl[128];

	json_key(j, "runs");
	json_arr_begin(j);
	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		const struct ana_run *ru = ana_set_run(s, r);
		json_obj_begin(j);
		json_kstr(j, "label", ru->label);
		json_ku64(j, "repeats", ru->n_repeats);
		json_kstr(j, "virtualization", ru->virtualization);
		json_kstr(j, "trust", ana_trust_str(ru->trust, fl, sizeof(fl)));
		json_num6(j, "loss_scale", ru->loss_scale);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_cell(struct json *j, struct ana_set *s, const struct cell *x)
{
	json_obj_begin(j);
	json_kstr(j, "run", label(s, x->run));
	json_num6(j, "pct", x->pct);
	json_num6(j, "ratio", x->c.ratio);
	json_num6(j, "ci_low", x->c.lo);
	json_num6(j, "ci_high", x->c.hi);
	json_kbool(j, "significant", x->c.significant);
	json_num6(j, "p", x->c.p);
	json_kbool(j, "from_repeats", x->c.from_repeats);
	json_num6(j, "uncorrected", x->c.uncorrected);
	json_obj_end(j);
}

static int json_rows(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows,
		     struct json *j)
{
	struct cell *cells = malloc(ana_set_n_runs(s) * sizeof(*cells));
	int e = cells ? 0 : -ENOMEM;

	json_key(j, "rows");
	json_arr_begin(j);
	for (size_t i = 0; i < ana_rows_n(rows) && !e; i++) {
		const struct ana_row *row = ana_rows_row(rows, i);
		if ((e = row_cells(pv, s, rows, i, cells)))
			break;
		json_obj_begin(j);
		json_kstr(j, "function", row->name ? row->name : "");
		json_kstr(j, "module", row->module ? row->module : "");
		json_num6(j, "base_pct", ana_rows_pct(rows, i, pv->base,
						      pv->event_of(pv, s, pv->base), pv->kind));
		json_key(j, "cells");
		json_arr_begin(j);
		for (unsigned k = 0; k + 1 < ana_set_n_runs(s); k++)
			json_cell(j, s, &cells[k]);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	free(cells);
	return e;
}

static int json(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	size_t m = 0;
	double fdr = ana_rows_fdr(rows, &m);
	struct json *j = json_open(out);

	if (!j)
		return -errno;
	json_obj_begin(j);
	json_kstr(j, "mode", pv->ratio == ANA_RATIO_DELTA ? "delta"
			     : pv->ratio == ANA_RATIO_RAW ? "raw" : "share");
	json_num6(j, "conf", pv->conf > 0 ? pv->conf : 0.95);
	json_num6(j, "fdr", fdr);
	json_ku64(j, "comparisons", m);
	json_kstr(j, "noise_floor", pv->noise[0] ? pv->noise : NULL);
	json_kstr(j, "base", label(s, pv->base));
	json_runs(j, s);
	int e = json_rows(pv, s, rows, j);
	json_obj_end(j);
	int ec = json_close(j);
	if (!e && !ec)
		fputc('\n', out);
	return e ? e : ec;
}

int pivot_print(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	switch (pv->fmt) {
	case PIVOT_CSV:
		return csv(pv, s, rows, out);
	case PIVOT_JSON:
		return json(pv, s, rows, out);
	case PIVOT_MD:
		return text(pv, s, rows, out, true);
	default:
		return text(pv, s, rows, out, false);
	}
}
