/* Export: RFC 4180 CSV and JSON of a row set, FlameGraph collapsed stacks
 * of the tree.  The CSV columns are tables here and in docs/analyzer.md. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/query.h"
#include "analyzer/read.h"
#include "analyzer/set.h"

enum col {
	C_EVENT, C_FUNCTION, C_MODULE, C_FILE, C_LINE,
	C_SELF_SAMPLES, C_SELF_PCT, C_INCL_SAMPLES, C_INCL_PCT, C_SELF_VALUE, C_INCL_VALUE,
	C_RUN, C_INLINED_INTO, C_DEPTH,
	C_BASE, C_RUN_EVENT, C_BASE_SAMPLES, C_RUN_SAMPLES, C_BASE_PCT, C_RUN_PCT, C_MODE, C_RATIO,
	C_CI_LOW, C_CI_HIGH, C_SIGNIFICANT, C_SPREAD, C_PRESENCE,
	C_RUN_TRUST, C_BASE_TRUST, C_WITHHELD,
};

/* ANA_BASIS_* bits, lowest first, as JSON's trust "basis" names them. */
static const char *const basis_json[] = { "cpu", "user", "system" };

static const char *const col_name[] = {
	[C_EVENT] = "event", [C_FUNCTION] = "function", [C_MODULE] = "module", [C_FILE] = "file",
	[C_LINE] = "line", [C_SELF_SAMPLES] = "self_samples", [C_SELF_PCT] = "self_pct",
	[C_INCL_SAMPLES] = "incl_samples", [C_INCL_PCT] = "incl_pct",
	[C_SELF_VALUE] = "self_value", [C_INCL_VALUE] = "incl_value", [C_RUN] = "run",
	[C_INLINED_INTO] = "inlined_into", [C_DEPTH] = "depth", [C_BASE] = "base",
	[C_RUN_EVENT] = "run_event",
	[C_BASE_SAMPLES] = "base_samples", [C_RUN_SAMPLES] = "run_samples",
	[C_BASE_PCT] = "base_pct", [C_RUN_PCT] = "run_pct", [C_MODE] = "mode",
	[C_RATIO] = "ratio", [C_CI_LOW] = "ci_low", [C_CI_HIGH] = "ci_high",
	[C_SIGNIFICANT] = "significant", [C_SPREAD] = "spread", [C_PRESENCE] = "presence",
	[C_RUN_TRUST] = "run_trust", [C_BASE_TRUST] = "base_trust", [C_WITHHELD] = "withheld",
};

/* report --csv: one line per row, run and column (event or metric) */
static const enum col report_cols[] = {
	C_EVENT, C_FUNCTION, C_MODULE, C_FILE, C_LINE, C_SELF_SAMPLES, C_SELF_PCT,
	C_INCL_SAMPLES, C_INCL_PCT, C_SELF_VALUE, C_INCL_VALUE, C_RUN, C_INLINED_INTO, C_DEPTH,
	C_RUN_TRUST,
};
/* diff --csv: one line per row and non-base run, on the compared events
 * (event: the base's, run_event: the run's; they differ across sample
 * sources) */
static const enum col diff_cols[] = {
	C_EVENT, C_FUNCTION, C_MODULE, C_FILE, C_LINE, C_RUN, C_BASE, C_RUN_EVENT, C_BASE_SAMPLES,
	C_RUN_SAMPLES, C_BASE_PCT, C_RUN_PCT, C_MODE, C_RATIO, C_CI_LOW, C_CI_HIGH,
	C_SIGNIFICANT, C_SPREAD, C_PRESENCE, C_INLINED_INTO, C_RUN_TRUST, C_BASE_TRUST, C_WITHHELD,
};

static const char *const mode_name[] = {
	[ANA_RATIO_SHARE] = "share", [ANA_RATIO_RAW] = "raw", [ANA_RATIO_DELTA] = "delta",
};
static const char *const presence_name[] = {
	[ANA_IN_BOTH] = "both", [ANA_ONLY_BASE] = "base_only", [ANA_ONLY_RUN] = "run_only",
	[ANA_IN_NEITHER] = "neither",
};

static void csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")] && s[0] != ' ') {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

/* Numbers: integers exactly, others with enough digits; NAN is blank. */
static void num(FILE *f, double v, const char *fmt)
{
	if (isnan(v))
		return;
	if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0 && !strcmp(fmt, "%g"))
		fprintf(f, "%.0f", v);
	else
		fprintf(f, fmt, v);
}

struct cell {
	const struct ana_rows *r;
	const struct ana_set *s;
	size_t i, ev;
	unsigned run;
	const struct ana_cmp *cmp;
};

