/* The perf_event plugin for real, through its descriptor's ops: counting
 * software clocks against the thread CPU clock, sampling signals (count,
 * thread, index, one per overflow, by period and by frequency), silence
 * after stop, period changes on rearm, the bounded backlog, throttling,
 * high counter fds, pid/inherit and enable_on_exec, and the probe's
 * reasons. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc_plugin.h"
#include "plugins/perf_event/pe.h"
#include "tests/harness.h"
#include "tests/unit/plugin_test.h"

extern const struct pmc_plugin pmc_plugin;
static const struct pmc_plugin_ops *ops = &pmc_plugin.ops;


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

/* The same, with a looser lower bound where only the rate's order of
 * magnitude is the point: cpu-clock's signals come late on a loaded host
 * (22% and 55% short seen in an ASan build beside a fuzzer), never early. */
static bool in_band_loaded(double v, struct band b, double k, double lo_tol, double hi_tol)
{
	return v >= b.lo * k * (1 - lo_tol) && v <= b.hi * k * (1 + hi_tol);
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
	/* Counting events of one thread are one kernel group: the leader's
	 * fd reads them all at once (PERF_FORMAT_GROUP: nr, times, values). */
	uint64_t gb[3 + 2 * 2];
	ssize_t got = read(pe_fd(ctx, 0), gb, sizeof(gb));
	T_OK(got == (ssize_t)sizeof(gb) && gb[0] == 2,
	     "count: one group read by one read() (%zd bytes, nr %" PRIu64 ")", got,
	     got > 0 ? gb[0] : 0);
	struct oncpu t0 = oncpu_now();
	rc = ops->start(ctx);
	/* Every member counts from the start: 5 ms in, well inside one
	 * time slice, the two clocks agree.  Enabled leader first
	 * (PERF_IOC_FLAG_GROUP), Linux 6.12+ left cpu-clock, a PMU of its
	 * own, off until the thread's next context switch: 0-3.7 ms here,
	 * and 8-24% low after 150 ms (docs/performance.md). */
	spin_cpu(5 * MS);
	struct pmc_count early[2];
	rc |= ops->read(ctx, early, 2);
	T_OK(rc == 0 && (double)early[1].value >= (double)early[0].value * 0.98 - 50000.0 &&
		     (double)early[1].value <= (double)early[0].value * 1.02 + 50000.0,
	     "count: 5 ms in, cpu-clock %.3f ms with task-clock %.3f ms (2%%): every member "
	     "counts from the start",
	     (double)early[1].value / MS, (double)early[0].value / MS);
	spin_cpu(145 * MS);
	rc |= ops->stop(ctx);
	struct band on = oncpu_since(t0);
	rc |= ops->read(ctx, c, 2);
	T_OK(rc == 0, "count: start/stop/read");
	for (int i = 0; i < 2; i++) {
		/* Within 10% of the thread's CPU time (a clock that counts
		 * what the host steals may reach the wall-time bound). */
		T_OK(in_band((double)c[i].value, on, 1, 0.10),
		     "count: %s %.1f ms vs thread CPU %.1f ms (%.1f with steal) within 10%%",
		     i ? "cpu-clock" : "task-clock", (double)c[i].value / MS, on.lo / MS, on.hi / MS);
		T_OK(!c[i].scaled && c[i].running == c[i].enabled && c[i].enabled > 0,
		     "count: %s not multiplexed (ena %" PRIu64 " run %" PRIu64 ")",
		     i ? "cpu-clock" : "task-clock", c[i].enabled, c[i].running);
	}
	/* The two clocks of one group measure the same time on a CPU. */
	T_OK((double)c[1].value >= (double)c[0].value * 0.97 &&
		     (double)c[1].value <= (double)c[0].value * 1.03,
	     "count: cpu-clock %.2f ms within 3%% of task-clock %.2f ms", (double)c[1].value / MS,
	     (double)c[0].value / MS);
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
	volatile uint64_t alt_period[2];	/* if set: odd overflows rearm with it */
	volatile int rearm;		/* rearm in the handler */
	volatile uint64_t delay;	/* ns of CPU the handler burns */
	volatile int hits[2], other, wrong_tid, not_pollin;
} S;

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	int idx = ops->overflow(S.ctx, si);

	(void)sig;
	(void)uc;
	if (gettid() != S.tid)
		S.wrong_tid++;
	if (si->si_code != POLL_IN)
		S.not_pollin++;
	if (idx < 0 || idx > 1) {
		S.other++;
	} else {
		S.hits[idx]++;
		if (S.delay)
			spin_cpu(S.delay);
		if (S.rearm)
			ops->rearm(S.ctx, idx,
				   S.alt_period[idx] && (S.hits[idx] & 1) ? S.alt_period[idx]
									    : S.next_period[idx]);
	}
	errno = saved;
}

