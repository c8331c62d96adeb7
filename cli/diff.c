/* pmcprof diff: per-function ratios of one or more runs against a base,
 * with confidence intervals from the sample counts. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/analyze.h"
#include "cli/pivot.h"

static const struct opt_cmd diff_cmd = {
	.prog = "pmcprof diff",
	.synopsis = "pmcprof diff [OPTIONS] BASE RUN [RUN...]",
	.description =
		"Compare runs with a base, function by function (matched by module name and\n"
		"function name).  BASE and each RUN are a profile file or directory, or\n"
		"several joined with ',' for repeats of one experiment (merged; their\n"
		"run-to-run spread is shown, and the intervals come from it where it is\n"
		"wider than the sample counts').\n",
	.footer =
		"A '*' marks rows whose change is significant with the false discovery rate\n"
		"controlled over the rows shown (--fdr).  Exit status: 0 ok, 1 usage\n"
		"error, 2 a file could not be read.  pmcprof-diff(1) and docs/analyzer.md\n"
		"have the formulas.\n",
};

struct opts {
	struct common c;
	struct ana_query q;
	const char **labels;
	size_t n_labels;
	const char *flame;		/* --flamegraph FILE */
	bool table, markdown, noise;	/* --table, --markdown, --noise-floor */
};

static const struct opt_name ratios[] = {
	{ "share", ANA_RATIO_SHARE }, { "raw", ANA_RATIO_RAW }, { "delta", ANA_RATIO_DELTA },
	{ NULL, 0 },
};
static const struct opt_name sorts[] = {
	{ "value", ANA_SORT_VALUE }, { "ratio", ANA_SORT_RATIO }, { "name", ANA_SORT_NAME },
	{ NULL, 0 },
};
static const struct opt_name spaces[] = {
	{ "user", ANA_SPACE_USER }, { "kernel", ANA_SPACE_KERNEL }, { NULL, 0 },
};

/* --fdr Q|off */
static int fdr(void *ctx, const char *v)
{
	struct opts *o = ctx;

	if (!strcmp(v, "off"))
		o->q.fdr = -1;
	else if (opts_double(v, 0, 1, &o->q.fdr) || o->q.fdr <= 0 || o->q.fdr >= 1)
		return usage_error(&o->c, "--fdr: expected a rate between 0 and 1 or off, got '%s'", v), -1;
	return 0;
}

