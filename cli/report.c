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

static const char usage[] =
	"Usage: pmcprof report [OPTIONS] PROFILE|DIR...\n"
	"Merge the profiles (files, or directories searched for *.pmcp) and show\n"
	"where the samples went.  Values are sample counts unless --weight.\n"
	"\n"
	"Views (default: flat per function):\n"
	"  --lines               per source line\n"
	"  --function FUNC       with --lines: only FUNC's lines (FUNC or MODULE:FUNC)\n"
	"  --modules             per module\n"
	"  --callers FUNC        functions calling FUNC (FUNC or MODULE:FUNC)\n"
	"  --callees FUNC        functions FUNC calls\n"
	"  --tree[=top-down|bottom-up]  calling-context tree (bottom-up: each function's\n"
	"                        own samples, then the callers they came through)\n"
	"  --depth N             tree levels to show (default: all)\n"
	"Selection:\n"
	"  -e, --event NAME      sort and show this event (default: all, sort by the first)\n"
	"  --sort self|incl|name sort order (default: self; top-down tree: incl;\n"
	"                        bottom-up tree: self)\n"
	"  --top N               show the first N rows (trees: N children per node)\n"
	"  --min-pct P           hide rows under P% of the total (trees: default 0.5)\n"
	"  --metric NAME=EXPR    derived column, e.g. 'CPI=cycles/instructions'\n"
	"                        (+ - * / parentheses, event names, numbers)\n"
	"  --by thread|process|rank|host  one report per thread, process, rank, host\n"
	"  --weight              show sample weights (count x period used), not counts\n"
	"Symbols:\n"
	"  --debug-dir DIR       look for debug info under DIR too (repeatable)\n"
	"  --no-inline           charge inlined code to the function it was inlined\n"
	"                        into (as perf report --no-inline)\n"
	"  --short-names         function names without their namespace and class\n"
	"  --remap OLD=NEW       read modules under OLD from NEW instead (repeatable)\n"
	"  --no-cache            do not use the symbol cache ($PMCPROF_CACHE_DIR, else\n"
	"                        ~/.cache/pmcprof/symbols; PMCPROF_CACHE_DIR= disables it)\n"
	"Output:\n"
	"  --csv | --json | --collapsed   CSV (RFC 4180), JSON, FlameGraph stacks\n"
	"  --flamegraph FILE     write a flame graph: FILE.svg, or FILE.html for a page\n"
	"                        (hover, click to zoom, search; --tree=bottom-up: by\n"
	"                        self cost, callers above)\n"
	"  --pprof FILE          write pprof's profile.proto, gzipped (go tool pprof)\n"
	"  --speedscope FILE     write a speedscope file, one profile per thread (implies\n"
	"                        --by thread unless --by is given)\n"
	"                        (FILE '-': standard output; the options combine, and\n"
	"                        replace the report on standard output)\n"
	"  --width N             text width (default: $COLUMNS or 80)\n"
	"  --no-header           no header lines in text output\n"
	"  -q, --quiet           no informational notes or progress\n"
	"  --help                this text\n"
	"\n"
	"Exit status: 0 ok, 1 usage error, 2 a file could not be read or no samples.\n"
	"docs/analyzer.md describes the columns and statistics.\n";

struct opts {
	struct common c;
	struct ana_query q;
	bool tree, bottom_up, no_header, sort_given, min_pct_given;
	const char *line_func;		/* --function */
	unsigned depth;
	const char *flame, *pprof, *speedscope;	/* files to write instead of a report */
};

static int parse_uint(struct common *c, const char *opt, const char *v, unsigned long max,
		      unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long x = strtoul(v ? v : "", &end, 10);
	if (!v || !*v || *end || errno || x > max || v[0] == '-')
		return usage_error(c, "%s: expected a number up to %lu, got '%s'", opt, max,
				   v ? v : "");
	*out = x;
	return 0;
}

