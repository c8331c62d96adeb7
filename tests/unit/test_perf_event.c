/* The perf_event plugin for real, through its descriptor's ops: counting
 * software clocks against the thread CPU clock, sampling signals (count,
 * thread, index, one per overflow), period changes on rearm, pid/inherit
 * and enable_on_exec, and the probe's reasons. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc_plugin.h"
#include "plugins/perf_event/pe.h"
#include "tests/harness.h"

extern const struct pmc_plugin pmc_plugin;
static const struct pmc_plugin_ops *ops = &pmc_plugin.ops;

#define MS ((uint64_t)1000000)

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Burn ns of this thread's CPU time. */
static void spin_cpu(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static struct pmc_event sw_event(uint64_t config, uint64_t period)
{
	struct pmc_event ev;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "sw%" PRIu64, config);
	ev.kind = PMC_KIND_PERF;
	ev.type = PERF_TYPE_SOFTWARE;
	ev.config = config;
	ev.period = period;
	ev.unit = "ns";
	return ev;
}

/* Time this thread spent on a CPU, measured two ways: its CPU clock,
 * which leaves out what the hypervisor stole, and wall time minus its
 * run-queue waits (schedstat), which includes it as perf's clocks do.  A
 * perf clock count over the span must lie between the two. */
struct oncpu {
	uint64_t cpu, wall, delay;
};

static struct oncpu oncpu_now(void)
{
	struct oncpu o = { clock_ns(CLOCK_THREAD_CPUTIME_ID), clock_ns(CLOCK_MONOTONIC), 0 };
	unsigned long long run, delay;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f && fscanf(f, "%llu %llu", &run, &delay) == 2)
		o.delay = delay;
	if (f)
		fclose(f);
	return o;
}

struct band {
	double lo, hi;			/* ns on a CPU without / with steal */
};

static struct band oncpu_since(struct oncpu a)
{
	struct oncpu b = oncpu_now();
	struct band r = { (double)(b.cpu - a.cpu), (double)(b.wall - a.wall) -
							   (double)(b.delay - a.delay) };
	if (r.hi < r.lo)
		r.hi = r.lo;
	return r;
}

/* v within tol of [lo, hi] scaled by k. */
static bool in_band(double v, struct band b, double k, double tol)
{
	return v >= b.lo * k * (1 - tol) && v <= b.hi * k * (1 + tol);
}

static void test_count_clocks(void)
{
	struct pmc_event evs[2] = { sw_event(PERF_COUNT_SW_TASK_CLOCK, 0),
				    sw_event(PERF_COUNT_SW_CPU_CLOCK, 0) };
	PMC_GROUP_OPTS(opts, .pid = 0);
	struct pmc_count c[2], idle[2];
	void *ctx = NULL;

	int rc = ops->open(evs, 2, &opts, &ctx);
	T_OK(rc == 0, "count: open task-clock + cpu-clock (rc %d)", rc);
	if (rc)
		return;
	T_OK(ops->read(ctx, idle, 2) == 0 && idle[0].raw == 0 && idle[0].enabled == 0,
	     "count: created stopped (raw %" PRIu64 ")", idle[0].raw);
	struct oncpu t0 = oncpu_now();
	rc = ops->start(ctx);
	spin_cpu(150 * MS);
	rc |= ops->stop(ctx);
	struct band on = oncpu_since(t0);
	rc |= ops->read(ctx, c, 2);
	T_OK(rc == 0, "count: start/stop/read");
	for (int i = 0; i < 2; i++) {
		T_OK(in_band((double)c[i].value, on, 1, 0.05),
		     "count: %s %.1f ms vs thread CPU %.1f ms (%.1f with steal) within 5%%",
		     i ? "cpu-clock" : "task-clock", (double)c[i].value / MS, on.lo / MS, on.hi / MS);
		T_OK(!c[i].scaled && c[i].running == c[i].enabled && c[i].enabled > 0,
		     "count: %s not multiplexed (ena %" PRIu64 " run %" PRIu64 ")",
		     i ? "cpu-clock" : "task-clock", c[i].enabled, c[i].running);
	}
	/* Stopped means stopped. */
	spin_cpu(20 * MS);
	struct pmc_count after[2];
	ops->read(ctx, after, 2);
	T_OK(after[0].raw == c[0].raw, "count: no counting after stop");
	ops->close(ctx);
}