/* The command line: the options' variables and their table. */
static struct opts args;
static const struct opt diff_opts[] = {
	OPT_SECTION("Ratio (default --ratio share):"),
	OPT_ENUM(0, "ratio", &args.q.ratio, ratios, "share|raw",
		 "share: (samples/total in RUN) / (samples/total in BASE);\n"
		 "raw: samples in RUN / samples in BASE, per repeat (periods must\n"
		 "match; refused between different events)", .expect = "share or raw"),
	OPT_SET_INT(0, "delta", &args.q.ratio, ANA_RATIO_DELTA,
		    "share in RUN - share in BASE, in percentage points"),
	OPT_DOUBLE(0, "conf", &args.q.conf, 0, 1, "C",
		   "confidence level of the intervals (default 0.95)", .open = true,
		   .expect = "a level between 0 and 1"),
	OPT_SECTION("Selection:"),
	OPT_STRING('e', "event", &args.c.event, "NAME|N",
		   "compare this event, or the N-th (default: the first);\n"
		   "a run without it is compared on its own event at\n"
		   "that place (a fallback's cpu-clock, a CPUTIME run)"),
	OPT_SET_INT(0, "incl", &args.q.kind, ANA_INCL, "compare inclusive samples (default: self)"),
	COMMON_INPUT_OPTS(&args.c),
	COMMON_FILTER_OPTS(&args.c),
	COMMON_TIME_OPTS(&args.c),
	COMMON_VIEW_OPTS(&args.c),
	OPT_UINT(0, "min-samples", &args.q.min_samples, 0, ~0ULL, "N",
		 "hide rows with fewer than N samples in every run"),
	OPT_DOUBLE(0, "min-pct", &args.q.min_pct_base, 0, 100, "N",
		   "only rows with at least N% of BASE's samples", .expect = "a percentage"),
	OPT_ENUM(0, "only", &args.q.space, spaces, "user|kernel",
		 "only user-space rows, or only kernel ([k]) rows"),
	OPT_CALLBACK(0, "fdr", required_argument, fdr, &args, "Q|off",
		     "'*' controls the false discovery rate at Q over\n"
		     "every row x run shown (Benjamini-Hochberg; default\n"
		     "1 - the --conf level); off: each interval alone"),
	OPT_ENUM(0, "sort", &args.q.sort, sorts, "value|ratio|name",
		 "largest share first (default), largest change\n"
		 "first (significant ones on top), or by name"),
	OPT_UINT(0, "top", &args.q.top, 0, ~0ULL, "N", "show the first N rows"),
	OPT_LIST(0, "label", &args.labels, &args.n_labels, "NAME",
		 "name BASE, then each RUN, in order (repeatable)"),
	OPT_BOOL(0, "weight", &args.c.o.weighted, "ratios of sample weights (count x period used)"),
	OPT_SECTION("Symbols:"),
	COMMON_SYMBOL_OPTS(&args.c),
	OPT_SECTION("Output:"),
	COMMON_FORMAT_OPTS(&args.c),
	OPT_STRING(0, "flamegraph", &args.flame, "FILE",
		   "write a differential flame graph of RUN against BASE\n"
		   "instead (FILE.svg, or FILE.html for a page): widths\n"
		   "from RUN, colours from the ratio of each calling\n"
		   "context's inclusive share, strong only where significant"),
	OPT_BOOL(0, "table", &args.table,
		 "one row per function, one column per RUN (the ratio,\n"
		 "its interval and flag): text, --markdown, --csv, --json"),
	OPT_BOOL(0, "markdown", &args.markdown, "--table as a Markdown table"),
	OPT_BOOL(0, "noise-floor", &args.noise,
		 "also compare BASE's repeats split in two (odd against\n"
		 "even): how many rows chance alone flags"),
	COMMON_TEXT_OPTS(&args.c),
	OPT_END,
};

static int parse(struct opts *o, int argc, char **argv, int *first)
{
	struct common *c = &o->c;

	*first = opts_parse(&diff_cmd, diff_opts, argc, argv);
	o->table |= o->markdown;
	if (o->flame && !*o->flame)
		return usage_error(c, "--flamegraph needs a file name");
	if (argc - *first < 2)
		return usage_error(c, "need a BASE and at least one RUN");
	if (o->flame && (argc - *first != 2 || c->out != OUT_TEXT || c->view != ANA_VIEW_FUNCS))
		return usage_error(c, "--flamegraph draws one RUN against BASE, and no other "
				   "output or view");
	return 0;
}

/* The event each run is compared on: q.event, or where a run did not
 * sample it, its own event at that place (ana_set_run_event). */
static size_t run_event(const struct opts *o, const struct ana_set *s, unsigned r)
{
	int e = ana_set_run_event(s, r, o->q.event);
	return e >= 0 ? (size_t)e : o->q.event;
}

/* "1st", "2nd", ... */
static const char *ordinal(size_t n, char *buf, size_t len)
{
	static const char *const sfx[] = { "th", "st", "nd", "rd" };
	snprintf(buf, len, "%zu%s", n, n % 100 / 10 == 1 || n % 10 > 3 ? "th" : sfx[n % 10]);
	return buf;
}

/* Runs compared on different events (another sample source): say which
 * event of each run is compared to out, and refuse raw counts across them
 * (out NULL: only that).  Returns EXIT_USAGE when refused. */
