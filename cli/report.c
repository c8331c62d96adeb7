/* pmcprof report: what a run spent its samples on, per function, line,
 * module or calling context, as text, CSV, JSON or collapsed stacks; or
 * into files other tools read: a flame graph, pprof, speedscope. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyzer/ana/json.h"
#include "cli/analyze.h"

static const struct opt_cmd report_cmd = {
	.prog = "pmcprof report",
	.synopsis = "pmcprof report [OPTIONS] PROFILE|DIR...",
	.description =
		"Merge the profiles (files, or directories searched for *.pmcp) and show\n"
		"where the samples went.  Values are sample counts unless --weight.\n",
	.footer = "Exit status: 0 ok, 1 usage error, 2 a file could not be read or no samples.\n"
		  "pmcprof-report(1) and docs/analyzer.md describe the columns and statistics.\n",
};

struct opts {
	struct common c;
	struct ana_query q;
	bool tree, bottom_up, min_pct_given, no_children;
	bool stdio;			/* --stdio, -n: perf's habits, the default here */
	size_t top;			/* --top: per --by group when split */
	const char *line_func;		/* --function */
	unsigned depth;
	const char *flame, *pprof, *speedscope;	/* files to write instead of a report */
	const char *trace;
	/* --sort with perf's keys: the columns in the keys' order */
	enum ana_split key_thread;	/* comm, pid or tid: one table over the threads */
	bool key_rows;			/* sym, dso or srcline among the keys */
	bool dso_first;			/* dso before sym: the Module column first */
};

/* --sort KEY[,KEY...]: ours (self, incl, name) or perf's (overhead, sym,
 * dso, srcline, comm, pid, tid): perf's keys are the rows' identity (dso
 * alone: modules; srcline: lines; comm, pid, tid: the threads, split as
 * --by does and shown as one table with a column for them). */
static int sort_keys(void *ctx, const char *list)
{
	struct opts *o = ctx;
	static const char *const keys[] = { "self", "incl", "name", "overhead", "sym", "symbol",
					     "dso", "srcline", "comm", "pid", "tid" };
	static const struct { const char *key; enum ana_split split; } threads[] = {
		{ "comm", ANA_SPLIT_COMM }, { "pid", ANA_SPLIT_PROCESS }, { "tid", ANA_SPLIT_THREAD },
	};
	char buf[256], *save;
	bool dso = false, sym = false, srcline = false;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		size_t t;
		for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			if (!strcmp(k, threads[t].key))
				break;
		if (t < sizeof(threads) / sizeof(threads[0])) {
			if (o->key_thread && o->key_thread != threads[t].split)
				return usage_error(&o->c, "--sort: one of comm, pid and tid at a time"), -1;
			o->key_thread = threads[t].split;
		} else if (!strcmp(k, "self") || !strcmp(k, "overhead")) {
			o->q.kind = ANA_SELF;
		} else if (!strcmp(k, "incl")) {
			o->q.kind = ANA_INCL;
		} else if (!strcmp(k, "name")) {
			o->q.sort = ANA_SORT_NAME;
		} else if (!strcmp(k, "sym") || !strcmp(k, "symbol")) {
			sym = true;
		} else if (!strcmp(k, "dso")) {
			dso = true;
			o->dso_first |= !sym;
		} else if (!strcmp(k, "srcline")) {
			srcline = true;
		} else {
			const char *s = opts_suggest(k, keys, sizeof(keys) / sizeof(keys[0]));
			return usage_error(&o->c, "--sort: expected self, incl, name, overhead, sym, dso, "
					   "srcline, comm, pid or tid, got '%s'%s%s%s", k,
					   s ? "; did you mean '" : "", s ? s : "", s ? "'?" : ""), -1;
		}
	}
	o->dso_first &= sym || srcline;
	o->key_rows = dso || sym || srcline;
	if (srcline)
		o->c.view = ANA_VIEW_LINES;
	else if (dso && !sym)
		o->c.view = ANA_VIEW_MODULES;
	return 0;
}

/* perf's -g / --call-graph: the tokens of its comma list that mean
 * something here (print type, threshold, order); the rest is refused. */
static int call_graph(void *ctx, const char *list)
{
	struct opts *o = ctx;
	char buf[256], *save, *end;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		double pct = strtod(k, &end);
		if (!strcmp(k, "caller") || !strcmp(k, "graph") || !strcmp(k, "fractal")) {
			o->tree = true;
		} else if (!strcmp(k, "callee")) {
			o->tree = o->bottom_up = true;
		} else if (!strcmp(k, "folded")) {
			o->c.out = OUT_COLLAPSED;
		} else if (!strcmp(k, "none")) {
			o->tree = o->bottom_up = false;
		} else if (!strcmp(k, "function") || !strcmp(k, "percent")) {
			;	/* perf's defaults: what rows are and show */
		} else if (end != k && !*end && pct >= 0 && pct <= 100) {
			o->q.min_pct = pct;
		} else {
			return usage_error(&o->c, "-g: expected caller, callee, graph, fractal, folded, "
					   "none or a threshold in %%, got '%s'", k), -1;
		}
	}
	return 0;
}

/* --callers FUNC, --callees FUNC: a view of FUNC. */
static int callers(void *ctx, const char *func)
{
	struct common *c = ctx;

	c->view = ANA_VIEW_CALLERS;
	c->func = func;
	return 0;
}

static int callees(void *ctx, const char *func)
{
	struct common *c = ctx;

	c->view = ANA_VIEW_CALLEES;
	c->func = func;
	return 0;
}

