/* pmcprof view: the interactive viewer.  Parses the command line, loads
 * the runs (with the symbol cache and the progress line report and diff
 * use), then hands the terminal to the UI. */
#include "config.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/analyze.h"
#include "cli/options.h"
#include "viewer-tui/view.h"

enum { O_MIN = COMMON_LAST + 1, O_MERGE, O_NOCMP, O_DEBUG, O_REMAP, O_NOMOUSE, O_SNAP, O_NOINL, O_SHORT,
       O_NOCACHE, O_LABEL };

static const struct opt view_opts[] = {
	OPT('e', "event", required_argument, "NAME|N",
	  "show this event first (name or column number from 1)"),
	OPT('w', "weighted", no_argument, NULL,
	  "values are sample weights (count x period), not counts"),
	OPT('T', "threshold", required_argument, "R", "colour ratios >= R or <= 1/R (default 1.2)"),
	OPT(O_MIN, "min-samples", required_argument, "N",
	  "compare: hide functions with fewer samples in every run"),
	OPT(O_NOCMP, "no-compare", no_argument, NULL, "open several runs without compare mode"),
	OPT_INCLUDE(common_filter_opts),
	OPT(O_MERGE, "merge", no_argument, NULL,
	  "merge the runs found under a directory (each\n"
	  "directory holding profiles is one record run)"),
	OPT(O_LABEL, "label", required_argument, "NAME",
	  "name the first run, then each next one, in order\n"
	  "(repeatable; default: the run's argument)"),
	OPT(O_DEBUG, "debug-dir", required_argument, "DIRS",
	  "extra debug-info and source roots, colon-separated"),
	OPT(O_REMAP, "remap", required_argument, "OLD=NEW",
	  "read modules and sources under OLD from NEW (repeatable)"),
	OPT(O_NOCACHE, "no-cache", no_argument, NULL,
	  "do not use the symbol cache ($PMCPROF_CACHE_DIR, else\n"
	  "~/.cache/pmcprof/symbols; PMCPROF_CACHE_DIR= disables it)"),
	OPT(O_NOMOUSE, "no-mouse", no_argument, NULL, "leave the mouse to the terminal"),
	OPT(O_NOINL, "no-inline", no_argument, NULL,
	  "charge inlined code to the function it was inlined\n"
	  "into (as perf report --no-inline)"),
	OPT(O_SHORT, "short-names", no_argument, NULL,
	  "function names without their namespace and class"),
	OPT(O_SNAP, "snapshot", required_argument, "WxH",
	  "print the first screen at W columns by H rows as text\n"
	  "and exit (needs no terminal; for scripts and tests)"),
	OPT_END,
};

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
	.opts = view_opts,
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