static int check_events(const struct opts *o, const struct ana_set *s, FILE *out)
{
	unsigned nr = ana_set_n_runs(s), base = (unsigned)o->q.base;
	bool differ = false;
	for (unsigned r = 0; r < nr; r++) {
		differ |= run_event(o, s, r) != run_event(o, s, base);
		if (out && ana_set_run_event(s, r, o->q.event) < 0)
			fprintf(out, "%swarning: %s has no event that corresponds to %s: its rows "
				"show as gone\n", out == stderr ? "pmcprof diff: " : "# ",
				ana_set_run(s, r)->label, ana_set_event(s, o->q.event));
	}
	if (!differ)
		return 0;
	/* the place: q.event among the sampled events of the first run with it */
	size_t k = 0;
	for (unsigned r = 0; r < nr; r++)
		if (ana_set_run(s, r)->events[o->q.event].samples) {
			for (size_t e = 0; e < o->q.event; e++)
				k += ana_set_run(s, r)->events[e].samples != 0;
			break;
		}
	char ord[16], line[2048];
	size_t n = (size_t)snprintf(line, sizeof(line), "the runs are compared on different events "
				    "(each run's %s sampled event):", ordinal(k + 1, ord, sizeof(ord)));
	for (unsigned r = 0; r < nr && n < sizeof(line); r++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s in %s", r ? "," : "",
				      ana_set_event(s, run_event(o, s, r)), ana_set_run(s, r)->label);
	if (o->q.ratio == ANA_RATIO_RAW) {
		fprintf(stderr, "%s: %s; raw counts of different events do not compare: use --ratio "
			"share (the default) or --delta\n", o->c.prog, line);
		return EXIT_USAGE;
	}
	if (out)
		fprintf(out, "%swarning: %s; shares compare across sample sources, raw counts do not\n",
		out == stderr ? "pmcprof diff: " : "# ", line);
	return 0;
}

/* Periods that differ make raw counts incomparable: say so. */
static void check_raw(const struct opts *o, const struct ana_set *s)
{
	if (o->q.ratio != ANA_RATIO_RAW)
		return;
	const struct ana_run *b = ana_set_run(s, (unsigned)o->q.base);
	for (unsigned r = 1; r < ana_set_n_runs(s); r++) {
		const struct ana_event_fact *x = &b->events[run_event(o, s, (unsigned)o->q.base)];
		const struct ana_event_fact *y = &ana_set_run(s, r)->events[run_event(o, s, r)];
		if (x->period != y->period || x->freq != y->freq || x->mixed || y->mixed)
			fprintf(stderr, "%s: warning: --ratio raw with different sampling periods "
				"(%s vs %s): raw counts are not comparable; use --ratio share or --weight\n",
				o->c.prog, b->label, ana_set_run(s, r)->label);
	}
}

static void ratio_cell(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio m)
{
	if (c->presence == ANA_ONLY_RUN && m != ANA_RATIO_DELTA)
		snprintf(buf, len, "new");
	else if (c->presence == ANA_ONLY_BASE && m != ANA_RATIO_DELTA)
		snprintf(buf, len, "gone");
	else if (isnan(c->ratio))
		buf[0] = 0;
	else
		ana_fmt_ratio(buf, len, c->ratio, m);
}


/* Rows whose significance was withheld (lines against an emulated run). */
static size_t withheld;

/* A run's `kernel` metadata (its release), or "". */
static const char *kernel_of(const struct ana_set *s, unsigned r)
{
	const struct ana_run *ar = ana_set_run(s, r);
	for (size_t k = 0; k < ar->n_meta; k++)
		if (!strcmp(ar->meta[k].key, "kernel"))
			return ar->meta[k].value;
	return "";
}

/* Row i is a kernel function of one side only, the sides having run
 * different kernels (native against a guest): a function one kernel has
 * and the other does not (or inlines) is no change of the program's. */