/* --tree[=top-down|bottom-up] */
static int tree(void *ctx, const char *v)
{
	struct opts *o = ctx;

	if (v && strcmp(v, "top-down") && strcmp(v, "bottom-up"))
		return usage_error(&o->c, "--tree: expected top-down or bottom-up, got '%s'", v), -1;
	o->tree = true;
	o->bottom_up = v && !strcmp(v, "bottom-up");
	return 0;
}

/* The command line: the options' variables and their table. */
static struct opts args;
static const struct opt report_opts[] = {
	OPT_SECTION("Input:"),
	COMMON_INPUT_PATHS(&args.c),
	COMMON_INPUT_OPTS(&args.c),
	OPT_SECTION("Filters (perf's):"),
	COMMON_FILTER_OPTS(&args.c),
	OPT_SECTION("Views (default: flat per function):"),
	COMMON_VIEW_OPTS(&args.c),
	OPT_STRING(0, "function", &args.line_func, "FUNC",
		   "with --lines: only FUNC's lines (FUNC or MODULE:FUNC)"),
	OPT_CALLBACK(0, "callers", required_argument, callers, &args.c, "FUNC",
		     "functions calling FUNC (FUNC or MODULE:FUNC)"),
	OPT_CALLBACK(0, "callees", required_argument, callees, &args.c, "FUNC",
		     "functions FUNC calls"),
	OPT_CALLBACK(0, "tree", optional_argument, tree, &args, "top-down|bottom-up",
		     "calling-context tree (bottom-up: each function's\n"
		     "own samples, then the callers they came through)"),
	OPT_UINT(0, "depth", &args.depth, 0, 100000, "N", "tree levels to show (default: all)"),
	OPT_CALLBACK('g', "call-graph", required_argument, call_graph, &args, "caller|callee[,...]",
		     "perf's -g: caller (--tree), callee (--tree=bottom-up),\n"
		     "graph/fractal (a tree), folded (--collapsed), none\n"
		     "(flat), a number (--min-pct)"),
	OPT_SECTION("Selection:"),
	COMMON_EVENT_OPTS(&args.c),
	OPT_CALLBACK(0, "sort", required_argument, sort_keys, &args, "KEY[,KEY...]",
		     "self, incl or name: the order (default: self;\n"
		     "top-down tree: incl; bottom-up tree: self); perf's\n"
		     "keys, the rows' identity, columns in their order:\n"
		     "overhead (self), sym, dso (alone: --modules),\n"
		     "srcline (--lines), comm, pid, tid (one table over\n"
		     "the threads: dso,sym  comm,sym  pid,dso ...)"),
	OPT_UINT(0, "top", &args.top, 0, 1000000000, "N",
		 "show the first N rows (trees: N children per node)"),
	OPT_DOUBLE(0, "min-pct", &args.q.min_pct, 0, 100, "P",
		   "hide rows under P% of the total (trees: default 0.5)"),
	OPT_DOUBLE(0, "percent-limit", &args.q.min_pct, 0, 100, "P", "the same, perf's spelling"),
	COMMON_TIME_OPTS(&args.c),
	OPT_BOOL(0, "no-children", &args.no_children,
		 "no inclusive (children) percentage column"),
	OPT_BOOL(0, "show-nr-samples", &args.stdio,
		 "(-n) sample counts: always shown, the Self column"),
	OPT_BOOL('n', NULL, &args.stdio, NULL),
	COMMON_SPLIT_OPTS(&args.c),
	COMMON_WEIGHT_OPTS(&args.c),
	OPT_SECTION("Symbols:"),
	COMMON_SYMBOL_OPTS(&args.c),
	OPT_SECTION("Output:"),
	COMMON_FORMAT_OPTS(&args.c),
	OPT_SET_INT(0, "collapsed", &args.c.out, OUT_COLLAPSED, "FlameGraph's collapsed stacks"),
	OPT_STRING(0, "flamegraph", &args.flame, "FILE",
		   "write a flame graph: FILE.svg, or FILE.html for a page\n"
		   "(hover, click to zoom, search; --tree=bottom-up: by\n"
		   "self cost, callers above)"),
	OPT_STRING(0, "pprof", &args.pprof, "FILE",
		   "write pprof's profile.proto, gzipped (go tool pprof)"),
	OPT_STRING(0, "speedscope", &args.speedscope, "FILE",
		   "write a speedscope file, one profile per thread\n"
		   "(implies --by thread unless --by is given).  FILE\n"
		   "'-': standard output; the three combine, and replace\n"
		   "the report on standard output"),
	OPT_STRING(0, "trace", &args.trace, "FILE",
		   "write a Chrome / Perfetto trace (Trace Event JSON):\n"
		   "each thread's samples on a timeline, for\n"
		   "ui.perfetto.dev or chrome://tracing"),
	OPT_BOOL(0, "stdio", &args.stdio, "text output (the default; for perf habits)"),
	COMMON_TEXT_OPTS(&args.c),
	OPT_END,
};