static int signo(void)
{
	return SIGRTMIN + 4;
}

static void install_handler(void)
{
	on_signal_call(signo(), on_overflow);
}

/* Open and arm evs on the calling thread for the handler above; S reset. */
static bool sample_open(const struct pmc_event *evs, size_t n, int rearm, const char *what)
{
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());

	memset((void *)&S, 0, sizeof(S));
	S.tid = gettid();
	S.rearm = rearm;
	if (ops->open(evs, n, &opts, &S.ctx) != 0 || ops->arm(S.ctx, signo()) != 0) {
		T_OK(0, "%s: open and arm", what);
		return false;
	}
	return true;
}

static void sample_close(void)
{
	ops->close(S.ctx);
	S.ctx = NULL;
}

/* Sampling an hrtimer clock: signals over the span match its time on a
 * CPU at 1/period, and, exactly, the periods the event itself counted (one
 * signal per overflow).  A few may be missing: an hrtimer that fires late
 * (a vCPU the host preempted) skips the periods it missed. */
static void check_rate(const char *what, int hits, uint64_t period, struct band on,
		       uint64_t counted)
{
	double k = 1.0 / (double)period;
	double periods = (double)counted / (double)period;

	T_OK(in_band(hits, on, k, 0.15), "%s: %d signals, %.0f-%.0f expected from time on CPU", what,
	     hits, on.lo * k, on.hi * k);
	/* Never more signals than periods; how many a late hrtimer skips
	 * depends on the host's load (24% seen in a sanitized run beside
	 * other work), so the lower bound only catches a stalled stream. */
	T_OK(hits >= periods * 0.6 - 2 && hits <= periods + 1,
	     "%s: one signal per overflow (%d signals, %.1f periods counted)", what, hits, periods);
}

static volatile int main_spinning;

/* Runs in a worker thread while the main thread spins too, so a signal
 * routed to the process instead of the thread would show. */
static void *sample_worker(void *arg)
{
	struct pmc_event evs[2] = { sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS),
				    sw_event(PERF_COUNT_SW_TASK_CLOCK, 4 * MS) };
	struct pmc_count c[2];
	struct pmc_sample_stats st;

	(void)arg;
	if (!sample_open(evs, 2, 1, "sample cpu-clock@1ms + task-clock@4ms"))
		return NULL;
	struct oncpu t0 = oncpu_now();
	ops->start(S.ctx);
	spin_cpu(300 * MS);
	ops->stop(S.ctx);
	struct band on = oncpu_since(t0);
	ops->read(S.ctx, c, 2);
	ops->stats(S.ctx, &st);

	check_rate("sample cpu-clock@1ms", S.hits[0], evs[0].period, on, c[0].value);
	check_rate("sample task-clock@4ms", S.hits[1], evs[1].period, on, c[1].value);
	/* A handler that keeps up has its credits topped up before they run
	 * out: POLL_HUP (the event stopped at its last credit) only after a
	 * batch in which it fell behind (a loaded or sanitized run), which is
	 * followed by shorter batches, 1, 2, 4, ..., hence the slack. */
	T_OK(S.not_pollin <= 24, "sample: POLL_IN but after a batch fallen behind (%d POLL_HUP in %d)",
	     S.not_pollin, S.hits[0] + S.hits[1]);
	T_OK(S.wrong_tid == 0, "sample: all signals on the counted thread (%d elsewhere)",
	     S.wrong_tid);
	T_OK(S.other == 0, "sample: overflow() identified every signal (%d not)", S.other);
	T_OK(st.overflows == (uint64_t)(S.hits[0] + S.hits[1]) && st.spurious == 0 &&
		     st.throttled == 0 && st.lost == 0,
	     "sample: stats.overflows %" PRIu64 " = signals, spurious %" PRIu64
	     " throttled %" PRIu64 " lost %" PRIu64,
	     st.overflows, st.spurious, st.throttled, st.lost);
	/* Each overflow wrote an 8-byte sample record to the ring buffer
	 * that carries THROTTLE/LOST records, and rearm drained it. */
	const struct perf_event_mmap_page *pg = pe_page(S.ctx, 0);
	T_OK(pg && pg->data_head >= 8 * (uint64_t)S.hits[0] && pg->data_tail == pg->data_head,
	     "sample: ring buffer written and drained (head %llu for %d overflows)",
	     pg ? (unsigned long long)pg->data_head : 0ULL, S.hits[0]);
	sample_close();
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