static bool own_kernel_row(const struct ana_set *s, struct ana_rows *rows, size_t i, unsigned base)
{
	const struct ana_row *row = ana_rows_row(rows, i);
	if (!row->module || strcmp(row->module, "[kernel.kallsyms]"))
		return false;
	bool one_side = false;
	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		struct ana_cmp cmp;
		if (r == base || ana_rows_compare(rows, i, r, &cmp))
			continue;
		if (!strcmp(kernel_of(s, r), kernel_of(s, base)))
			return false;
		one_side |= cmp.presence != ANA_IN_BOTH;
	}
	return one_side;
}

/* The table's columns: names, the base's share, per other run its share,
 * ratio (or delta), interval, flag and (with repeats) spread. */
static size_t table_cols(const struct opts *o, const struct ana_set *s, bool spread,
			 struct ana_col *cols, char (*titles)[48])
{
	enum ana_view v = o->c.view;
	unsigned nr = ana_set_n_runs(s);
	size_t nc = 0;

	cols[nc++] = text_col(v == ANA_VIEW_MODULES ? "Module" : "Function", true, 1, 14, 24);
	if (v != ANA_VIEW_MODULES)
		cols[nc++] = text_col(v == ANA_VIEW_LINES ? "Line" : "Module", true, 2, 6, 12);
	cols[nc++] = model_col(ANA_COL_BASE_PCT);
	for (unsigned r = 0; r < nr && nc + 5 < 128; r++) {
		if (r == (unsigned)o->q.base)
			continue;
		if (nr == 2)
			snprintf(titles[nc], 48, "Run%%");
		else
			snprintf(titles[nc], 48, "R%u%%", r);
		cols[nc] = text_col(titles[nc], false, 0, 0, 0);
		nc++;
		cols[nc++] = text_col(o->q.ratio == ANA_RATIO_DELTA ? "Delta" : "Ratio", false, 0, 0, 0);
		snprintf(titles[nc], 48, "%g%% CI", 100 * (o->q.conf > 0 ? o->q.conf : 0.95));
		cols[nc] = text_col(titles[nc], true, 0, 0, 0);
		nc++;
		cols[nc++] = text_col("", true, 0, 0, 0);
		if (spread)
			cols[nc++] = text_col("Spread", false, 0, 0, 0);
	}
	return nc;
}

/* Run r's cells of row i into buf[k...] (own: a kernel row of one side,
 * see own_kernel_row); the next free one. */
static size_t run_cells(const struct opts *o, const struct ana_set *s, struct ana_rows *rows,
			size_t i, unsigned r, const struct ana_cmp *cmp, bool own, bool spread,
			char (*buf)[CELL_MAX], size_t k)
{
	double rp = ana_rows_pct(rows, i, r, run_event(o, s, r), o->q.kind);

	snprintf(buf[k++], CELL_MAX, isnan(rp) ? "" : "%.2f", rp);
	if (own && cmp->presence != ANA_IN_BOTH) {
		snprintf(buf[k++], CELL_MAX, "%s kernel",
			 cmp->presence == ANA_ONLY_RUN ? "run's" : "base's");
		buf[k++][0] = 0;
		buf[k++][0] = 0;
	} else {
		ratio_cell(buf[k++], CELL_MAX, cmp, o->q.ratio);
		ana_fmt_interval(buf[k++], CELL_MAX, cmp, o->q.ratio);
		snprintf(buf[k++], CELL_MAX, "%s", cmp->significant ? "*" : cmp->withheld ? "?" : "");
	}
	withheld += cmp->withheld;
	if (spread)
		snprintf(buf[k++], CELL_MAX, isnan(cmp->spread) ? "" : "%.1f%%", 100 * cmp->spread);
	return k;
}