static void cell(FILE *f, enum col c, const struct cell *x)
{
	const struct ana_rows *r = x->r;
	const struct ana_row *row = ana_rows_row(r, x->i);
	const struct ana_query *q = rows_query(r);
	bool metric = x->ev >= x->s->n_ev;
	switch (c) {
	case C_EVENT:
		csv_str(f, ana_set_event(x->s, q->base >= 0 ? rows_event(r, (unsigned)q->base) : x->ev));
		break;
	case C_RUN_EVENT: csv_str(f, ana_set_event(x->s, x->ev)); break;
	case C_FUNCTION: if (q->view != ANA_VIEW_MODULES) csv_str(f, row->name); break;
	case C_MODULE: csv_str(f, row->module); break;
	case C_FILE: csv_str(f, row->file); break;
	case C_LINE: if (row->line) fprintf(f, "%u", row->line); break;
	case C_SELF_SAMPLES:
	case C_INCL_SAMPLES:
		if (!metric)
			fprintf(f, "%llu", (unsigned long long)ana_rows_samples(r, x->i, x->run, x->ev,
						c == C_SELF_SAMPLES ? ANA_SELF : ANA_INCL));
		break;
	case C_SELF_PCT:
	case C_INCL_PCT:
		num(f, ana_rows_pct(r, x->i, x->run, x->ev, c == C_SELF_PCT ? ANA_SELF : ANA_INCL), "%.4f");
		break;
	case C_SELF_VALUE:
	case C_INCL_VALUE:
		num(f, ana_rows_value(r, x->i, x->run, x->ev, c == C_SELF_VALUE ? ANA_SELF : ANA_INCL), "%g");
		break;
	case C_RUN: csv_str(f, ana_set_run(x->s, x->run)->label); break;
	case C_BASE: csv_str(f, ana_set_run(x->s, (unsigned)q->base)->label); break;
	case C_INLINED_INTO: csv_str(f, row->inlined_into); break;
	case C_DEPTH: if (row->depth) fprintf(f, "%u", row->depth); break;
	case C_BASE_SAMPLES:
	case C_RUN_SAMPLES:
		if (c == C_BASE_SAMPLES)
			fprintf(f, "%llu", (unsigned long long)ana_rows_samples(r, x->i, (unsigned)q->base,
						rows_event(r, (unsigned)q->base), q->kind));
		else
			fprintf(f, "%llu", (unsigned long long)ana_rows_samples(r, x->i, x->run, x->ev,
										q->kind));
		break;
	case C_BASE_PCT:
	case C_RUN_PCT:
		if (c == C_BASE_PCT)
			num(f, ana_rows_pct(r, x->i, (unsigned)q->base, rows_event(r, (unsigned)q->base),
					    q->kind), "%.4f");
		else
			num(f, ana_rows_pct(r, x->i, x->run, x->ev, q->kind), "%.4f");
		break;
	case C_MODE: fputs(mode_name[q->ratio], f); break;
	case C_RATIO: num(f, x->cmp->ratio, "%.6g"); break;
	case C_CI_LOW: num(f, x->cmp->lo, "%.6g"); break;
	case C_CI_HIGH: num(f, x->cmp->hi, "%.6g"); break;
	case C_SIGNIFICANT: fputs(x->cmp->significant ? "1" : "0", f); break;
	case C_SPREAD: num(f, x->cmp->spread, "%.6g"); break;
	case C_PRESENCE: fputs(presence_name[x->cmp->presence], f); break;
	case C_RUN_TRUST:
	case C_BASE_TRUST: {
		char t[128];
		unsigned run = c == C_BASE_TRUST ? (unsigned)q->base : x->run;
		csv_str(f, ana_trust_str(ana_set_run(x->s, run)->trust, t, sizeof(t)));
		break;
	}
	case C_WITHHELD: fputs(x->cmp->withheld ? "1" : "0", f); break;
	}
}

static void line_out(FILE *f, const enum col *cols, size_t n, const struct cell *x)
{
	for (size_t k = 0; k < n; k++) {
		if (k)
			putc(',', f);
		if (x)
			cell(f, cols[k], x);
		else
			fputs(col_name[cols[k]], f);
	}
	fputs("\r\n", f);	/* RFC 4180 line break */
}

