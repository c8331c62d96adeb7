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
	OPT_CALLBACK(0, "time", required_argument, common_time, &args.c, "START,END|P%/N|A%-B%",
		     "only the samples from START to END seconds after\n"
		     "the run's start (either may be empty), or percent\n"
		     "slices of the run (10%/2: the second tenth; 0%-25%;\n"
		     "several, comma-separated); from the profiles'\n"
		     "timelines (pmcprof script shows the times)"),
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

/* Text table for the rows of one run. */
static int print_table(const struct opts *o, struct ana_set *s, struct ana_rows *rows, unsigned run,
		       FILE *out)
{
	const struct common *c = &o->c;
	size_t ne = ana_set_n_events(s), n_ev_cols = 0;
	size_t evs[64];
	size_t n_real = ne - c->n_metrics;	/* events, then metrics */
	for (size_t e = 0; e < ne && n_ev_cols < 64; e++)
		if (!c->event || e == o->q.event || e >= n_real)
			evs[n_ev_cols++] = e;
	bool tree = c->view == ANA_VIEW_FUNCS && o->tree;
	/* a top-down tree is read by inclusive cost, a bottom-up one by self */
	bool incl_first = tree && !o->bottom_up;
	struct tcol cols[200];
	char titles[200][64];
	size_t nc = 0;
	for (size_t k = 0; k < n_ev_cols; k++) {
		size_t e = evs[k];
		char sh[48];
		const char *pre = n_real > 1 || c->n_metrics ? short_event(ana_set_event(s, e), sh, sizeof(sh)) : "";
		const char *sep = *pre ? ":" : "";
		if (e >= n_real) {
			snprintf(titles[nc], 64, "%s", ana_set_event(s, e));
			cols[nc] = (struct tcol){ titles[nc], false, 0, 0, 0 };
			nc++;
			continue;
		}
		static const char *const t_flat[] = { "Self%", "Incl%", "Self" };
		static const char *const t_tree[] = { "Incl%", "Self%", "Incl" };
		for (int j = 0; j < 3; j++) {
			if (j == 1 && o->no_children)
				continue;
			snprintf(titles[nc], 64, "%s%s%s", pre, sep, (incl_first ? t_tree : t_flat)[j]);
			cols[nc] = (struct tcol){ titles[nc], false, 0, 0, 0 };
			nc++;
		}
	}
	if (c->view == ANA_VIEW_LINES)
		cols[nc++] = (struct tcol){ "Line", true, 2, 10, 16 };
	if (c->view == ANA_VIEW_MODULES) {
		cols[nc++] = (struct tcol){ "Module", true, 1, 10, 16 };
		cols[nc++] = (struct tcol){ "Path", true, 2, 10, 10 };
	} else {
		cols[nc++] = (struct tcol){ "Function", true, 1, 14, 24 };
		cols[nc++] = (struct tcol){ "Module", true, 2, 6, 12 };
		if (c->view != ANA_VIEW_LINES)
			cols[nc++] = (struct tcol){ "Source", true, 3, 8, 16 };
	}
	/* --sort dso,sym: columns in the keys' order */
	size_t fcol = nc, mcol = nc;
	for (size_t j = 0; j < nc; j++) {
		if (!strcmp(cols[j].title, "Function"))
			fcol = j;
		else if (!strcmp(cols[j].title, "Module"))
			mcol = j;
	}
	bool swap = o->dso_first && fcol < nc && mcol < nc;
	if (swap) {
		struct tcol tmp = cols[fcol];
		cols[fcol] = cols[mcol];
		cols[mcol] = tmp;
	}
	size_t n_order, *order = run_order(o, s, rows, run, &n_order);
	struct table *t = order ? table_new(cols, nc) : NULL;
	if (!t) {
		free(order);
		return -ENOMEM;
	}
	static char buf[200][CELL_MAX];	/* whole names: piped output is never cut */
	const char *cell[200];
	for (size_t oi = 0; oi < n_order; oi++) {
		size_t i = order[oi];
		const struct ana_row *r = ana_rows_row(rows, i);
		size_t k = 0;
		for (size_t j = 0; j < n_ev_cols; j++) {
			size_t e = evs[j];
			if (e >= n_real) {
				double v = ana_rows_value(rows, i, run, e, ANA_SELF);
				if (isnan(v))
					buf[k][0] = 0;
				else
					snprintf(buf[k], CELL_MAX, "%.4g", v);
				k++;
				continue;
			}
			enum ana_kind a = incl_first ? ANA_INCL : ANA_SELF;
			enum ana_kind b = incl_first ? ANA_SELF : ANA_INCL;
			double pa = ana_rows_pct(rows, i, run, e, a), pb = ana_rows_pct(rows, i, run, e, b);
			snprintf(buf[k++], CELL_MAX, isnan(pa) ? "" : "%.2f", pa);
			if (!o->no_children)
				snprintf(buf[k++], CELL_MAX, isnan(pb) ? "" : "%.2f", pb);
			if (c->o.weighted)
				snprintf(buf[k++], CELL_MAX, "%.4g", ana_rows_value(rows, i, run, e, a));
			else
				snprintf(buf[k++], CELL_MAX, "%llu",
					 (unsigned long long)ana_rows_samples(rows, i, run, e, a));
		}
		if (c->view == ANA_VIEW_LINES) {
			fmt_source(buf[k++], CELL_MAX, r);
		}
		if (c->view == ANA_VIEW_MODULES) {
			snprintf(buf[k++], CELL_MAX, "%s", r->name);
			snprintf(buf[k++], CELL_MAX, "%s", r->module ? r->module : "");
		} else {
			int ind = tree ? 2 * (int)(r->depth - 1) : 0;
			if (ind > 60)
				ind = 60;
			if (r->inlined_into)
				snprintf(buf[k++], CELL_MAX, "%*s%s [inlined into %s]", ind, "", r->name,
					 r->inlined_into);
			else
				snprintf(buf[k++], CELL_MAX, "%*s%s%s", ind, "", r->name,
					 r->flags & ANA_ROW_INLINED ? " [inlined]" : "");
			snprintf(buf[k++], CELL_MAX, "%s", base_name(r->module));
			if (c->view != ANA_VIEW_LINES)
				fmt_source(buf[k++], CELL_MAX, r);
		}
		for (size_t j = 0; j < nc; j++)
			cell[j] = buf[j];
		if (swap) {
			cell[fcol] = buf[mcol];
			cell[mcol] = buf[fcol];
		}
		if (table_add(t, cell)) {
			table_free(t);
			free(order);
			return -ENOMEM;
		}
	}
	table_print(t, out, out_width(c));
	table_free(t);
	free(order);
	return 0;
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

/* --sort comm (pid, tid) alone: one row per thread group, perf's way:
 * its share of all the samples, as text, CSV or JSON. */
static int print_groups(const struct opts *o, struct ana_set *s, FILE *out)
{
	unsigned nr = ana_set_n_runs(s);
	double all = 0;
	size_t *ord = malloc((nr ? nr : 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
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
	const char *key = o->key_thread == ANA_SPLIT_COMM ? "comm" :
			  o->key_thread == ANA_SPLIT_PROCESS ? "pid" : "tid";
	if (o->c.out == OUT_CSV)
		fprintf(out, "%s,samples,pct\n", key);
	else if (o->c.out == OUT_JSON)
		fprintf(out, "{\"schema\":\"pmcprof-report-keys/1\",\"sort\":\"%s\",\"rows\":[", key);
	struct tcol cols[] = { { "Overhead", false, 0, 0, 0 }, { o->c.o.weighted ? "Weight" : "Samples",
				false, 0, 0, 0 }, { key_title(o), true, 1, 8, 16 } };
	struct table *t = o->c.out == OUT_TEXT ? table_new(cols, 3) : NULL;
	if (o->c.out == OUT_TEXT && !t) {
		free(ord);
		return -ENOMEM;
	}
	size_t shown = o->top && o->top < nr ? o->top : nr;
	for (size_t k = 0; k < shown; k++) {
		unsigned r = (unsigned)ord[k];
		double v = run_total(o, s, r), pct = all > 0 ? 100 * v / all : 0;
		const char *name = key_value(s, r);
		char c0[32], c1[32];
		if (o->q.min_pct > 0 && pct < o->q.min_pct)
			continue;
		snprintf(c0, sizeof(c0), "%.2f%%", pct);
		snprintf(c1, sizeof(c1), "%.15g", v);
		if (t) {
			const char *cell[] = { c0, c1, name };
			if (table_add(t, cell)) {
				table_free(t);
				free(ord);
				return -ENOMEM;
			}
		} else if (o->c.out == OUT_CSV) {
			fputc('"', out);
			for (const char *p = name; *p; p++)
				fprintf(out, *p == '"' ? "\"\"" : "%c", *p);
			fprintf(out, "\",%s,%.4f\n", c1, pct);
		} else {
			fprintf(out, "%s{\"%s\":\"", k ? "," : "", key);
			for (const unsigned char *p = (const unsigned char *)name; *p; p++)
				fprintf(out, *p == '"' || *p == '\\' ? "\\%c" : *p < 0x20 ? "\\u%04x" : "%c", *p);
			fprintf(out, "\",\"samples\":%s,\"pct\":%.4f}", c1, pct);
		}
	}
	if (o->c.out == OUT_JSON)
		fprintf(out, "]}\n");
	if (t) {
		table_print(t, out, out_width(&o->c));
		table_free(t);
	}
	free(ord);
	return 0;
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

/* --sort comm,sym (pid,dso, tid,srcline ...): one table over the thread
 * groups, a row per (group, row), percentages of all their samples (as
 * perf prints them), largest first; --top and --min-pct over the whole. */
static int print_keyed(const struct opts *o, struct ana_set *s, struct ana_rows *rows, FILE *out)
{
	const struct common *c = &o->c;
	unsigned nr = ana_set_n_runs(s);
	size_t n = ana_rows_n(rows), k = 0, ev = o->q.event;
	double all = 0;
	size_t cap = n * nr;
	struct keyed *e = malloc((cap ? cap : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (unsigned r = 0; r < nr; r++) {
		all += run_total(o, s, r);
		int rev = ana_set_run_event(s, r, ev);
		for (size_t i = 0; rev >= 0 && i < n; i++) {
			if (!ana_rows_samples(rows, i, r, (size_t)rev, ANA_SELF) &&
			    !ana_rows_samples(rows, i, r, (size_t)rev, ANA_INCL))
				continue;
			e[k++] = (struct keyed){ r, i, ana_rows_value(rows, i, r, (size_t)rev, o->q.kind) };
		}
	}
	qsort(e, k, sizeof(*e), by_keyed_value);
	struct tcol cols[8];
	size_t nc = 0;
	cols[nc++] = (struct tcol){ "Self%", false, 0, 0, 0 };
	if (!o->no_children)
		cols[nc++] = (struct tcol){ "Incl%", false, 0, 0, 0 };
	cols[nc++] = (struct tcol){ c->o.weighted ? "Self value" : "Self", false, 0, 0, 0 };
	cols[nc++] = (struct tcol){ key_title(o), true, 2, 8, 12 };
	bool mods = c->view == ANA_VIEW_MODULES, lines = c->view == ANA_VIEW_LINES;
	const char *a = mods ? "Module" : o->dso_first ? "Module" : "Function";
	const char *b = mods ? "Path" : o->dso_first ? "Function" : "Module";
	cols[nc++] = (struct tcol){ a, true, 1, 10, 20 };
	cols[nc++] = (struct tcol){ b, true, 2, 6, 12 };
	if (!mods)
		cols[nc++] = (struct tcol){ lines ? "Line" : "Source", true, 3, 8, 16 };
	struct table *t = table_new(cols, nc);
	if (!t) {
		free(e);
		return -ENOMEM;
	}
	static char buf[8][CELL_MAX];
	const char *cell[8];
	size_t shown = 0;
	for (size_t j = 0; j < k && (!o->top || shown < o->top); j++) {
		const struct ana_row *r = ana_rows_row(rows, e[j].row);
		unsigned run = e[j].run;
		size_t rev = (size_t)ana_set_run_event(s, run, ev);
		double self = ana_rows_value(rows, e[j].row, run, rev, ANA_SELF);
		double incl = ana_rows_value(rows, e[j].row, run, rev, ANA_INCL);
		double ps = all > 0 ? 100 * self / all : 0, pi = all > 0 ? 100 * incl / all : 0;
		if (o->q.min_pct > 0 && (o->q.kind == ANA_SELF ? ps : pi) < o->q.min_pct)
			continue;
		size_t m = 0;
		snprintf(buf[m++], CELL_MAX, "%.2f", ps);
		if (!o->no_children)
			snprintf(buf[m++], CELL_MAX, "%.2f", pi);
		snprintf(buf[m++], CELL_MAX, c->o.weighted ? "%.4g" : "%.0f", self);
		snprintf(buf[m++], CELL_MAX, "%s", key_value(s, run));
		char fn[CELL_MAX], mod[CELL_MAX];
		if (mods) {
			snprintf(fn, sizeof(fn), "%s", r->name);
			snprintf(mod, sizeof(mod), "%s", r->module ? r->module : "");
		} else {
			if (r->inlined_into)
				snprintf(fn, sizeof(fn), "%s [inlined into %s]", r->name, r->inlined_into);
			else
				snprintf(fn, sizeof(fn), "%s", r->name);
			snprintf(mod, sizeof(mod), "%s", base_name(r->module));
		}
		bool swap = o->dso_first && !mods;
		snprintf(buf[m++], CELL_MAX, "%s", swap ? mod : fn);
		snprintf(buf[m++], CELL_MAX, "%s", swap ? fn : mod);
		if (!mods)
			fmt_source(buf[m++], CELL_MAX, r);
		for (size_t x = 0; x < m; x++)
			cell[x] = buf[x];
		if (table_add(t, cell)) {
			table_free(t);
			free(e);
			return -ENOMEM;
		}
		shown++;
	}
	table_print(t, out, out_width(c));
	table_free(t);
	free(e);
	return 0;
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
	struct opts *op = &args;
	struct common *c = &op->c;
	int e, rc;
	FILE *out = stdout;

	rc = EXIT_OK;
	if (op->flame || op->pprof || op->speedscope || op->trace) {
		print_notes(c, s, NULL);
		rc = exports(op, s, argc, argv, first);
		goto done;
	}
	if (c->out == OUT_COLLAPSED) {
		print_notes(c, s, NULL);
		if (op->q.event >= ana_set_n_events(s) - c->n_metrics) {
			fprintf(stderr, "%s: --collapsed needs an event, not a metric\n", c->prog);
			rc = EXIT_USAGE;
		} else if ((e = collapsed(s, op, out))) {
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
			rc = EXIT_RUNTIME;
		}
		goto done;
	}
	if (op->key_thread && !op->key_rows && !op->tree) {
		/* --sort comm: the thread groups are the rows */
		print_notes(c, s, NULL);
		if (c->out == OUT_TEXT && !c->no_header)
			print_summary(c, s, NULL, out);
		if ((e = print_groups(op, s, out))) {
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
			rc = EXIT_RUNTIME;
		}
		goto done;
	}
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
		ana_set_free(s);
		return e == ANA_ENOFUNC ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (c->out == OUT_CSV || c->out == OUT_JSON) {
		print_notes(c, s, NULL);
		e = c->out == OUT_CSV ? ana_rows_write_csv(rows, out) : ana_rows_write_json(rows, out);
	} else {
		unsigned nr = ana_set_n_runs(s);
		if (c->no_header) {
			print_notes(c, s, NULL);
		} else if (c->header) {
			print_notes(c, s, out);
		} else {
			print_errors(c, s);
			print_summary(c, s, NULL, out);
			if (c->time_spec)
				fprintf(out, "# time: only the samples in --time %s (from the timelines)\n",
					c->time_spec);
			if (c->filter[3] || c->filter[4])
				fprintf(out, "# filter:%s%s%s%s: only the samples in these; percentages "
					"are of all the run's samples\n", c->filter[3] ? " --dso " : "",
					c->filter[3] ? c->filter[3] : "", c->filter[4] ? " --symbols " : "",
					c->filter[4] ? c->filter[4] : "");
			print_warning_line(c, s, out);
		}
		e = 0;
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
		if (ferror(out))
			e = -EIO;
	}
	if (e) {
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
		rc = EXIT_RUNTIME;
	}
	ana_rows_free(rows);
done:
	if (rc == EXIT_OK && ana_set_n_errors(s))
		rc = EXIT_RUNTIME;
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
