/* pmcprof view: the interactive viewer.  Parses the command line, loads
 * the runs (with the symbol cache and the progress line report and diff
 * use), then hands the terminal to the UI. */
#include "config.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/analyze.h"
#include "cli/options.h"
#include "viewer-tui/view.h"

static const struct opt_cmd view_cmd = {
	.prog = "pmcprof view",
	.synopsis = "pmcprof view [OPTIONS] PROFILE...\n"
		    "       pmcprof view [OPTIONS] BASE RUN...",
	.description =
		"Browse profiles in the terminal: functions with self and inclusive samples,\n"
		"callers and callees, calling-context trees, source lines and annotated source.\n"
		"Each PROFILE is a .pmcp file or a directory of them (one run); \"A,B\" makes one\n"
		"run of the repeats A and B.  With two or more runs the view compares them with\n"
		"the first (BASE): one ratio column per run, with a confidence interval and *\n"
		"when the difference is significant.  Press ? in the viewer for the keys.\n",
	.footer =
		"Exit status: 0 after q, 1 usage error (also: not a terminal), 2 a profile\n"
		"could not be read.  NO_COLOR turns colour off.  See pmcprof-view(1).\n",
};

/* -e: an event as users type it, or its column number from 1. */
static int find_event(const struct ana_set *s, const char *want, size_t *out)
{
	char *end;
	unsigned long n = strtoul(want, &end, 10);
	int i;

	if (*want && !*end && n >= 1 && n <= ana_set_n_events(s)) {
		*out = n - 1;
		return 0;
	}
	i = ana_set_event_index(s, want);
	if (i < 0)
		return -ENOENT;
	*out = (size_t)i;
	return 0;
}

static int snapshot(struct ui *ui, int w, int h)
{
	struct canvas *c = canvas_mem_new(w, h);
	char line[8192];

	if (!c) {
		fprintf(stderr, "pmcprof view: --snapshot: %s\n", strerror(errno));
		return 2;
	}
	ui_draw(ui, c, REACT_ALL);
	for (int y = 0; y < h; y++)
		printf("%s\n", canvas_mem_line(c, y, line, sizeof(line)));
	canvas_mem_free(c);
	return fflush(stdout) == 0 ? 0 : 2;
}

/* What the command line asks. */
struct args {
	struct common c;	/* the options view shares with report */
	struct ui_opts uo;
	struct load_opts lo;
	const char **labels;	/* --label */
	size_t n_labels;
	bool mouse;
	int snap_w, snap_h;	/* --snapshot */
	int first;		/* the first run's argument */
};

/* --snapshot WxH */
static int snapshot_size(void *ctx, const char *v)
{
	struct args *a = ctx;

	if (sscanf(v, "%dx%d", &a->snap_w, &a->snap_h) != 2 || a->snap_w < 1 || a->snap_h < 1 ||
	    a->snap_w > 4096 || a->snap_h > 4096)
		return usage_error(&a->c, "--snapshot: expected WIDTHxHEIGHT, e.g. 80x24, got '%s'",
				   v), -1;
	return 0;
}

static void parse(struct args *a, int argc, char **argv)
{
	struct common *c = &a->c;
	const struct opt opts[] = {
		OPT_STRING('e', "event", &c->event, "NAME|N",
			   "show this event first (name or column number from 1)"),
		OPT_BOOL('w', "weighted", &c->o.weighted,
			 "values are sample weights (count x period), not counts"),
		OPT_DOUBLE('T', "threshold", &a->uo.threshold, 1, HUGE_VAL, "R",
			   "colour ratios >= R or <= 1/R (default 1.2)", .open = true,
			   .expect = "a threshold above 1"),
		OPT_UINT(0, "min-samples", &a->uo.min_samples, 0, ~0ULL, "N",
			 "compare: hide functions with fewer samples in every run",
			 .expect = "a count"),
		OPT_SET_INT(0, "no-compare", &a->uo.compare, false,
			    "open several runs without compare mode"),
		COMMON_FILTER_OPTS(c),
		COMMON_TIME_OPTS(c),
		COMMON_INPUT_OPTS(c),
		OPT_LIST(0, "label", &a->labels, &a->n_labels, "NAME",
			 "name the first run, then each next one, in order\n"
			 "(repeatable; default: the run's argument)"),
		COMMON_SYMBOL_OPTS(c),
		OPT_SET_INT(0, "no-mouse", &a->mouse, false, "leave the mouse to the terminal"),
		OPT_CALLBACK(0, "snapshot", required_argument, snapshot_size, a, "WxH",
			     "print the first screen at W columns by H rows as text\n"
			     "and exit (needs no terminal; for scripts and tests)"),
		OPT_END,
	};

	a->first = opts_parse(&view_cmd, opts, argc, argv);
	if (a->first >= argc)
		opts_die(&view_cmd, "which profile?  Give a .pmcp file or a directory "
				    "(pmcprof record writes one).");
}