int ana_rows_write_csv(const struct ana_rows *r, FILE *f)
{
	const struct ana_query *q = rows_query(r);
	const struct ana_set *s = rows_set(r);
	unsigned nr = ana_set_n_runs(s);
	size_t nc = ana_set_n_events(s);
	if (q->base >= 0) {
		size_t n = sizeof(diff_cols) / sizeof(*diff_cols);
		line_out(f, diff_cols, n, NULL);
		for (size_t i = 0; i < ana_rows_n(r); i++)
			for (unsigned run = 0; run < nr; run++) {
				struct ana_cmp cmp;
				if (run == (unsigned)q->base || ana_rows_compare(r, i, run, &cmp))
					continue;
				struct cell x = { r, s, i, rows_event(r, run), run, &cmp };
				line_out(f, diff_cols, n, &x);
			}
	} else {
		size_t n = sizeof(report_cols) / sizeof(*report_cols);
		line_out(f, report_cols, n, NULL);
		for (size_t i = 0; i < ana_rows_n(r); i++)
			for (unsigned run = 0; run < nr; run++)
				for (size_t ev = 0; ev < nc; ev++) {
					struct cell x = { r, s, i, ev, run, NULL };
					line_out(f, report_cols, n, &x);
				}
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			putc(*p, f);
	}
	putc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

static const char *const view_name[] = {
	[ANA_VIEW_FUNCS] = "functions", [ANA_VIEW_LINES] = "lines", [ANA_VIEW_MODULES] = "modules",
	[ANA_VIEW_CALLERS] = "callers", [ANA_VIEW_CALLEES] = "callees",
	[ANA_VIEW_TOPDOWN] = "top-down", [ANA_VIEW_BOTTOMUP] = "bottom-up",
};

static void json_str_list(FILE *f, const char *const *v, size_t n)
{
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_str(f, v[i]);
	}
	putc(']', f);
}

static bool is_tree(enum ana_view v)
{
	return v == ANA_VIEW_TOPDOWN || v == ANA_VIEW_BOTTOMUP;
}

