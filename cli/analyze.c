/* Shared options, headers and notes for report and diff. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/analyze.h"

/* Control bytes from a profile (names, paths, metadata are untrusted) must
 * not reach the terminal as escape sequences: shown as '?'. */
static void clean_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* Display width: count UTF-8 lead bytes only. */
static int dwidth(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void analysis_malloc_policy(void)
{
	/* An analysis grows its tables by doubling.  glibc maps each block
	 * over 128 KiB on its own and unmaps it when it is freed, so every
	 * doubling faults in fresh pages; blocks up to 32 MiB from the heap
	 * reuse freed memory instead (a warm report of a g++ compile: a
	 * quarter fewer page faults, 6% less time).  Bigger blocks are still
	 * mapped apart, and set_aggregate trims the heap after freeing counts. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

void common_init(struct common *c, const char *prog)
{
	analysis_malloc_policy();
	/* a report's text runs to megabytes (padded columns): 64 KiB writes,
	 * not stdio's 4 KiB, when it goes to a file or a pipe */
	static char outbuf[64 << 10];	/* (glibc takes no size without a buffer) */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	memset(c, 0, sizeof(*c));
	c->prog = prog;
	c->o.sz = sizeof(c->o);
	c->view = ANA_VIEW_FUNCS;
}

void common_free(struct common *c)
{
	free(c->paths);
	free(c->metrics);
	free(c->remap);
	free(c->debug_dirs);
	c->paths = c->metrics = c->remap = NULL;
	c->debug_dirs = NULL;
	for (size_t i = 0; i < 5; i++) {
		free(c->filter[i]);
		c->filter[i] = NULL;
	}
}

int usage_error(const struct common *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", c->prog);
	return EXIT_USAGE;
}

int command_main(const struct command *cmd, int argc, char **argv)
{
	int rc, first = 0;
	struct ana_set *s;

	common_init(cmd->c, cmd->prog);
	s = cmd->prepare(argc, argv, &first, &rc);

	if (s)
		rc = cmd->run(s, argc, argv, first);
	common_free(cmd->c);
	return rc;
}

int common_operands(struct common *c, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++)
		if (opts_append(&c->paths, &c->n_paths, argv[i]))
			return -1;
	return 0;
}

const struct opt_name common_split_names[] = {
	{ "thread", ANA_SPLIT_THREAD }, { "process", ANA_SPLIT_PROCESS },
	{ "rank", ANA_SPLIT_RANK }, { "host", ANA_SPLIT_HOST }, { "comm", ANA_SPLIT_COMM },
	{ NULL, 0 },
};

int common_remap(void *ctx, const char *v)
{
	struct common *c = ctx;

	if (!strchr(v, '=') || *v == '=')
		return usage_error(c, "--remap: expected OLD=NEW, got '%s'", v), -1;
	return opts_append(&c->remap, &c->n_remap, v);
}

int common_time(void *ctx, const char *v)
{
	struct common *c = ctx;
	char msg[256];
	int n = ana_time_parse(v, c->time, sizeof(c->time) / sizeof(c->time[0]), msg, sizeof(msg));

	if (n < 0)
		return usage_error(c, "%s", msg), -1;
	c->o.time = c->time;
	c->o.n_time = (size_t)n;
	c->time_spec = v;
	c->o.time_spec = v;
	return 0;
}

static struct {
	const char *prog;
	struct timespec start, last;
	bool shown;
} progress;

static long ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;
}

void progress_start(const char *prog)
{
	progress.prog = prog;
	progress.shown = false;
	clock_gettime(CLOCK_MONOTONIC, &progress.start);
}

/* Quiet for the first half second of the analysis (a quick one shows no
 * flicker), then at most 20 updates a second. */
void progress_cb(void *arg, const char *phase, uint64_t done, uint64_t total)
{
	struct timespec now;
	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!progress.prog)
		progress_start("pmcprof");
	if (ms_between(&progress.start, &now) < 500 ||
	    (progress.shown && ms_between(&progress.last, &now) < 50))
		return;
	progress.last = now;
	if (total)
		fprintf(stderr, "\r%s: %s %llu%%\033[K", progress.prog, phase,
			(unsigned long long)(100 * done / total));
	else
		fprintf(stderr, "\r%s: %s %llu files\033[K", progress.prog, phase,
			(unsigned long long)done);
	fflush(stderr);
	progress.shown = true;
}

