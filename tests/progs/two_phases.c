/* two_phases [SECONDS]: phase_one, then phase_two, each busy for SECONDS
 * of wall-clock time (default 0.3), so that each is the same share of the
 * run however loaded the machine is: the first half of the run is
 * phase_one's, the second phase_two's (diff --time, view --time). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static void phase_one(double secs)
{
	double t0 = now();

	while (now() - t0 < secs)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

NOINLINE static void phase_two(double secs)
{
	double t0 = now();

	while (now() - t0 < secs)
		for (int i = 0; i < 10000; i++)
			sink ^= i;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;

	phase_one(secs);
	phase_two(secs);
	printf("two_phases: done\n");
	return 0;
}