/* docs/report-schema.json describes this output. */
int ana_rows_write_json(const struct ana_rows *r, FILE *f)
{
	const struct ana_query *q = rows_query(r);
	const struct ana_set *s = rows_set(r);
	unsigned nr = ana_set_n_runs(s);
	size_t nc = ana_set_n_events(s);
	/* tree rows come depth first: a row's parent is the last row one
	 * level up (ids are row indexes) */
	size_t *up = NULL, n_up = 0;
	fprintf(f, "{\"schema\":\"pmcprof-report/1\",\"view\":\"%s\",\"runs\":[",
		view_name[q->view]);
	for (unsigned run = 0; run < nr; run++) {
		fputs(run ? ",\n" : "\n", f);
		json_run_file(f, ana_set_run(s, run));
	}
	/* each run's trust flags and the figures behind them */
	fputs("],\"trust\":[", f);
	for (unsigned run = 0; run < nr; run++) {
		const struct ana_run *ru = ana_set_run(s, run);
		fputs(run ? ",{\"flags\":[" : "{\"flags\":[", f);
		bool first = true;
		for (unsigned b = 0; b < ANA_TRUST_N; b++)
			if (ru->trust & (1u << b)) {
				fputs(first ? "" : ",", f);
				json_str(f, ana_trust_name(1u << b));
				first = false;
			}
		fputs("],\"emulator\":", f);
		json_str(f, ru->emulator);
		fputs(",\"virtualization\":", f);
		json_str(f, ru->virtualization);
		fputs(",\"loss_scale\":", f);
		json_num(f, ru->loss_scale);
		fputs(",\"cpu_time\":", f);
		json_num(f, ru->cpu_time);
		fputs(",\"user_time\":", f);
		json_num(f, ru->user_time);
		fputs(",\"sampled_time\":", f);
		json_num(f, ru->sampled_time);
		fputs(",\"expected_time\":", f);
		json_num(f, ru->expected_time);
		fputs(",\"coverage\":", f);
		json_num(f, ru->coverage);
		fputs(",\"basis\":[", f);
		for (unsigned b = 0, n = 0; b < sizeof(basis_json) / sizeof(*basis_json); b++)
			if (ru->basis & (1u << b))
				fprintf(f, "%s\"%s\"", n++ ? "," : "", basis_json[b]);
		fputs("]", f);
		fprintf(f, ",\"threads_judged\":%u,\"threads_short\":%u,\"handler_time\":",
			ru->n_judged, ru->n_short);
		json_num(f, ru->handler_time);
		fputs(",\"steal_share\":", f);
		json_num(f, ru->steal_share);
		fputs("}", f);
	}
	fputs("],\"events\":[", f);
	for (size_t ev = 0; ev < nc; ev++) {
		fputs(ev ? "," : "", f);
		json_str(f, ana_set_event(s, ev));
	}
	fputs("],\"rows\":[", f);
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		long parent = -1;
		if (is_tree(q->view) && row->depth >= 1) {
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
		fprintf(f, "%s{\"id\":%zu,\"parent\":", i ? ",\n" : "\n", i);
		if (parent >= 0)
			fprintf(f, "%ld", parent);
		else
			fputs("null", f);
		fputs(",\"name\":", f);
		json_str(f, row->name);
		fputs(",\"module\":", f);
		json_str(f, row->module);
		fputs(",\"file\":", f);
		json_str(f, row->file);
		/* inlined: an inlined instance (trees) or a function that was
		 * inlined somewhere (inlined_into lists where) */
		fprintf(f, ",\"line\":%u,\"depth\":%u,\"node\":%u,\"inlined\":%s,\"inlined_into\":",
			row->line, row->depth, row->node,
			row->flags & ANA_ROW_INLINED || row->n_inlined_into ? "true" : "false");
		json_str_list(f, row->inlined_into_all, row->n_inlined_into);
		fputs(",\"values\":[", f);
		for (unsigned run = 0; run < nr; run++)
			for (size_t ev = 0; ev < nc; ev++) {
				fputs(run || ev ? "," : "", f);
				fprintf(f, "{\"run\":%u,\"event\":%zu", run, ev);
				if (ev < s->n_ev)
					fprintf(f, ",\"self_samples\":%llu,\"incl_samples\":%llu",
						(unsigned long long)ana_rows_samples(r, i, run, ev, ANA_SELF),
						(unsigned long long)ana_rows_samples(r, i, run, ev, ANA_INCL));
				fputs(",\"self_pct\":", f);
				json_num(f, ana_rows_pct(r, i, run, ev, ANA_SELF));
				fputs(",\"incl_pct\":", f);
				json_num(f, ana_rows_pct(r, i, run, ev, ANA_INCL));
				fputs(",\"self_value\":", f);
				json_num(f, ana_rows_value(r, i, run, ev, ANA_SELF));
				fputs(",\"incl_value\":", f);
				json_num(f, ana_rows_value(r, i, run, ev, ANA_INCL));
				fputs("}", f);
			}
		fputs("]", f);
		if (q->base >= 0) {
			fputs(",\"compare\":[", f);
			bool first = true;
			for (unsigned run = 0; run < nr; run++) {
				struct ana_cmp c;
				if (run == (unsigned)q->base || ana_rows_compare(r, i, run, &c))
					continue;
				fprintf(f, "%s{\"run\":%u,\"event\":%zu,\"base_event\":%zu,\"mode\":\"%s\","
					"\"ratio\":", first ? "" : ",", run, rows_event(r, run),
					rows_event(r, (unsigned)q->base), mode_name[q->ratio]);
				first = false;
				json_num(f, c.ratio);
				fputs(",\"ci_low\":", f);
				json_num(f, c.lo);
				fputs(",\"ci_high\":", f);
				json_num(f, c.hi);
				fprintf(f, ",\"significant\":%s,\"spread\":", c.significant ? "true" : "false");
				json_num(f, c.spread);
				fprintf(f, ",\"presence\":\"%s\",\"withheld\":%s}",
					presence_name[c.presence], c.withheld ? "true" : "false");
			}
			fputs("]", f);
		}
		fputs("}", f);
	}
	fputs("\n]}\n", f);
	free(up);
	fflush(f);
	return ferror(f) ? -EIO : 0;
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

int ana_set_write_collapsed(struct ana_set *s, unsigned run, size_t ev, FILE *f)
{
	if (!s->finished)
		return -ANA_ESTATE;
	if (run >= s->n_orun || ev >= s->n_ev)
		return -EINVAL;
	size_t cap = 65536;
	char *buf = malloc(cap);
	uint32_t *stack = malloc((s->n_sym + 1) * sizeof(*stack));
	size_t *len = malloc((s->n_sym + 1) * sizeof(*len));
	if (!buf || !stack || !len) {
		free(buf);
		free(stack);
		free(len);
		return -ENOMEM;
	}
	/* depth-first from the root; len[] is the path length at each level */
	size_t sp = 0;
	for (uint32_t c = s->sfirst[0]; c != NONE; c = s->snext[c]) {
		stack[sp] = c;
		len[sp++] = 0;
	}
	while (sp) {
		uint32_t x = stack[--sp];
		size_t at = put_frame(&buf, &cap, len[sp], s->func[s->sfunc[x]].name, s->sinl[x]);
		if (at == SIZE_MAX) {
			free(buf);
			free(stack);
			free(len);
			return -ENOMEM;
		}
		double v = 0;
		for (size_t p = 0; p < s->n_part; p++) {
			if (s->part[p].orun != run)
				continue;
			long b = agg_at(&s->a_sym, p, x);
			if (b < 0)
				continue;
			const double *w = agg_wt(&s->a_sym, p, b);
			v += w ? w[ev * 2] : (double)agg_cnt(&s->a_sym, p, b)[ev * 2];
		}
		if (v > 0)
			fprintf(f, "%.*s %.0f\n", (int)at, buf, v);
		for (uint32_t c = s->sfirst[x]; c != NONE; c = s->snext[c]) {
			stack[sp] = c;
			len[sp++] = at;
		}
	}
	free(buf);
	free(stack);
	free(len);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