/* The checks of what the options say together, once all are read. */
static int check(struct opts *o)
{
	struct common *c = &o->c;
	const char *const files[] = { o->flame, o->pprof, o->speedscope, o->trace };
	const char *const names[] = { "--flamegraph", "--pprof", "--speedscope", "--trace" };

	for (size_t i = 0; i < 4; i++)
		if (files[i] && !*files[i])
			return usage_error(c, "%s needs a file name", names[i]);
	if (!c->n_paths)
		return usage_error(c, "no profile given");
	if (o->tree && o->no_children)
		return usage_error(c, "--no-children is for flat views, not --tree");
	if (o->key_thread) {
		if (c->o.split && c->o.split != o->key_thread)
			return usage_error(c, "--sort comm, pid or tid splits the run itself: not with "
					   "another --by");
		c->o.split = o->key_thread;
	}
	if (o->tree && c->view != ANA_VIEW_FUNCS)
		return usage_error(c, "--tree does not combine with --lines, --modules, --callers, --callees");
	if ((o->flame || o->pprof || o->speedscope || o->trace) &&
	    (c->out != OUT_TEXT || c->view != ANA_VIEW_FUNCS))
		return usage_error(c, "--flamegraph, --pprof, --speedscope and --trace write the "
				   "calling-context tree: they do not combine with other outputs or views");
	if (o->line_func) {
		if (c->view != ANA_VIEW_LINES)
			return usage_error(c, "--function goes with --lines");
		c->func = o->line_func;
	}
	return 0;
}

static int parse(struct opts *o, int argc, char **argv, int *first_path)
{
	struct common *c = &o->c;

	o->q.min_pct = -1;	/* not given (-g N gives it too) */
	*first_path = opts_parse(&report_cmd, report_opts, argc, argv);
	o->min_pct_given = o->q.min_pct >= 0;
	o->q.min_pct = fmax(o->q.min_pct, 0);
	o->q.top = o->top;
	if (common_operands(c, argc, argv, *first_path))
		return EXIT_RUNTIME;
	return check(o);
}

static const char *short_event(const char *name, char *buf, size_t len)
{
	const char *p = strstr(name, "::");
	snprintf(buf, len, "%s", p ? p + 2 : name);
	return buf;
}

struct order_ctx {
	const struct opts *o;
	struct ana_rows *rows;
	unsigned run;
};

static int by_group_value(const void *a, const void *b, void *arg)
{
	const struct order_ctx *x = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct ana_row *ri = ana_rows_row(x->rows, i), *rj = ana_rows_row(x->rows, j);
	int byname = strcmp(ri->name, rj->name);

	if (x->o->q.sort != ANA_SORT_NAME) {
		double vi = ana_rows_value(x->rows, i, x->run, x->o->q.event, x->o->q.kind);
		double vj = ana_rows_value(x->rows, j, x->run, x->o->q.event, x->o->q.kind);
		if (vi != vj)
			return vi < vj ? 1 : -1;
	}
	return byname ? byname : (i > j) - (i < j);
}

/* The rows a run shows, in its order: all of them for one run; for a --by
 * group, those with samples in it, sorted by its own values, then --top
 * and --min-pct on its own totals (a tree keeps its shape).  Caller frees;
 * NULL when out of memory. */
static size_t *run_order(const struct opts *o, struct ana_set *s, struct ana_rows *rows,
			 unsigned run, size_t *n)
{
	size_t total = ana_rows_n(rows), k = 0, n_real = ana_set_n_events(s) - o->c.n_metrics;
	size_t *ord = malloc((total ? total : 1) * sizeof(*ord));
	bool split = ana_set_n_runs(s) > 1;

	if (!ord)
		return NULL;
	for (size_t i = 0; i < total; i++) {
		bool any = !split;
		for (size_t e = 0; e < n_real && !any; e++)
			any = ana_rows_samples(rows, i, run, e, ANA_SELF) ||
			      ana_rows_samples(rows, i, run, e, ANA_INCL);
		if (any && split && !o->tree && o->q.min_pct > 0 &&
		    !(ana_rows_pct(rows, i, run, o->q.event, o->q.kind) >= o->q.min_pct))
			any = false;
		if (any)
			ord[k++] = i;
	}
	if (split && !o->tree) {
		struct order_ctx ctx = { o, rows, run };
		qsort_r(ord, k, sizeof(*ord), by_group_value, &ctx);
		if (o->top && k > o->top)
			k = o->top;
	}
	*n = k;
	return ord;
}

/* A run's text table: the event columns it shows (events, then
 * metrics), every column's heading and layout, and where Function and
 * Module are (--sort dso,sym swaps them). */
struct layout {
	size_t evs[64], n_ev, n_real;
	bool tree, incl_first, swap;
	size_t fcol, mcol, nc;
	struct ana_col col[200];
	char titles[200][64];
};

/* Per event its shares and count (a top-down tree is read by inclusive
 * cost: those first), per metric its value. */
static void event_cols(const struct opts *o, struct ana_set *s, struct layout *L)
{
	static const char *const t_flat[] = { "Self%", "Incl%", "Self" };
	static const char *const t_tree[] = { "Incl%", "Self%", "Incl" };
	const struct common *c = &o->c;
	size_t ne = ana_set_n_events(s);

	L->n_real = ne - c->n_metrics;
	for (size_t e = 0; e < ne && L->n_ev < 64; e++)
		if (!c->event || e == o->q.event || e >= L->n_real)
			L->evs[L->n_ev++] = e;
	for (size_t k = 0; k < L->n_ev; k++) {
		size_t e = L->evs[k];
		char sh[48];
		const char *pre = L->n_real > 1 || c->n_metrics
				  ? short_event(ana_set_event(s, e), sh, sizeof(sh)) : "";
		for (int j = 0; j < (e >= L->n_real ? 1 : 3); j++) {
			if (e >= L->n_real)
				snprintf(L->titles[L->nc], 64, "%s", ana_set_event(s, e));
			else if (j == 1 && o->no_children)
				continue;
			else
				snprintf(L->titles[L->nc], 64, "%s%s%s", pre, *pre ? ":" : "",
					 (L->incl_first ? t_tree : t_flat)[j]);
			L->col[L->nc] = text_col(L->titles[L->nc], false, 0, 0, 0);
			L->nc++;
		}
	}
}