/* Every run's files ("A,B": repeats) with one run under each, unless
 * --merge: 0, or -1 (said). */
static int check_operands(const struct args *a, int argc, char **argv)
{
	for (int i = a->first; i < argc; i++) {
		char *copy = strdup(argv[i]), *save = NULL;
		for (char *q = copy ? strtok_r(copy, ",", &save) : NULL; q;
		     q = strtok_r(NULL, ",", &save)) {
			if (check_runs(a->c.prog, q, a->c.merge)) {
				free(copy);
				return -1;
			}
		}
		free(copy);
	}
	return 0;
}

/* The runs loaded as the options say: 0, or the exit status (said). */
static int load(struct args *a, struct ana_set **set, int argc, char **argv)
{
	struct common *c = &a->c;
	struct load_opts *lo = &a->lo;
	char err[1024];

	*lo = (struct load_opts){
		.weighted = c->o.weighted, .debug_dirs = c->debug_dirs, .remap = c->remap,
		.cache_dir = symbol_cache_dir(c->no_cache, c->cache_dir, sizeof(c->cache_dir)),
		.no_inline = c->o.no_inline, .short_names = c->o.short_names,
		.comms = c->filter[0], .pids = c->filter[1], .tids = c->filter[2],
		.dsos = c->filter[3], .symbols = c->filter[4],
		.time = c->o.time, .n_time = c->o.n_time, .time_spec = c->time_spec,
		.labels = a->labels, .n_labels = a->n_labels,
	};
	if (isatty(STDERR_FILENO)) {
		progress_start(c->prog);
		lo->progress_fn = progress_cb;
	}
	int rc = set_load(set, argv + a->first, (size_t)(argc - a->first), lo, err, sizeof(err));
	progress_done();
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", c->prog, err);
		return EXIT_RUNTIME;
	}
	if (common_time_check(c, *set))
		return EXIT_RUNTIME;
	if (c->event && find_event(*set, c->event, &a->uo.event) != 0) {
		fprintf(stderr, "%s: no event '%s' in these profiles; they have:", c->prog, c->event);
		for (size_t i = 0; i < ana_set_n_events(*set); i++)
			fprintf(stderr, " %s", ana_set_event(*set, i));
		fprintf(stderr, "\n");
		ana_set_free(*set);
		return EXIT_USAGE;
	}
	return 0;
}

static int run(struct args *a, int argc, char **argv)
{
	struct ana_set *set;
	struct ui *ui;
	char err[1024];
	int rc;

	parse(a, argc, argv);
	/* Before the (maybe long) load: a pipe cannot take a full-screen UI. */
	if (!a->snap_w && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "pmcprof view: needs a terminal (%s is not a TTY); for text "
				"output use 'pmcprof report' or 'pmcprof diff'\n",
			isatty(STDIN_FILENO) ? "standard output" : "standard input");
		return EXIT_USAGE;
	}
	if (check_operands(a, argc, argv))
		return EXIT_RUNTIME;
	if ((rc = load(a, &set, argc, argv)))
		return rc;
	ui = ui_new(set, argv + a->first, (size_t)(argc - a->first), &a->uo);
	if (!ui) {
		fprintf(stderr, "pmcprof view: %s\n", ana_strerror(-errno));
		ana_set_free(set);
		return EXIT_RUNTIME;
	}
	if (a->snap_w)
		rc = snapshot(ui, a->snap_w, a->snap_h);
	else if ((rc = term_run(ui, a->mouse, err, sizeof(err))) != 0) {
		fprintf(stderr, "pmcprof view: %s\n", err);
		rc = EXIT_RUNTIME;
	}
	ui_free(ui);
	return rc;
}

int main(int argc, char **argv)
{
	struct args a = { .uo = { .sz = sizeof(a.uo), .load = &a.lo, .compare = true },
			  .mouse = true };
	int rc;

	common_init(&a.c, "pmcprof view");
	setlocale(LC_ALL, "");
	text_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	rc = run(&a, argc, argv);
	common_free(&a.c);
	free(a.labels);
	return rc;
}
