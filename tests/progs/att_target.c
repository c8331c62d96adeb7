/* att_target MODE SECONDS: a program for pmcprof record -p to attach to
 * (tests/integration/attach_*.sh).  It runs for SECONDS of wall time,
 * prints "ready" once its threads are going, and knows nothing of being
 * profiled.
 *   threads N   N threads, each spending 2/3 of its time in hot_two and
 *               1/3 in hot_one (known shares), main thread asleep
 *   cpu N       the same, but each thread ends after SECONDS of its own CPU
 *               time: as many samples whatever the machine's load
 *   forkexec    burns in parent_work; after SECONDS/3 forks a child that
 *               burns in child_work, then execs "att_target after S",
 *               which burns in after_exec_work; the parent waits
 *   after S     (the exec'd image) burns in after_exec_work for S seconds
 * Work is measured in the thread's CPU time, so shares hold under load.
 * Built dynamic and -static (att_target_static). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin for about ms of the thread's CPU time in the caller's loop: the
 * shares hold on a loaded machine. */
#define SPIN(ms, salt)                                                   \
	do {                                                             \
		double t0_ = cpu();                                      \
		while (cpu() - t0_ < (ms) / 1e3)                         \
			for (int i_ = 0; i_ < 5000; i_++)                \
				sink += (unsigned long)i_ * (salt);      \
	} while (0)

__attribute__((noinline)) static void hot_two(void)
{
	SPIN(20, 3);
}

__attribute__((noinline)) static void hot_one(void)
{
	SPIN(10, 5);
}

__attribute__((noinline)) static void parent_work(double s)
{
	SPIN(s * 1e3, 7);
}

__attribute__((noinline)) static void child_work(double s)
{
	SPIN(s * 1e3, 11);
}

__attribute__((noinline)) static void after_exec_work(double s)
{
	SPIN(s * 1e3, 13);
}

static double end_at;
static int cpu_bound;	/* end_at is each thread's CPU time, not the wall's */

static void *worker(void *arg)
{
	(void)arg;
	while ((cpu_bound ? cpu() : wall()) < end_at) {
		hot_two();
		hot_one();
	}
	return NULL;
}

static int threads(int n, double secs)
{
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	end_at = cpu_bound ? secs : wall() + secs;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 2;
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int forkexec(const char *self, double secs)
{
	char arg[32];
	pid_t pid;
	int st;

	printf("ready\n");
	fflush(stdout);
	parent_work(secs / 3);
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		child_work(secs / 6);
		snprintf(arg, sizeof(arg), "%g", secs / 6);
		execl(self, self, "after", arg, (char *)NULL);
		_exit(127);
	}
	parent_work(secs / 3);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 3;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]), atof(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "cpu")) {
		cpu_bound = 1;
		return threads(atoi(argv[2]), atof(argv[3]));
	}
	if (argc >= 3 && !strcmp(argv[1], "forkexec")) {
		static char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			return 2;
		self[n] = '\0';
		return forkexec(self, atof(argv[2]));
	}
	if (argc >= 3 && !strcmp(argv[1], "after")) {
		after_exec_work(atof(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: att_target threads|cpu N SECONDS | forkexec SECONDS\n");
	return 2;
}
