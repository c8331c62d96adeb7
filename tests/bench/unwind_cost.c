/* Cost of one call-stack capture, timed inside a real signal handler.
 *
 * A high-rate CLOCK_MONOTONIC timer aimed at the main thread interrupts a
 * known call chain (depth 10, 20, 50: noinline functions with frame
 * pointers); the handler times one capture with clock_gettime and keeps the
 * figure.  Peers measured in the same run: libunwind's unw_backtrace() and
 * glibc's backtrace(), both started from inside the handler (so they also
 * walk the handler's own frame and the signal trampoline), and an empty
 * timing pair as the floor.
 *
 * usage: unwind-cost [samples-per-figure]     prints one table per depth */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "unwinder/arch.h"
#include "unwinder/unwind.h"

/* noclone keeps one copy of each function: gcc only */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
#define MAXPCS 256
#define WARMUP 32		/* samples dropped first: cold caches, page faults */

extern const char __start_uwc_spin[], __stop_uwc_spin[];

enum method {
	M_EMPTY,
	M_FP,
	M_UNWIND,
	M_UNWIND_COLD,
	M_UNW_BACKTRACE,
	M_GLIBC_BACKTRACE,
	M_COUNT
};

static const struct {
	const char *name;
	enum uw_mode mode;
	const char *what;
} methods[M_COUNT] = {
	[M_EMPTY] = { "empty", UW_MODE_NONE, "two clock_gettime calls: the floor" },
	[M_FP] = { "uw fp", UW_MODE_FP, "uw_capture, UW_MODE_FP" },
	[M_UNWIND] = { "uw unwind", UW_MODE_UNWIND, "uw_capture, UW_MODE_UNWIND" },
	[M_UNWIND_COLD] = { "uw unwind cold", UW_MODE_UNWIND,
			    "the same after uw_cache_flush: every frame learned afresh" },
	[M_UNW_BACKTRACE] = { "unw_backtrace", UW_MODE_NONE, "libunwind's fast trace, from the handler" },
	[M_GLIBC_BACKTRACE] = { "glibc backtrace", UW_MODE_NONE, "glibc backtrace(), from the handler" },
};

static int (*glibc_backtrace)(void **, int);

static struct {
	atomic_int active;
	enum method method;
	int want, count;
	uint32_t *ns;
	int frames;
	unsigned flags;
} run;

static struct uw_thread uw;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_alarm(int sig, siginfo_t *si, void *ucv)
{
	const ucontext_t *uc = ucv;
	uintptr_t pc = uc_pc(uc);
	uintptr_t pcs[MAXPCS];
	unsigned flags = 0;
	uint64_t t0, t1;
	int saved = errno, n = 0;

	(void)sig;
	(void)si;
	if (!atomic_load(&run.active) || run.count >= run.want ||
	    pc < (uintptr_t)__start_uwc_spin || pc >= (uintptr_t)__stop_uwc_spin) {
		errno = saved;
		return;
	}
	t0 = now_ns();
	if (run.method == M_UNWIND_COLD)
		uw_cache_flush();	/* ours and libunwind's: counted in */
	switch (run.method) {
	case M_FP:
	case M_UNWIND:
	case M_UNWIND_COLD:
		n = uw_capture(&uw, uc, pcs, MAXPCS, &flags);
		break;
	case M_UNW_BACKTRACE:
		n = unw_backtrace((void **)pcs, MAXPCS);
		break;
	case M_GLIBC_BACKTRACE:
		n = glibc_backtrace((void **)pcs, MAXPCS);
		break;
	case M_EMPTY:
	case M_COUNT:
		break;
	}
	t1 = now_ns();
	run.ns[run.count++] = (uint32_t)(t1 - t0);
	run.frames = n;
	run.flags |= flags;
	errno = saved;
}

__attribute__((section("uwc_spin"), used)) NOINLINE static void spin(void)
{
	uint64_t deadline = now_ns() + 20 * 1000000000ull;
	unsigned long i = 0;

	while (atomic_load_explicit(&run.active, memory_order_relaxed) &&
	       run.count < run.want)
		if ((++i & 0xffff) == 0 && now_ns() > deadline)
			break;
}

static volatile int sink;