void progress_done(void)
{
	if (progress.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	progress.shown = false;
}

const char *symbol_cache_dir(bool no_cache, char *buf, size_t len)
{
	const char *e = getenv("PMCPROF_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"),
		   *h = getenv("HOME");
	if (no_cache || (e && !*e))
		return NULL;
	if (e)
		snprintf(buf, len, "%s", e);
	else if (x && x[0] == '/')
		snprintf(buf, len, "%s/pmcprof/symbols", x);
	else if (h && h[0] == '/')
		snprintf(buf, len, "%s/.cache/pmcprof/symbols", h);
	else
		return NULL;
	return buf;
}

struct ana_set *common_set(struct common *c)
{
	c->o.cache_dir = symbol_cache_dir(c->no_cache, c->cache_dir, sizeof(c->cache_dir));
	c->o.debug_dirs = c->debug_dirs;
	c->o.remap = c->remap;
	c->o.comms = c->filter[0];
	c->o.pids = c->filter[1];
	c->o.tids = c->filter[2];
	c->o.dsos = c->filter[3];
	c->o.symbols = c->filter[4];
	if (isatty(2) && !c->quiet) {
		progress_start(c->prog);
		c->o.progress = progress_cb;
		c->o.progress_arg = NULL;
	}
	struct ana_set *s = ana_set_new(&c->o);
	if (!s)
		fprintf(stderr, "%s: %s\n", c->prog, ana_strerror(errno));
	return s;
}

struct runs_walk {
	char *names;
	size_t len, n;
	const char *top;
};

static bool pmcp_name(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".pmcp");
}

/* As the analyzer walks (analyzer/set.c): hidden names skipped, symlinked
 * directories not followed. */
static int runs_walk(struct runs_walk *w, const char *dir, int depth)
{
	DIR *d = depth > 64 ? NULL : opendir(dir);
	struct dirent *e;
	bool here = false;
	int err = 0;

	if (!d)
		return depth > 64 ? 0 : -errno;
	while ((e = readdir(d)) != NULL && !err) {
		char path[4096];
		struct stat sb;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path) ||
		    lstat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode))
			err = runs_walk(w, path, depth + 1);
		else if (pmcp_name(e->d_name) && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)))
			here = true;
	}
	closedir(d);
	if (here && w->n++ < 3) {
		size_t off = strlen(w->names);
		snprintf(w->names + off, w->len - off, "%s%s", off ? ", " : "", dir);
	}
	return err;
}

int runs_under(const char *path, char *names, size_t len)
{
	struct runs_walk w = { names, len, 0, path };
	struct stat sb;

	names[0] = '\0';
	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return 0;
	int e = runs_walk(&w, path, 0);
	return e < 0 ? e : (int)w.n;
}

int check_runs(const char *prog, const char *path, bool merge)
{
	char names[1024];
	int n = merge ? 0 : runs_under(path, names, sizeof(names));

	if (n <= 1)
		return 0;	/* a file, one run, or unreadable: the analyzer says */
	progress_done();
	fprintf(stderr, "%s: %s holds the profiles of %d runs, one directory each (%s%s): "
		"name one, compare them with pmcprof diff, or --merge to merge them into one\n",
		prog, path, n, names, n > 3 ? ", ..." : "");
	return -1;
}

int common_add(struct common *c, struct ana_set *s, unsigned run, unsigned repeat, const char *path)
{
	if (check_runs(c->prog, path, c->merge)) {
		ana_set_free(s);
		return -1;
	}
	/* a bad file is noted by the analyzer and the others still read */
	if (ana_set_add(s, run, repeat, path) != -ENOMEM)
		return 0;
	progress_done();
	fprintf(stderr, "%s: out of memory\n", c->prog);
	ana_set_free(s);
	return -1;
}

int common_finish(struct common *c, struct ana_set *s, unsigned runs, const char *no_run)
{
	int e = ana_set_finish(s);
	progress_done();
	if (!e && runs && ana_set_n_runs(s) != runs)
		e = -ANA_ENODATA;
	if (!e)
		return 0;
	print_notes(c, s, NULL);
	fprintf(stderr, "%s: %s\n", c->prog,
		e == -ANA_ENODATA && no_run ? no_run : ana_strerror(e));
	ana_set_free(s);
	return -1;
}