/* Row i's cells into buf: 0, or -EINVAL when a comparison cannot be had. */
static int row_cells(const struct opts *o, const struct ana_set *s, struct ana_rows *rows,
		     size_t i, bool own, bool spread, char (*buf)[CELL_MAX])
{
	const struct ana_row *row = ana_rows_row(rows, i);
	enum ana_view v = o->c.view;
	unsigned nr = ana_set_n_runs(s), base = (unsigned)o->q.base;
	size_t k = 0;

	if (v == ANA_VIEW_FUNCS)
		fmt_name(buf[k++], CELL_MAX, row, 0, false);
	else
		snprintf(buf[k++], CELL_MAX, "%s", row->name);
	if (v == ANA_VIEW_LINES)
		fmt_source(buf[k++], CELL_MAX, row);
	else if (v != ANA_VIEW_MODULES)
		snprintf(buf[k++], CELL_MAX, "%s", base_name(row->module));
	double bp = ana_rows_pct(rows, i, base, run_event(o, s, base), o->q.kind);
	snprintf(buf[k++], CELL_MAX, isnan(bp) ? "" : "%.2f", bp);
	for (unsigned r = 0; r < nr && k + 5 < 128; r++) {
		struct ana_cmp cmp;
		if (r == base)
			continue;
		if (ana_rows_compare(rows, i, r, &cmp))
			return -EINVAL;
		k = run_cells(o, s, rows, i, r, &cmp, own, spread, buf, k);
	}
	return 0;
}

static int print_table(const struct opts *o, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	static char buf[128][CELL_MAX];	/* whole names: piped output is never cut */
	static char titles[128][48];
	const char *cell[128];
	struct ana_col cols[128];
	unsigned base = (unsigned)o->q.base;
	bool spread = false;

	for (unsigned r = 0; r < ana_set_n_runs(s); r++)
		spread |= ana_set_run(s, r)->n_repeats > 1;
	size_t nc = table_cols(o, s, spread, cols, titles);
	struct ana_table *t = ana_table_new(cols, nc);
	int e = t ? 0 : -ENOMEM;
	for (size_t j = 0; j < nc; j++)
		cell[j] = buf[j];
	/* kernel rows of one side when the runs ran different kernels: that
	 * side's kernel, not a change; after the rows that compare */
	for (int pass = 0; pass < 2 && !e; pass++)
		for (size_t i = 0; i < ana_rows_n(rows) && !e; i++) {
			bool own = own_kernel_row(s, rows, i, base);
			if (own != (pass == 1))
				continue;
			e = row_cells(o, s, rows, i, own, spread, buf);
			if (!e)
				e = ana_table_add(t, cell);
		}
	if (!e)
		e = ana_table_write_text(t, out, out_width(&o->c));
	ana_table_free(t);
	return e;
}

/* What the intervals cover and what '*' controls. */
static void footer(const struct opts *o, const struct ana_set *s, const struct ana_rows *rows,
		   const char *noise, FILE *out)
{
	double conf = o->q.conf > 0 ? o->q.conf : 0.95;
	size_t m = 0;
	double fdr = ana_rows_fdr(rows, &m);
	bool reps = true;
	for (unsigned r = 0; r < ana_set_n_runs(s); r++)
		reps &= ana_set_run(s, r)->n_repeats > 1;
	if (fdr > 0)
		fprintf(out, "# *: significant at FDR %g%% over %zu comparisons (Benjamini-Hochberg)\n",
			100 * fdr, m);
	else
		fprintf(out, "# *: the %g%% interval excludes %s; %zu rows: ~%.1f marked by chance "
			"if alike\n", 100 * conf, o->q.ratio == ANA_RATIO_DELTA ? "0" : "1",
			ana_rows_n(rows),
			(1 - conf) * (double)ana_rows_n(rows) * (ana_set_n_runs(s) - 1));
	fprintf(out, "# %g%% intervals: %s\n", 100 * conf, reps
		? "the wider of the repeats' spread (t) and the counts'"
		: "sample counts only; run-to-run variance not covered");
	if (o->q.ratio == ANA_RATIO_RAW)
		for (unsigned r = 0; r < ana_set_n_runs(s); r++)
			if (ana_set_run(s, r)->loss_scale != 1)
				fprintf(out, "# raw: %.40s's counts x %.3f for samples it lost\n",
					ana_set_run(s, r)->label, ana_set_run(s, r)->loss_scale);
	if (noise[0])
		fprintf(out, "# noise floor: %s\n", noise);
}