int main(int argc, char **argv)
{
	struct load_opts lo = { 0 };
	const char *labels[64];
	size_t n_labels = 0;
	struct ui_opts uo = { .sz = sizeof(uo), .load = &lo, .compare = true };
	const char *event = NULL;
	bool mouse = true, no_cache = false, merge = false;
	int snap_w = 0, snap_h = 0, opt, rc, first;
	char err[1024], cache[4096], *end;
	const char *val;
	struct opt_parser p;
	struct ana_set *set;
	struct ui *ui;
	static const char *remap[65];	/* --remap values, NULL-terminated */
	size_t n_remap = 0;
	static char *filter[5];	/* --comm ... --symbols (freed at exit) */

	lo.remap = remap;
	analysis_malloc_policy();

	setlocale(LC_ALL, "");
	text_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	opts_begin(&p, &view_cmd, argc, argv);
	while ((opt = opts_next(&p, &val)) != -1) {
		switch (opt) {
		case 'e':
			event = val;
			break;
		case 'w':
			lo.weighted = true;
			break;
		case 'T':
			uo.threshold = strtod(val, &end);
			if (*end || !(uo.threshold > 1)) {
				fprintf(stderr, "pmcprof view: --threshold wants a number above 1, "
						"not '%s'\n", val);
				return 1;
			}
			break;
		case O_MIN:
			uo.min_samples = strtoull(val, &end, 10);
			if (*end || !*val) {
				fprintf(stderr, "pmcprof view: --min-samples wants a count, not '%s'\n",
					val);
				return 1;
			}
			break;
		case O_LABEL:
			if (n_labels < sizeof(labels) / sizeof(*labels))
				labels[n_labels++] = val;
			lo.labels = labels;
			lo.n_labels = n_labels;
			break;
		case O_NOCMP:
			uo.compare = false;
			break;
		case O_MERGE:
			merge = true;
			break;
		case COMMON_COMM:
		case COMMON_PID:
		case COMMON_TID:
		case COMMON_DSO:
		case COMMON_SYMBOLS:
			if (filter_option(filter, "pmcprof view", opt, val))
				return 1;
			break;
		case O_DEBUG:
			lo.debug_dirs = val;
			break;
		case O_REMAP:
			if (!strchr(val, '=') || val[0] == '=') {
				fprintf(stderr, "pmcprof view: --remap wants OLD=NEW, not '%s'\n", val);
				return 1;
			}
			if (n_remap == ARRAY_SIZE(remap) - 1) {
				fprintf(stderr, "pmcprof view: more than %zu --remap options\n",
					ARRAY_SIZE(remap) - 1);
				return 1;
			}
			remap[n_remap++] = val;
			break;
		case O_NOMOUSE:
			mouse = false;
			break;
		case O_NOCACHE:
			no_cache = true;
			break;
		case O_NOINL:
			lo.no_inline = true;
			break;
		case O_SHORT:
			lo.short_names = true;
			break;
		case O_SNAP:
			if (sscanf(val, "%dx%d", &snap_w, &snap_h) != 2 || snap_w < 1 ||
			    snap_h < 1 || snap_w > 4096 || snap_h > 4096) {
				fprintf(stderr, "pmcprof view: --snapshot wants WIDTHxHEIGHT, "
						"e.g. 80x24, not '%s'\n", val);
				return 1;
			}
			break;
		}
	}
	first = p.ind;
	if (first >= argc)
		opts_die(&view_cmd, "which profile?  Give a .pmcp file or a directory "
				    "(pmcprof record writes one).");
	/* Before the (maybe long) load: a pipe cannot take a full-screen UI. */
	if (!snap_w && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "pmcprof view: needs a terminal (%s is not a TTY); for text "
				"output use 'pmcprof report' or 'pmcprof diff'\n",
			isatty(STDIN_FILENO) ? "standard output" : "standard input");
		return 1;
	}
	/* Runs compared are operands ("A,B": repeats); under one, one run. */
	for (int i = first; i < argc; i++) {
		char *copy = strdup(argv[i]), *save = NULL;
		for (char *q = copy ? strtok_r(copy, ",", &save) : NULL; q;
		     q = strtok_r(NULL, ",", &save)) {
			if (check_runs("pmcprof view", q, merge)) {
				free(copy);
				return 2;
			}
		}
		free(copy);
	}
	lo.cache_dir = symbol_cache_dir(no_cache, cache, sizeof(cache));
	lo.comms = filter[0];
	lo.pids = filter[1];
	lo.tids = filter[2];
	lo.dsos = filter[3];
	lo.symbols = filter[4];
	if (isatty(STDERR_FILENO)) {
		progress_start("pmcprof view");
		lo.progress_fn = progress_cb;
	}
	rc = set_load(&set, argv + first, (size_t)(argc - first), &lo, err, sizeof(err));
	progress_done();
	if (rc != 0) {
		fprintf(stderr, "pmcprof view: %s\n", err);
		return 2;
	}
	if (event && find_event(set, event, &uo.event) != 0) {
		fprintf(stderr, "pmcprof view: no event '%s' in these profiles; they have:", event);
		for (size_t i = 0; i < ana_set_n_events(set); i++)
			fprintf(stderr, " %s", ana_set_event(set, i));
		fprintf(stderr, "\n");
		ana_set_free(set);
		return 1;
	}
	ui = ui_new(set, argv + first, (size_t)(argc - first), &uo);
	if (!ui) {
		fprintf(stderr, "pmcprof view: %s\n", ana_strerror(-errno));
		ana_set_free(set);
		return 2;
	}
	if (snap_w)
		rc = snapshot(ui, snap_w, snap_h);
	else if ((rc = term_run(ui, mouse, err, sizeof(err))) != 0) {
		fprintf(stderr, "pmcprof view: %s\n", err);
		rc = 2;
	}
	ui_free(ui);
	return rc;
}
