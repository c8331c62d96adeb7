/* The bundled example: a small program with a known profile.
 *
 * Two worker threads and the main thread run the same kernels in known
 * proportions: about 60% of the work in matmul(), 30% in sort_pass() and 10%
 * in checksum(), through a few levels of calls, so a profile should show
 * that split and the call paths main/worker -> run_phase -> kernel.
 *
 *   hotspots [SECONDS]     (default 2)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 96

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static double matmul(double *a, double *b, double *c)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < N; k++)
				s += a[i * N + k] * b[k * N + j];
			c[i * N + j] = s;
		}
	return c[N + 1];
}

__attribute__((noinline)) static uint64_t sort_pass(uint32_t *v, int n)
{
	/* One insertion sort of a shuffled array. */
	for (int i = 0; i < n; i++)
		v[i] = (uint32_t)(i * 2654435761u);
	for (int i = 1; i < n; i++) {
		uint32_t x = v[i];
		int j = i - 1;
		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
	return v[n / 2];
}

__attribute__((noinline)) static uint64_t checksum(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* Runs one kernel for `secs` of this thread's CPU time. */
__attribute__((noinline)) static double run_phase(int kernel, double secs)
{
	static __thread double a[N * N], b[N * N], c[N * N];
	static __thread uint32_t v[1500];
	static __thread uint8_t bytes[1 << 16];
	double t0 = now(), sink = 0;

	for (int i = 0; i < N * N; i++)
		a[i] = b[i] = (i % 7) * 0.5;
	while (now() - t0 < secs) {
		switch (kernel) {
		case 0: sink += matmul(a, b, c); break;
		case 1: sink += (double)sort_pass(v, 1500); break;
		default: sink += (double)checksum(bytes, sizeof(bytes)); break;
		}
	}
	return sink;
}

static void *worker(void *arg)
{
	double secs = *(double *)arg, sink = 0;

	sink += run_phase(0, secs * 0.6);
	sink += run_phase(1, secs * 0.3);
	sink += run_phase(2, secs * 0.1);
	return (void *)(uintptr_t)(sink != 0);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	pthread_t t[2];

	if (secs <= 0 || secs > 3600) {
		fprintf(stderr, "usage: hotspots [SECONDS]\n");
		return 1;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &secs);
	worker(&secs);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("hotspots: 3 threads x %.1f s of CPU time (60%% matmul, 30%% sort_pass, "
	       "10%% checksum)\n", secs);
	return 0;
}
