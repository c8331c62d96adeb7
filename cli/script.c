/* pmcprof script: every sample of the profiles' timelines, one per line
 * with its stack, in time order across threads (perf script's output and
 * field names). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analyze.h"

static const struct opt_cmd script_cmd = {
	.prog = "pmcprof script",
	.synopsis = "pmcprof script [OPTIONS] PROFILE|DIR...",
	.description =
		"Print every sample the profiles' timelines hold, in time order across\n"
		"threads: the thread, the time in seconds after the run's start, the event\n"
		"and the stack, leaf first, one frame a line (perf script's layout).\n"
		"record keeps a timeline unless --no-timeline.\n",
	.footer = "Exit status: 0 ok, 1 usage error, 2 a file could not be read, or no timeline.\n"
		  "pmcprof-script(1) and docs/analyzer.md (\"Timeline\") have more.\n",
};

/* perf script's field names, those that apply here. */
enum field { F_COMM, F_PID, F_TID, F_TIME, F_PERIOD, F_EVENT, F_IP, F_SYM, F_DSO, F_SRCLINE, F_N };
static const char *const field_names[F_N] = {
	[F_COMM] = "comm", [F_PID] = "pid", [F_TID] = "tid", [F_TIME] = "time",
	[F_PERIOD] = "period", [F_EVENT] = "event", [F_IP] = "ip", [F_SYM] = "sym",
	[F_DSO] = "dso", [F_SRCLINE] = "srcline",
};
#define DEFAULT_FIELDS (1u << F_COMM | 1u << F_TID | 1u << F_TIME | 1u << F_PERIOD | \
			1u << F_EVENT | 1u << F_IP | 1u << F_SYM | 1u << F_DSO)

struct opts {
	struct common c;
	unsigned fields;
	bool hide_cg;
	size_t max_stack;
	const char *pids, *tids, *comms;	/* comma-separated filters */
	int ev;				/* -e: the event's column, or -1 for all */
};

static struct opts args;

/* -F: a list replaces the default; +f and -f edit it (perf's forms). */
static int fields(void *ctx, const char *list)
{
	struct opts *o = ctx;
	char buf[256], *save;
	bool edit = list[0] == '+' || list[0] == '-';
	unsigned set = edit ? o->fields : 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char op = *k == '+' || *k == '-' ? *k++ : edit ? '+' : 0;
		size_t f = 0;
		while (f < F_N && strcmp(k, field_names[f]))
			f++;
		if (f == F_N) {
			const char *s = opts_suggest(k, field_names, F_N);
			return usage_error(&o->c, "-F: no field '%s'%s%s%s (fields: comm, pid, tid, "
					   "time, period, event, ip, sym, dso, srcline)", k,
					   s ? "; did you mean '" : "", s ? s : "", s ? "'?" : ""), -1;
		}
		if (op == '-')
			set &= ~(1u << f);
		else
			set |= 1u << f;
	}
	if (!set)
		return usage_error(&o->c, "-F: no field left to show"), -1;
	o->fields = set;
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	struct common *c = &o->c;
	const struct opt opts[] = {
		COMMON_INPUT_PATHS(c),
		OPT_CALLBACK('F', "fields", required_argument, fields, o, "FIELD[,FIELD...]",
			     "what each line shows, among comm, pid, tid, time,\n"
			     "period, event, ip, sym, dso, srcline (default: comm,\n"
			     "tid, time, period, event, ip, sym, dso); +FIELD adds\n"
			     "to the default and -FIELD removes from it"),
		COMMON_TIME_OPTS(c),
		OPT_STRING(0, "pid", &o->pids, "PID[,PID...]", "only these processes"),
		OPT_STRING(0, "tid", &o->tids, "TID[,TID...]", "only these threads"),
		OPT_STRING(0, "comm", &o->comms, "NAME[,NAME...]",
			   "only threads with these names (or commands)"),
		OPT_BOOL('G', "hide-call-graph", &o->hide_cg, "the sampled function only, no stack"),
		OPT_UINT(0, "max-stack", &o->max_stack, 1, 100000, "N", "at most N frames of each stack"),
		OPT_STRING('e', "event", &c->event, "NAME|N",
			   "only this event's samples (name, or its column from 1)"),
		OPT_SECTION("Symbols:"),
		COMMON_SYMBOL_OPTS(c),
		OPT_BOOL('q', "quiet", &c->quiet, "no notes on stderr (errors are still shown)"),
		OPT_END,
	};
	int first = opts_parse(&script_cmd, opts, argc, argv);

	if (common_operands(c, argc, argv, first))
		return EXIT_RUNTIME;
	if (!c->n_paths)
		return usage_error(c, "no profile given");
	return 0;
}

