/* Runs a sequence of queries on one analyzer set, as the viewer does, and
 * prints the rows and the peak resident memory after each:
 *
 *   ana_query [-b] [-w] PROFILE|DIR SEQUENCE
 *
 * SEQUENCE letters: f functions, l lines, t whole top-down tree, r bottom-up
 * roots, b whole bottom-up tree.  -b thread: split by thread (--by thread);
 * -w: weighted.  Output, one line per letter: "LETTER rows N peak_kib K". */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analyzer.h"

/* VmHWM: the peak resident set so far, in KiB. */
static long peak_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			v = atol(line + 6);
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	ANA_OPTS(o);
	int opt;
	while ((opt = getopt(argc, argv, "b:w")) != -1) {
		if (opt == 'b' && !strcmp(optarg, "thread"))
			o.split = ANA_SPLIT_THREAD;
		else if (opt == 'w')
			o.weighted = true;
		else
			return 1;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: ana_query [-b thread] [-w] PROFILE|DIR SEQUENCE\n");
		return 1;
	}
	struct ana_set *s = ana_set_new(&o);
	int e = s ? ana_set_add(s, 0, 0, argv[optind]) : -1;
	if (e || (e = ana_set_finish(s))) {
		fprintf(stderr, "ana_query: %s\n", ana_strerror(e));
		return 2;
	}
	printf("finish rows 0 peak_kib %ld\n", peak_kib());
	for (const char *p = argv[optind + 1]; *p; p++) {
		ANA_QUERY(q, .view = ANA_VIEW_FUNCS);
		switch (*p) {
		case 'f': break;
		case 'l': q.view = ANA_VIEW_LINES; break;
		case 't': q.view = ANA_VIEW_TOPDOWN; q.max_depth = UINT_MAX; break;
		case 'r': q.view = ANA_VIEW_BOTTOMUP; break;
		case 'b': q.view = ANA_VIEW_BOTTOMUP; q.max_depth = UINT_MAX; break;
		default:
			fprintf(stderr, "ana_query: unknown query letter '%c'\n", *p);
			return 1;
		}
		struct ana_rows *r = ana_set_query(s, &q);
		if (!r) {
			fprintf(stderr, "ana_query: %c: %s\n", *p, ana_strerror(errno));
			return 2;
		}
		printf("%c rows %zu peak_kib %ld\n", *p, ana_rows_n(r), peak_kib());
		ana_rows_free(r);
	}
	ana_set_free(s);
	return 0;
}
