/* pmcprof stat: count events over a whole run (every thread and child
 * process), like perf stat.
 *
 * perf_event counters are opened on the child before it execs, with
 * inherit and enable_on_exec, so they count exactly the program and its
 * descendants.  The cputimer backend cannot follow children: its CPUTIME is
 * then the whole tree's user+system time from wait4()'s rusage, and
 * REALTIME the elapsed wall time. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc.h"
#include "cli/options.h"

enum { OPT_NO_FALLBACK = OPT_LONG };

static const struct opt stat_opts[] = {
	OPT('e', "event", required_argument, "EVENT",
	  "event to count (repeatable; default: task-clock, and\n"
	  "cycles/instructions where a hardware PMU works)"),
	OPT('b', "backend", required_argument, "BACKEND",
	  "backend plugin (perf_event, cputimer, kvm_vpmu, ...)"),
	OPT('x', "field-separator", required_argument, "SEP",
	  "machine-readable output: value,unit,event,running_ns,running_pct"),
	OPT('o', "output", required_argument, "FILE", "write the counts to FILE instead of stderr"),
	OPT(OPT_NO_FALLBACK, "no-fallback", no_argument, NULL,
	  "fail instead of falling back when an event cannot be counted"),
	OPT_END,
};

static const struct opt_cmd stat_cmd = {
	.prog = "pmcprof stat",
	.synopsis = "pmcprof stat [OPTIONS] [--] CMD [ARGS]",
	.description = "Counts events over the whole run of CMD, its threads and child processes.\n",
	.opts = stat_opts,
	.footer = "The program's exit status is passed through (a signal as 128+N); 1 for a\n"
		  "usage error, 2 when pmcprof cannot count.  See pmcprof-stat(1).\n",
	.stop_at_operand = true,
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

static void print_count(FILE *out, const char *sep, const struct pmc_event *ev,
			const struct pmc_count *c, bool counted, double elapsed)
{
	double pct = c->enabled ? 100.0 * c->running / c->enabled : 100.0;
	bool ns = strcmp(ev->unit, "ns") == 0, us = strcmp(ev->unit, "us") == 0;
	const char *shown = ev->spec[0] ? ev->spec : ev->name;

	if (sep) {
		if (!counted)
			fprintf(out, "<not counted>%s%s%s%s%s0%s0.00\n", sep, ev->unit, sep, shown,
				sep, sep);
		else if (ns || us)
			fprintf(out, "%.3f%smsec%s%s%s%llu%s%.2f\n",
				c->value / (ns ? 1e6 : 1e3), sep, sep, shown, sep,
				(unsigned long long)c->running, sep, pct);
		else
			fprintf(out, "%llu%s%s%s%s%llu%s%.2f\n", (unsigned long long)c->value, sep,
				sep, shown, sep, (unsigned long long)c->running, sep, pct);
		return;
	}
	if (!counted) {
		fprintf(out, "%20s      %-24s\n", "<not counted>", shown);
		return;
	}
	if (ns || us) {
		double ms = c->value / (ns ? 1e6 : 1e3);
		fprintf(out, "%20.2f msec %-24s #  %6.3f CPUs utilized", ms, shown,
			elapsed > 0 ? ms / 1e3 / elapsed : 0);
	} else {
		char digits[40];
		group_digits(digits, sizeof(digits), c->value);
		fprintf(out, "%20s      %-24s", digits, shown);
	}
	if (c->scaled)
		fprintf(out, "  (scaled: counted %.1f%% of the time)", pct);
	fputc('\n', out);
}

int main(int argc, char **argv)
{
	const char *specs[PMC_MAX_EVENTS], *backend = NULL, *sep = NULL, *outpath = NULL, *v;
	struct opt_parser p;
	size_t n = 0;
	unsigned flags = 0;
	int opt, first;

	opts_begin(&p, &stat_cmd, argc, argv);
	while ((opt = opts_next(&p, &v)) != -1) {
		switch (opt) {
		case 'e':
			if (n == PMC_MAX_EVENTS)
				opts_die(&stat_cmd, "at most %d events", PMC_MAX_EVENTS);
			specs[n++] = v;
			break;
		case 'b':
			backend = v;
			break;
		case 'x':
			sep = v;
			break;
		case 'o':
			outpath = v;
			break;
		case OPT_NO_FALLBACK:
			flags |= PMC_PLAN_NO_FALLBACK;
			break;
		}
	}
	first = p.ind;
	if (first >= argc)
		opts_die(&stat_cmd, "no command given");
	if (n == 0) {
		/* Like perf stat: CPU time always, hardware counts where they work. */
		struct pmc_env env;
		pmc_env_probe(&env);
		if (backend && strcmp(backend, "cputimer") == 0) {
			specs[n++] = "CPUTIME";
		} else {
			specs[n++] = "task-clock";
			if (env.hw_events) {
				specs[n++] = "cycles";
				specs[n++] = "instructions";
			}
		}
	}

	struct pmc_plan plan;
	struct pmc_diag diag;
	char err[512];
	int ret = pmc_plan_make(specs, n, backend, flags, &plan, &diag, err, sizeof(err));
	if (ret < 0) {
		for (int i = 0; i < diag.n; i++)
			fprintf(stderr, "pmcprof stat: -e %s: %s\n", specs[diag.item[i].index],
				diag.item[i].msg);
		if (!diag.n)
			fprintf(stderr, "pmcprof stat: %s\n", err);
		return diag.n ? 1 : 2;
	}
	if (plan.fell_back)
		fprintf(stderr, "pmcprof stat: %s\n", plan.why);

	FILE *out = stderr;
	if (outpath) {
		out = fopen(outpath, "we");
		if (!out) {
			fprintf(stderr, "pmcprof stat: cannot write %s: %s\n", outpath,
				strerror(errno));
			return 2;
		}
	}

	/* The child waits on a pipe until its counters are attached. */
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0) {
		perror("pmcprof stat: pipe");
		return 2;
	}
	double t0 = now_sec();
	pid_t pid = fork();
	if (pid < 0) {
		perror("pmcprof stat: fork");
		return 2;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[first], argv + first);
		fprintf(stderr, "pmcprof stat: cannot run '%s': %s\n", argv[first],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);

	bool by_rusage = strcmp(pmc_backend_name(plan.be), "cputimer") == 0;
	struct pmc_group *g = NULL;
	if (!by_rusage) {
		PMC_GROUP_OPTS(opts, .pid = pid, .inherit = true, .enable_on_exec = true);
		ret = pmc_group_open(plan.be, plan.ev, plan.n, &opts, &g);
		if (ret < 0) {
			fprintf(stderr, "pmcprof stat: cannot count on the %s backend: %s\n",
				pmc_backend_name(plan.be), pmc_strerror(ret));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 2;
		}
	}
	if (write(go[1], "g", 1) != 1) {
		perror("pmcprof stat: pipe");
		return 2;
	}
	close(go[1]);

	/* Like perf stat: ^C goes to the program; we report and pass it on. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	double elapsed = now_sec() - t0;

	struct pmc_count counts[PMC_MAX_EVENTS];
	memset(counts, 0, sizeof(counts));
	if (g) {
		ret = pmc_group_read(g, counts, plan.n);
		if (ret < 0)
			fprintf(stderr, "pmcprof stat: read failed: %s\n", pmc_strerror(ret));
		pmc_group_close(g);
	} else {
		uint64_t cpu_us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
				  ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
		for (size_t i = 0; i < plan.n; i++) {
			bool wall = strcmp(plan.ev[i].name, "REALTIME") == 0;
			counts[i].value = counts[i].raw = wall ? (uint64_t)(elapsed * 1e6) : cpu_us;
			counts[i].enabled = counts[i].running = (uint64_t)(elapsed * 1e9);
		}
	}

	if (!sep) {
		fprintf(out, "\n Performance counter stats for '");
		for (int i = first; i < argc; i++)
			fprintf(out, "%s%s", i > first ? " " : "", argv[i]);
		fprintf(out, "' (backend %s%s):\n\n", pmc_backend_name(plan.be),
			by_rusage ? ", whole-tree rusage" : "");
	}
	for (size_t i = 0; i < plan.n; i++)
		print_count(out, sep, &plan.ev[i], &counts[i], ret == 0 || by_rusage, elapsed);
	if (!sep)
		fprintf(out, "\n%20.6f seconds time elapsed\n\n", elapsed);
	if (out != stderr)
		fclose(out);
	pmc_plan_release(&plan);

	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		fprintf(stderr, "pmcprof stat: %s was killed by signal %d (%s)\n", argv[first],
			sig, strsignal(sig));
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	return WEXITSTATUS(status);
}