/* Whether the comma-separated list holds word (NULL list: everything). */
static bool listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	if (!list)
		return true;
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static bool thread_wanted(const struct opts *o, const struct ana_thread *th)
{
	char pid[24], tid[24];

	snprintf(pid, sizeof(pid), "%ld", th->pid);
	snprintf(tid, sizeof(tid), "%ld", th->tid);
	return listed(o->pids, pid) && listed(o->tids, tid) &&
	       (listed(o->comms, th->comm) || listed(o->comms, th->command));
}

/* A sample to print: its time, thread and index, sorted by time. */
struct item {
	uint64_t t;
	uint32_t thread;
	uint64_t i;
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* A line being built: appended to, then printed without its trailing
 * blanks. */
struct line {
	char b[8192];
	size_t n;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (l->n >= sizeof(l->b) - 1)
		return;
	va_start(ap, fmt);
	w = vsnprintf(l->b + l->n, sizeof(l->b) - l->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		l->n = l->n + (size_t)w < sizeof(l->b) ? l->n + (size_t)w : sizeof(l->b) - 1;
}

static void line_out(struct line *l, FILE *out)
{
	while (l->n && l->b[l->n - 1] == ' ')
		l->n--;
	fwrite(l->b, 1, l->n, out);
	fputc('\n', out);
	l->n = 0;
}

/* The frame part of a line: ip, sym, dso, srcline as selected. */
static void put_frame(struct line *l, unsigned f, const struct ana_frame *x)
{
	if (f & 1u << F_IP)
		put(l, "%16llx ", (unsigned long long)x->addr);
	if (f & 1u << F_SYM)
		put(l, "%s%s ", x->name ? x->name : "[unknown]", x->inlined ? " (inlined)" : "");
	if (f & 1u << F_DSO)
		put(l, "(%s) ", x->module ? x->module : "[unknown]");
	if ((f & 1u << F_SRCLINE) && x->file)
		put(l, "%s:%u", x->file, x->line);
}

static void print_sample(const struct opts *o, const struct ana_set *s,
			 const struct ana_thread *th, const struct ana_sample *sm,
			 struct ana_frame *fr, size_t max, FILE *out)
{
	unsigned f = o->fields;
	struct line l = { .n = 0 };