int common_columns(struct common *c, struct ana_set *s)
{
	for (size_t i = 0; i < c->n_metrics; i++) {
		char msg[256];
		int e = ana_set_add_metric(s, c->metrics[i], msg, sizeof(msg));
		if (e < 0) {
			fprintf(stderr, "%s: %s\n", c->prog, e == -ANA_EMETRIC ? msg : ana_strerror(e));
			return -1;
		}
	}
	if (!c->event)
		return 0;
	/* a column number from 1, as the viewer's -e takes it */
	char *end;
	unsigned long n = strtoul(c->event, &end, 10);
	if (c->event[0] >= '1' && c->event[0] <= '9' && !*end && n <= ana_set_n_events(s))
		return (int)n - 1;
	int k = ana_set_event_index(s, c->event);
	if (k < 0) {
		fprintf(stderr, "%s: no event '%s' in these profiles; they have:", c->prog, c->event);
		for (size_t i = 0; i < ana_set_n_events(s); i++)
			fprintf(stderr, " %s", ana_set_event(s, i));
		fprintf(stderr, "\n");
		return -1;
	}
	return k;
}

int common_time_check(const struct common *c, struct ana_set *s)
{
	for (unsigned r = 0; c->time_spec && r < ana_set_n_runs(s); r++) {
		uint64_t n = 0, k;
		for (size_t ev = 0; ev < ana_set_n_sampled_events(s); ev++)
			if (!ana_set_total(s, r, ev, &k, NULL))
				n += k;
		if (n)
			continue;
		/* the notes name a profile without a timeline, if that is why */
		print_notes(c, s, NULL);
		fprintf(stderr, "%s: %s: no samples in --time %s (of that run's own span; "
			"a profile without a timeline adds none)\n", c->prog,
			ana_set_run(s, r)->label, c->time_spec);
		ana_set_free(s);
		return -1;
	}
	return 0;
}

int common_event_column(struct common *c, struct ana_set *s, const char *no_metric)
{
	int col = common_columns(c, s);

	if (col >= 0 && (size_t)col >= ana_set_n_events(s) - c->n_metrics) {
		fprintf(stderr, "%s: %s\n", c->prog, no_metric);
		col = -1;
	}
	if (col < 0)
		ana_set_free(s);
	return col;
}

struct ana_set *common_load(struct common *c, unsigned runs, bool label)
{
	struct ana_set *s = common_set(c);

	if (!s)
		return NULL;
	for (size_t i = 0; i < c->n_paths; i++)
		if (common_add(c, s, 0, 0, c->paths[i]))
			return NULL;
	if (label && c->n_paths == 1)
		ana_set_label(s, 0, c->paths[0]);
	if (common_finish(c, s, runs, NULL))
		return NULL;
	return s;
}

static const char *const sev_name[] = {
	[ANA_NOTE_INFO] = "note", [ANA_NOTE_WARN] = "warning", [ANA_NOTE_ERROR] = "error",
};

/* -q keeps errors only; otherwise notes are warnings and errors, and
 * informational ones unless quiet. */
static bool note_shown(const struct common *c, const struct ana_note *n, bool info_too)
{
	if (n->severity == ANA_NOTE_ERROR)
		return true;
	if (c->quiet)
		return false;
	return n->severity == ANA_NOTE_WARN || info_too;
}

void print_notes(const struct common *c, const struct ana_set *s, FILE *out)
{
	for (size_t i = 0; i < ana_set_n_notes(s); i++) {
		const struct ana_note *n = ana_set_note(s, i);
		char msg[1024];	/* notes quote paths and names from the profiles */
		snprintf(msg, sizeof(msg), "%s", n->msg);
		clean_controls(msg);
		if (c->out == OUT_TEXT && out) {
			if (note_shown(c, n, true))
				fprintf(out, "# %s: %s\n", sev_name[n->severity], msg);
			if (n->severity == ANA_NOTE_ERROR)
				fprintf(stderr, "%s: %s\n", c->prog, msg);
		} else if (note_shown(c, n, false)) {
			fprintf(stderr, "%s: %s: %s\n", c->prog, sev_name[n->severity], msg);
		}
	}
}