/* --flamegraph: the calling-context tree of RUN, compared node by node. */
static int flame(const struct opts *o, struct ana_set *s)
{
	const struct common *c = &o->c;
	struct ana_query q = o->q;
	q.view = ANA_VIEW_TOPDOWN;
	q.node = ANA_ROOT;
	q.kind = ANA_INCL;
	q.sort = ANA_SORT_NAME;
	q.max_depth = UINT_MAX;
	q.top = 0;
	struct ana_rows *rows = ana_set_query(s, &q);
	if (!rows) {
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(errno));
		return EXIT_RUNTIME;
	}
	size_t n = strlen(o->flame);
	ANA_FLAME_OPTS(fo, .run = 1, .html = (n >= 5 && !strcasecmp(o->flame + n - 5, ".html")) ||
					  (n >= 4 && !strcasecmp(o->flame + n - 4, ".htm")));
	FILE *f = strcmp(o->flame, "-") ? fopen(o->flame, "w") : stdout;
	int e = f ? ana_rows_write_flame(rows, &fo, f) : -errno;
	if (f && f != stdout && fclose(f) && !e)
		e = -errno;
	ana_rows_free(rows);
	if (e) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, o->flame, ana_strerror(e));
		if (f && f != stdout)
			remove(o->flame);
		return EXIT_RUNTIME;
	}
	if (!c->quiet && f != stdout)
		fprintf(stderr, "%s: wrote %s\n", c->prog, o->flame);
	return ana_set_n_errors(s) ? EXIT_RUNTIME : EXIT_OK;
}

/* --noise-floor: BASE's repeats split in two, odd against even, through
 * the same query: how many rows chance alone flags, and how far their
 * ratios stray.  One line into buf ("" and false when it cannot be had). */
static bool noise_floor(const struct opts *op, const char *base, char *buf, size_t len)
{
	const char *who = op->n_labels ? op->labels[0] : "BASE";
	char *list = strdup(base), *save;
	size_t n = 0;
	struct ana_set *s = list ? ana_set_new(&op->c.o) : NULL;

	buf[0] = 0;
	if (!s) {
		free(list);
		return false;
	}
	for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save), n++)
		ana_set_add(s, (unsigned)(n % 2), (unsigned)(n / 2), p);
	free(list);
	if (n < 2 || ana_set_finish(s) || ana_set_n_runs(s) != 2) {
		snprintf(buf, len, "not measured: it needs BASE with 2 or more repeats, in two halves");
		ana_set_free(s);
		return false;
	}
	struct ana_query q = op->q;
	q.base = 0;
	q.top = 0;
	struct ana_rows *rows = ana_set_query(s, &q);
	size_t flagged = 0, m = 0, alone = 0;
	double dev[4096], worst = 0;
	for (size_t i = 0; rows && i < ana_rows_n(rows); i++) {
		struct ana_cmp c;
		if (ana_rows_compare(rows, i, 1, &c) || c.presence == ANA_IN_NEITHER)
			continue;
		flagged += c.significant;
		/* a row in one half only has no finite change: counted apart */
		if (op->q.ratio != ANA_RATIO_DELTA && c.presence != ANA_IN_BOTH) {
			alone++;
			continue;
		}
		double d = op->q.ratio == ANA_RATIO_DELTA ? fabs(c.ratio) : fabs(c.ratio - 1) * 100;
		if (m < sizeof(dev) / sizeof(*dev))
			dev[m++] = d;
		if (d > worst)
			worst = d;
	}
	/* the median deviation, by selection sort of a small array */
	for (size_t i = 0; i < m; i++)
		for (size_t j = i + 1; j < m; j++)
			if (dev[j] < dev[i]) {
				double t = dev[i];
				dev[i] = dev[j];
				dev[j] = t;
			}
	size_t mm = 0;
	double fdr = rows ? ana_rows_fdr(rows, &mm) : 0;
	const char *unit = op->q.ratio == ANA_RATIO_DELTA ? " points" : "%";
	char one[64] = "";
	if (alone)
		snprintf(one, sizeof(one), "; %zu row%s in one half only", alone, alone == 1 ? "" : "s");
	snprintf(buf, len, "%s's %zu repeats, odd against even: %zu of %zu rows flagged%s%g%s; "
		 "median change %.1f%s, largest %.1f%s%s", who, n, flagged, m + alone,
		 fdr > 0 ? " at FDR " : "", fdr > 0 ? 100 * fdr : 0, fdr > 0 ? "%" : "",
		 m ? (m % 2 ? dev[m / 2] : (dev[m / 2 - 1] + dev[m / 2]) / 2) : 0, unit, worst, unit,
		 one);
	ana_rows_free(rows);
	ana_set_free(s);
	return true;
}