/* Sampling by frequency: the kernel picks the period. */
static void test_sample_freq(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 0);

	ev.freq = 500;
	if (!sample_open(&ev, 1, 1, "freq"))
		return;
	struct oncpu t0 = oncpu_now();
	ops->start(S.ctx);
	spin_cpu(200 * MS);
	ops->stop(S.ctx);
	struct band on = oncpu_since(t0);
	T_OK(in_band(S.hits[0], on, 500.0 / 1e9, 0.15) && S.not_pollin == 0 && S.other == 0,
	     "freq: cpu-clock@f500 gave %d signals in %.0f ms on CPU", S.hits[0], on.lo / MS);
	sample_close();
}

/* The event stays enabled: no rearm is needed to keep the signals coming,
 * and after stop none comes, even one queued while the signal was blocked
 * (overflow() refuses it as stale). */
static void test_stop_silences(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	struct pmc_sample_stats st;
	sigset_t ours, old;

	if (!sample_open(&ev, 1, 0, "stop"))
		return;
	struct oncpu t0 = oncpu_now();
	ops->start(S.ctx);
	spin_cpu(30 * MS);
	int h = S.hits[0];
	struct band on = oncpu_since(t0);
	T_OK(in_band(h, on, 1.0 / MS, 0.15), "stop: %d signals in %.0f ms on CPU at 1 ms, no rearm",
	     h, on.lo / MS);

	sigemptyset(&ours);
	sigaddset(&ours, signo());
	pthread_sigmask(SIG_BLOCK, &ours, &old);
	spin_cpu(5 * MS);	/* overflows queue while blocked */
	ops->stop(S.ctx);
	h = S.hits[0];
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	spin_cpu(30 * MS);
	ops->stats(S.ctx, &st);
	T_OK(S.hits[0] == h && S.other >= 3 && st.spurious == (uint64_t)S.other,
	     "stop: nothing sampled after stop (%d more), %d queued before it refused as stale",
	     S.hits[0] - h, S.other);
	int other = S.other, h0 = S.hits[0];
	t0 = oncpu_now();
	ops->start(S.ctx);
	spin_cpu(20 * MS);
	ops->stop(S.ctx);
	on = oncpu_since(t0);
	h = S.hits[0];
	spin_cpu(20 * MS);
	T_OK(in_band_loaded(h - h0, on, 1.0 / MS, 0.7, 0.2) && S.hits[0] == h && S.other == other,
	     "stop: start again samples (%d in 20 ms), stop again silences (%d after)", h - h0,
	     S.hits[0] - h + S.other - other);
	sample_close();
}