/* The row's names: by view, in --sort's order. */
static void name_cols(const struct opts *o, struct layout *L)
{
	enum ana_view v = o->c.view;
	struct ana_col *col = L->col;
	size_t nc = L->nc;

	if (v == ANA_VIEW_LINES)
		col[nc++] = text_col("Line", true, 2, 10, 16);
	if (v == ANA_VIEW_MODULES) {
		col[nc++] = text_col("Module", true, 1, 10, 16);
		col[nc++] = text_col("Path", true, 2, 10, 10);
	} else {
		col[nc++] = model_col(ANA_COL_FUNCTION);
		col[nc++] = model_col(ANA_COL_MODULE);
		if (v != ANA_VIEW_LINES)
			col[nc++] = model_col(ANA_COL_FILE);
	}
	L->fcol = L->mcol = nc;
	for (size_t j = 0; j < nc; j++) {
		if (!strcmp(col[j].title, "Function"))
			L->fcol = j;
		else if (!strcmp(col[j].title, "Module"))
			L->mcol = j;
	}
	L->swap = o->dso_first && L->fcol < nc && L->mcol < nc;
	if (L->swap) {
		struct ana_col tmp = col[L->fcol];
		col[L->fcol] = col[L->mcol];
		col[L->mcol] = tmp;
	}
	L->nc = nc;
}

/* The text of model column id at at. */
static char *model_cell(char *buf, enum ana_col_id id, const struct ana_at *at)
{
	struct ana_value v;

	ana_col_value(ana_col(id), at, &v);
	return ana_value_text(&v, buf, CELL_MAX);
}

/* Row i's event cells of run into buf[0...]; the next free one. */
static size_t event_cells(const struct opts *o, const struct layout *L, struct ana_rows *rows,
			  size_t i, unsigned run, char (*buf)[CELL_MAX])
{
	size_t k = 0;

	for (size_t j = 0; j < L->n_ev; j++) {
		struct ana_at at = { rows, i, L->evs[j], run, NULL };
		bool incl = L->incl_first;
		if (L->evs[j] >= L->n_real) {
			model_cell(buf[k++], ANA_COL_SELF_VALUE, &at);
			continue;
		}
		model_cell(buf[k++], incl ? ANA_COL_INCL_PCT : ANA_COL_SELF_PCT, &at);
		if (!o->no_children)
			model_cell(buf[k++], incl ? ANA_COL_SELF_PCT : ANA_COL_INCL_PCT, &at);
		if (o->c.o.weighted)
			model_cell(buf[k++], incl ? ANA_COL_INCL_VALUE : ANA_COL_SELF_VALUE, &at);
		else
			model_cell(buf[k++], incl ? ANA_COL_INCL_SAMPLES : ANA_COL_SELF_SAMPLES, &at);
	}
	return k;
}

/* Row r's name cells into buf[k...]. */
static void name_cells(const struct opts *o, const struct layout *L, const struct ana_row *r,
		       char (*buf)[CELL_MAX], size_t k)
{
	enum ana_view v = o->c.view;

	if (v == ANA_VIEW_LINES)
		fmt_source(buf[k++], CELL_MAX, r);
	if (v == ANA_VIEW_MODULES) {
		snprintf(buf[k++], CELL_MAX, "%s", r->name);
		snprintf(buf[k++], CELL_MAX, "%s", r->module ? r->module : "");
		return;
	}
	int ind = L->tree ? 2 * (int)(r->depth - 1) : 0;
	fmt_name(buf[k++], CELL_MAX, r, ind > 60 ? 60 : ind, true);
	snprintf(buf[k++], CELL_MAX, "%s", base_name(r->module));
	if (v != ANA_VIEW_LINES)
		fmt_source(buf[k++], CELL_MAX, r);
}

/* Text table for the rows of one run. */
static int print_table(const struct opts *o, struct ana_set *s, struct ana_rows *rows, unsigned run,
		       FILE *out)
{
	static char buf[200][CELL_MAX];	/* whole names: piped output is never cut */
	const char *cell[200];
	struct layout L = { .tree = o->c.view == ANA_VIEW_FUNCS && o->tree };
	L.incl_first = L.tree && !o->bottom_up;
	event_cols(o, s, &L);
	name_cols(o, &L);
	size_t n_order, *order = run_order(o, s, rows, run, &n_order);
	struct ana_table *t = order ? ana_table_new(L.col, L.nc) : NULL;
	int e = t ? 0 : -ENOMEM;

	for (size_t oi = 0; oi < n_order && !e; oi++) {
		size_t i = order[oi];
		name_cells(o, &L, ana_rows_row(rows, i), buf, event_cells(o, &L, rows, i, run, buf));
		for (size_t j = 0; j < L.nc; j++)
			cell[j] = buf[j];
		if (L.swap) {
			cell[L.fcol] = buf[L.mcol];
			cell[L.mcol] = buf[L.fcol];
		}
		e = ana_table_add(t, cell);
	}
	if (!e)
		e = ana_table_write_text(t, out, out_width(&o->c));
	ana_table_free(t);
	free(order);
	return e;
}

/* --sort comm|pid|tid[,...]: the column's title and a run's value in it
 * (its --by label "comm=NAME" without the key). */
static const char *key_title(const struct opts *o)
{
	return o->key_thread == ANA_SPLIT_COMM ? "Command" : o->key_thread == ANA_SPLIT_PROCESS
											     ? "Pid" : "Tid";
}