/* ---- sampling ---- */

static struct {
	void *ctx;
	pid_t tid;			/* the thread that should get the signals */
	volatile uint64_t next_period[2];
	volatile int rearm;		/* rearm in the handler */
	volatile int hits[2], other, wrong_tid;
} S;

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	int idx = ops->overflow(S.ctx, si);

	(void)sig;
	(void)uc;
	if (gettid() != S.tid)
		S.wrong_tid++;
	if (idx < 0 || idx > 1) {
		S.other++;
	} else {
		S.hits[idx]++;
		if (S.rearm)
			ops->rearm(S.ctx, idx, S.next_period[idx]);
	}
	errno = saved;
}

static int signo(void)
{
	return SIGRTMIN + 4;
}

static void install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(signo(), &sa, NULL);
}

static volatile int main_spinning;

/* Runs in a worker thread while the main thread spins too, so a signal
 * routed to the process instead of the thread would show. */
static void *sample_worker(void *arg)
{
	struct pmc_event evs[2] = { sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS),
				    sw_event(PERF_COUNT_SW_TASK_CLOCK, 2 * MS) };
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());
	struct pmc_count c[2];
	struct pmc_sample_stats st;

	(void)arg;
	memset((void *)&S, 0, sizeof(S));
	S.tid = gettid();
	S.rearm = 1;
	if (ops->open(evs, 2, &opts, &S.ctx) != 0 || ops->arm(S.ctx, signo()) != 0) {
		T_OK(0, "sample: open and arm cpu-clock@1ms + task-clock@2ms");
		return NULL;
	}
	struct oncpu t0 = oncpu_now();
	ops->start(S.ctx);
	spin_cpu(300 * MS);
	ops->stop(S.ctx);
	struct band on = oncpu_since(t0);
	ops->read(S.ctx, c, 2);
	ops->stats(S.ctx, &st);

	for (int i = 0; i < 2; i++) {
		double k = 1.0 / (double)evs[i].period;
		T_OK(in_band(S.hits[i], on, k, 0.15),
		     "sample: event %d got %d signals, %.0f-%.0f expected from time on CPU", i,
		     S.hits[i], on.lo * k, on.hi * k);
		/* One signal per overflow: the count itself says how many
		 * periods elapsed while the event ran.  A few may be missing:
		 * an hrtimer that fires late (a vCPU the host preempted)
		 * skips the periods it missed. */
		double periods = (double)c[i].value / (double)evs[i].period;
		T_OK(S.hits[i] >= periods * 0.9 - 2 && S.hits[i] <= periods + 1,
		     "sample: event %d one signal per overflow (%d signals, %.1f periods counted)", i,
		     S.hits[i], periods);
	}
	T_OK(S.wrong_tid == 0, "sample: all signals on the counted thread (%d elsewhere)",
	     S.wrong_tid);
	T_OK(S.other == 0, "sample: overflow() identified every signal (%d not)", S.other);
	T_OK(st.overflows == (uint64_t)(S.hits[0] + S.hits[1]) && st.spurious == 0,
	     "sample: stats.overflows %" PRIu64 " = signals, spurious %" PRIu64
	     " (throttled %" PRIu64 ", lost %" PRIu64 ")",
	     st.overflows, st.spurious, st.throttled, st.lost);
	/* Each overflow wrote an 8-byte sample record to the ring buffer
	 * that carries THROTTLE/LOST records, and stats() drained it. */
	const struct perf_event_mmap_page *pg = pe_page(S.ctx, 0);
	T_OK(pg && pg->data_head >= 8 * (uint64_t)S.hits[0] && pg->data_tail == pg->data_head,
	     "sample: ring buffer written and drained (head %llu for %d overflows)",
	     pg ? (unsigned long long)pg->data_head : 0ULL, S.hits[0]);
	ops->close(S.ctx);
	S.ctx = NULL;
	return NULL;
}