static void test_rearm_period(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);

	if (!sample_open(&ev, 1, 1, "rearm period"))
		return;
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
	S.next_period[0] = 1 * MS;	/* and back */
	struct oncpu t2 = oncpu_now();
	spin_cpu(100 * MS);
	struct band on3 = oncpu_since(t2);
	int h3 = S.hits[0] - h1 - h2;
	ops->stop(S.ctx);
	T_OK(in_band(h1, on1, 1.0 / MS, 0.15), "rearm period: %d signals in %.0f ms on CPU at 1 ms",
	     h1, on1.lo / MS);
	T_OK(in_band_loaded(h2, on2, 1.0 / (4 * MS), 0.4, 0.15),
	     "rearm period: %d signals in %.0f ms on CPU after rearm(4 ms)", h2, on2.lo / MS);
	T_OK(in_band(h3, on3, 1.0 / MS, 0.15),
	     "rearm period: %d signals in %.0f ms on CPU after rearm(1 ms)", h3, on3.lo / MS);
	sample_close();
}

/* Randomized periods on a software event counted per event (page
 * faults): each rearm sets another period, and each must be a full one
 * (re-adding the event), not one fault. */
static void test_rearm_period_swevent(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 64);
	const size_t pages = 20000;
	long ps = sysconf(_SC_PAGESIZE);
	struct pmc_count c;

	if (!sample_open(&ev, 1, 1, "rearm period page-faults"))
		return;
	S.next_period[0] = 100;
	S.alt_period[0] = 300;
	volatile char *m = mmap(NULL, pages * (size_t)ps, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		T_OK(0, "rearm period page-faults: mmap");
		sample_close();
		return;
	}
	ops->start(S.ctx);
	for (size_t i = 0; i < pages; i++)
		m[i * (size_t)ps] = 1;
	ops->stop(S.ctx);
	ops->read(S.ctx, &c, 1);
	munmap((void *)m, pages * (size_t)ps);
	double want = (double)c.value / 200;
	T_OK(S.hits[0] >= want * 0.95 - 2 && S.hits[0] <= want * 1.05 + 2,
	     "rearm period page-faults: %d signals for %" PRIu64 " faults at periods 100/300 (%.0f)",
	     S.hits[0], c.value, want);
	sample_close();
}

/* The event's credits bound the signals nobody has seen yet: without
 * rearm it stops at the 128th overflow, whose signal is POLL_HUP; a rearm
 * resumes it.  With signo blocked, 128 signals queue, not one per period,
 * and once they are delivered sampling goes on. */
static void test_backlog(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	struct pmc_sample_stats st;
	struct pmc_count c;
	sigset_t ours, old;

	if (!sample_open(&ev, 1, 0, "backlog"))
		return;
	ops->start(S.ctx);
	spin_cpu(200 * MS);
	ops->read(S.ctx, &c, 1);
	T_OK(S.hits[0] == 128 && S.not_pollin == 1 && c.value < 140 * MS,
	     "backlog: no rearm, the event stops at 128 overflows (%d signals, %d not POLL_IN, "
	     "%.0f ms counted)", S.hits[0], S.not_pollin, (double)c.value / MS);
	ops->rearm(S.ctx, 0, 0);
	S.rearm = 1;
	struct oncpu t0 = oncpu_now();
	spin_cpu(50 * MS);
	struct band on = oncpu_since(t0);
	T_OK(in_band(S.hits[0] - 128, on, 1.0 / MS, 0.15),
	     "backlog: a late rearm resumes it (%d signals in %.0f ms on CPU)", S.hits[0] - 128,
	     on.lo / MS);

	/* start() tops the credits up to 128. */
	ops->stop(S.ctx);
	ops->start(S.ctx);
	sigemptyset(&ours);
	sigaddset(&ours, signo());
	pthread_sigmask(SIG_BLOCK, &ours, &old);
	int h0 = S.hits[0], hup0 = S.not_pollin;
	spin_cpu(300 * MS);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	int queued = S.hits[0] - h0;
	T_OK(queued == 128 && S.not_pollin == hup0 + 1,
	     "backlog: 300 ms with the signal blocked queued %d signals (128 credits)", queued);
	int h1 = S.hits[0];
	t0 = oncpu_now();
	spin_cpu(50 * MS);
	on = oncpu_since(t0);
	ops->stop(S.ctx);
	T_OK(in_band(S.hits[0] - h1, on, 1.0 / MS, 0.15),
	     "backlog: sampling goes on after the queue drained (%d signals in %.0f ms on CPU)",
	     S.hits[0] - h1, on.lo / MS);
	ops->stats(S.ctx, &st);
	T_OK(st.overflows == (uint64_t)S.hits[0] && st.spurious == 0 && st.lost == 0,
	     "backlog: overflows %" PRIu64 " = signals, spurious %" PRIu64 ", lost %" PRIu64,
	     st.overflows, st.spurious, st.lost);
	sample_close();
}

