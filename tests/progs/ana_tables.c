/* Prints what the analyzer's public tables say of a set (analyzer.h, "the
 * set's tables"), for tests/integration/analyzer_tables.sh:
 *
 *   ana_tables [-l] [-t] PROFILE|DIR...
 *
 * -l: keep line contexts; -t: keep timelines.  Every path is one run.
 * Lines: "func NAME module=BASE file=F line=N mod=M", "module BASE
 * path=P bid=LEN file=0|1 main=0|1", "total RUN EVENT SAMPLES VALUE",
 * "ctx RUN EVENT SAMPLES" (the line contexts' sums), "rows ok|bad N" (each
 * top-down row's node function has the row's name), "contexts ok|bad N"
 * (each context's chain ends at the root, its functions valid), "walk
 * THREAD OPENS CLOSES ok|bad" (slices balanced, properly nested). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analyzer.h"

static void functions(const struct ana_set *s)
{
	for (uint32_t f = 0; f < ana_set_n_functions(s); f++) {
		struct ana_function fn = { .sz = sizeof(fn) };
		if (ana_set_function(s, f, &fn))
			printf("func-error %u\n", f);
		else
			printf("func %s module=%s file=%s line=%u mod=%u\n", fn.name,
			       fn.module_base ? fn.module_base : "-", fn.file ? fn.file : "-", fn.line,
			       fn.module_id);
	}
	struct ana_function past = { .sz = sizeof(past) };
	printf("func-past %d\n", ana_set_function(s, (uint32_t)ana_set_n_functions(s), &past));
}

static void modules(const struct ana_set *s)
{
	struct ana_module md = { .sz = sizeof(md) };
	uint32_t m = 0;
	/* until the first error: past the last one */
	for (; !ana_set_module(s, m, &md); m++)
		printf("module %s path=%s bid=%zu file=%d main=%d mapped=%d\n", md.base,
		       md.path ? md.path : "-", md.build_id_len, md.file, md.main, md.end > md.start);
	printf("modules %u of %zu\n", m, ana_set_n_modules(s));
}

static void totals(const struct ana_set *s)
{
	for (unsigned run = 0; run < ana_set_n_runs(s); run++)
		for (size_t ev = 0; ev < ana_set_n_sampled_events(s); ev++) {
			uint64_t n = 0;
			double v = 0;
			ana_set_total(s, run, ev, &n, &v);
			printf("total %u %s %" PRIu64 " %.0f\n", run, ana_set_event(s, ev), n, v);
		}
}

/* Every top-down row: its node's function has its name. */
static void rows(struct ana_set *s)
{
	ANA_QUERY(q, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = UINT_MAX);
	struct ana_rows *r = ana_set_query(s, &q);
	size_t bad = 0, n = r ? ana_rows_n(r) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		struct ana_function fn = { .sz = sizeof(fn) };
		uint32_t f = ana_set_node_function(s, row->node);
		bad += ana_set_function(s, f, &fn) || strcmp(fn.name, row->name);
	}
	printf("rows %s %zu\n", r && !bad ? "ok" : "bad", n);
	printf("rows-set %s\n", r && ana_rows_set(r) == s && ana_rows_query(r)->view == q.view &&
	       ana_rows_event(r, 0) == q.event ? "ok" : "bad");
	ana_rows_free(r);
}

/* The line contexts: chains end at the root, and each (run, event)'s
 * samples summed. */
static void contexts(const struct ana_set *s)
{
	size_t bad = 0, nc = ana_set_n_contexts(s);
	for (uint32_t c = 1; c < nc; c++) {
		struct ana_context x = { .sz = sizeof(x) };
		size_t hops = 0;
		for (uint32_t k = c; k && hops <= nc; k = x.parent, hops++)
			bad += ana_set_context(s, k, &x) || x.func >= ana_set_n_functions(s);
		bad += hops > nc;
	}
	printf("contexts %s %zu\n", bad ? "bad" : "ok", nc);
	for (unsigned run = 0; run < ana_set_n_runs(s); run++)
		for (size_t ev = 0; ev < ana_set_n_sampled_events(s); ev++) {
			uint64_t sum = 0;
			for (size_t i = 0; i < ana_set_n_context_samples(s); i++) {
				struct ana_context_samples cs = { .sz = sizeof(cs) };
				if (!ana_set_context_samples(s, i, &cs) && cs.run == run && cs.event == ev)
					sum += cs.samples;
			}
			printf("ctx %u %s %" PRIu64 "\n", run, ana_set_event(s, ev), sum);
		}
}

struct walk {
	uint64_t opens, closes, last;
	size_t depth;
	bool bad;
};

static int w_open(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	struct walk *w = arg;
	(void)th;
	(void)fr;
	w->bad |= t < w->last;
	w->last = t;
	w->opens++;
	w->depth++;
	return 0;
}

static int w_close(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	struct walk *w = arg;
	(void)th;
	(void)fr;
	w->bad |= t < w->last || !w->depth;
	w->last = t;
	w->closes++;
	w->depth--;
	return 0;
}

static void walks(const struct ana_set *s)
{
	static const struct ana_walk_cb cb = { w_open, w_close };
	for (size_t t = 0; t < ana_set_n_threads(s); t++) {
		struct walk w = { 0 };
		int e = ana_set_walk_thread(s, t, SIZE_MAX, &cb, &w);
		printf("walk %zu %" PRIu64 " %" PRIu64 " %s\n", t, w.opens, w.closes,
		       !e && !w.bad && w.opens == w.closes ? "ok" : "bad");
	}
	printf("walk-past %d\n", ana_set_walk_thread(s, ana_set_n_threads(s), SIZE_MAX, &cb, NULL));
	printf("untimed %zu\n", ana_set_n_untimed(s));
}

int main(int argc, char **argv)
{
	ANA_OPTS(o);
	int opt;
	while ((opt = getopt(argc, argv, "lt")) != -1) {
		if (opt == 'l')
			o.line_contexts = true;
		else if (opt == 't')
			o.timeline = true;
		else
			return 2;
	}
	struct ana_set *s = ana_set_new(&o);
	if (!s)
		return 2;
	printf("finished-before %d\n", ana_set_finished(s));
	for (int i = optind; i < argc; i++)
		if (ana_set_add(s, (unsigned)(i - optind), 0, argv[i]))
			return 2;
	if (ana_set_finish(s))
		return 2;
	printf("finished %d weighted %d\n", ana_set_finished(s), ana_set_opts(s)->weighted);
	functions(s);
	modules(s);
	totals(s);
	rows(s);
	contexts(s);
	walks(s);
	ana_set_free(s);
	return 0;
}