static void *spin_main(void *arg)
{
	(void)arg;
	while (main_spinning)
		;
	return NULL;
}

static void test_sample_two_events(void)
{
	pthread_t w, m;

	main_spinning = 1;
	pthread_create(&m, NULL, spin_main, NULL);
	pthread_create(&w, NULL, sample_worker, NULL);
	pthread_join(w, NULL);
	main_spinning = 0;
	pthread_join(m, NULL);
}

static void test_one_signal_without_rearm(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());

	memset((void *)&S, 0, sizeof(S));
	S.tid = gettid();
	if (ops->open(&ev, 1, &opts, &S.ctx) != 0 || ops->arm(S.ctx, signo()) != 0) {
		T_OK(0, "no rearm: open and arm");
		return;
	}
	ops->start(S.ctx);
	spin_cpu(30 * MS);
	ops->stop(S.ctx);
	T_OK(S.hits[0] == 1, "no rearm: exactly one signal in 30 overflow periods (%d)", S.hits[0]);
	ops->close(S.ctx);
	S.ctx = NULL;
}

static void test_rearm_period(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());

	memset((void *)&S, 0, sizeof(S));
	S.tid = gettid();
	S.rearm = 1;
	if (ops->open(&ev, 1, &opts, &S.ctx) != 0 || ops->arm(S.ctx, signo()) != 0) {
		T_OK(0, "rearm period: open and arm");
		return;
	}
	ops->start(S.ctx);
	struct oncpu t0 = oncpu_now();
	spin_cpu(100 * MS);
	struct band on1 = oncpu_since(t0);
	int h1 = S.hits[0];
	S.next_period[0] = 4 * MS;	/* the next rearm switches to 4 ms */
	struct oncpu t1 = oncpu_now();
	spin_cpu(200 * MS);
	struct band on2 = oncpu_since(t1);
	int h2 = S.hits[0] - h1;
	ops->stop(S.ctx);
	T_OK(in_band(h1, on1, 1.0 / MS, 0.15), "rearm period: %d signals in %.0f ms on CPU at 1 ms",
	     h1, on1.lo / MS);
	T_OK(in_band(h2, on2, 1.0 / (4 * MS), 0.15),
	     "rearm period: %d signals in %.0f ms on CPU after rearm(4 ms)", h2, on2.lo / MS);
	ops->close(S.ctx);
	S.ctx = NULL;
}

static void test_overflow_foreign(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());
	struct pmc_sample_stats st;
	void *ctx;
	siginfo_t si;

	if (ops->open(&ev, 1, &opts, &ctx) != 0) {
		T_OK(0, "foreign: open");
		return;
	}
	memset(&si, 0, sizeof(si));
	si.si_code = SI_TIMER;
	T_OK(ops->overflow(ctx, &si) == -1, "foreign: a timer's signal is not ours");
	si.si_code = POLL_HUP;
	si.si_fd = 1000;
	T_OK(ops->overflow(ctx, &si) == -1, "foreign: another fd is not ours");
	ops->stats(ctx, &st);
	T_OK(st.overflows == 0 && st.spurious == 0, "foreign: nothing counted");
	T_OK(ops->rearm(ctx, 1, 0) == -EINVAL && ops->rearm(ctx, -1, 0) == -EINVAL,
	     "foreign: rearm of a bad index is -EINVAL");
	ops->close(ctx);
}

/* ---- other tasks ---- */