/* Credits are topped up on the running event once half of a batch is
 * spent, so the signals that can queue stay within one batch: after 200
 * overflows handled, blocking the signal queues between 65 and 128 of
 * them (without the top-up, 56 would be left of two batches; with too
 * much of it, more than 128). */
static void test_topup(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	sigset_t ours, old;

	if (!sample_open(&ev, 1, 1, "top-up"))
		return;
	ops->start(S.ctx);
	while (S.hits[0] < 200)
		spin_cpu(1 * MS);
	sigemptyset(&ours);
	sigaddset(&ours, signo());
	pthread_sigmask(SIG_BLOCK, &ours, &old);
	int h0 = S.hits[0];
	spin_cpu(250 * MS);
	S.rearm = 0;	/* count what had queued, grant nothing more */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	int queued = S.hits[0] - h0;
	ops->stop(S.ctx);
	/* The bound that matters is exact: never more than a batch queued.
	 * Below, a loaded host's late hrtimer skips periods (up to a quarter
	 * seen), so only "clearly more than none" is asked: 33..128. */
	T_OK(queued > 32 && queued <= 128,
	     "top-up: %d signals queued while blocked after %d handled (33..128)", queued, h0);
	sample_close();
}

/* A handler slower than the period: the batch in which it fell behind is
 * followed by batches of 1, 2, 4, ... (stop-and-go, the event paused while
 * the handler runs), not by a queue that grows without end. */
static void test_overload(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);

	if (!sample_open(&ev, 1, 1, "overload"))
		return;
	S.delay = 2 * MS;
	ops->start(S.ctx);
	spin_cpu(600 * MS);
	ops->stop(S.ctx);
	/* The first batch's 128 signals take 256 ms, behind all along; then
	 * batches of 1 and 2, the program running 1 ms of every 3 or so. */
	T_OK(S.hits[0] > 150 && S.hits[0] < 300 && S.not_pollin * 3 >= S.hits[0] - 128,
	     "overload: a 2 ms handler at 1 ms: %d signals, %d batches", S.hits[0], S.not_pollin);
	sample_close();
}

/* Throttling: cpu-clock at its 10 us floor is 100 kHz, the default
 * perf_event_max_sample_rate, so a tick that runs late may see more than
 * its share and throttle the event (software events with a fixed period
 * never throttle, and this machine may have no PMU).  When it happens,
 * rearm counts the THROTTLE/UNTHROTTLE records and sampling goes on; the
 * record scan itself is tested in test_rdpmc. */
static void test_throttle(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 10000);
	struct pmc_sample_stats st;

	if (!sample_open(&ev, 1, 1, "throttle"))
		return;
	ops->start(S.ctx);
	spin_cpu(100 * MS);
	ops->stop(S.ctx);
	ops->stats(S.ctx, &st);
	if (st.throttled == 0) {
		T_SKIP("throttle: not throttled here (%d signals at 10 us)", S.hits[0]);
	} else {
		T_OK(st.unthrottled + 1 >= st.throttled && st.unthrottled <= st.throttled &&
			     st.overflows == (uint64_t)S.hits[0] && S.hits[0] >= 5000 && st.lost == 0,
		     "throttle: %" PRIu64 " signals, throttled %" PRIu64 " unthrottled %" PRIu64
		     " lost %" PRIu64,
		     st.overflows, st.throttled, st.unthrottled, st.lost);
	}
	sample_close();
}

