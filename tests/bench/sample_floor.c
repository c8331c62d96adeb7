/* The physical floor of one overflow sample, and a gap meter for profiled
 * runs (tests/bench/sample_cost.sh).
 *
 * A thread that does nothing but read the TSC in a loop sees every
 * interruption as a gap between two reads: the timer interrupt, the
 * kernel's overflow work, signal delivery, the handler and sigreturn all
 * fall inside it, and nothing else does.  The median gap of the
 * interruptions that carried a sample is the wall time one sample takes
 * from the program, robust against a loaded host (a vCPU preempted in the
 * middle of one sample moves one gap, not the median).
 *
 *   sample_floor floor PERIOD_NS MS
 *       opens cpu-clock with sample_period PERIOD_NS on this thread exactly
 *       as plugins/perf_event does (one data page of 8-byte records,
 *       F_SETSIG + F_SETOWN_EX(F_OWNER_TID) + O_ASYNC, IOC_REFRESH
 *       batches of 128, the ring drained in the handler) and measures, each
 *       for MS ms of loop, interleaved three times:
 *         none    no event: the machine's own interruptions (ticks);
 *         kernel  the event sampling into its ring, no signal: the timer
 *                 interrupt and the kernel's overflow work;
 *         signal  + the overflow signal to an empty SA_SIGINFO handler
 *                 (it only drains the ring and refreshes a spent batch):
 *                 the signal floor;
 *         onstack the same handler on a sigaltstack (SA_ONSTACK);
 *         sigtrap the kernel's other scheme (attr.sigtrap, Linux 5.13): a
 *                 synchronous SIGTRAP queued by task_work on the way back
 *                 to user space, no irq_work self-IPI (not what the plugin
 *                 does: shown as the floor of the alternative).
 *       Prints one line per variant: name samples median_ns p10_ns p90_ns.
 *   sample_floor gaps MS DEPTH
 *       the loop alone, DEPTH frames down, for MS ms of CPU: the workload
 *       to run under a profiler.  Prints gaps=N median_ns=M p90_ns=P
 *       sum_ns=S cpu_ms=C for the interruptions longer than 500 ns and
 *       shorter than 1 ms (longer ones are the host's, not ours).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CREDITS 128
#define MAX_GAPS (1u << 20)
#define GAP_MIN_NS 500
#define GAP_MAX_NS 1000000

static double tsc_per_ns;

static inline uint64_t tsc(void)
{
#if defined(__aarch64__)
	uint64_t v;	/* the generic timer: AArch64's TSC */

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#endif
}

static uint64_t mono_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tsc_calibrate(void)
{
	uint64_t n0 = mono_ns(CLOCK_MONOTONIC), c0 = tsc(), n1, c1;

	do
		n1 = mono_ns(CLOCK_MONOTONIC);
	while (n1 - n0 < 50000000);
	c1 = tsc();
	tsc_per_ns = (double)(c1 - c0) / (double)(n1 - n0);
}

struct gaps {
	uint64_t *d;		/* in TSC cycles */
	size_t n;
};