void print_errors(const struct common *c, const struct ana_set *s)
{
	for (size_t i = 0; i < ana_set_n_notes(s); i++) {
		const struct ana_note *n = ana_set_note(s, i);
		char msg[1024];

		if (n->severity != ANA_NOTE_ERROR)
			continue;
		snprintf(msg, sizeof(msg), "%s", n->msg);
		clean_controls(msg);
		fprintf(stderr, "%s: %s\n", c->prog, msg);
	}
}

int out_width(const struct common *c)
{
	if (c->width)
		return c->width;
	/* a pipe or a file gets whole lines: a script must not parse '+' cuts */
	if (!isatty(STDOUT_FILENO))
		return 0;
	const char *e = getenv("COLUMNS");
	int w = e ? atoi(e) : 0;
	if (w < 20) {
		struct winsize ws;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
			w = ws.ws_col;
	}
	return w >= 20 ? w : 80;
}

/* One header line, cut to the width (0: never) with "..." */
static void header_line(FILE *out, int width, const char *text)
{
	char line[2048];

	snprintf(line, sizeof(line), "# %s", text);
	clean_controls(line);
	if (width > 12 && dwidth(line) > width) {
		const char *p = line;
		for (int k = 0; *p; p++)
			if (((unsigned char)*p & 0xc0) != 0x80 && ++k > width - 3)
				break;
		fprintf(out, "%.*s...\n", (int)(p - line), line);
		return;
	}
	fprintf(out, "%s\n", line);
}

/* Run `run`'s record of a fixed fact (facts.h: always there). */
static const struct ana_fact *fact(const struct ana_set *s, unsigned run, enum ana_fact_id id)
{
	return ana_facts_get(ana_set_facts(s, run), id);
}

/* "perf::CPU-CLOCK (requested cycles) period 769231: 3901 samples", every
 * event with samples, summed over runs [from, to). */
static void event_facts(char *buf, size_t len, const struct common *c, const struct ana_set *s,
			unsigned from, unsigned to, bool brief)
{
	const struct ana_fact *ev0 = fact(s, from, ANA_FACT_EVENT);
	size_t n = 0, n_ev = ana_set_run(s, from)->n_events;

	buf[0] = 0;
	/* a run's events come together, in column order (facts.h) */
	for (size_t e = 0; e < n_ev && n < len; e++) {
		uint64_t samples = 0;
		double weight = 0;
		for (unsigned r = from; r < to; r++) {
			samples += fact(s, r, ANA_FACT_EVENT)[e].count;
			weight += fact(s, r, ANA_FACT_EVENT)[e].value;
		}
		const struct ana_fact *f = &ev0[e];
		if (!samples)
			continue;
		if (brief) {	/* "N samples" or "NAME N, NAME N samples" */
			n += (size_t)snprintf(buf + n, len - n, "%s%s%s%llu", n ? ", " : "",
					      n_ev > 1 ? f->key : "", n_ev > 1 ? " " : "",
					      (unsigned long long)samples);
			continue;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; " : "", f->key);
		if (n < len && f->flags & ANA_FACT_SUBSTITUTED)
			n += (size_t)snprintf(buf + n, len - n, " (requested %s)", f->text);
		if (n < len && f->event->period)
			n += (size_t)snprintf(buf + n, len - n, " period %llu%s",
					      (unsigned long long)f->event->period,
					      f->event->mixed ? " (mixed)" : "");
		else if (n < len && f->event->freq)
			n += (size_t)snprintf(buf + n, len - n, " %llu Hz",
					      (unsigned long long)f->event->freq);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, ": %llu samples", (unsigned long long)samples);
		if (n < len && c->o.weighted)
			n += (size_t)snprintf(buf + n, len - n, ", weight %.6g %s", weight, f->unit);
	}
}

/* " (N files, R repeats, P partial" of runs [from, to), the repeats of
 * the first, without the closing parenthesis. */