static int parse(struct opts *o, int argc, char **argv, int *first_path)
{
	struct common *c = &o->c;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r = parse_common(c, argc, argv, &i);
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		unsigned long n;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			exit(EXIT_OK);
		} else if (!strcmp(a, "--top") || !strcmp(a, "-n")) {
			if (parse_uint(c, a, v, 1000000000, &n))
				return EXIT_USAGE;
			o->q.top = n;
			i++;
		} else if (!strcmp(a, "--depth")) {
			if (parse_uint(c, a, v, 100000, &n))
				return EXIT_USAGE;
			o->depth = (unsigned)n;
			i++;
		} else if (!strcmp(a, "--min-pct")) {
			char *end;
			double p = v ? strtod(v, &end) : NAN;
			if (!v || *end || !(p >= 0 && p <= 100))
				return usage_error(c, "--min-pct: expected 0..100, got '%s'", v ? v : "");
			o->q.min_pct = p;
			o->min_pct_given = true;
			i++;
		} else if (!strcmp(a, "--sort")) {
			if (v && !strcmp(v, "self"))
				o->q.kind = ANA_SELF;
			else if (v && !strcmp(v, "incl"))
				o->q.kind = ANA_INCL;
			else if (v && !strcmp(v, "name"))
				o->q.sort = ANA_SORT_NAME;
			else
				return usage_error(c, "--sort: expected self, incl or name, got '%s'",
						   v ? v : "");
			o->sort_given = true;
			i++;
		} else if (!strcmp(a, "--callers") || !strcmp(a, "--callees")) {
			if (!v)
				return usage_error(c, "%s needs a function name", a);
			c->view = !strcmp(a, "--callers") ? ANA_VIEW_CALLERS : ANA_VIEW_CALLEES;
			c->func = v;
			i++;
		} else if (!strcmp(a, "--function")) {
			if (!v)
				return usage_error(c, "%s needs a function name", a);
			o->line_func = v;
			i++;
		} else if (!strcmp(a, "--tree") || !strcmp(a, "--tree=top-down")) {
			o->tree = true;
		} else if (!strcmp(a, "--tree=bottom-up")) {
			o->tree = o->bottom_up = true;
		} else if (!strcmp(a, "--collapsed")) {
			c->out = OUT_COLLAPSED;
		} else if (!strcmp(a, "--flamegraph") || !strcmp(a, "--pprof") ||
			   !strcmp(a, "--speedscope")) {
			if (!v || !*v)
				return usage_error(c, "%s needs a file name", a);
			*(a[2] == 'f' ? &o->flame : a[2] == 'p' ? &o->pprof : &o->speedscope) = v;
			i++;
		} else if (!strcmp(a, "--no-header")) {
			o->no_header = true;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (a[0] == '-' && a[1]) {
			return usage_error(c, "unknown option '%s'", a);
		} else {
			break;
		}
	}
	*first_path = i;
	if (i >= argc)
		return usage_error(c, "no profile given");
	for (int k = i; k < argc; k++)
		if (argv[k][0] == '-' && argv[k][1] && strcmp(argv[k], "-"))
			return usage_error(c, "options go before the profiles ('%s')", argv[k]);
	if (o->tree && c->view != ANA_VIEW_FUNCS)
		return usage_error(c, "--tree does not combine with --lines, --modules, --callers, --callees");
	if ((o->flame || o->pprof || o->speedscope) &&
	    (c->out != OUT_TEXT || c->view != ANA_VIEW_FUNCS))
		return usage_error(c, "--flamegraph, --pprof and --speedscope write the calling-context "
				   "tree: they do not combine with other outputs or views");
	if (o->line_func) {
		if (c->view != ANA_VIEW_LINES)
			return usage_error(c, "--function goes with --lines");
		c->func = o->line_func;
	}
	return 0;
}