static void gaps_add(struct gaps *g, uint64_t cyc)
{
	if (g->n < MAX_GAPS)
		g->d[g->n++] = cyc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of g in ns (0 when empty). */
static double gaps_q(struct gaps *g, double q)
{
	if (!g->n)
		return 0;
	qsort(g->d, g->n, sizeof(g->d[0]), cmp_u64);
	return (double)g->d[(size_t)(q * (double)(g->n - 1))] / tsc_per_ns;
}

/* ---- the floor: the plugin's scheme with an empty handler ---- */

static volatile uint64_t n_signals;
static struct perf_event_mmap_page *ring;
static int ev_fd = -1;

static void on_overflow(int signo, siginfo_t *si, void *uc)
{
	(void)signo;
	(void)uc;
	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return;
	n_signals++;
	/* What pe_rearm does on its common path: free the ring. */
	__atomic_store_n(&ring->data_tail, __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	if (si->si_code == POLL_HUP)
		ioctl(ev_fd, PERF_EVENT_IOC_REFRESH, CREDITS);
}

enum variant { V_NONE, V_KERNEL, V_SIGNAL, V_ONSTACK, V_SIGTRAP, V_N };
static const char *const vname[V_N] = { "none", "kernel", "signal", "onstack", "sigtrap" };

/* attr.sigtrap: the kernel's synchronous SIGTRAP (TRAP_PERF), sent from
 * task_work on the way back to user space instead of an irq_work IPI. */
static void on_sigtrap(int signo, siginfo_t *si, void *uc)
{
	(void)signo;
	(void)uc;
	if (si->si_code != 6 /* TRAP_PERF */)
		return;
	n_signals++;
	__atomic_store_n(&ring->data_tail, __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

static int event_open(uint64_t period_ns, bool sig, bool trap)
{
	struct perf_event_attr a;
	long ps = sysconf(_SC_PAGESIZE);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period_ns;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = 1;
	a.sigtrap = trap;
	a.remove_on_exec = trap;
	ev_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev_fd < 0)
		return -errno;
	ring = mmap(NULL, (size_t)ps * 2, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		    ev_fd, 0);
	if (ring == MAP_FAILED)
		return -errno;
	if (sig && !trap) {
		struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = gettid() };

		if (fcntl(ev_fd, F_SETSIG, SIGRTMIN + 4) < 0 ||
		    fcntl(ev_fd, F_SETOWN_EX, &owner) < 0 ||
		    fcntl(ev_fd, F_SETFL, fcntl(ev_fd, F_GETFL) | O_ASYNC) < 0)
			return -errno;
		return ioctl(ev_fd, PERF_EVENT_IOC_REFRESH, CREDITS) < 0 ? -errno : 0;
	}
	return ioctl(ev_fd, PERF_EVENT_IOC_ENABLE, 0) < 0 ? -errno : 0;
}

static void event_close(void)
{
	ioctl(ev_fd, PERF_EVENT_IOC_DISABLE, 0);
	munmap(ring, (size_t)sysconf(_SC_PAGESIZE) * 2);
	close(ev_fd);
	ev_fd = -1;
}

/* Loop for ms of wall time; a gap is a sample when the marker moved across
 * it (the ring's head for the kernel variant, the handler's count else). */
static void floor_loop(enum variant v, uint64_t ms, struct gaps *sg)
{
	uint64_t prev = tsc(), end = prev + (uint64_t)((double)ms * 1e6 * tsc_per_ns);
	uint64_t min = (uint64_t)(GAP_MIN_NS * tsc_per_ns), last = 0, m;

	while (prev < end) {
		uint64_t now = tsc();

		if (now - prev > min) {
			if (v == V_KERNEL) {
				m = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
				ring->data_tail = m;
			} else {
				m = n_signals;
			}
			if (v == V_NONE || m != last)
				gaps_add(sg, now - prev);
			last = m;
		}
		prev = now;
	}
}

static int run_floor(uint64_t period_ns, uint64_t ms)
{
	static char altstack[64 * 1024];
	struct gaps g[V_N];
	struct sigaction sa;
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sigemptyset(&sa.sa_mask);
	if (sigaltstack(&ss, NULL) < 0)
		return 1;
	for (int v = 0; v < V_N; v++) {
		g[v].d = malloc(MAX_GAPS * sizeof(uint64_t));
		g[v].n = 0;
		if (!g[v].d)
			return 1;
	}
	for (int round = 0; round < 3; round++) {
		for (int v = 0; v < V_N; v++) {
			int ret = 0;

			sa.sa_flags = SA_SIGINFO | SA_RESTART | (v == V_ONSTACK ? SA_ONSTACK : 0);
			sa.sa_sigaction = v == V_SIGTRAP ? on_sigtrap : on_overflow;
			sigaction(v == V_SIGTRAP ? SIGTRAP : SIGRTMIN + 4, &sa, NULL);
			if (v != V_NONE)
				ret = event_open(period_ns, v >= V_SIGNAL, v == V_SIGTRAP);
			if (ret < 0 && v == V_SIGTRAP) {
				g[v].n = 0;	/* a kernel before 5.13 */
				continue;
			}
			if (ret < 0) {
				fprintf(stderr, "sample_floor: cpu-clock: %s\n", strerror(-ret));
				return 1;
			}
			floor_loop((enum variant)v, ms, &g[v]);
			if (v != V_NONE)
				event_close();
		}
	}
	for (int v = 0; v < V_N; v++)
		printf("%s %zu %.0f %.0f %.0f\n", vname[v], g[v].n, gaps_q(&g[v], 0.5),
		       gaps_q(&g[v], 0.1), gaps_q(&g[v], 0.9));
	return 0;
}

/* ---- the gap meter, DEPTH frames down, for profiled runs ---- */

static struct gaps meter;
static uint64_t meter_sum;

__attribute__((noinline)) static void meter_loop(uint64_t ms)
{
	uint64_t c0 = mono_ns(CLOCK_THREAD_CPUTIME_ID), next = c0 + 1000000;
	uint64_t min = (uint64_t)(GAP_MIN_NS * tsc_per_ns), max = (uint64_t)(GAP_MAX_NS * tsc_per_ns);
	uint64_t prev = tsc(), checks = 0;

	for (;;) {
		uint64_t now = tsc(), d = now - prev;

		if (d > min && d < max) {
			gaps_add(&meter, d);
			meter_sum += d;
		}
		prev = now;
		/* The thread's CPU clock is a vDSO-less syscall here: check it
		 * every 4096 reads only, and do not count that read's gap. */
		if ((++checks & 4095) == 0) {
			uint64_t c = mono_ns(CLOCK_THREAD_CPUTIME_ID);

			if (c >= next) {
				if (c - c0 >= ms * 1000000)
					return;
				next = c + 1000000;
			}
			prev = tsc();
		}
	}
}

__attribute__((noinline)) static void descend(int d, uint64_t ms)
{
	if (d <= 1)
		meter_loop(ms);
	else
		descend(d - 1, ms);
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

static int run_gaps(uint64_t ms, int depth)
{
	uint64_t c0;

	meter.d = malloc(MAX_GAPS * sizeof(uint64_t));
	if (!meter.d)
		return 1;
	c0 = mono_ns(CLOCK_THREAD_CPUTIME_ID);
	descend(depth, ms);
	printf("gaps=%zu median_ns=%.0f p90_ns=%.0f sum_ns=%.0f cpu_ms=%.1f\n", meter.n,
	       gaps_q(&meter, 0.5), gaps_q(&meter, 0.9), (double)meter_sum / tsc_per_ns,
	       (double)(mono_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	tsc_calibrate();
	if (argc == 4 && strcmp(argv[1], "floor") == 0)
		return run_floor(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	if (argc == 4 && strcmp(argv[1], "gaps") == 0)
		return run_gaps(strtoull(argv[2], NULL, 0), atoi(argv[3]));
	fprintf(stderr, "usage: sample_floor floor PERIOD_NS MS | gaps MS DEPTH\n");
	return 2;
}