static void test_overflow_foreign(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());
	struct pmc_sample_stats st;
	void *ctx;
	siginfo_t si;

	if (ops->open(&ev, 1, &opts, &ctx) != 0 || ops->arm(ctx, signo()) != 0) {
		T_OK(0, "foreign: open");
		return;
	}
	ops->start(ctx);
	memset(&si, 0, sizeof(si));
	si.si_code = SI_TIMER;
	T_OK(ops->overflow(ctx, &si) == -1, "foreign: a timer's signal is not ours");
	si.si_code = POLL_IN;
	si.si_fd = pe_fd(ctx, 0) + 1;
	T_OK(ops->overflow(ctx, &si) == -1, "foreign: another fd is not ours");
	ops->stats(ctx, &st);
	T_OK(st.overflows == 0 && st.spurious == 0, "foreign: nothing counted");
	si.si_fd = pe_fd(ctx, 0);
	si.si_code = POLL_ERR;
	T_OK(ops->overflow(ctx, &si) == -1, "foreign: POLL_ERR on our fd is no overflow");
	si.si_code = POLL_HUP;
	T_OK(ops->overflow(ctx, &si) == 0, "foreign: POLL_HUP on our fd is event 0 (last credit)");
	si.si_code = POLL_IN;
	T_OK(ops->overflow(ctx, &si) == 0, "foreign: POLL_IN on our fd is event 0");
	ops->stop(ctx);
	T_OK(ops->overflow(ctx, &si) == -1, "foreign: POLL_IN on our fd after stop is stale");
	ops->stats(ctx, &st);
	T_OK(st.overflows == 2 && st.spurious == 2, "foreign: 2 overflows, 2 spurious (%" PRIu64
	     ", %" PRIu64 ")", st.overflows, st.spurious);
	T_OK(ops->rearm(ctx, 1, 0) == -EINVAL && ops->rearm(ctx, -1, 0) == -EINVAL,
	     "foreign: rearm of a bad index is -EINVAL");
	ops->close(ctx);
}

/* ---- descriptors ---- */

/* In a child (the close loop would hit the harness's files too): sample
 * 1 ms for 30 ms after closing fds 3..255, and report the fd and the
 * signals through a pipe.  nofile: an RLIMIT_NOFILE to set first, or 0. */
struct fd_report {
	int fd, hits;
	rlim_t top;
};

static struct fd_report fd_child(rlim_t nofile)
{
	struct fd_report r = { -1, -1, 0 };
	int p[2];

	if (pipe(p) < 0)
		return r;
	pid_t pid = fork();
	if (pid == 0) {
		struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
		struct rlimit rl;

		if (nofile) {
			getrlimit(RLIMIT_NOFILE, &rl);
			rl.rlim_cur = nofile;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		getrlimit(RLIMIT_NOFILE, &rl);
		r.top = rl.rlim_cur;
		PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = signo());
		memset((void *)&S, 0, sizeof(S));
		S.tid = gettid();
		S.rearm = 1;
		if (ops->open(&ev, 1, &opts, &S.ctx) == 0 && ops->arm(S.ctx, signo()) == 0) {
			r.fd = pe_fd(S.ctx, 0);
			if (r.fd >= 64)
				for (int fd = 3; fd < 256; fd++)
					if (fd != p[1])
						close(fd);
			ops->start(S.ctx);
			spin_cpu(30 * MS);
			ops->stop(S.ctx);
			r.hits = S.hits[0];
		}
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &r, sizeof(r)) != sizeof(r))
		r.fd = -2;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return r;
}

static void test_high_fd(void)
{
	struct fd_report r = fd_child(0);
	rlim_t top = r.top < 1024 ? r.top : 1024;

	T_OK(r.fd >= 0 && (rlim_t)r.fd >= top - 64 && (rlim_t)r.fd < top,
	     "fd: counter fd %d in [%d, %d)", r.fd, (int)(top - 64), (int)top);
	/* At least: cpu-clock also counts what the host steals. */
	T_OK(r.hits >= 20, "fd: %d signals in 30 ms after closing fds 3..255", r.hits);
	r = fd_child(64);
	T_OK(r.fd >= 3 && r.fd < 64 && r.hits >= 20,
	     "fd: RLIMIT_NOFILE 64 keeps the fd where it was opened (%d), sampling works (%d)",
	     r.fd, r.hits);
}

