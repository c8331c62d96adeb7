/* `pmcprof diff --table`: the paper's kind of table (perfctr-xen, Tables
 * 3-5): one row per function, one column per run compared with the base,
 * each cell the ratio with its interval and flag; as text, Markdown, CSV
 * or JSON.  The rows are diff's (filters, sort, FDR control); this file
 * only lays them out. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/pivot.h"

/* JSON string (RFC 8259 escapes). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double x)
{
	if (isnan(x) || isinf(x))
		fputs("null", f);
	else
		fprintf(f, "%.6g", x);
}

/* RFC 4180: quoted when it holds a comma, quote or line break. */
static void csv_str(FILE *f, const char *s)
{
	s = s ? s : "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double x)
{
	if (!isnan(x) && !isinf(x))
		fprintf(f, "%.6g", x);
	else if (isinf(x))
		fputs(x > 0 ? "inf" : "-inf", f);
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
}

static int text(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out,
		bool md)
{
	unsigned nr = ana_set_n_runs(s);
	struct ana_col cols[64];
	static char buf[64][CELL_MAX];
	const char *cell[64];
	size_t nc = 0;

	cols[nc++] = tcol("Function", true, 1, 14, 24);
	cols[nc++] = tcol("Module", true, 2, 6, 12);
	char bt[80];
	snprintf(bt, sizeof(bt), "%s%%", label(s, pv->base));
	cols[nc++] = tcol(bt, false, 0, 0, 0);
	for (unsigned r = 0; r < nr && nc < 64; r++)
		if (r != pv->base)
			cols[nc++] = tcol(label(s, r), true, 0, 0, 0);
	if (!pv->no_header)
		notes(pv, s, rows, out, md ? "- " : "# ");
	if (md) {
		fputs(md && !pv->no_header ? "\n|" : "|", out);
		for (size_t j = 0; j < nc; j++)
			fprintf(out, " %s |", cols[j].title);
		fputs("\n|", out);
		for (size_t j = 0; j < nc; j++)
			fputs(cols[j].left ? ":---|" : "---:|", out);
		fputc('\n', out);
	}
	struct ana_table *t = md ? NULL : ana_table_new(cols, nc);
	if (!md && !t)
		return -ENOMEM;
	for (size_t i = 0; i < ana_rows_n(rows); i++) {
		const struct ana_row *row = ana_rows_row(rows, i);
		size_t k = 0;
		snprintf(buf[k++], CELL_MAX, "%s", row->name);
		snprintf(buf[k++], CELL_MAX, "%s", base_name(row->module));
		double bp = ana_rows_pct(rows, i, pv->base, pv->event_of(pv, s, pv->base), pv->kind);
		snprintf(buf[k++], CELL_MAX, isnan(bp) ? "" : "%.2f", bp);
		for (unsigned r = 0; r < nr && k < 64; r++) {
			struct ana_cmp c;
			if (r == pv->base)
				continue;
			if (ana_rows_compare(rows, i, r, &c)) {
				ana_table_free(t);
				return -EINVAL;
			}
			cell_text(buf[k++], CELL_MAX, &c, pv->ratio);
		}
		for (size_t j = 0; j < nc; j++)
			cell[j] = buf[j];
		if (md) {
			fputc('|', out);
			for (size_t j = 0; j < nc; j++) {
				fputc(' ', out);
				/* a '|' in a C++ name would end the cell */
				for (const char *p = cell[j]; *p; p++)
					fputs(*p == '|' ? "\\|" : (char[2]){ *p, 0 }, out);
				fputs(" |", out);
			}
			fputc('\n', out);
		} else if (ana_table_add(t, cell)) {
			ana_table_free(t);
			return -ENOMEM;
		}
	}
	if (t) {
		ana_table_write_text(t, out, pv->width);
		ana_table_free(t);
	}
	return 0;
}

static int csv(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	unsigned nr = ana_set_n_runs(s);

	fputs("function,module,base_pct", out);
	for (unsigned r = 0; r < nr; r++) {
		if (r == pv->base)
			continue;
		static const char *const sub[] = { "pct", "ratio", "ci_low", "ci_high", "significant",
						   "p", "from_repeats" };
		for (size_t k = 0; k < sizeof(sub) / sizeof(*sub); k++) {
			char h[300];
			snprintf(h, sizeof(h), "%s:%s", label(s, r), sub[k]);
			fputc(',', out);
			csv_str(out, h);
		}
	}
	fputc('\n', out);
	for (size_t i = 0; i < ana_rows_n(rows); i++) {
		const struct ana_row *row = ana_rows_row(rows, i);
		csv_str(out, row->name);
		fputc(',', out);
		csv_str(out, row->module);
		fputc(',', out);
		csv_num(out, ana_rows_pct(rows, i, pv->base, pv->event_of(pv, s, pv->base), pv->kind));
		for (unsigned r = 0; r < nr; r++) {
			struct ana_cmp c;
			if (r == pv->base)
				continue;
			if (ana_rows_compare(rows, i, r, &c))
				return -EINVAL;
			fputc(',', out);
			csv_num(out, ana_rows_pct(rows, i, r, pv->event_of(pv, s, r), pv->kind));
			fputc(',', out);
			csv_num(out, c.ratio);
			fputc(',', out);
			csv_num(out, c.lo);
			fputc(',', out);
			csv_num(out, c.hi);
			fprintf(out, ",%s,", c.significant ? "true" : "false");
			csv_num(out, c.p);
			fprintf(out, ",%s", c.from_repeats ? "true" : "false");
		}
		fputc('\n', out);
	}
	return 0;
}

static int json(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	unsigned nr = ana_set_n_runs(s);
	size_t m = 0;
	double fdr = ana_rows_fdr(rows, &m);
	char fl[128];

	fprintf(out, "{\"mode\":\"%s\",\"conf\":", pv->ratio == ANA_RATIO_DELTA ? "delta"
						   : pv->ratio == ANA_RATIO_RAW ? "raw" : "share");
	json_num(out, pv->conf > 0 ? pv->conf : 0.95);
	fputs(",\"fdr\":", out);
	json_num(out, fdr);
	fprintf(out, ",\"comparisons\":%zu,\"noise_floor\":", m);
	if (pv->noise[0])
		json_str(out, pv->noise);
	else
		fputs("null", out);
	fputs(",\"base\":", out);
	json_str(out, label(s, pv->base));
	fputs(",\"runs\":[", out);
	for (unsigned r = 0; r < nr; r++) {
		const struct ana_run *ru = ana_set_run(s, r);
		fprintf(out, "%s{\"label\":", r ? "," : "");
		json_str(out, ru->label);
		fprintf(out, ",\"repeats\":%u,\"virtualization\":", ru->n_repeats);
		if (ru->virtualization)
			json_str(out, ru->virtualization);
		else
			fputs("null", out);
		fputs(",\"trust\":", out);
		json_str(out, ana_trust_str(ru->trust, fl, sizeof(fl)));
		fputs(",\"loss_scale\":", out);
		json_num(out, ru->loss_scale);
		fputc('}', out);
	}
	fputs("],\"rows\":[", out);
	for (size_t i = 0; i < ana_rows_n(rows); i++) {
		const struct ana_row *row = ana_rows_row(rows, i);
		fprintf(out, "%s{\"function\":", i ? "," : "");
		json_str(out, row->name);
		fputs(",\"module\":", out);
		json_str(out, row->module);
		fputs(",\"base_pct\":", out);
		json_num(out, ana_rows_pct(rows, i, pv->base, pv->event_of(pv, s, pv->base), pv->kind));
		fputs(",\"cells\":[", out);
		bool first = true;
		for (unsigned r = 0; r < nr; r++) {
			struct ana_cmp c;
			if (r == pv->base)
				continue;
			if (ana_rows_compare(rows, i, r, &c))
				return -EINVAL;
			fprintf(out, "%s{\"run\":", first ? "" : ",");
			first = false;
			json_str(out, label(s, r));
			fputs(",\"pct\":", out);
			json_num(out, ana_rows_pct(rows, i, r, pv->event_of(pv, s, r), pv->kind));
			fputs(",\"ratio\":", out);
			json_num(out, c.ratio);
			fputs(",\"ci_low\":", out);
			json_num(out, c.lo);
			fputs(",\"ci_high\":", out);
			json_num(out, c.hi);
			fprintf(out, ",\"significant\":%s,\"p\":", c.significant ? "true" : "false");
			json_num(out, c.p);
			fprintf(out, ",\"from_repeats\":%s,\"uncorrected\":",
				c.from_repeats ? "true" : "false");
			json_num(out, c.uncorrected);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
	return 0;
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