/* A child that waits for a byte on *go, forks a grandchild, and both
 * fault in pages fresh pages before exiting.  Page faults, unlike clocks,
 * do not depend on how busy the host is. */
static pid_t spawn_touchers(int *go, size_t pages)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char b;
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(1);
		pid_t g = fork();
		long ps = sysconf(_SC_PAGESIZE);
		volatile char *m = mmap(NULL, pages * (size_t)ps, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			for (size_t i = 0; i < pages; i++)
				m[i * (size_t)ps] = 1;
		if (g > 0)
			waitpid(g, NULL, 0);
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void test_inherit(void)
{
	const size_t pages = 4000;
	struct pmc_event ev = sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0);
	struct pmc_count c;
	int go = -1;
	void *ctx;

	for (int inherit = 0; inherit <= 1; inherit++) {
		pid_t pid = spawn_touchers(&go, pages);
		PMC_GROUP_OPTS(opts, .pid = pid, .inherit = inherit);
		int rc = ops->open(&ev, 1, &opts, &ctx);

		T_OK(rc == 0, "inherit=%d: open minor-faults on pid %d (rc %d)", inherit, pid, rc);
		if (rc == 0)
			ops->start(ctx);
		if (write(go, "g", 1) != 1)
			T_OK(0, "inherit: release the child");
		close(go);
		waitpid(pid, NULL, 0);
		if (rc)
			continue;
		ops->read(ctx, &c, 1);
		/* Each process faults its pages plus some copy-on-write and
		 * exit faults (more under ASan): a bound of one more process's
		 * pages tells one process from two. */
		uint64_t lo = pages * (inherit ? 2 : 1), hi = lo + pages - 1;
		T_OK(c.value >= lo && c.value <= hi, "inherit=%d: %s counted (%" PRIu64 " faults, %" PRIu64 "-%" PRIu64 ")",
		     inherit, inherit ? "child + grandchild" : "child only", c.value, lo, hi);
		ops->close(ctx);
	}
	PMC_GROUP_OPTS(sopts, .pid = 0, .inherit = true, .sample = true);
	struct pmc_event sev = sw_event(PERF_COUNT_SW_TASK_CLOCK, MS);
	T_OK(ops->open(&sev, 1, &sopts, &ctx) == -PMC_ENOTSUP,
	     "inherit: sampling an inherited event is refused");
}

static void test_enable_on_exec(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0);
	struct pmc_count c;
	int p[2];
	void *ctx;

	if (pipe(p) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char b;
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(1);
		spin_cpu(50 * MS);	/* before exec: not counted */
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	PMC_GROUP_OPTS(opts, .pid = pid, .enable_on_exec = true);
	int rc = ops->open(&ev, 1, &opts, &ctx);
	T_OK(rc == 0, "enable_on_exec: open (rc %d)", rc);
	if (write(p[1], "g", 1) != 1)
		T_OK(0, "enable_on_exec: release the child");
	close(p[1]);
	int status = 0;
	waitpid(pid, &status, 0);
	if (rc)
		return;
	ops->read(ctx, &c, 1);
	T_OK(c.value > 0 && c.value < 20 * MS,
	     "enable_on_exec: counts only after exec (%.2f ms of a 50 ms pre-exec spin)",
	     (double)c.value / MS);
	ops->close(ctx);
}

/* ---- hardware and errors ---- */

