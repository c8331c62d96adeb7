/* stress_threads: thread workloads for tests/stress and harden_* tests.
 * Every mode does a fixed amount of deterministic work and prints it on
 * stdout, so a profiled run's output can be compared byte for byte with
 * an unprofiled one; timings go to stderr.
 *
 *   stress_threads churn N PAR UNITS
 *       N short-lived threads, at most PAR alive at a time, each running
 *       UNITS work units.  stdout: "threads=N checksum=X".
 *   stress_threads work T UNITS
 *       T threads, each running UNITS work units (the overhead workload).
 *       stdout: "threads=T checksum=X"; stderr: "cpu_ms=M", the sum of the
 *       threads' own CPU time (a loaded machine does not inflate it, a
 *       signal handler running in a thread does).
 *   stress_threads spin T SECONDS
 *       T threads repeating one work unit for SECONDS of wall time, each
 *       result checked against the first: a sampling signal must never
 *       change what the program computes.  stdout: "threads=T
 *       mismatches=0"; stderr: "units=N".
 *   stress_threads faults T SECONDS
 *       T threads mapping, touching and unmapping 8 MiB for SECONDS of wall
 *       time: page faults as fast as the kernel takes them, an event that
 *       sampling at period 1 drives into the kernel's throttle.  Each page
 *       is checked to read back what was written.  stdout: "threads=T
 *       mismatches=0"; stderr: "faults=N" (pages touched). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* One unit: about 0.1 ms of CPU through a 12-frame call chain, so every
 * sample unwinds a real stack. */
#define UNIT_DEPTH 12
#define UNIT_STEPS 20000

static uint64_t seconds_to_run;
static long units_per_thread;

__attribute__((noinline)) static uint64_t unit_leaf(uint64_t x)
{
	for (int i = 0; i < UNIT_STEPS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		x ^= x >> 29;
	}
	return x;
}

__attribute__((noinline)) static uint64_t unit_chain(int d, uint64_t x)
{
	if (d <= 1)
		return unit_leaf(x);
	return unit_chain(d - 1, x ^ (uint64_t)d) + 1;
}

static double now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct job {
	uint64_t seed;
	uint64_t result;
	double cpu_ms;
	long units;
	long mismatches;
};

static void *run_units(void *arg)
{
	struct job *j = arg;
	double t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
	uint64_t x = j->seed;

	for (long i = 0; i < units_per_thread; i++)
		x = unit_chain(UNIT_DEPTH, x);
	j->result = x;
	j->cpu_ms = now_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

static void *run_spin(void *arg)
{
	struct job *j = arg;
	uint64_t first = unit_chain(UNIT_DEPTH, j->seed);
	double end = now_ms(CLOCK_MONOTONIC) + (double)seconds_to_run * 1e3;

	for (;;) {
		for (int i = 0; i < 100; i++)
			j->mismatches += unit_chain(UNIT_DEPTH, j->seed) != first;
		j->units += 100;
		if (now_ms(CLOCK_MONOTONIC) >= end)
			break;
	}
	return NULL;
}

#define FAULT_BYTES (8u << 20)

static void *run_faults(void *arg)
{
	struct job *j = arg;
	long page = 4096;
	double end = now_ms(CLOCK_MONOTONIC) + (double)seconds_to_run * 1e3;

	do {
		unsigned char *m = mmap(NULL, FAULT_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			j->mismatches++;
			break;
		}
		for (size_t off = 0; off < FAULT_BYTES; off += (size_t)page)
			m[off] = (unsigned char)(off / (size_t)page + j->seed);
		for (size_t off = 0; off < FAULT_BYTES; off += (size_t)page)
			j->mismatches += m[off] != (unsigned char)(off / (size_t)page + j->seed);
		munmap(m, FAULT_BYTES);
		j->units += FAULT_BYTES / page;
	} while (now_ms(CLOCK_MONOTONIC) < end);
	return NULL;
}

static int start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int ret = pthread_create(t, NULL, fn, arg);

	if (ret)
		fprintf(stderr, "stress_threads: pthread_create: %s\n", strerror(ret));
	return ret;
}

/* Threads 0..n-1, at most par alive; results folded in index order. */
static int churn(long n, long par)
{
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *t = calloc((size_t)par, sizeof(*t));
	uint64_t sum = 0;

	if (!jobs || !t)
		return 1;
	for (long base = 0; base < n; base += par) {
		long k = n - base < par ? n - base : par;

		for (long i = 0; i < k; i++) {
			jobs[base + i].seed = (uint64_t)(base + i) + 1;
			if (start(&t[i], run_units, &jobs[base + i]))
				return 1;
		}
		for (long i = 0; i < k; i++)
			pthread_join(t[i], NULL);
	}
	for (long i = 0; i < n; i++)
		sum = sum * 31 + jobs[i].result;
	printf("threads=%ld checksum=%016llx\n", n, (unsigned long long)sum);
	free(jobs);
	free(t);
	return 0;
}

static int all(long n, void *(*fn)(void *))
{
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	uint64_t sum = 0;
	double cpu = 0;
	long units = 0, bad = 0;

	if (!jobs || !t)
		return 1;
	for (long i = 0; i < n; i++) {
		jobs[i].seed = (uint64_t)i + 1;
		if (start(&t[i], fn, &jobs[i]))
			return 1;
	}
	for (long i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		sum = sum * 31 + jobs[i].result;
		cpu += jobs[i].cpu_ms;
		units += jobs[i].units;
		bad += jobs[i].mismatches;
	}
	if (fn == run_units) {
		printf("threads=%ld checksum=%016llx\n", n, (unsigned long long)sum);
		fprintf(stderr, "cpu_ms=%.2f\n", cpu);
	} else {
		printf("threads=%ld mismatches=%ld\n", n, bad);
		fprintf(stderr, "%s=%ld\n", fn == run_faults ? "faults" : "units", units);
	}
	free(jobs);
	free(t);
	return bad != 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "churn")) {
		long n = atol(argv[2]), par = atol(argv[3]);

		units_per_thread = atol(argv[4]);
		if (n < 1 || par < 1)
			return 2;
		return churn(n, par);
	}
	if (argc == 4 && !strcmp(argv[1], "work") && atol(argv[2]) > 0) {
		units_per_thread = atol(argv[3]);
		return all(atol(argv[2]), run_units);
	}
	if (argc == 4 && !strcmp(argv[1], "spin") && atol(argv[2]) > 0) {
		seconds_to_run = strtoull(argv[3], NULL, 10);
		return all(atol(argv[2]), run_spin);
	}
	if (argc == 4 && !strcmp(argv[1], "faults") && atol(argv[2]) > 0) {
		seconds_to_run = strtoull(argv[3], NULL, 10);
		return all(atol(argv[2]), run_faults);
	}
	fprintf(stderr, "usage: stress_threads churn N PAR UNITS | work T UNITS | spin T SECONDS | "
			"faults T SECONDS\n");
	return 2;
}