static const char *key_value(const struct ana_set *s, unsigned run)
{
	const char *l = ana_set_run(s, run)->label, *eq = strchr(l, '=');
	return eq ? eq + 1 : l;
}

/* A run's total on the query's event, in what the table shows. */
static double run_total(const struct opts *o, const struct ana_set *s, unsigned run)
{
	int ev = ana_set_run_event(s, run, o->q.event);
	const struct ana_run *r = ana_set_run(s, run);
	if (ev < 0)
		return 0;
	return o->c.o.weighted ? r->events[ev].weight : (double)r->events[ev].samples;
}

/* The thread groups, largest first, into ord (nr of them); returns the
 * total of all. */
static double group_order(const struct opts *o, const struct ana_set *s, size_t *ord)
{
	unsigned nr = ana_set_n_runs(s);
	double all = 0;

	for (unsigned r = 0; r < nr; r++) {
		all += run_total(o, s, r);
		ord[r] = r;
	}
	for (unsigned a = 1; a < nr; a++)	/* largest first; few groups */
		for (unsigned b = a; b > 0 && run_total(o, s, (unsigned)ord[b]) >
					      run_total(o, s, (unsigned)ord[b - 1]); b--) {
			size_t t = ord[b];
			ord[b] = ord[b - 1];
			ord[b - 1] = t;
		}
	return all;
}

/* One group's row: text table, CSV line or JSON object. */
static int group_row(const struct opts *o, struct ana_table *t, struct json *j, const char *key,
		     const char *name, double v, double pct, FILE *out)
{
	char c0[32], c1[32];

	snprintf(c0, sizeof(c0), "%.2f%%", pct);
	snprintf(c1, sizeof(c1), "%.15g", v);
	if (t)
		return ana_table_add(t, (const char *const[]){ c0, c1, name });
	if (o->c.out == OUT_CSV) {
		fputc('"', out);
		for (const char *p = name; *p; p++)
			fprintf(out, *p == '"' ? "\"\"" : "%c", *p);
		fprintf(out, "\",%s,%.4f\n", c1, pct);
		return 0;
	}
	snprintf(c0, sizeof(c0), "%.4f", pct);
	json_obj_begin(j);
	json_kstr(j, key, name);
	json_key(j, "samples");
	json_raw_num(j, c1);
	json_key(j, "pct");
	json_raw_num(j, c0);
	json_obj_end(j);
	return 0;
}

/* --sort comm (pid, tid) alone: one row per thread group, perf's way:
 * its share of all the samples, as text, CSV or JSON. */
static int print_groups(const struct opts *o, struct ana_set *s, FILE *out)
{
	unsigned nr = ana_set_n_runs(s);
	size_t *ord = malloc((nr ? nr : 1) * sizeof(*ord));
	const char *key = o->key_thread == ANA_SPLIT_COMM ? "comm" :
			  o->key_thread == ANA_SPLIT_PROCESS ? "pid" : "tid";
	struct ana_col cols[] = { text_col("Overhead", false, 0, 0, 0),
				  text_col(o->c.o.weighted ? "Weight" : "Samples", false, 0, 0, 0),
				  text_col(key_title(o), true, 1, 8, 16) };
	struct ana_table *t = o->c.out == OUT_TEXT ? ana_table_new(cols, 3) : NULL;
	struct json *j = o->c.out == OUT_JSON ? json_open(out) : NULL;
	int e = !ord || (o->c.out == OUT_TEXT && !t) || (o->c.out == OUT_JSON && !j) ? -ENOMEM : 0;

	if (!e && o->c.out == OUT_CSV)
		fprintf(out, "%s,samples,pct\n", key);
	if (j) {
		json_obj_begin(j);
		json_kstr(j, "schema", "pmcprof-report-keys/1");
		json_kstr(j, "sort", key);
		json_key(j, "rows");
		json_arr_begin(j);
	}
	double all = e ? 0 : group_order(o, s, ord);
	size_t shown = o->top && o->top < nr ? o->top : nr;
	for (size_t k = 0; k < shown && !e; k++) {
		unsigned r = (unsigned)ord[k];
		double v = run_total(o, s, r), pct = all > 0 ? 100 * v / all : 0;
		if (!(o->q.min_pct > 0 && pct < o->q.min_pct))
			e = group_row(o, t, j, key, key_value(s, r), v, pct, out);
	}
	if (j) {
		json_arr_end(j);
		json_obj_end(j);
		int ec = json_close(j);
		e = e ? e : ec;
		if (!e)
			fputc('\n', out);
	}
	if (t && !e)
		e = ana_table_write_text(t, out, out_width(&o->c));
	ana_table_free(t);
	free(ord);
	return e;
}

struct keyed {
	unsigned run;
	size_t row;
	double v;
};

static int by_keyed_value(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->run != y->run ? (x->run > y->run) - (x->run < y->run) : (x->row > y->row) - (x->row < y->row);
}

/* The (group, row) entries of a keyed table, largest first, into *k;
 * *all: the samples (or weight) of every group.  NULL: out of memory. */
static struct keyed *keyed_entries(const struct opts *o, struct ana_set *s, struct ana_rows *rows,
				   size_t *k, double *all)
{
	unsigned nr = ana_set_n_runs(s);
	size_t n = ana_rows_n(rows), cap = n * nr;
	struct keyed *e = malloc((cap ? cap : 1) * sizeof(*e));

	*k = 0;
	*all = 0;
	for (unsigned r = 0; e && r < nr; r++) {
		*all += run_total(o, s, r);
		int rev = ana_set_run_event(s, r, o->q.event);
		for (size_t i = 0; rev >= 0 && i < n; i++) {
			if (!ana_rows_samples(rows, i, r, (size_t)rev, ANA_SELF) &&
			    !ana_rows_samples(rows, i, r, (size_t)rev, ANA_INCL))
				continue;
			e[(*k)++] = (struct keyed){ r, i, ana_rows_value(rows, i, r, (size_t)rev,
									 o->q.kind) };
		}
	}
	if (e)
		qsort(e, *k, sizeof(*e), by_keyed_value);
	return e;
}