static size_t pivot_event(const struct pivot *pv, const struct ana_set *s, unsigned r)
{
	return run_event(pv->ctx, s, r);
}

/* --table: the rows laid out by pivot.c. */
static int print_pivot(const struct opts *op, struct ana_set *s, struct ana_rows *rows,
		       const char *noise, FILE *out)
{
	const struct common *c = &op->c;
	struct pivot pv = {
		.fmt = op->markdown ? PIVOT_MD : c->out == OUT_CSV ? PIVOT_CSV
		       : c->out == OUT_JSON ? PIVOT_JSON : PIVOT_TEXT,
		.base = 0, .ratio = op->q.ratio, .kind = op->q.kind, .conf = op->q.conf,
		.width = out_width(c), .no_header = c->no_header, .event_of = pivot_event,
		.ctx = op, .time_spec = ana_facts_slice(ana_set_facts(s, 0)),
	};
	snprintf(pv.noise, sizeof(pv.noise), "%s", noise);
	print_notes(c, s, NULL);
	check_events(op, s, stderr);
	int e = pivot_print(&pv, s, rows, out);
	fflush(out);
	return !e && ferror(out) ? -EIO : e;
}

/* The text comparison: the header lines, the table, what its marks mean. */
static int print_text(const struct opts *op, struct ana_set *s, struct ana_rows *rows,
		      const char *noise, FILE *out)
{
	const struct common *c = &op->c;
	unsigned nr = ana_set_n_runs(s);

	if (c->no_header)
		print_notes(c, s, NULL);
	else if (c->header)
		print_notes(c, s, out);
	else
		print_errors(c, s);
	check_events(op, s, c->no_header ? stderr : out);
	for (unsigned r = 0; r < nr && !c->no_header; r++) {
		char role[32];
		snprintf(role, sizeof(role), r == 0 ? "base" : nr == 2 ? "run" : "R%u", r);
		if (c->header)
			print_run_header(c, s, r, role, out);
		else
			print_group_line(c, s, r, role, out);
	}
	/* the slice, each run's own (its span, its start), as report says it */
	if (!c->no_header)
		print_time_line(s, out);
	if (!c->no_header && !c->header)
		print_warning_line(c, s, out);
	int e = print_table(op, s, rows, out);
	if (!c->no_header && withheld)
		fprintf(out, "# ?: the interval excludes 1, but not marked significant: lines "
			"against a run under an emulator, whose per-line attribution is "
			"unreliable (%zu rows)\n", withheld);
	if (!c->no_header)
		footer(op, s, rows, noise, out);
	fflush(out);
	return ferror(out) ? -EIO : e;
}

