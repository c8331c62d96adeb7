/* busy THREADS SECONDS [EXIT]: each thread burns SECONDS of its own CPU time;
 * prints the process's total CPU time (all threads) as measured by itself:
 *   cpu_ms=<milliseconds>
 * and exits with status EXIT (default 0). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double secs;

static double cpu(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	double t0 = cpu(CLOCK_THREAD_CPUTIME_ID);

	(void)arg;
	while (cpu(CLOCK_THREAD_CPUTIME_ID) - t0 < secs)
		for (int i = 0; i < 10000; i++)
			x += i;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t[256];

	secs = argc > 2 ? atof(argv[2]) : 0.5;
	if (n < 1 || n > 256)
		return 2;
	for (int i = 1; i < n; i++)
		pthread_create(&t[i], NULL, burn, NULL);
	burn(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	printf("cpu_ms=%.3f\n", cpu(CLOCK_PROCESS_CPUTIME_ID) * 1e3);
	return argc > 3 ? atoi(argv[3]) : 0;
}
