/* pmcprof stat: count events over a whole run (every thread and child
 * process), like perf stat; -r N repeats it and prints mean +- the
 * standard error of the mean, as perf stat -r does.
 *
 * perf_event counters are opened on the child before it execs, with
 * inherit and enable_on_exec, so they count exactly the program and its
 * descendants.  A backend that cannot follow children (its plugin says
 * PMC_PLUGIN_NO_INHERIT: cputimer) is read from wait4()'s rusage instead:
 * the whole tree's user+system time, and REALTIME the elapsed wall time. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc.h"
#include "cli/attach.h"
#include "cli/options.h"

static const struct opt_cmd stat_cmd = {
	.prog = "pmcprof stat",
	.synopsis = "pmcprof stat [OPTIONS] [--] CMD [ARGS]\n"
		    "       pmcprof stat [OPTIONS] -p PID | -t TID | -a [--duration S] [-- CMD]",
	.description = "Counts events over the whole run of CMD, its threads and child processes.\n",
	.footer = "The program's exit status is passed through (a signal as 128+N; with -r,\n"
		  "the last run's, stopping at a run killed by a signal); 1 for a usage\n"
		  "error, 2 when pmcprof cannot count.  See pmcprof-stat(1).\n",
	.stop_at_operand = true,
};

struct stat_args {
	const char *specs[PMC_MAX_EVENTS];
	size_t n;
	const char *backend, *sep, *outpath;
	unsigned flags;
	bool fallback;			/* --fallback: replace, as record does */
	bool no_fallback;		/* --no-fallback */
	unsigned long long repeat;
	char **cmd;		/* the program and its arguments */
	struct attach_req att;	/* -p/-t/-a: cli/attach.c */
};

/* One event over the runs: sums for the mean and the spread. */
struct tally {
	double sum, sumsq;
	uint64_t running, enabled;
	unsigned runs;
	bool scaled, not_counted;
};

/* One run of the program. */
struct run {
	struct pmc_count counts[PMC_MAX_EVENTS];
	double elapsed;
	int status;
	bool counted;
};

static int add_events(void *ctx, const char *list)
{
	struct stat_args *a = ctx;

	if (opts_split((char *)list, ",", a->specs, &a->n, PMC_MAX_EVENTS))
		opts_die(&stat_cmd, "at most %d events", PMC_MAX_EVENTS);
	return 0;
}

static void parse_args(struct stat_args *a, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_CALLBACK('e', "event", required_argument, add_events, a, "EVENT[,EVENT...]",
			     "event to count (repeatable or a comma-separated list;\n"
			     "default: task-clock, and cycles/instructions where a\n"
			     "hardware PMU works; a backend's own first event with -b)"),
		OPT_STRING('b', "backend", &a->backend, "BACKEND",
			   "backend plugin (perf_event, cputimer, kvm_vpmu, ...)"),
		OPT_UINT('r', "repeat", &a->repeat, 1, 100000, "N",
			 "run CMD N times; print the mean and its standard\n"
			 "error as +- % (perf stat -r)", .expect = "a number of runs, 1..100000"),
		OPT_STRING('x', "field-separator", &a->sep, "SEP",
			   "perf stat's CSV, one line per event: value, unit, event,\n"
			   "[with -r: the +- %,] running_ns, running_pct,\n"
			   "metric value, metric unit"),
		OPT_STRING('o', "output", &a->outpath, "FILE",
			   "write the counts to FILE instead of stderr"),
		OPT_BOOL(0, "fallback", &a->fallback,
			 "count a replacement for an event that cannot be\n"
			 "counted here (cycles -> cpu-clock), as record does;\n"
			 "default: a <not supported> row, as perf stat prints"),
		OPT_BOOL(0, "no-fallback", &a->no_fallback, "fail instead of printing <not supported>"),
		ATTACH_OPTS(&a->att, "count"),
		OPT_END,
	};
	int first;

	a->repeat = 1;
	first = opts_parse(&stat_cmd, opts, argc, argv);
	if (a->no_fallback)
		a->flags |= PMC_PLAN_NO_FALLBACK;
	if (a->fallback && a->no_fallback)
		opts_die(&stat_cmd, "--fallback and --no-fallback do not combine");
	a->cmd = attach_operands(&a->att, &stat_cmd, argc, argv, first, "no command given");
	if (attach_wanted(&a->att) && a->repeat > 1)
		opts_die(&stat_cmd, "-r repeats a command's run; it does not go with -p, -t or -a");
}