NOINLINE static void chain(int n)
{
	if (n > 1)
		chain(n - 1);
	else
		spin();
	sink = n;	/* no tail call */
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct figure {
	double median, p99;
	int frames, got;
	unsigned flags;
};

static struct figure measure(enum method m, int depth, int samples)
{
	struct figure f = { 0 };
	int got;

	if (uw_thread_init(&uw, methods[m].mode) < 0) {
		fprintf(stderr, "unwind-cost: uw_thread_init failed\n");
		exit(2);
	}
	run.method = m;
	run.want = samples + WARMUP;
	run.count = 0;
	run.flags = 0;
	run.frames = 0;
	atomic_store(&run.active, 1);
	chain(depth);
	atomic_store(&run.active, 0);
	got = run.count - WARMUP;
	if (got > 0) {
		qsort(run.ns + WARMUP, (size_t)got, sizeof(uint32_t), cmp_u32);
		f.median = run.ns[WARMUP + got / 2];
		f.p99 = run.ns[WARMUP + (int)((got - 1) * 0.99)];
	}
	f.frames = run.frames;
	f.flags = run.flags;
	f.got = got > 0 ? got : 0;
	return f;
}

int main(int argc, char **argv)
{
	static const int depths[] = { 10, 20, 50 };
	struct sigaction sa = { .sa_sigaction = on_alarm, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF };
	struct itimerspec its = { .it_value.tv_nsec = 50000, .it_interval.tv_nsec = 50000 };
	int samples = argc > 1 ? atoi(argv[1]) : 3000;
	double target_us = 2.0, at20 = 0;
	void *libc, *warm[MAXPCS];
	timer_t timer;
	size_t d;
	int m;

	if (samples < 100)
		samples = 100;
	/* libunwind.so also defines backtrace(): ask libc for its own. */
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	glibc_backtrace = libc ? (int (*)(void **, int))dlsym(libc, "backtrace") : NULL;
	if (!glibc_backtrace || (void *)glibc_backtrace == (void *)unw_backtrace) {
		fprintf(stderr, "unwind-cost: cannot find glibc's backtrace()\n");
		return 2;
	}
	/* First calls load libgcc_s and build caches: not in a handler. */
	glibc_backtrace(warm, MAXPCS);
	unw_backtrace(warm, MAXPCS);
	if (uw_global_init() < 0)
		return 2;
	run.ns = calloc((size_t)samples + WARMUP, sizeof(uint32_t));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	sev._sigev_un._tid = gettid();	/* sigev_notify_thread_id: glibc >= 2.37 */
	if (!run.ns || timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0) {
		perror("unwind-cost: timer_create");
		return 2;
	}
	timer_settime(timer, 0, &its, NULL);

	printf("ns per capture, timed in a SIGPROF handler (%d samples per figure, timer every %ld us)\n",
	       samples, its.it_interval.tv_nsec / 1000);
	for (m = 0; m < M_COUNT; m++)
		printf("  %-16s %s\n", methods[m].name, methods[m].what);
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		struct figure f[M_COUNT];

		for (m = 0; m < M_COUNT; m++)
			f[m] = measure(m, depths[d], samples);
		printf("\ndepth %d (chain frames; the stack below them adds a few more)\n", depths[d]);
		printf("  %-16s %6s %9s %9s %9s %11s %11s %s\n", "method", "frames", "median", "p99",
		       "ns/frame", "x unw_bt", "x glibc_bt", "flags");
		for (m = 0; m < M_COUNT; m++) {
			printf("  %-16s %6d %9.0f %9.0f %9.1f", methods[m].name, f[m].frames,
			       f[m].median, f[m].p99,
			       f[m].frames ? f[m].median / f[m].frames : 0.0);
			if (m == M_EMPTY)
				printf(" %11s %11s", "-", "-");
			else
				printf(" %11.2f %11.2f", f[m].median / f[M_UNW_BACKTRACE].median,
				       f[m].median / f[M_GLIBC_BACKTRACE].median);
			printf(" %#x%s\n", f[m].flags,
			       f[m].got < samples ? "  (fewer samples: timed out)" : "");
		}
		if (depths[d] == 20)
			at20 = f[M_UNWIND].median;
	}
	printf("\ncollector target: whole sample <= %.1f us median at depth 20; "
	       "uw unwind takes %.2f us of it (%s)\n",
	       target_us, at20 / 1000, at20 / 1000 <= target_us / 2 ? "ok: under half" :
			       at20 / 1000 <= target_us ? "tight: over half" : "OVER");
	timer_delete(timer);
	return 0;
}
