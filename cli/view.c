/* pmcprof view: the interactive viewer.  Parses the command line, loads
 * the runs (progress on stderr), then hands the terminal to the UI. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "viewer-tui/view.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmcprof view [OPTIONS] PROFILE...\n"
		"       pmcprof view [OPTIONS] BASE RUN...\n"
		"\n"
		"Browse profiles in the terminal: functions with self and inclusive samples,\n"
		"callers and callees, calling-context trees, source lines and annotated source.\n"
		"Each PROFILE is a .pmcp file or a directory of them (one run); \"A,B\" makes one\n"
		"run of the repeats A and B.  With two or more runs the view compares them with\n"
		"the first (BASE): one ratio column per run, with a confidence interval and *\n"
		"when the difference is significant.  Press ? in the viewer for the keys.\n"
		"\n"
		"options:\n"
		"  -e, --event=NAME|N     show this event first (name or column number from 1)\n"
		"  -w, --weighted         values are sample weights (count x period), not counts\n"
		"  -T, --threshold=R      colour ratios >= R or <= 1/R (default 1.2)\n"
		"      --min-samples=N    compare: hide functions with fewer samples in every run\n"
		"      --no-compare       open several runs without compare mode\n"
		"      --debug-dir=DIRS   extra debug-info and source roots, colon-separated\n"
		"      --no-inline        charge inlined code to the function it was inlined\n"
		"                         into (as perf report --no-inline)\n"
		"      --short-names      function names without their namespace and class\n"
		"      --remap=OLD=NEW    read modules and sources under OLD from NEW (repeatable)\n"
		"      --no-mouse         leave the mouse to the terminal\n"
		"      --snapshot=WxH     print the first screen at W columns by H rows as text\n"
		"                         and exit (needs no terminal; for scripts and tests)\n"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 after q, 1 usage error (also: not a terminal), 2 a profile\n"
		"could not be read.  NO_COLOR turns colour off.\n");
}

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
	enum { O_MIN = 256, O_NOCMP, O_DEBUG, O_REMAP, O_NOMOUSE, O_SNAP, O_NOINL, O_SHORT };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "weighted", no_argument, NULL, 'w' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "min-samples", required_argument, NULL, O_MIN },
		{ "no-compare", no_argument, NULL, O_NOCMP },
		{ "debug-dir", required_argument, NULL, O_DEBUG },
		{ "remap", required_argument, NULL, O_REMAP },
		{ "no-mouse", no_argument, NULL, O_NOMOUSE },
		{ "snapshot", required_argument, NULL, O_SNAP },
		{ "no-inline", no_argument, NULL, O_NOINL },
		{ "short-names", no_argument, NULL, O_SHORT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct load_opts lo = { .progress = true };
	struct ui_opts uo = { .sz = sizeof(uo), .load = &lo, .compare = true };
	const char *event = NULL;
	bool mouse = true;
	int snap_w = 0, snap_h = 0, opt, rc;
	char err[1024], *end;
	struct ana_set *set;
	struct ui *ui;
	static const char *remap[65];	/* --remap values, NULL-terminated */
	size_t n_remap = 0;

	lo.remap = remap;

	setlocale(LC_ALL, "");
	text_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	while ((opt = getopt_long(argc, argv, "e:wT:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			event = optarg;
			break;
		case 'w':
			lo.weighted = true;
			break;
		case 'T':
			uo.threshold = strtod(optarg, &end);
			if (*end || !(uo.threshold > 1)) {
				fprintf(stderr, "pmcprof view: --threshold wants a number above 1, "
						"not '%s'\n", optarg);
				return 1;
			}
			break;
		case O_MIN:
			uo.min_samples = strtoull(optarg, &end, 10);
			if (*end || !*optarg) {
				fprintf(stderr, "pmcprof view: --min-samples wants a count, not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case O_NOCMP:
			uo.compare = false;
			break;
		case O_DEBUG:
			lo.debug_dirs = optarg;
			break;
		case O_REMAP:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				fprintf(stderr, "pmcprof view: --remap wants OLD=NEW, not '%s'\n", optarg);
				return 1;
			}
			if (n_remap == ARRAY_SIZE(remap) - 1) {
				fprintf(stderr, "pmcprof view: more than %zu --remap options\n",
					ARRAY_SIZE(remap) - 1);
				return 1;
			}
			remap[n_remap++] = optarg;
			break;
		case O_NOMOUSE:
			mouse = false;
			break;
		case O_NOINL:
			lo.no_inline = true;
			break;
		case O_SHORT:
			lo.short_names = true;
			break;
		case O_SNAP:
			if (sscanf(optarg, "%dx%d", &snap_w, &snap_h) != 2 || snap_w < 1 ||
			    snap_h < 1 || snap_w > 4096 || snap_h > 4096) {
				fprintf(stderr, "pmcprof view: --snapshot wants WIDTHxHEIGHT, "
						"e.g. 80x24, not '%s'\n", optarg);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "pmcprof view: which profile?  Give a .pmcp file or a directory "
				"(pmcprof record writes one).\n\n");
		usage(stderr);
		return 1;
	}
	/* Before the (maybe long) load: a pipe cannot take a full-screen UI. */
	if (!snap_w && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "pmcprof view: needs a terminal (%s is not a TTY); for text "
				"output use 'pmcprof report' or 'pmcprof diff'\n",
			isatty(STDIN_FILENO) ? "standard output" : "standard input");
		return 1;
	}
	rc = set_load(&set, argv + optind, (size_t)(argc - optind), &lo, err, sizeof(err));
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
	ui = ui_new(set, argv + optind, (size_t)(argc - optind), &uo);
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