/* A keyed table's columns: shares, the group, the names in --sort's order. */
static size_t keyed_cols(const struct opts *o, struct ana_col *cols)
{
	bool mods = o->c.view == ANA_VIEW_MODULES, lines = o->c.view == ANA_VIEW_LINES;
	size_t nc = 0;

	cols[nc++] = text_col("Self%", false, 0, 0, 0);
	if (!o->no_children)
		cols[nc++] = text_col("Incl%", false, 0, 0, 0);
	cols[nc++] = text_col(o->c.o.weighted ? "Self value" : "Self", false, 0, 0, 0);
	cols[nc++] = text_col(key_title(o), true, 2, 8, 12);
	cols[nc++] = text_col(mods || o->dso_first ? "Module" : "Function", true, 1, 10, 20);
	cols[nc++] = text_col(mods ? "Path" : o->dso_first ? "Function" : "Module", true, 2, 6, 12);
	if (!mods)
		cols[nc++] = text_col(lines ? "Line" : "Source", true, 3, 8, 16);
	return nc;
}

/* An entry's cells into buf (as many as keyed_cols' columns). */
static void keyed_cells(const struct opts *o, struct ana_set *s, struct ana_rows *rows,
			const struct keyed *e, double ps, double pi, char (*buf)[CELL_MAX])
{
	const struct ana_row *r = ana_rows_row(rows, e->row);
	bool mods = o->c.view == ANA_VIEW_MODULES, swap = o->dso_first && !mods;
	size_t rev = (size_t)ana_set_run_event(s, e->run, o->q.event), m = 0;
	char fn[CELL_MAX], mod[CELL_MAX];

	snprintf(buf[m++], CELL_MAX, "%.2f", ps);
	if (!o->no_children)
		snprintf(buf[m++], CELL_MAX, "%.2f", pi);
	snprintf(buf[m++], CELL_MAX, o->c.o.weighted ? "%.4g" : "%.0f",
		 ana_rows_value(rows, e->row, e->run, rev, ANA_SELF));
	snprintf(buf[m++], CELL_MAX, "%s", key_value(s, e->run));
	if (mods) {
		snprintf(fn, sizeof(fn), "%s", r->name);
		snprintf(mod, sizeof(mod), "%s", r->module ? r->module : "");
	} else {
		fmt_name(fn, sizeof(fn), r, 0, false);
		snprintf(mod, sizeof(mod), "%s", base_name(r->module));
	}
	snprintf(buf[m++], CELL_MAX, "%s", swap ? mod : fn);
	snprintf(buf[m++], CELL_MAX, "%s", swap ? fn : mod);
	if (!mods)
		fmt_source(buf[m++], CELL_MAX, r);
}

/* --sort comm,sym (pid,dso, tid,srcline ...): one table over the thread
 * groups, a row per (group, row), percentages of all their samples (as
 * perf prints them), largest first; --top and --min-pct over the whole. */
static int print_keyed(const struct opts *o, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	static char buf[8][CELL_MAX];
	const char *cell[8] = { buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7] };
	struct ana_col cols[8];
	size_t k, shown = 0;
	double all;
	struct keyed *e = keyed_entries(o, s, rows, &k, &all);
	struct ana_table *t = e ? ana_table_new(cols, keyed_cols(o, cols)) : NULL;
	int err = t ? 0 : -ENOMEM;

	for (size_t j = 0; j < k && !err && (!o->top || shown < o->top); j++) {
		size_t rev = (size_t)ana_set_run_event(s, e[j].run, o->q.event);
		double self = ana_rows_value(rows, e[j].row, e[j].run, rev, ANA_SELF);
		double incl = ana_rows_value(rows, e[j].row, e[j].run, rev, ANA_INCL);
		double ps = all > 0 ? 100 * self / all : 0, pi = all > 0 ? 100 * incl / all : 0;
		if (o->q.min_pct > 0 && (o->q.kind == ANA_SELF ? ps : pi) < o->q.min_pct)
			continue;
		keyed_cells(o, s, rows, &e[j], ps, pi, buf);
		err = ana_table_add(t, cell);
		shown++;
	}
	if (!err)
		err = ana_table_write_text(t, out, out_width(&o->c));
	ana_table_free(t);
	free(e);
	return err;
}

static int collapsed(struct ana_set *s, const struct opts *o, FILE *out)
{
	unsigned nr = ana_set_n_runs(s);
	for (unsigned r = 0; r < nr; r++) {
		if (nr == 1)
			return ana_set_write_collapsed(s, r, o->q.event, out);
		/* several runs (--by): each run's label is its stacks' root frame */
		char *mem = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&mem, &len);
		if (!m)
			return -errno;
		int e = ana_set_write_collapsed(s, r, o->q.event, m);
		fclose(m);
		const char *label = ana_set_run(s, r)->label;
		for (char *line = mem, *nl; !e && line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			fputs(label, out);
			fputc(';', out);
			fwrite(line, 1, nl ? (size_t)(nl - line + 1) : strlen(line), out);
		}
		free(mem);
		if (e)
			return e;
	}
	return 0;
}