/* The program puts its own file on a counter's number (dup2), or closes
 * it: the plugin notices, counts it in fd_lost, and never reads, writes,
 * ioctls or closes what is there now.  Also when what is there now is
 * another perf event (the program's own counter). */
static void test_fd_replaced(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_TASK_CLOCK, MS);
	struct pmc_event cnt = sw_event(PERF_COUNT_SW_TASK_CLOCK, 0);
	PMC_GROUP_OPTS(copts, .pid = 0);
	struct pmc_sample_stats st;
	struct pmc_count c;
	int p[2], fd, h0;
	void *other = NULL;
	char buf[8];

	for (int kind = 0; kind < 3; kind++) {
		const char *what = kind == 0 ? "a pipe dup2'd onto it"
				   : kind == 1 ? "closed"
					       : "another perf event dup2'd onto it";

		if (!sample_open(&ev, 1, 1, "fd replaced") || ops->start(S.ctx) != 0)
			return;
		spin_cpu(10 * MS);
		fd = pe_fd(S.ctx, 0);
		if (pipe(p) < 0)
			return;
		if (kind == 0) {
			dup2(p[0], fd);
		} else if (kind == 1) {
			close(fd);
		} else {
			T_OK(ops->open(&cnt, 1, &copts, &other) == 0, "fd replaced: the program's counter");
			dup2(pe_fd(other, 0), fd);
		}
		h0 = S.hits[0];
		/* Sampling goes on until the batch of credits is spent (the
		 * ring buffer keeps the event alive); its refresh is refused. */
		spin_cpu(300 * MS);
		T_OK(ops->stats(S.ctx, &st) == 0 && st.fd_lost == 1, "fd %s: fd_lost %" PRIu64, what,
		     st.fd_lost);
		T_OK(S.hits[0] > h0 && S.hits[0] <= 128 + 2,
		     "fd %s: samples until the batch ends, no refresh (%d, %d before)", what,
		     S.hits[0], h0);
		ops->stop(S.ctx);	/* must not touch what is on the number now */
		sample_close();
		if (kind == 0) {
			T_OK(write(p[1], "ok", 2) == 2 && read(fd, buf, 2) == 2 && !memcmp(buf, "ok", 2),
			     "fd %s: the program's pipe is untouched (not read, not closed)", what);
			close(fd);
		} else if (kind == 1) {
			T_OK(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
			     "fd %s: the number stays free", what);
		} else {
			T_OK(fcntl(fd, F_GETFD) >= 0 && ops->read(other, &c, 1) == 0,
			     "fd %s: the program's counter is still open and reads", what);
			close(fd);
			ops->close(other);
		}
		close(p[0]);
		close(p[1]);
	}
}

/* Orphaned (pmc_group_orphan: the collector's watcher, whose descriptor
 * table is not the counted process's; here a pipe on the counter's
 * number stands for the watcher's own file there): no call touches that
 * number any more, and none counts it in fd_lost. */
