/* pmcprof record / stat -p PID, -t TID, -a: the command side of attach/.
 *
 * Parses the target lists, refuses what cannot attach with the reason
 * (a backend other than perf_event; another user's process; -a without
 * the right), runs the loop (until the targets end, --duration, perf's
 * trailing command, or SIGINT/SIGTERM/SIGHUP to pmcprof itself: the
 * target never gets a signal from us) and says what it wrote. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"
#include "cli/attach.h"
#include "cli/options.h"

#define MAX_TARGETS 256

static volatile sig_atomic_t stop_signal;

static void on_stop(int signo)
{
	stop_signal = signo;
}

/* Why a backend other than perf_event cannot watch another process. */
static const struct {
	const char *backend;
	const char *why;
} cannot[] = {
	{ "cputimer", "POSIX CPU timers signal the thread they time, so they only sample from "
		      "inside the program (the LD_PRELOAD collector): start it with "
		      "'pmcprof record -- CMD', or use a perf_event event (cpu-clock)" },
	{ "perfctr_xen", "perfctr-xen counters are armed by the profiled thread itself through "
			 "its own hypervisor interface, from inside the program: start it with "
			 "'pmcprof record -- CMD'" },
};

static void die(const char *prog, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void die(const char *prog, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* "1,2,3" into ids; a bad element is a usage error. */
static size_t parse_list(const char *prog, const char *opt, const char *list, pid_t *ids)
{
	size_t n = 0;
	const char *p = list;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			die(prog, EXIT_USAGE, "%s '%s': expected a list of process or thread ids "
					      "(e.g. 1234,5678)", opt, list);
		if (n == MAX_TARGETS)
			die(prog, EXIT_USAGE, "%s: at most %d ids", opt, MAX_TARGETS);
		ids[n++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	if (!n)
		die(prog, EXIT_USAGE, "%s: no id given", opt);
	return n;
}

struct targets {
	pid_t pids[MAX_TARGETS], tids[MAX_TARGETS];
	size_t n_pids, n_tids;
	double duration;		/* seconds; 0: none */
};

static void targets_of(const char *prog, const struct attach_req *r, struct targets *t)
{
	memset(t, 0, sizeof(*t));
	if (r->all_cpus && (r->pids || r->tids))
		die(prog, EXIT_USAGE, "-a (every CPU) already covers every process: "
				      "drop -p/-t, or -a");
	if (r->pids)
		t->n_pids = parse_list(prog, "-p/--pid", r->pids, t->pids);
	if (r->tids)
		t->n_tids = parse_list(prog, "-t/--tid", r->tids, t->tids);
	if (r->duration) {
		char *end;

		t->duration = strtod(r->duration, &end);
		if (end == r->duration || *end || !(t->duration > 0) || t->duration > 1e7)
			die(prog, EXIT_USAGE, "--duration '%s': expected seconds, e.g. 10 or 0.5",
			    r->duration);
	}
}

static void refuse_backend(const char *prog, const char *backend);

const char *attach_prepare(const char *prog, const struct attach_req *r, const char *backend,
			   char *buf, size_t len)
{
	struct targets t;
	char path[64];
	FILE *f;

	targets_of(prog, r, &t);
	if (backend)
		refuse_backend(prog, backend);
	for (size_t i = 0; i < t.n_pids + t.n_tids; i++) {
		pid_t id = i < t.n_pids ? t.pids[i] : t.tids[i - t.n_pids];

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
		if (access(path, F_OK) < 0)
			die(prog, EXIT_RUNTIME, "%s %d: no such %s", i < t.n_pids ? "process" : "thread",
			    (int)id, i < t.n_pids ? "process" : "thread");
	}
	snprintf(buf, len, "%s", r->all_cpus ? "all" : "attach");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)(t.n_pids ? t.pids[0] : t.tids[0]));
	if (!r->all_cpus && (f = fopen(path, "re"))) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}

/* Owner of /proc/PID, or -1. */
static long owner_of(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 ? (long)st.st_uid : -1;
}

/* perf-quality advice for a failed attach. */
static void advise(const char *prog, const struct att_error *e, bool all_cpus)
{
	struct pmc_env env;
	char buf[512];
	int err = -e->err;
	pid_t who = e->pid > 0 ? e->pid : e->tid;

	pmc_env_probe(&env);
	if (err == ESRCH) {
		die(prog, EXIT_RUNTIME, "%s %d: no such %s (it may have ended)",
		    e->tid && !e->pid ? "thread" : "process", (int)who,
		    e->tid && !e->pid ? "thread" : "process");
	}
	if ((err == EACCES || err == EPERM) && !strcmp(e->what ? e->what : "", "mmap"))
		die(prog, EXIT_RUNTIME, "cannot map the sample buffer (%s): the locked-memory "
					"allowance kernel.perf_event_mlock_kb is used up; raise it (as "
					"root: sysctl kernel.perf_event_mlock_kb=2048) or 'ulimit -l'",
		    strerror(err));
	if ((err == EACCES || err == EPERM) && all_cpus && geteuid() != 0)
		die(prog, EXIT_RUNTIME, "-a (every process on every CPU): %s; perf_event_paranoid "
					"is %d, and watching a whole CPU needs it at 0 or below (as "
					"root: sysctl kernel.perf_event_paranoid=0), or CAP_PERFMON "
					"(CAP_SYS_ADMIN before Linux 5.8); -p PID profiles your own "
					"processes", strerror(err), env.paranoid);
	if ((err == EACCES || err == EPERM) && who > 0 && geteuid() != 0 &&
	    owner_of(who) >= 0 && owner_of(who) != (long)geteuid())
		die(prog, EXIT_RUNTIME, "%s %d belongs to uid %ld, not to you (uid %u): %s; the "
					"kernel lets you watch only your own processes (the ptrace "
					"read check): run pmcprof as that user or as root, or grant "
					"CAP_PERFMON and CAP_SYS_PTRACE",
		    e->tid && !e->pid ? "thread" : "process", (int)who, owner_of(who),
		    (unsigned)geteuid(), strerror(err));
	if (err == EMFILE || err == ENFILE)
		die(prog, EXIT_RUNTIME, "%s: %s: every thread needs a counter per CPU and event; "
					"raise the limit ('ulimit -n 65536') or name threads with -t",
		    e->what ? e->what : "open", strerror(err));
	die(prog, EXIT_RUNTIME, "cannot attach to %s%s%d: %s: %s", all_cpus ? "CPU " : "",
	    all_cpus ? "" : e->tid && !e->pid ? "thread " : "process ",
	    all_cpus ? e->cpu : (int)who, e->what ? e->what : "open",
	    pmc_advice(e->err, &env, buf, sizeof(buf)));
}

static void refuse_backend(const char *prog, const char *backend)
{
	for (size_t i = 0; i < sizeof(cannot) / sizeof(cannot[0]); i++)
		if (!strcmp(backend, cannot[i].backend))
			die(prog, EXIT_RUNTIME, "the %s backend cannot attach to a running program: %s",
			    backend, cannot[i].why);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A counter per thread and CPU: a big process needs more descriptors
 * than the usual soft limit of 1024.  Ours, up to the hard limit, as perf
 * does (the target's limits are its own). */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Our own stop signals; the target's are its own business.  No
 * SA_RESTART: a signal ends the wait in poll. */
static void catch_stops(void)
{
	struct sigaction sa = { .sa_handler = on_stop };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* perf's "pmcprof record -p PID -- sleep 5": the command times the run. */
static pid_t start_cmd(const char *prog, char **cmd)
{
	pid_t pid;

	if (!cmd || !cmd[0])
		return 0;
	pid = fork();
	if (pid < 0)
		die(prog, EXIT_RUNTIME, "fork: %s", strerror(errno));
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, cmd[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static bool cmd_done(pid_t pid)
{
	return pid > 0 && waitpid(pid, NULL, WNOHANG) == pid;
}

/* One line: what is watched. */
static void say_targets(const char *prog, const struct targets *t, bool all, const char *what)
{
	fprintf(stderr, "%s: %s ", prog, what);
	if (all)
		fprintf(stderr, "every process on every CPU");
	for (size_t i = 0; i < t->n_pids; i++)
		fprintf(stderr, "%sprocess %d", i ? ", " : "", (int)t->pids[i]);
	for (size_t i = 0; i < t->n_tids; i++)
		fprintf(stderr, "%sthread %d", i || t->n_pids ? ", " : "", (int)t->tids[i]);
	if (t->duration > 0)
		fprintf(stderr, " for %g s", t->duration);
	fprintf(stderr, "; Ctrl-C stops\n");
}

/* The settings' events, parsed back (the launcher's round trip holds). */
static size_t settings_events(const struct rec_settings *set, struct pmc_event *ev)
{
	char msg[256];
	size_t n = 0;

	for (size_t i = 0; i < set->n_events; i++)
		if (pmc_event_parse(set->events[i], &ev[n], msg, sizeof(msg)) == 0)
			n++;
	return n;
}

static void join(char *dst, size_t cap, const char (*list)[SET_SPEC_MAX], size_t n)
{
	size_t off = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < n && off < cap; i++)
		off += (size_t)snprintf(dst + off, cap - off, "%s%s", i ? ";" : "", list[i]);
}

/* The loop: drain until something says stop. */
static int run_loop(const char *prog, struct att_session *s, const struct targets *t, pid_t cmd)
{
	double end = t->duration > 0 ? now() + t->duration : 0;

	for (;;) {
		int ms = 100, ret;

		if (end) {
			double left = end - now();

			if (left <= 0)
				return 0;
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		ret = att_poll(s, ms);
		if (ret < 0) {
			fprintf(stderr, "%s: reading samples: %s\n", prog, strerror(-ret));
			return ret;
		}
		if (ret == 1) {
			fprintf(stderr, "%s: the profiled process%s ended\n", prog,
				t->n_pids + t->n_tids > 1 ? "es" : "");
			return 0;
		}
		if (stop_signal || cmd_done(cmd))
			return 0;
	}
}

/* Samples that stand for much less CPU time than the processes used:
 * said, with the reason (a counter per thread and CPU keeps up to one
 * period unsampled, which a process of many short-running threads feels).
 * Judged where the shortfall is over 20% and 10 periods. */
static void warn_coverage(const char *prog, const struct att_stats *st,
			  const struct rec_settings *set)
{
	struct pmc_event ev;
	char msg[128];
	double cpu = (double)st->proc_cpu_ns, got = (double)st->sampled_ns;

	if (!st->proc_cpu_ns || set->n_events != 1 ||
	    pmc_event_parse(set->events[0], &ev, msg, sizeof(msg)) < 0 || !ev.period ||
	    strcmp(ev.unit, "ns") || got >= 0.8 * cpu || cpu - got < 10.0 * (double)ev.period)
		return;
	fprintf(stderr, "%s: warning: the samples stand for %.3f s of the %.3f s of CPU time "
			"what was profiled used (%.0f%%): each of the %zu counters (a thread on a CPU) "
			"keeps up to one period (%.3f ms) unsampled, which many short-running "
			"threads add up; a shorter period (-c) lowers it\n",
		prog, got / 1e9, cpu / 1e9, 100 * got / cpu, st->counters,
		(double)ev.period / 1e6);
}

int attach_record(const struct attach_req *r, const struct rec_settings *set, bool quiet,
		  void (*make_outdir)(void *arg), void *arg)
{
	const char *prog = "pmcprof record";
	struct pmc_event ev[PMC_MAX_EVENTS];
	char used[PMC_MAX_EVENTS * SET_SPEC_MAX], requested[PMC_MAX_EVENTS * SET_SPEC_MAX];
	const char *req_of[PMC_MAX_EVENTS];
	struct att_session *s;
	struct att_error e;
	struct att_stats st;
	struct targets t;
	const char *failed = NULL;
	size_t n_ev;
	pid_t cmd;
	int ret;

	targets_of(prog, r, &t);
	refuse_backend(prog, set->backend);
	n_ev = settings_events(set, ev);
	for (size_t i = 0; i < n_ev; i++)
		if (ev[i].kind != PMC_KIND_PERF)
			die(prog, EXIT_RUNTIME, "event %s belongs to the %s backend, which cannot "
						"attach: only perf_event counters can watch another "
						"process", ev[i].name, ev[i].plugin);
	join(used, sizeof(used), set->events, set->n_events);
	join(requested, sizeof(requested), set->requested, set->n_requested);
	/* Fallback may merge events; then the whole request says it best. */
	for (size_t i = 0; i < n_ev; i++)
		req_of[i] = set->n_requested == n_ev ? set->requested[i] : requested;
	raise_nofile();
	{
		ATT_OPTS(o, .pids = t.pids, .n_pids = t.n_pids, .tids = t.tids, .n_tids = t.n_tids,
			 .all_cpus = r->all_cpus, .ev = ev, .n_ev = n_ev, .requested = req_of,
			 .stack = set->call_graph == UW_MODE_NONE ? ATT_STACK_NONE
				: set->call_graph == UW_MODE_FP ? ATT_STACK_FP : ATT_STACK_CFI,
			 .outdir = set->outdir, .file_mode = set->private_files ? 0600 : 0644,
			 .backend = "perf_event", .events_requested = requested,
			 .events_used = used, .fallback = set->fallback,
			 .calibration = set->calibration);
		ret = att_open(&o, &s, &e);
	}
	if (ret < 0)
		advise(prog, &e, r->all_cpus);
	make_outdir(arg);
	catch_stops();
	cmd = start_cmd(prog, r->cmd);
	if (!quiet)
		say_targets(prog, &t, r->all_cpus, "profiling");
	if ((ret = att_enable(s)) < 0)
		die(prog, EXIT_RUNTIME, "cannot start the counters: %s", strerror(-ret));
	ret = run_loop(prog, s, &t, cmd);
	att_disable(s);
	if (cmd > 0 && !cmd_done(cmd))
		waitpid(cmd, NULL, 0);
	ret = att_finish(s, &failed);
	att_stats(s, &st);
	att_close(s);
	if (ret < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, failed ? failed : set->outdir,
			strerror(-ret));
		return EXIT_RUNTIME;
	}
	if (!quiet || !st.profiles) {
		fprintf(stderr, "%s: %zu profile%s in %s (%llu samples", prog, st.profiles,
			st.profiles == 1 ? "" : "s", set->outdir, (unsigned long long)st.samples);
		if (st.lost)
			fprintf(stderr, ", %llu lost by the kernel", (unsigned long long)st.lost);
		if (st.throttled)
			fprintf(stderr, ", throttled %llu times", (unsigned long long)st.throttled);
		if (st.truncated)
			fprintf(stderr, ", %llu stacks truncated", (unsigned long long)st.truncated);
		fprintf(stderr, ")%s\n", stop_signal ? ", stopped by a signal" : "");
	}
	warn_coverage(prog, &st, set);
	return 0;
}

int attach_stat(const struct attach_req *r, const struct pmc_plan *plan, struct pmc_count *vals,
		double *elapsed)
{
	const char *prog = "pmcprof stat";
	struct att_counter *c;
	struct att_error e;
	struct targets t;
	double t0;
	pid_t cmd;
	int ret;

	targets_of(prog, r, &t);
	refuse_backend(prog, pmc_backend_name(pmc_plan_backend(plan)));
	raise_nofile();
	{
		ATT_OPTS(o, .pids = t.pids, .n_pids = t.n_pids, .tids = t.tids, .n_tids = t.n_tids,
			 .all_cpus = r->all_cpus, .ev = pmc_plan_events(plan),
			 .n_ev = pmc_plan_nevents(plan));
		ret = att_count_open(&o, &c, &e);
	}
	if (ret == -PMC_ENOTSUP)
		die(prog, EXIT_RUNTIME, "only perf_event counters can count another process "
					"(the %s backend counts from inside it)",
		    pmc_backend_name(pmc_plan_backend(plan)));
	if (ret < 0)
		advise(prog, &e, r->all_cpus);
	catch_stops();
	t0 = now();
	cmd = start_cmd(prog, r->cmd);
	while (!stop_signal && !cmd_done(cmd) && !att_count_done(c)) {
		double left = t.duration > 0 ? t0 + t.duration - now() : 0.1;

		if (left <= 0)
			break;
		usleep((useconds_t)((left < 0.1 ? left : 0.1) * 1e6));
	}
	*elapsed = now() - t0;
	att_count_read(c, vals, pmc_plan_nevents(plan));
	att_count_close(c);
	if (cmd > 0 && !cmd_done(cmd))
		waitpid(cmd, NULL, 0);
	return 0;
}

void attach_describe(const struct attach_req *r, char *buf, size_t len)
{
	if (r->all_cpus)
		snprintf(buf, len, "system wide");
	else if (r->pids)
		snprintf(buf, len, "process id '%s'", r->pids);
	else
		snprintf(buf, len, "thread id '%s'", r->tids);
}

char **attach_operands(struct attach_req *r, const struct opt_cmd *cmd, int argc, char **argv,
		       int first, const char *no_cmd)
{
	if (r->duration && !attach_wanted(r))
		opts_die(cmd, "--duration goes with -p, -t or -a (a command runs to its end)");
	if (attach_wanted(r))
		return r->cmd = first < argc ? argv + first : NULL;
	if (first >= argc)
		opts_die(cmd, "%s", no_cmd);
	return argv + first;
}