static void first_event(const char *name, const char *desc, const char *unit, void *arg)
{
	const char **out = arg;

	(void)desc, (void)unit;
	if (!*out)
		*out = name;
}

/* Like perf stat: CPU time always, hardware counts where they work; a
 * backend with events of its own (-b cputimer) counts its first one. */
static void default_events(struct stat_args *a)
{
	static char own[PMC_NAME_MAX];
	struct pmc_env env;

	if (a->backend) {
		struct pmc_backend *be;
		const char *first = NULL;

		if (pmc_backend_load(a->backend, &be, NULL, 0) == 0) {
			pmc_backend_events(be, first_event, &first);
			if (first)
				snprintf(own, sizeof(own), "%s", first);
			pmc_backend_unload(be);
			if (first) {
				a->specs[a->n++] = own;
				return;
			}
		}
	}
	pmc_env_probe(&env);
	a->specs[a->n++] = "task-clock";
	if (env.hw_events) {
		a->specs[a->n++] = "cycles";
		a->specs[a->n++] = "instructions";
	}
}

/* One printed row: a requested event and where its count is. */
struct row {
	char name[PMC_NAME_MAX];	/* as the user wrote it */
	int ev;				/* index into the plan, or -1: <not supported> */
};

/* Whether used is requested itself, perhaps with ':u' added (the one
 * change perf stat makes on its own where paranoid refuses the kernel). */
static bool same_event(const struct pmc_event *req, const struct pmc_event *used)
{
	return req->kind == used->kind && req->type == used->type && req->config == used->config &&
	       req->config1 == used->config1 && req->config2 == used->config2 &&
	       !strcmp(req->kind == PMC_KIND_PLUGIN ? req->plugin : "", 
		       used->kind == PMC_KIND_PLUGIN ? used->plugin : "");
}

/* --fallback / --no-fallback: one plan for the list, replacements said
 * on stderr; every row is an event of the plan. */