static void test_fd_orphaned(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_TASK_CLOCK, MS);
	struct pmc_sample_stats st;
	struct pmc_count c;
	int p[2], fd;
	char buf[8];

	if (!sample_open(&ev, 1, 1, "orphaned") || ops->start(S.ctx) != 0)
		return;
	spin_cpu(10 * MS);
	ops->stop(S.ctx);
	fd = pe_fd(S.ctx, 0);
	if (pipe(p) < 0)
		return;
	dup2(p[0], fd);
	T_OK(ops->orphan && ops->orphan(S.ctx) == 0, "orphaned: the op says yes");
	T_OK(ops->stats(S.ctx, &st) == 0 && st.fd_lost == 0 && st.overflows > 0,
	     "orphaned: stats from memory (%" PRIu64 " overflows), fd_lost %" PRIu64, st.overflows,
	     st.fd_lost);
	T_OK(ops->read(S.ctx, &c, 1) == -EBADF && ops->start(S.ctx) == -EBADF &&
		     ops->stop(S.ctx) == -EBADF,
	     "orphaned: read, start and stop refuse (-EBADF)");
	ops->rearm(S.ctx, 0, 0);	/* no refresh, no IOC_PERIOD on the pipe */
	T_OK(ops->stats(S.ctx, &st) == 0 && st.fd_lost == 0, "orphaned: still no fd_lost");
	sample_close();
	T_OK(write(p[1], "ok", 2) == 2 && read(fd, buf, 2) == 2 && !memcmp(buf, "ok", 2),
	     "orphaned: the file on the number is untouched (not read, not closed)");
	close(fd);
	close(p[0]);
	close(p[1]);
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

/* signo SIGTRAP: the kernel's synchronous attr.sigtrap scheme.  No
 * credits: without any rearm the event keeps signalling past a batch of
 * 128; TRAP_PERF signals are matched by si_perf_data, the program's own
 * SIGTRAP is not ours; one signal per overflow on the counted thread. */
static void test_sigtrap(void)
{
	struct pmc_event ev = sw_event(PERF_COUNT_SW_CPU_CLOCK, 1 * MS);
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = true, .signo = SIGTRAP);
	struct sigaction sa, old;
	struct pmc_sample_stats st;
	struct pmc_count c;

	memset((void *)&S, 0, sizeof(S));
	S.tid = gettid();
	int rc = ops->open(&ev, 1, &opts, &S.ctx);
	if (rc == -EINVAL || rc == -EOPNOTSUPP) {
		T_SKIP("sigtrap: the kernel has no attr.sigtrap (Linux < 5.13): %d", rc);
		return;
	}
	T_OK(rc == 0, "sigtrap: open cpu-clock@1ms for SIGTRAP (rc %d)", rc);
	if (rc)
		return;
	T_OK(ops->arm(S.ctx, SIGRTMIN + 4) == -EINVAL, "sigtrap: arming another signal refused");
	T_OK(ops->arm(S.ctx, SIGTRAP) == 0, "sigtrap: arm");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, &old);
	struct oncpu t0 = oncpu_now();
	ops->start(S.ctx);
	spin_cpu(300 * MS);
	raise(SIGTRAP);		/* the program's own: not ours */
	ops->stop(S.ctx);
	struct band on = oncpu_since(t0);
	ops->read(S.ctx, &c, 1);
	ops->stats(S.ctx, &st);
	check_rate("sigtrap cpu-clock@1ms, never rearmed", S.hits[0], ev.period, on, c.value);
	T_OK(S.hits[0] > 128, "sigtrap: no batch of credits to spend (%d signals, no rearm)",
	     S.hits[0]);
	T_OK(S.wrong_tid == 0, "sigtrap: all signals on the counted thread (%d elsewhere)",
	     S.wrong_tid);
	T_OK(S.other == 1 && st.spurious == 0,
	     "sigtrap: raise(SIGTRAP) not taken for an overflow (%d not ours, spurious %" PRIu64 ")",
	     S.other, st.spurious);
	T_OK(st.overflows == (uint64_t)S.hits[0], "sigtrap: stats.overflows %" PRIu64 " = signals %d",
	     st.overflows, S.hits[0]);
	sample_close();
	sigaction(SIGTRAP, &old, NULL);
}

int main(void)
{
	install_handler();
	test_probe();
	test_hardware();
	test_count_clocks();
	test_sample_two_events();
	test_sample_freq();
	test_stop_silences();
	test_rearm_period();
	test_rearm_period_swevent();
	test_backlog();
	test_topup();
	test_overload();
	test_throttle();
	test_overflow_foreign();
	test_high_fd();
	test_fd_replaced();
	test_fd_orphaned();
	test_inherit();
	test_enable_on_exec();
	test_sigtrap();
	return T_DONE();
}
