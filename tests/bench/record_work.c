/* Workloads for tests/bench/record_*.sh.
 *
 *   record_work depth D ITERS   ITERS calls down a chain of D frames, each
 *                               frame doing a little work and the leaf most
 *                               of it: fixed work, so the time it takes
 *                               shows a profiler's overhead.  Prints
 *                               work_ms=<the loop's CPU time> (the thread's
 *                               own: a loaded machine does not inflate it;
 *                               a handler running in the thread does).
 *   record_work threads T MS    T threads, each spending MS ms of CPU in 64
 *                               distinct call paths, then waiting; main
 *                               prints rss_kb=<VmRSS> and vm_kb=<VmSize>
 *                               while all are alive. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static unsigned long chain(int d, unsigned long x)
{
	if (d <= 1)
		return leaf(x);
	for (int i = 0; i < 20; i++)
		x ^= x >> 7;
	return chain(d - 1, x) + 1;
}

/* 64 paths: 4 x 4 x 4 distinct (caller, callee) combinations. */
#define LEVEL(name, next)                                                        \
	__attribute__((noinline)) static unsigned long name##0(int k, unsigned long x) \
	{ return next(k, x + 1); }                                               \
	__attribute__((noinline)) static unsigned long name##1(int k, unsigned long x) \
	{ return next(k, x + 2); }                                               \
	__attribute__((noinline)) static unsigned long name##2(int k, unsigned long x) \
	{ return next(k, x + 3); }                                               \
	__attribute__((noinline)) static unsigned long name##3(int k, unsigned long x) \
	{ return next(k, x + 4); }

__attribute__((noinline)) static unsigned long bottom(int k, unsigned long x)
{
	(void)k;
	return leaf(x);
}

static unsigned long pick_c(int k, unsigned long x);
static unsigned long pick_b(int k, unsigned long x);
LEVEL(c, bottom)
LEVEL(b, pick_c)
LEVEL(a, pick_b)

static unsigned long pick_c(int k, unsigned long x)
{
	static unsigned long (*const f[4])(int, unsigned long) = { c0, c1, c2, c3 };
	return f[k & 3](k, x);
}

static unsigned long pick_b(int k, unsigned long x)
{
	static unsigned long (*const f[4])(int, unsigned long) = { b0, b1, b2, b3 };
	return f[(k >> 2) & 3](k, x);
}

static unsigned long pick_a(int k, unsigned long x)
{
	static unsigned long (*const f[4])(int, unsigned long) = { a0, a1, a2, a3 };
	return f[(k >> 4) & 3](k, x);
}

static pthread_barrier_t done, release;
static double thread_ms;

static void *worker(void *arg)
{
	double t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
	unsigned long x = (unsigned long)arg;

	for (int k = 0; now_ms(CLOCK_THREAD_CPUTIME_ID) - t0 < thread_ms; k++)
		x += pick_a(k, x);
	sink += x;
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&release);
	return NULL;
}

/* A /proc/self/status field in kB (fmt: "VmRSS: %ld kB"), -1 if absent. */
static long status_kb(const char *fmt)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "depth")) {
		int d = atoi(argv[2]);
		long iters = atol(argv[3]);
		unsigned long x = 1;
		double t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);

		for (long i = 0; i < iters; i++)
			x += chain(d, x);
		sink = x;
		printf("work_ms=%.1f\n", now_ms(CLOCK_THREAD_CPUTIME_ID) - t0);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "threads")) {
		int n = atoi(argv[2]);
		pthread_t *t = calloc((size_t)n, sizeof(*t));

		thread_ms = atof(argv[3]);
		pthread_barrier_init(&done, NULL, (unsigned)n + 1);
		pthread_barrier_init(&release, NULL, (unsigned)n + 1);
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, worker, (void *)(long)i);
		pthread_barrier_wait(&done);
		printf("rss_kb=%ld\nvm_kb=%ld\n", status_kb("VmRSS: %ld kB"),
		       status_kb("VmSize: %ld kB"));
		pthread_barrier_wait(&release);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	fprintf(stderr, "usage: record_work depth D ITERS | threads T MS\n");
	return 2;
}