/* Open an output file ("-": standard output). */
static FILE *out_open(const struct common *c, const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: %s: %s\n", c->prog, path, strerror(errno));
	return f;
}

/* Close f and say what was written; a failed write removes the file. */
static int out_close(const struct common *c, const char *path, FILE *f, int e)
{
	if (f == stdout) {
		fflush(f);
	} else if (fclose(f) && !e) {
		e = -errno;
	}
	if (e) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, path, ana_strerror(e));
		if (strcmp(path, "-"))
			remove(path);
		return EXIT_RUNTIME;
	}
	if (!c->quiet && strcmp(path, "-"))
		fprintf(stderr, "%s: wrote %s\n", c->prog, path);
	return EXIT_OK;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && !strcasecmp(s + n - m, tail);
}

/* speedscope shows one profile per thread: when the other files are of
 * the merged runs (no --by), it gets a set of its own split by thread. */
static int speedscope_by_thread(struct opts *o, int argc, char **argv, int first)
{
	struct common *c = &o->c;
	c->o.split = ANA_SPLIT_THREAD;
	c->o.line_contexts = false;
	struct ana_set *s = common_set(c);
	c->o.split = ANA_SPLIT_NONE;
	if (!s)
		return EXIT_RUNTIME;
	for (int i = first; i < argc; i++)
		ana_set_add(s, 0, 0, argv[i]);
	if (first + 1 == argc)
		ana_set_label(s, 0, argv[first]);
	int e = ana_set_finish(s), rc = EXIT_RUNTIME;
	progress_done();
	int col = e ? -1 : common_columns(c, s);
	if (e)
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
	FILE *f;
	if (col >= 0 && (f = out_open(c, o->speedscope)))
		rc = out_close(c, o->speedscope, f, ana_set_write_speedscope(s, (size_t)col, f));
	ana_set_free(s);
	return rc;
}

/* --flamegraph, --pprof, --speedscope: the files, in that order. */
static int exports(struct opts *o, struct ana_set *s, int argc, char **argv, int first)
{
	const struct common *c = &o->c;
	if (o->q.event >= ana_set_n_events(s) - c->n_metrics) {
		fprintf(stderr, "%s: a flame graph, pprof or speedscope file needs an event, not a "
			"metric\n", c->prog);
		return EXIT_USAGE;
	}
	FILE *f;
	int rc = EXIT_OK;
	if (o->flame) {
		ANA_QUERY(q, .view = o->bottom_up ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN,
			  .node = ANA_ROOT, .event = o->q.event, .sort = ANA_SORT_NAME,
			  .max_depth = o->depth ? o->depth : UINT_MAX, .min_pct = o->q.min_pct);
		ANA_FLAME_OPTS(fo, .html = ends_with(o->flame, ".html") || ends_with(o->flame, ".htm"));
		struct ana_rows *rows = ana_set_query(s, &q);
		if (!rows) {
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(errno));
			return EXIT_RUNTIME;
		}
		if ((f = out_open(c, o->flame)))
			rc |= out_close(c, o->flame, f, ana_rows_write_flame(rows, &fo, f));
		else
			rc = EXIT_RUNTIME;
		ana_rows_free(rows);
	}
	if (o->pprof) {
		if ((f = out_open(c, o->pprof)))
			rc |= out_close(c, o->pprof, f, ana_set_write_pprof(s, f));
		else
			rc = EXIT_RUNTIME;
	}
	if (o->trace) {
		int e = -ENOMEM;
		if ((f = out_open(c, o->trace)))
			rc |= out_close(c, o->trace, f, e = ana_set_write_trace(s, f));
		else
			rc = EXIT_RUNTIME;
		if (e == -ENODATA)
			fprintf(stderr, "%s: --trace: no profile holds a timeline (recorded with "
				"--no-timeline or by an older pmcprof)\n", c->prog);
	}
	if (o->speedscope && (o->flame || o->pprof) && c->o.split == ANA_SPLIT_NONE) {
		rc |= speedscope_by_thread(o, argc, argv, first);
	} else if (o->speedscope) {
		if ((f = out_open(c, o->speedscope)))
			rc |= out_close(c, o->speedscope, f, ana_set_write_speedscope(s, o->q.event, f));
		else
			rc = EXIT_RUNTIME;
	}
	return rc ? EXIT_RUNTIME : EXIT_OK;
}

/* The short header of a text report (data first): the runs, what --time
 * and --dso/--symbols kept, a warning. */
static void print_short_header(const struct opts *op, const struct ana_set *s, FILE *out)
{
	const struct common *c = &op->c;

	print_errors(c, s);
	print_summary(c, s, NULL, out);
	print_time_line(s, out);
	if (c->filter[3] || c->filter[4])
		fprintf(out, "# filter:%s%s%s%s: only the samples in these; percentages "
			"are of all the run's samples\n", c->filter[3] ? " --dso " : "",
			c->filter[3] ? c->filter[3] : "", c->filter[4] ? " --symbols " : "",
			c->filter[4] ? c->filter[4] : "");
	print_warning_line(c, s, out);
}

/* The text report: the header, then a table per run (--by), or one table
 * over the thread groups (--sort comm,sym).  0 or -errno. */