static const char *short_event(const char *name, char *buf, size_t len)
{
	const char *p = strstr(name, "::");
	snprintf(buf, len, "%s", p ? p + 2 : name);
	return buf;
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
	struct table *t = table_new(cols, nc);
	if (!t)
		return -ENOMEM;
	char buf[200][96];
	const char *cell[200];
	for (size_t i = 0; i < ana_rows_n(rows); i++) {
		const struct ana_row *r = ana_rows_row(rows, i);
		size_t k = 0;
		for (size_t j = 0; j < n_ev_cols; j++) {
			size_t e = evs[j];
			if (e >= n_real) {
				double v = ana_rows_value(rows, i, run, e, ANA_SELF);
				if (isnan(v))
					buf[k][0] = 0;
				else
					snprintf(buf[k], 96, "%.4g", v);
				k++;
				continue;
			}
			enum ana_kind a = incl_first ? ANA_INCL : ANA_SELF;
			enum ana_kind b = incl_first ? ANA_SELF : ANA_INCL;
			double pa = ana_rows_pct(rows, i, run, e, a), pb = ana_rows_pct(rows, i, run, e, b);
			snprintf(buf[k++], 96, isnan(pa) ? "" : "%.2f", pa);
			snprintf(buf[k++], 96, isnan(pb) ? "" : "%.2f", pb);
			if (c->o.weighted)
				snprintf(buf[k++], 96, "%.4g", ana_rows_value(rows, i, run, e, a));
			else
				snprintf(buf[k++], 96, "%llu",
					 (unsigned long long)ana_rows_samples(rows, i, run, e, a));
		}
		if (c->view == ANA_VIEW_LINES) {
			fmt_source(buf[k++], 96, r);
		}
		if (c->view == ANA_VIEW_MODULES) {
			snprintf(buf[k++], 96, "%s", r->name);
			snprintf(buf[k++], 96, "%s", r->module ? r->module : "");
		} else {
			int ind = tree ? 2 * (int)(r->depth - 1) : 0;
			if (ind > 60)
				ind = 60;
			if (r->inlined_into)
				snprintf(buf[k++], 96, "%*s%s [inlined into %s]", ind, "", r->name,
					 r->inlined_into);
			else
				snprintf(buf[k++], 96, "%*s%s%s", ind, "", r->name,
					 r->flags & ANA_ROW_INLINED ? " [inlined]" : "");
			snprintf(buf[k++], 96, "%s", base_name(r->module));
			if (c->view != ANA_VIEW_LINES)
				fmt_source(buf[k++], 96, r);
		}
		for (size_t j = 0; j < nc; j++)
			cell[j] = buf[j];
		if (table_add(t, cell)) {
			table_free(t);
			return -ENOMEM;
		}
	}
	table_print(t, out, out_width(c));
	table_free(t);
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

static int run(struct opts *op, int argc, char **argv);

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	int rc = run(&o, argc, argv);
	common_free(&o.c);
	return rc;
}

static int run(struct opts *op, int argc, char **argv)
{
	common_init(&op->c, "pmcprof report");
	op->q = (struct ana_query){ .sz = sizeof(op->q), .base = -1 };
	int first = 0;
	if (parse(op, argc, argv, &first))
		return EXIT_USAGE;
	struct common *c = &op->c;
	c->o.line_contexts = op->pprof != NULL;	/* pprof's line numbers */
	if (op->speedscope && !op->flame && !op->pprof && c->o.split == ANA_SPLIT_NONE)
		c->o.split = ANA_SPLIT_THREAD;	/* speedscope shows a profile per thread */
	struct ana_set *s = common_set(c);
	if (!s)
		return EXIT_RUNTIME;
	for (int i = first; i < argc; i++) {
		int e = ana_set_add(s, 0, 0, argv[i]);
		if (e == -ENOMEM) {
			progress_done();
			fprintf(stderr, "%s: out of memory\n", c->prog);
			return EXIT_RUNTIME;
		}
	}
	if (first + 1 == argc)
		ana_set_label(s, 0, argv[first]);
	int e = ana_set_finish(s);
	progress_done();
	FILE *out = stdout;
	if (e) {
		print_notes(c, s, NULL);
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
		ana_set_free(s);
		return EXIT_RUNTIME;
	}
	int col = common_columns(c, s);
	if (col < 0) {
		ana_set_free(s);
		return EXIT_USAGE;
	}
	op->q.event = (size_t)col;
	op->q.view = op->tree ? (op->bottom_up ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN) : c->view;
	op->q.func = c->func;
	op->q.max_depth = op->tree ? (op->depth ? op->depth : UINT_MAX) : 0;
	if (op->tree && !op->min_pct_given && c->out == OUT_TEXT)
		op->q.min_pct = 0.5;	/* a full tree is rarely readable as text */

	int rc = EXIT_OK;
	if (op->flame || op->pprof || op->speedscope) {
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
		if (!op->no_header)
			print_notes(c, s, out);
		else
			print_notes(c, s, NULL);
		for (unsigned r = 0; r < ana_set_n_runs(s) && !e; r++) {
			if (r)
				fputc('\n', out);
			if (!op->no_header)
				print_run_header(c, s, r, "run", out);
			if (c->view == ANA_VIEW_CALLERS || c->view == ANA_VIEW_CALLEES)
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