static int plan_whole(struct stat_args *a, struct pmc_plan **plan, struct row *rows, size_t *n_rows)
{
	const struct pmc_event *ev;
	struct pmc_diag diag;
	char err[512];
	int ret = pmc_plan_new(a->specs, a->n, a->backend, a->flags, plan, &diag, err, sizeof(err));

	if (ret < 0) {
		for (int i = 0; i < diag.n; i++)
			fprintf(stderr, "pmcprof stat: -e %s: %s\n", a->specs[diag.item[i].index],
				diag.item[i].msg);
		if (!diag.n)
			fprintf(stderr, "pmcprof stat: %s\n", err);
		return diag.n ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (pmc_plan_fell_back(*plan))
		fprintf(stderr, "pmcprof stat: %s\n", pmc_plan_why(*plan));
	ev = pmc_plan_events(*plan);
	for (size_t i = 0; i < pmc_plan_nevents(*plan); i++) {
		snprintf(rows[i].name, sizeof(rows[i].name), "%s",
			 ev[i].spec[0] ? ev[i].spec : ev[i].name);
		rows[i].ev = (int)i;
	}
	*n_rows = pmc_plan_nevents(*plan);
	return 0;
}

/* perf stat's way: each event counted as asked, or a <not supported> row
 * (why on stderr, with the option that would count a replacement).
 * *plan is NULL when none can be counted: the program still runs. */
static int plan_each(struct stat_args *a, struct pmc_plan **plan, struct row *rows, size_t *n_rows)
{
	static char kept[PMC_MAX_EVENTS][PMC_NAME_MAX];
	const char *keep[PMC_MAX_EVENTS];
	struct pmc_event parsed[PMC_MAX_EVENTS];
	struct pmc_diag diag;
	size_t k = 0, n;
	char err[512];
	bool say = !a->sep || a->outpath;	/* not into -x's lines on stderr */

	if (pmc_event_parse_list(a->specs, a->n, parsed, &diag) < 0) {
		for (int i = 0; i < diag.n; i++)
			fprintf(stderr, "pmcprof stat: -e %s: %s\n", a->specs[diag.item[i].index],
				diag.item[i].msg);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < a->n; i++) {
		struct pmc_plan *one;
		int ret = pmc_plan_new(&a->specs[i], 1, a->backend, 0, &one, NULL, err,
				       sizeof(err));
		const struct pmc_event *used = pmc_plan_events(one);
		const struct pmc_event *req = pmc_plan_requested(one, &n);
		char why[512];

		snprintf(rows[i].name, sizeof(rows[i].name), "%s", a->specs[i]);
		rows[i].ev = -1;
		/* Not allowed is not "not supported": perf stat refuses too. */
		if (ret == -EACCES || ret == -EPERM) {
			fprintf(stderr, "pmcprof stat: -e %s: %s\n", a->specs[i], err);
			return EXIT_RUNTIME;
		}
		if (ret == 0 && (!pmc_plan_fell_back(one) || same_event(&req[0], &used[0]))) {
			if (pmc_plan_fell_back(one))
				fprintf(stderr, "pmcprof stat: %s\n", pmc_plan_why(one));
			snprintf(kept[k], sizeof(kept[k]), "%s", used[0].spec);
			snprintf(rows[i].name, sizeof(rows[i].name), "%s", used[0].spec);
			rows[i].ev = (int)k;
			keep[k] = kept[k];
			k++;
		} else if (ret == 0 && say) {
			/* why ends "; using X on the Y backend": the option says it */
			snprintf(why, sizeof(why), "%s", pmc_plan_why(one));
			char *using = strstr(why, "; using ");
			if (using)
				*using = '\0';
			fprintf(stderr, "pmcprof stat: <not supported>: %s; --fallback counts %s "
				"instead\n", why, used[0].spec);
		} else if (say) {
			fprintf(stderr, "pmcprof stat: <not supported>: %s: %s\n", a->specs[i], err);
		}
		pmc_plan_free(one);
	}
	*n_rows = a->n;
	*plan = NULL;
	if (!k)
		return 0;
	/* Each opens alone; together they must share a backend. */
	int ret = pmc_plan_new(keep, k, a->backend, PMC_PLAN_NO_FALLBACK, plan, &diag, err,
			       sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "pmcprof stat: %s\n", err);
		return EXIT_RUNTIME;
	}
	return 0;
}