static int print_text(const struct opts *op, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	const struct common *c = &op->c;
	unsigned nr = ana_set_n_runs(s);
	int e = 0;

	if (c->no_header)
		print_notes(c, s, NULL);
	else if (c->header)
		print_notes(c, s, out);
	else
		print_short_header(op, s, out);
	if (op->key_thread && !op->tree) {
		e = print_keyed(op, s, rows, out);
		nr = 0;
	}
	for (unsigned r = 0; r < nr && !e; r++) {
		if (r)
			fputc('\n', out);
		if (c->header)
			print_run_header(c, s, r, "run", out);
		else if (!c->no_header && nr > 1)
			print_group_line(c, s, r, "run", out);
		if (c->header && (c->view == ANA_VIEW_CALLERS || c->view == ANA_VIEW_CALLEES))
			fprintf(out, "# %s of %s (self: its own samples under it; incl: its "
				"inclusive samples under it)\n",
				c->view == ANA_VIEW_CALLERS ? "callers" : "callees", c->func);
		e = print_table(op, s, rows, r, out);
	}
	fflush(out);
	return ferror(out) ? -EIO : e;
}

/* The query's rows as CSV, JSON or text: an exit status. */
static int print_rows(struct opts *op, struct ana_set *s, FILE *out)
{
	const struct common *c = &op->c;
	int e;

	if (op->key_thread && !op->tree && c->out == OUT_TEXT)
		op->q.top = 0;	/* over all the groups, after sorting */
	struct ana_rows *rows = ana_set_query(s, &op->q);
	if (!rows) {
		e = errno;
		print_notes(c, s, NULL);
		if (e == ANA_ENOFUNC)
			fprintf(stderr, "%s: no function '%s' in these profiles\n", c->prog, c->func);
		else
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
		return e == ANA_ENOFUNC ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (c->out == OUT_CSV || c->out == OUT_JSON) {
		print_notes(c, s, NULL);
		e = c->out == OUT_CSV ? ana_rows_write_csv(rows, out) : ana_rows_write_json(rows, out);
	} else {
		e = print_text(op, s, rows, out);
	}
	ana_rows_free(rows);
	if (e)
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
	return e || ana_set_n_errors(s) ? EXIT_RUNTIME : EXIT_OK;
}

/* What the options ask for, once the set is finished: the export files,
 * collapsed stacks, the thread groups, or the rows.  An exit status. */
static int print_results(struct opts *op, struct ana_set *s, int argc, char **argv, int first)
{
	struct common *c = &op->c;
	FILE *out = stdout;
	int rc = EXIT_OK, e;

	if (!op->flame && !op->pprof && !op->speedscope && !op->trace && c->out != OUT_COLLAPSED &&
	    !(op->key_thread && !op->key_rows && !op->tree))
		return print_rows(op, s, out);
	print_notes(c, s, NULL);
	if (op->flame || op->pprof || op->speedscope || op->trace) {
		rc = exports(op, s, argc, argv, first);
	} else if (c->out == OUT_COLLAPSED) {
		if (op->q.event >= ana_set_n_events(s) - c->n_metrics) {
			fprintf(stderr, "%s: --collapsed needs an event, not a metric\n", c->prog);
			rc = EXIT_USAGE;
		} else if ((e = collapsed(s, op, out))) {
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
			rc = EXIT_RUNTIME;
		}
	} else {
		/* --sort comm: the thread groups are the rows */
		if (c->out == OUT_TEXT && !c->no_header)
			print_summary(c, s, NULL, out);
		if ((e = print_groups(op, s, out))) {
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
			rc = EXIT_RUNTIME;
		}
	}
	return rc == EXIT_OK && ana_set_n_errors(s) ? EXIT_RUNTIME : rc;
}


/* The query the options make, once the set's columns are known. */
static void query(struct opts *op, int col)
{
	struct common *c = &op->c;

	op->q.event = (size_t)col;
	op->q.view = op->tree ? (op->bottom_up ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN) : c->view;
	op->q.func = c->func;
	if (c->o.split != ANA_SPLIT_NONE && !op->tree && c->out == OUT_TEXT)
		op->q.top = 0;	/* each group's own top rows (run_order) */
	op->q.max_depth = op->tree ? (op->depth ? op->depth : UINT_MAX) : 0;
	if (op->tree && !op->min_pct_given && c->out == OUT_TEXT)
		op->q.min_pct = 0.5;	/* a full tree is rarely readable as text */
}

/* The options read and the runs loaded as they say: the set, or NULL with
 * the exit status in *rc (said). */
static struct ana_set *prepare(int argc, char **argv, int *first, int *rc)
{
	struct opts *op = &args;
	struct common *c = &op->c;

	op->q = (struct ana_query){ .sz = sizeof(op->q), .base = -1 };
	*rc = EXIT_USAGE;
	if (parse(op, argc, argv, first))
		return NULL;
	c->o.line_contexts = op->pprof != NULL;	/* pprof's line numbers */
	/* speedscope's evented profiles and the trace come from the timelines */
	c->o.timeline = op->speedscope || op->trace;
	if (op->speedscope && !op->flame && !op->pprof && c->o.split == ANA_SPLIT_NONE)
		c->o.split = ANA_SPLIT_THREAD;	/* speedscope shows a profile per thread */
	*rc = EXIT_RUNTIME;
	struct ana_set *s = common_load(c, 0, true);
	if (!s)
		return NULL;
	int col = common_columns(c, s);
	if (col < 0) {
		ana_set_free(s);
		*rc = EXIT_USAGE;
		return NULL;
	}
	query(op, col);
	return s;
}

static int run(struct ana_set *s, int argc, char **argv, int first)
{
	int rc = print_results(&args, s, argc, argv, first);
	ana_set_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	const struct command cmd = {
		.prog = "pmcprof report", .c = &args.c, .prepare = prepare, .run = run,
	};

	return command_main(&cmd, argc, argv);
}