	if (f & 1u << F_COMM)
		put(&l, "%16s ", th->comm);
	if ((f & 1u << F_PID) && (f & 1u << F_TID))
		put(&l, "%7ld/%-7ld ", th->pid, th->tid);
	else if (f & 1u << F_PID)
		put(&l, "%7ld ", th->pid);
	else if (f & 1u << F_TID)
		put(&l, "%7ld ", th->tid);
	if (f & 1u << F_TIME)
		put(&l, "%llu.%06llu: ", (unsigned long long)(sm->time_ns / 1000000000u),
		    (unsigned long long)(sm->time_ns % 1000000000u / 1000));
	if (f & 1u << F_PERIOD)
		put(&l, "%10llu ", (unsigned long long)sm->period);
	if (f & 1u << F_EVENT) {
		const char *ev = ana_set_event(s, sm->event), *p = ev ? strstr(ev, "::") : NULL;
		put(&l, "%s: ", p ? p + 2 : ev ? ev : "?");
	}
	if (!(f & (1u << F_IP | 1u << F_SYM | 1u << F_DSO | 1u << F_SRCLINE))) {
		line_out(&l, out);
		return;
	}
	size_t n = ana_set_stack(s, sm->stack, fr, max);
	if (n > max)
		n = max;
	if (o->hide_cg) {
		/* perf script -G: the sampled frame on the sample's line */
		if (n)
			put_frame(&l, f, &fr[0]);
		else
			put(&l, "[unknown]");
		line_out(&l, out);
		return;
	}
	line_out(&l, out);
	if (!n) {
		put(&l, "\t[unknown] (no stack)");
		line_out(&l, out);
	}
	for (size_t k = 0; k < n; k++) {
		put(&l, "\t");
		put_frame(&l, f, &fr[k]);
		line_out(&l, out);
	}
	fputc('\n', out);
}

static int print_all(const struct opts *o, const struct ana_set *s, int ev, FILE *out)
{
	size_t nt = ana_set_n_threads(s), n = 0, cap = 0;
	struct item *it = NULL;
	size_t max = o->max_stack ? o->max_stack : 1024;
	struct ana_frame *fr = malloc(max * sizeof(*fr));

	if (!fr)
		return -ENOMEM;
	for (size_t t = 0; t < nt; t++) {
		const struct ana_thread *th = ana_set_thread(s, t);
		if (!thread_wanted(o, th))
			continue;
		for (uint64_t i = 0; i < th->n_samples; i++) {
			struct ana_sample sm;
			if (ana_set_thread_sample(s, t, i, &sm) || !sm.selected ||
			    (ev >= 0 && sm.event != (size_t)ev))
				continue;
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 4096;
				struct item *x = realloc(it, nc * sizeof(*x));
				if (!x) {
					free(it);
					free(fr);
					return -ENOMEM;
				}
				it = x;
				cap = nc;
			}
			it[n++] = (struct item){ sm.time_ns, (uint32_t)t, i };
		}
	}
	qsort(it, n, sizeof(*it), item_cmp);
	for (size_t k = 0; k < n && !ferror(out); k++) {
		struct ana_sample sm;
		ana_set_thread_sample(s, it[k].thread, it[k].i, &sm);
		print_sample(o, s, ana_set_thread(s, it[k].thread), &sm, fr, max, out);
	}
	free(it);
	free(fr);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* The options read and the timelines loaded: the set, or NULL with the
 * exit status in *rc (said). */
static struct ana_set *prepare(int argc, char **argv, int *first, int *rc)
{
	struct opts *o = &args;
	struct common *c = &o->c;
	struct ana_set *s;

	if ((*rc = parse(o, argc, argv)))
		return NULL;
	c->o.timeline = true;
	*rc = EXIT_RUNTIME;
	if (!(s = common_load(c, 0, false)))
		return NULL;
	o->ev = c->event ? common_columns(c, s) : -1;
	if (c->event && o->ev < 0) {
		ana_set_free(s);
		*rc = EXIT_USAGE;
		return NULL;
	}
	return s;
}

static int run(struct ana_set *s, int argc, char **argv, int first)
{
	struct opts *o = &args;
	struct common *c = &o->c;
	int rc = EXIT_RUNTIME;

	if (!c->quiet)
		print_notes(c, s, NULL);
	else
		print_errors(c, s);
	if (!ana_set_n_threads(s)) {
		fprintf(stderr, "%s: no profile holds a timeline (recorded with --no-timeline or by "
			"an older pmcprof)\n", c->prog);
	} else {
		int e = print_all(o, s, o->ev, stdout);
		if (e)
			fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(e));
		else
			rc = ana_set_n_errors(s) ? EXIT_RUNTIME : EXIT_OK;
	}
	ana_set_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	const struct command cmd = {
		.prog = "pmcprof script", .c = &args.c, .prepare = prepare, .run = run,
	};

	args.fields = DEFAULT_FIELDS;
	return command_main(&cmd, argc, argv);
}