/* 0, or the exit status for an error (printed). */
static int make_plan(struct stat_args *a, struct pmc_plan **plan, struct row *rows, size_t *n_rows)
{
	if (a->fallback || (a->flags & PMC_PLAN_NO_FALLBACK))
		return plan_whole(a, plan, rows, n_rows);
	return plan_each(a, plan, rows, n_rows);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Counts from wait4's rusage, for a backend that cannot follow children. */
static void counts_from_rusage(const struct pmc_plan *plan, const struct rusage *ru,
			       struct run *r)
{
	uint64_t cpu_us = (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000 +
			  ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;

	const struct pmc_event *ev = pmc_plan_events(plan);

	for (size_t i = 0; i < pmc_plan_nevents(plan); i++) {
		bool wall = strcmp(ev[i].name, "REALTIME") == 0;

		r->counts[i].value = r->counts[i].raw = wall ? (uint64_t)(r->elapsed * 1e6) : cpu_us;
		r->counts[i].enabled = r->counts[i].running = (uint64_t)(r->elapsed * 1e9);
	}
	r->counted = true;
}

/* Fork the program, held on a pipe until its counters are attached, then
 * let it exec and wait.  0, or the exit status for an error (printed). */
static int run_once(const struct stat_args *a, const struct pmc_plan *plan, struct run *r)
{
	struct pmc_backend *be = pmc_plan_backend(plan);
	size_t n = pmc_plan_nevents(plan);
	bool none = n == 0;		/* nothing countable: run it all the same */
	bool by_rusage = !none && !pmc_backend_follows_children(be);
	struct pmc_group *g = NULL;
	struct rusage ru;
	int go[2], ret;
	double t0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(go, O_CLOEXEC) < 0) {
		perror("pmcprof stat: pipe");
		return EXIT_RUNTIME;
	}
	t0 = now_sec();
	pid = fork();
	if (pid < 0) {
		perror("pmcprof stat: fork");
		return EXIT_RUNTIME;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(a->cmd[0], a->cmd);
		fprintf(stderr, "pmcprof stat: cannot run '%s': %s\n", a->cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	if (!by_rusage && !none) {
		PMC_GROUP_OPTS(opts, .pid = pid, .inherit = true, .enable_on_exec = true);
		ret = pmc_group_open(be, pmc_plan_events(plan), n, &opts, &g);
		if (ret < 0) {
			fprintf(stderr, "pmcprof stat: cannot count on the %s backend: %s\n",
				pmc_backend_name(be), pmc_strerror(ret));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return EXIT_RUNTIME;
		}
	}
	if (write(go[1], "g", 1) != 1) {
		perror("pmcprof stat: pipe");
		return EXIT_RUNTIME;
	}
	close(go[1]);
	while (wait4(pid, &r->status, 0, &ru) < 0 && errno == EINTR)
		;
	r->elapsed = now_sec() - t0;
	if (by_rusage) {
		counts_from_rusage(plan, &ru, r);
		return 0;
	}
	if (none)
		return 0;
	ret = pmc_group_read(g, r->counts, n);
	if (ret < 0)
		fprintf(stderr, "pmcprof stat: read failed: %s\n", pmc_strerror(ret));
	r->counted = ret == 0;
	pmc_group_close(g);
	return 0;
}

static void tally_add(struct tally *t, const struct pmc_count *c, bool counted)
{
	/* perf's <not counted>: a read that failed, or an event that was
	 * enabled but never got a counter (multiplexing). */
	if (!counted || (c->enabled && !c->running)) {
		t->not_counted = true;
		return;
	}
	t->sum += (double)c->value;
	t->sumsq += (double)c->value * (double)c->value;
	t->running += c->running;
	t->enabled += c->enabled;
	t->scaled |= c->scaled;
	t->runs++;
}

static double tally_mean(const struct tally *t)
{
	return t->runs ? t->sum / t->runs : 0;
}

/* perf stat's "+- x%": the standard error of the mean, relative to the
 * mean (0 for one run). */
static double rel_stderr(double sum, double sumsq, unsigned n)
{
	double mean, var;

	if (n < 2 || sum == 0)
		return 0;
	mean = sum / n;
	var = (sumsq - n * mean * mean) / (n - 1);
	return var > 0 ? 100 * sqrt(var / n) / fabs(mean) : 0;
}

/* Thousands separators without relying on the locale. */
static void group_digits(char *out, size_t len, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), o = 0;

	for (int i = 0; i < n && o + 2 < (int)len; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = tmp[i];
	}
	out[o] = '\0';
}

/* perf stat -x: value, unit, event, [+- %,] running ns, running %, metric
 * value, metric unit; ev NULL: <not supported>. */
/* perf's metric for instructions: per cycle, where cycles were counted
 * too (cycles NAN otherwise). */
static bool is_hw(const struct pmc_event *ev, uint64_t config)
{
	return ev && ev->kind == PMC_KIND_PERF && ev->type == PERF_TYPE_HARDWARE && ev->config == config;
}

static void print_csv(FILE *out, const char *sep, bool repeated, const char *shown,
		      const struct pmc_event *ev, const struct tally *t, double elapsed, double cycles)
{
	double pct = t && t->enabled ? 100.0 * t->running / t->enabled : 100.0;
	double mean = t ? tally_mean(t) : 0, spread = t ? rel_stderr(t->sum, t->sumsq, t->runs) : 0;
	bool ns = ev && strcmp(ev->unit, "ns") == 0, us = ev && strcmp(ev->unit, "us") == 0;
	unsigned long long running = t && t->runs ? t->running / t->runs : 0;
	char value[64], unit[8] = "", var[32] = "", metric[64] = "";

	if (!ev || t->not_counted) {
		snprintf(value, sizeof(value), "%s", ev ? "<not counted>" : "<not supported>");
		pct = ev ? 0 : 100;
		running = 0;
	} else if (ns || us) {
		snprintf(value, sizeof(value), "%.2f", mean / (ns ? 1e6 : 1e3));
		snprintf(unit, sizeof(unit), "msec");
		if (elapsed > 0)
			snprintf(metric, sizeof(metric), "%.3f%sCPUs utilized",
				 mean / (ns ? 1e9 : 1e6) / elapsed, sep);
	} else {
		snprintf(value, sizeof(value), "%.0f", mean);
		if (is_hw(ev, PERF_COUNT_HW_INSTRUCTIONS) && cycles > 0)
			snprintf(metric, sizeof(metric), "%.2f%sinsn per cycle", mean / cycles, sep);
	}
	if (!metric[0])
		snprintf(metric, sizeof(metric), "%s", sep);
	if (repeated)
		snprintf(var, sizeof(var), "%.2f%%%s", spread, sep);
	fprintf(out, "%s%s%s%s%s%s%s%llu%s%.2f%s%s\n", value, sep, unit, sep, shown, sep, var,
		running, sep, pct, sep, metric);
}

static void print_count(FILE *out, const char *sep, bool repeated, const char *shown,
			const struct pmc_event *ev, const struct tally *t, double elapsed, double cycles)
{
	if (sep) {
		print_csv(out, sep, repeated, shown, ev, t, elapsed, cycles);
		return;
	}
	if (!ev || t->not_counted) {
		fprintf(out, "%20s      %-24s\n", ev ? "<not counted>" : "<not supported>", shown);
		return;
	}
	double pct = t->enabled ? 100.0 * t->running / t->enabled : 100.0;
	double mean = tally_mean(t), spread = rel_stderr(t->sum, t->sumsq, t->runs);
	bool ns = strcmp(ev->unit, "ns") == 0, us = strcmp(ev->unit, "us") == 0;
	if (ns || us) {
		double ms = mean / (ns ? 1e6 : 1e3);
		fprintf(out, "%20.2f msec %-24s #  %6.3f CPUs utilized", ms, shown,
			elapsed > 0 ? ms / 1e3 / elapsed : 0);
	} else {
		char digits[40];
		group_digits(digits, sizeof(digits), (uint64_t)llround(mean));
		fprintf(out, "%20s      %-24s", digits, shown);
		if (is_hw(ev, PERF_COUNT_HW_INSTRUCTIONS) && cycles > 0)
			fprintf(out, " #  %5.2f  insn per cycle", mean / cycles);
	}
	if (repeated)
		fprintf(out, "  ( +- %5.2f%% )", spread);
	if (t->scaled)
		fprintf(out, "  (scaled: counted %.1f%% of the time)", pct);
	fputc('\n', out);
}

static void print_counts(FILE *out, const struct stat_args *a, const struct pmc_plan *plan,
			 const struct row *rows, size_t n_rows, const struct tally *tally,
			 unsigned runs, double el_sum, double el_sumsq)
{
	bool repeated = a->repeat > 1;
	double elapsed = runs ? el_sum / runs : 0;
	const struct pmc_backend *be = pmc_plan_backend(plan);
	const struct pmc_event *ev = pmc_plan_events(plan);

	if (!a->sep && attach_wanted(&a->att)) {
		char who[300];

		attach_describe(&a->att, who, sizeof(who));
		fprintf(out, "\n Performance counter stats for %s (backend %s):\n\n", who,
			pmc_backend_name(be));
	} else if (!a->sep) {
		fprintf(out, "\n Performance counter stats for '");
		for (char **c = a->cmd; *c; c++)
			fprintf(out, "%s%s", c > a->cmd ? " " : "", *c);
		if (pmc_plan_nevents(plan))
			fprintf(out, "' (backend %s%s)", pmc_backend_name(be),
				pmc_backend_follows_children(be) ? "" : ", whole-tree rusage");
		else
			fputc('\'', out);
		if (repeated)
			fprintf(out, " (%u run%s)", runs, runs == 1 ? "" : "s");
		fprintf(out, ":\n\n");
	}
	double cycles = NAN;
	for (size_t i = 0; i < pmc_plan_nevents(plan); i++)
		if (is_hw(&ev[i], PERF_COUNT_HW_CPU_CYCLES) && !tally[i].not_counted)
			cycles = tally_mean(&tally[i]);
	for (size_t i = 0; i < n_rows; i++) {
		int e = rows[i].ev;
		print_count(out, a->sep, repeated, rows[i].name, e < 0 ? NULL : &ev[e],
			    e < 0 ? NULL : &tally[e], elapsed, cycles);
	}
	if (a->sep)
		return;
	if (repeated)
		fprintf(out, "\n%20.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n\n", elapsed,
			elapsed * rel_stderr(el_sum, el_sumsq, runs) / 100,
			rel_stderr(el_sum, el_sumsq, runs));
	else
		fprintf(out, "\n%20.6f seconds time elapsed\n\n", elapsed);
}

int main(int argc, char **argv)
{
	struct stat_args a = { 0 };
	struct tally tally[PMC_MAX_EVENTS] = { 0 };
	struct pmc_plan *plan;
	struct row rows[PMC_MAX_EVENTS];
	size_t n_rows = 0;
	double el_sum = 0, el_sumsq = 0;
	unsigned runs = 0;
	struct run r;
	int rc;

	parse_args(&a, argc, argv);
	if (attach_wanted(&a.att)) {
		char name[64];

		attach_prepare("pmcprof stat", &a.att, a.backend, name, sizeof(name));
	}
	if (a.n == 0)
		default_events(&a);
	if ((rc = make_plan(&a, &plan, rows, &n_rows)))
		return rc;

	FILE *out = stderr;
	if (a.outpath && !(out = fopen(a.outpath, "we"))) {
		fprintf(stderr, "pmcprof stat: cannot write %s: %s\n", a.outpath, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (attach_wanted(&a.att)) {
		memset(&r, 0, sizeof(r));
		if ((rc = attach_stat(&a.att, plan, r.counts, &r.elapsed)))
			return rc;
		for (size_t i = 0; i < pmc_plan_nevents(plan); i++)
			tally_add(&tally[i], &r.counts[i], true);
		print_counts(out, &a, plan, rows, n_rows, tally, 1, r.elapsed,
			     r.elapsed * r.elapsed);
		if (out != stderr)
			fclose(out);
		pmc_plan_free(plan);
		return 0;
	}
	/* Like perf stat: ^C goes to the program; we report and pass it on. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	for (unsigned long long k = 0; k < a.repeat; k++) {
		if ((rc = run_once(&a, plan, &r)))
			return rc;
		for (size_t i = 0; i < pmc_plan_nevents(plan); i++)
			tally_add(&tally[i], &r.counts[i], r.counted);
		el_sum += r.elapsed;
		el_sumsq += r.elapsed * r.elapsed;
		runs++;
		if (WIFSIGNALED(r.status))
			break;
	}
	print_counts(out, &a, plan, rows, n_rows, tally, runs, el_sum, el_sumsq);
	if (out != stderr)
		fclose(out);
	pmc_plan_free(plan);

	if (WIFSIGNALED(r.status)) {
		int sig = WTERMSIG(r.status);
		fprintf(stderr, "pmcprof stat: %s was killed by signal %d (%s)\n", a.cmd[0], sig,
			strsignal(sig));
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	return WEXITSTATUS(r.status);
}