static void test_hardware(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_HW_CPU_CYCLES, 0);
	PMC_GROUP_OPTS(opts, .pid = 0);
	void *ctx = NULL;

	ev.type = PERF_TYPE_HARDWARE;
	ev.hardware = true;
	int rc = ops->open(&ev, 1, &opts, &ctx);
	if (rc == 0) {
		T_SKIP("hardware: cycles opened, this machine has a PMU");
		ops->close(ctx);
		return;
	}
	T_OK(rc == -EOPNOTSUPP || rc == -ENOENT, "hardware: cycles fails with %s (no PMU)",
	     strerrorname_np(-rc));

	struct pmc_event plugin_ev = sw_event(0, 0);
	plugin_ev.kind = PMC_KIND_PLUGIN;
	T_OK(ops->open(&plugin_ev, 1, &opts, &ctx) == -PMC_EBACKEND,
	     "open: a plugin-table event is -PMC_EBACKEND");
	struct pmc_event many[PMC_MAX_EVENTS + 1];
	for (int i = 0; i <= PMC_MAX_EVENTS; i++)
		many[i] = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0);
	T_OK(ops->open(many, PMC_MAX_EVENTS + 1, &opts, &ctx) == -PMC_ETOOMANY,
	     "open: more than PMC_MAX_EVENTS is -PMC_ETOOMANY");
}

static void test_probe(void)
{
	static const struct {
		int line;
		bool syscall;
		int sys_errno;
		bool hw;
		int hw_errno;
		int paranoid;
		const char *hv;		/* hypervisor name, NULL on bare metal */
		int n_gp;
		bool usable, hardware;
		const char *reason;	/* substring, "" for none */
	} cases[] = {
		{ __LINE__, true, 0, true, 0, 2, NULL, 8, true, true, "" },
		{ __LINE__, true, 0, false, EOPNOTSUPP, 2, NULL, 0, true, false,
		  "no hardware PMU events: perf_event_open(cycles) failed with EOPNOTSUPP" },
		{ __LINE__, true, 0, false, ENOENT, 2, "KVM", 0, true, false,
		  "failed with ENOENT (KVM guest: the host exposes no vPMU, CPUID 0AH version 0)" },
		{ __LINE__, true, 0, false, ENOENT, 2, "Xen", 4, true, false, "(Xen guest)" },
		{ __LINE__, true, 0, false, EACCES, 3, NULL, 8, true, false,
		  "perf_event_paranoid is 3" },
		{ __LINE__, false, EACCES, false, EACCES, 4, NULL, 8, false, false,
		  "perf_event_paranoid is 4" },
		{ __LINE__, false, ENOSYS, false, ENOSYS, 2, NULL, 8, false, false,
		  "failed with ENOSYS" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmc_env env;
		struct pmc_probe pr;

		memset(&env, 0, sizeof(env));
		env.perf_event_syscall = cases[i].syscall;
		env.perf_event_errno = cases[i].sys_errno;
		env.hw_events = cases[i].hw;
		env.hw_errno = cases[i].hw_errno;
		env.paranoid = cases[i].paranoid;
		env.hv_present = cases[i].hv != NULL;
		env.hv_name = cases[i].hv ? cases[i].hv : "none";
		env.cpu_vendor = PMC_CPU_INTEL;
		env.n_gp = cases[i].n_gp;
		int rc = ops->probe(&env, &pr);
		bool reason_ok = cases[i].reason[0] ? strstr(pr.reason, cases[i].reason) != NULL
						    : pr.reason[0] == '\0';
		T_OK(rc == 0 && pr.usable == cases[i].usable && pr.hardware == cases[i].hardware &&
			     reason_ok,
		     "probe line %d: usable %d hardware %d reason \"%s\"", cases[i].line, pr.usable,
		     pr.hardware, pr.reason);
	}
	T_OK(pmc_plugin.abi == PMC_PLUGIN_ABI && pmc_plugin.size == sizeof(struct pmc_plugin) &&
		     strcmp(pmc_plugin.name, "perf_event") == 0 &&
		     (pmc_plugin.flags & PMC_PLUGIN_PERF_ATTR),
	     "descriptor: ABI, size, name, PERF_ATTR");
}

int main(void)
{
	install_handler();
	test_probe();
	test_hardware();
	test_count_clocks();
	test_sample_two_events();
	test_one_signal_without_rearm();
	test_rearm_period();
	test_overflow_foreign();
	test_inherit();
	test_enable_on_exec();
	return T_DONE();
}