/* The compared rows as a --table, CSV, JSON or text (base_arg: BASE as
 * given, for --noise-floor).  An exit status. */
static int print_results(struct opts *op, struct ana_set *s, const char *base_arg)
{
	const struct common *c = &op->c;
	struct ana_rows *rows = ana_set_query(s, &op->q);
	FILE *out = stdout;
	char noise[512] = "";
	int e;

	if (!rows) {
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(errno));
		return EXIT_RUNTIME;
	}
	if (op->noise && !noise_floor(op, base_arg, noise, sizeof(noise)))
		fprintf(stderr, "%s: noise floor %s\n", c->prog, noise);
	if (op->table) {
		e = print_pivot(op, s, rows, noise, out);
	} else if (c->out == OUT_CSV || c->out == OUT_JSON) {
		print_notes(c, s, NULL);
		check_events(op, s, stderr);
		e = c->out == OUT_CSV ? ana_rows_write_csv(rows, out) : ana_rows_write_json(rows, out);
	} else {
		e = print_text(op, s, rows, noise, out);
	}
	ana_rows_free(rows);
	if (e)
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
	return e || ana_set_n_errors(s) ? EXIT_RUNTIME : EXIT_OK;
}


/* Each operand one run ("A,B": its repeats), named by --label or itself:
 * 0, or -1 (s freed). */
static int add_runs(struct opts *op, struct ana_set *s, int argc, char **argv, int first)
{
	for (int a = first; a < argc; a++) {
		unsigned run = (unsigned)(a - first), rep = 0;
		char *list = strdup(argv[a]), *save;
		if (!list) {
			ana_set_free(s);
			return -1;
		}
		for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save), rep++)
			if (common_add(&op->c, s, run, rep, p)) {
				free(list);
				return -1;
			}
		free(list);
		ana_set_label(s, run, (size_t)run < op->n_labels ? op->labels[run] : argv[a]);
	}
	return 0;
}

/* The options read and the runs loaded as they say: the set, or NULL with
 * the exit status in *rc (said). */
static struct ana_set *prepare(int argc, char **argv, int *first, int *rc)
{
	struct opts *op = &args;
	struct common *c = &op->c;
	struct ana_set *s;

	op->q = (struct ana_query){ .sz = sizeof(op->q), .base = 0 };
	*rc = EXIT_USAGE;
	if (parse(op, argc, argv, first))
		return NULL;
	*rc = EXIT_RUNTIME;
	if (!(s = common_set(c)) || add_runs(op, s, argc, argv, *first))
		return NULL;
	/* every run must have samples: a run with no readable profile at all
	 * leaves nothing to compare */
	if (common_finish(c, s, (unsigned)(argc - *first), "a run has no samples: nothing to compare") ||
	    common_time_check(c, s))
		return NULL;
	int col = common_event_column(c, s, "diff compares events, not metrics");
	*rc = EXIT_USAGE;
	if (col < 0)
		return NULL;
	op->q.event = (size_t)col;
	op->q.view = c->view;
	if (check_events(op, s, NULL)) {
		ana_set_free(s);
		return NULL;
	}
	check_raw(op, s);
	return s;
}

/* --flamegraph: the differential flame graph instead of the table. */
static int flame_only(struct opts *op, struct ana_set *s)
{
	int rc;

	print_notes(&op->c, s, NULL);
	check_events(op, s, stderr);
	rc = flame(op, s);
	ana_set_free(s);
	return rc;
}

static int run(struct ana_set *s, int argc, char **argv, int first)
{
	struct opts *op = &args;
	int rc;

	if (op->flame)
		return flame_only(op, s);
	rc = print_results(op, s, argv[first]);
	ana_set_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	const struct command cmd = {
		.prog = "pmcprof diff", .c = &args.c, .prepare = prepare, .run = run,
	};

	int rc = command_main(&cmd, argc, argv);

	free(args.labels);
	return rc;
}