static size_t files_facts(char *buf, size_t len, const struct ana_set *s, unsigned from,
			  unsigned to)
{
	uint64_t files = 0, partial = 0, repeats = fact(s, from, ANA_FACT_REPEATS)->count;
	size_t n;

	for (unsigned r = from; r < to; r++) {
		files += fact(s, r, ANA_FACT_FILES)->count;
		partial += fact(s, r, ANA_FACT_PARTIAL)->count;
	}
	n = (size_t)snprintf(buf, len, " (%llu file%s", (unsigned long long)files,
			     files == 1 ? "" : "s");
	if (to > from + 1 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %u groups", to - from);
	if (repeats > 1 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %llu repeats", (unsigned long long)repeats);
	if (partial && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %llu partial", (unsigned long long)partial);
	return n < len ? n : len - 1;
}

void print_summary(const struct common *c, const struct ana_set *s, const char *role, FILE *out)
{
	unsigned nr = ana_set_n_runs(s);
	const char *cmd = fact(s, 0, ANA_FACT_COMMAND)->text, *label = fact(s, 0, ANA_FACT_LABEL)->text;
	double duration = fact(s, 0, ANA_FACT_DURATION)->value;
	char line[1536], ev[1024];
	size_t n;

	/* one run: "LABEL: COMMAND (...)"; --by groups: "COMMAND (..., N groups)" */
	if (nr == 1)
		n = (size_t)snprintf(line, sizeof(line), "%s%s%s%s%s", role ? role : "",
				     role ? ": " : "", label, cmd ? ": " : "", cmd ? cmd : "");
	else
		n = (size_t)snprintf(line, sizeof(line), "%s%s%s", role ? role : "", role ? ": " : "",
				     cmd ? cmd : label);
	if (n < sizeof(line))
		n += files_facts(line + n, sizeof(line) - n, s, 0, nr);
	if (n < sizeof(line) && nr == 1 && !isnan(duration))
		n += (size_t)snprintf(line + n, sizeof(line) - n, ", %.3f s", duration);
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, ")");
	header_line(out, out_width(c), line);
	event_facts(ev, sizeof(ev), c, s, 0, nr, false);
	if (ev[0]) {
		snprintf(line, sizeof(line), "event: %s", ev);
		header_line(out, out_width(c), line);
	}
}

void print_time_line(const struct ana_set *s, FILE *out)
{
	/* every run's: one --time */
	const char *slice = ana_facts_slice(ana_set_facts(s, 0));
	if (slice)
		fprintf(out, "# time: only the samples in --time %s (from the timelines)\n", slice);
}

void print_warning_line(const struct common *c, const struct ana_set *s, FILE *out)
{
	char line[1536], first[1024] = "";
	size_t n = 0, more = 0;
	const char *fallback = "";

	if (c->quiet)
		return;
	for (unsigned r = 0; r < ana_set_n_runs(s) && !*fallback; r++)
		fallback = ana_facts_meta_str(ana_set_facts(s, r), "fallback");
	for (size_t i = 0; i < ana_set_n_notes(s); i++) {
		const struct ana_note *nt = ana_set_note(s, i);
		if (nt->severity == ANA_NOTE_INFO)
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", nt->msg);
		else
			more++;
	}
	if (*fallback) {
		/* "REQUESTED -> USED: why": the why is in the event line's
		 * "(requested ...)" and in --header */
		const char *why = strstr(fallback, ": ");
		n = (size_t)snprintf(line, sizeof(line), "warning: fell back from %.*s",
				     why ? (int)(why - fallback) : (int)strlen(fallback), fallback);
	}
	if (first[0] && n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", n ? "; " : "warning: ", first);
	if (more && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " (+%zu more: --header shows them)", more);
	if (n || first[0])
		header_line(out, out_width(c), line);
}

void print_group_line(const struct common *c, const struct ana_set *s, unsigned run,
		      const char *role, FILE *out)
{
	uint64_t files = fact(s, run, ANA_FACT_FILES)->count;
	char line[1536], ev[1024];

	event_facts(ev, sizeof(ev), c, s, run, run + 1, true);
	snprintf(line, sizeof(line), "%s: %s (%llu file%s%s%s)%s%s%s", role,
		 fact(s, run, ANA_FACT_LABEL)->text, (unsigned long long)files, files == 1 ? "" : "s",
		 fact(s, run, ANA_FACT_PARTIAL)->count ? ", partial" : "",
		 fact(s, run, ANA_FACT_REPEATS)->count > 1 ? ", repeats" : "", ev[0] ? ": " : "", ev,
		 ev[0] ? " samples" : "");
	header_line(out, out_width(c), line);
}

/* Header lines: "key: value" pairs packed into lines of the output width. */
static void packed(FILE *out, int width, const char *key, const char *val, int *col)
{
	char item[512];
	snprintf(item, sizeof(item), "%s: %s", key, val);
	clean_controls(item);
	/* one item never wider than the line: cut long values (argv, paths) */
	if (width > 12 && (int)strlen(item) > width - 2)
		strcpy(item + width - 5, "...");
	int n = (int)strlen(item);
	if (*col > 2 && *col + 3 + n > (width > 0 ? width : 100)) {
		fputc('\n', out);
		*col = 0;
	}
	if (*col == 0) {
		fputs("# ", out);
		*col = 2;
	} else {
		fputs("   ", out);
		*col += 3;
	}
	fputs(item, out);
	*col += n;
}

/* The trust lines: the threads' CPU time as the kernel counted it, the
 * time-based samples against it, the collector's handler, and the flags
 * (docs/analyzer.md, "Trust flags"). */
static void print_trust(const struct ana_facts *f, FILE *out)
{
	const struct ana_fact *cpu = ana_facts_get(f, ANA_FACT_CPU_TIME);
	const struct ana_fact *user = ana_facts_get(f, ANA_FACT_USER_TIME);
	const struct ana_fact *smp = ana_facts_get(f, ANA_FACT_SAMPLED);
	const struct ana_fact *basis = ana_facts_get(f, ANA_FACT_BASIS);
	const struct ana_fact *judged = ana_facts_get(f, ANA_FACT_JUDGED);
	const struct ana_fact *handler = ana_facts_get(f, ANA_FACT_HANDLER);
	const struct ana_fact *flags = ana_facts_get(f, ANA_FACT_TRUST);
	bool cpu_known = !(cpu->flags & ANA_FACT_UNKNOWN);

	if (!cpu_known && !flags->count)
		return;
	fprintf(out, "# trust:");
	if (cpu_known)
		fprintf(out, " cpu time %.3f s (kernel, per thread%s)", cpu->value,
			cpu->flags & ANA_FACT_MEAN ? "; times are means of the repeats" : "");
	if (!(user->flags & ANA_FACT_UNKNOWN))
		fprintf(out, "%s user %.3f s", cpu_known ? "," : "", user->value);
	/* what the samples were held against, when not all of the CPU time */
	if (!isnan(smp->pct))
		fprintf(out, "; samples %.3f s (%.1f%% of expected%s%s, %llu thread%s judged)",
			smp->value, smp->pct, basis->count != ANA_BASIS_CPU ? " from the " : "",
			basis->count != ANA_BASIS_CPU ? basis->text : "",
			(unsigned long long)judged->count, judged->count == 1 ? "" : "s");
	fprintf(out, "\n# trust:");
	if (!isnan(handler->pct))
		fprintf(out, " collector handler %.3f s (%.1f%% of the CPU time);", handler->value,
			handler->pct);
	fprintf(out, " flags: %s\n", flags->count ? flags->text : "none");
}

/* A packed fact's value as --header says it. */
static const char *header_value(char *buf, size_t len, const struct ana_fact *x,
				const struct ana_facts *f)
{
	uint64_t repeats = ana_facts_get(f, ANA_FACT_REPEATS)->count;

	if (x->id == ANA_FACT_DURATION && x->flags & ANA_FACT_MEAN)
		/* say which: a span, not the threads' or processes' sum */
		snprintf(buf, len, "%.3f s wall clock (mean of %llu repeats)", x->value,
			 (unsigned long long)repeats);
	else if (x->id == ANA_FACT_DURATION)
		snprintf(buf, len, "%.3f s wall clock", x->value);
	else if (x->id == ANA_FACT_STEAL && !isnan(x->pct))
		snprintf(buf, len, "%.3f s (%.1f%% of the CPU time)", x->value, x->pct);
	else if (x->id == ANA_FACT_STEAL)
		snprintf(buf, len, "%.3f s", x->value);
	else
		return x->text;
	return buf;
}

static void print_events(const struct ana_facts *f, bool weighted, FILE *out)
{
	size_t n;
	const struct ana_fact *ev = ana_facts_all(f, ANA_FACT_EVENT, &n);

	for (const struct ana_fact *x = ev; x < ev + n; x++) {
		const struct ana_event_fact *e = x->event;
		if (x->flags & ANA_FACT_ABSENT)
			continue;
		fprintf(out, "# event: %s", x->key);
		if (x->flags & ANA_FACT_SUBSTITUTED)
			fprintf(out, " (requested %s)", x->text);
		if (e->period)
			fprintf(out, " period %llu", (unsigned long long)e->period);
		else if (e->freq)
			fprintf(out, " %llu Hz", (unsigned long long)e->freq);
		if (e->random_mask)
			fprintf(out, " randomized (mask 0x%llx)", (unsigned long long)e->random_mask);
		if (e->mixed)
			fprintf(out, " (periods differ between files)");
		fprintf(out, ": %llu samples", (unsigned long long)x->count);
		if (weighted)
			fprintf(out, ", weight %.6g %s", x->value, x->unit);
		fputc('\n', out);
	}
}

/* "# collector: NAME=VALUE ...", the loss counters with their share of
 * the samples, in lines of the output width. */
static void print_counters(const struct ana_facts *f, int width, FILE *out)
{
	int col = 0;
	size_t n_ctr;
	const struct ana_fact *ctr = ana_facts_all(f, ANA_FACT_COUNTER, &n_ctr);

	for (const struct ana_fact *x = ctr; x < ctr + n_ctr; x++) {
		char cv[64];
		if (x->flags & ANA_FACT_HIDDEN)
			continue;
		if (x->flags & ANA_FACT_LOSS)
			snprintf(cv, sizeof(cv), "%llu (%.2f%%%s)", (unsigned long long)x->count, x->pct,
				 x->severity >= ANA_NOTE_WARN ? " HIGH" : "");
		else
			snprintf(cv, sizeof(cv), "%llu", (unsigned long long)x->count);
		int n = (int)(strlen(x->key) + strlen(cv) + 2);
		if (!col) {
			fputs("# collector:", out);
			col = 12;
		}
		if (col + n > (width > 0 ? width : 100)) {
			fputs("\n# collector:", out);
			col = 12;
		}
		fprintf(out, " %s=%s", x->key, cv);
		col += n;
	}
	if (col)
		fputc('\n', out);
}

void print_run_header(const struct common *c, const struct ana_set *s, unsigned run,
		      const char *role, FILE *out)
{
	const struct ana_facts *f = ana_set_facts(s, run);
	int width = out_width(c), col = 0;
	char line[1536], v[64];

	files_facts(line, sizeof(line), s, run, run + 1);
	fprintf(out, "# %s: %s%s)\n", role, ana_facts_get(f, ANA_FACT_LABEL)->text, line);
	/* what ran and how long, as "key: value" pairs; what a brief listing
	 * leaves out (raw figures shown derived, empty values) is the facts' */
	for (size_t i = 0; i < ana_facts_n(f); i++) {
		const struct ana_fact *x = ana_facts_at(f, i);
		if ((x->group == ANA_FG_META || x->group == ANA_FG_TIME) && !(x->flags & ANA_FACT_HIDDEN))
			packed(out, width, x->key, header_value(v, sizeof(v), x, f), &col);
	}
	if (col)
		fputc('\n', out);
	print_trust(f, out);
	print_events(f, c->o.weighted, out);
	print_counters(f, width, out);
}

const char *base_name(const char *path)
{
	if (!path)
		return "";
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

void fmt_name(char *buf, size_t len, const struct ana_row *r, int indent, bool mark)
{
	if (r->inlined_into)
		snprintf(buf, len, "%*s%s [inlined into %s]", indent, "", r->name, r->inlined_into);
	else
		snprintf(buf, len, "%*s%s%s", indent, "", r->name,
			 mark && r->flags & ANA_ROW_INLINED ? " [inlined]" : "");
}

void fmt_source(char *buf, size_t len, const struct ana_row *r)
{
	if (r->file && r->line)
		snprintf(buf, len, "%s:%u", base_name(r->file), r->line);
	else if (r->file)
		snprintf(buf, len, "%s", base_name(r->file));
	else
		buf[0] = 0;
}
