/* stress_procs: process workloads for tests/stress and harden_* tests.
 *
 *   stress_procs tree N
 *       A tree of N processes: each runs a little work, then forks up to
 *       three children that exec this program again ("node SHARE") with
 *       their share of the rest, and waits for them.  A node exits with
 *       the number of processes in its subtree (N <= 254), so the root can
 *       print "processes=N" only if every one of them ran to its end.
 *   stress_procs fan K T SECONDS PIDFILE
 *       K forked children (no exec), each with T threads working for
 *       SECONDS of their own CPU time.  Their pids go to PIDFILE, one a line, then a line
 *       "ready", so a test can kill one of them.  Prints "children=K
 *       exited=E killed=S" once all have ended (S: by SIGKILL). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FANOUT 3

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t proc_work(uint64_t x, long steps)
{
	for (long i = 0; i < steps; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		x ^= x >> 29;
	}
	return x;
}

static int tree(const char *self, int n)
{
	pid_t kids[FANOUT];
	int nk = 0, rest = n - 1, total = 1;

	sink = proc_work((uint64_t)n, 200000);
	for (int i = 0; i < FANOUT && rest > 0; i++) {
		int share = (rest + (FANOUT - i) - 1) / (FANOUT - i);
		char arg[16];
		pid_t pid;

		snprintf(arg, sizeof(arg), "%d", share);
		rest -= share;
		pid = fork();
		if (pid < 0) {
			perror("stress_procs: fork");
			return 255;
		}
		if (pid == 0) {
			execl(self, "stress_procs", "node", arg, (char *)NULL);
			perror("stress_procs: exec");
			_exit(255);
		}
		kids[nk++] = pid;
	}
	for (int i = 0; i < nk; i++) {
		int st;

		while (waitpid(kids[i], &st, 0) < 0 && errno == EINTR)
			;
		total += WIFEXITED(st) && WEXITSTATUS(st) != 255 ? WEXITSTATUS(st) : 0;
	}
	sink = proc_work(sink, 100000);
	return total;
}

static double fan_seconds;

static void *fan_thread(void *arg)
{
	struct timespec t0, t;
	uint64_t x = (uint64_t)(uintptr_t)arg;

	/* The thread's own CPU time, not the wall's: on a loaded machine a
	 * test must still find it working when it has run a little. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		x = proc_work(x, 100000);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < fan_seconds);
	sink = x;
	return NULL;
}

static int fan(int k, int nt, const char *pidfile)
{
	FILE *f = fopen(pidfile, "w");
	int exited = 0, killed = 0;

	if (!f) {
		perror(pidfile);
		return 2;
	}
	for (int i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("stress_procs: fork");
			return 2;
		}
		if (pid == 0) {
			pthread_t t[64];

			nt = nt > 64 ? 64 : nt;
			for (int j = 0; j < nt; j++)
				pthread_create(&t[j], NULL, fan_thread, (void *)(uintptr_t)(j + 1));
			for (int j = 0; j < nt; j++)
				pthread_join(t[j], NULL);
			exit(0);
		}
		fprintf(f, "%d\n", (int)pid);
	}
	fprintf(f, "ready\n");
	fclose(f);
	for (int i = 0; i < k; i++) {
		int st;

		if (wait(&st) < 0)
			break;
		exited += WIFEXITED(st) && WEXITSTATUS(st) == 0;
		killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	}
	printf("children=%d exited=%d killed=%d\n", k, exited, killed);
	return 0;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t l;

	if (argc == 3 && (!strcmp(argv[1], "tree") || !strcmp(argv[1], "node"))) {
		int n = atoi(argv[2]), got;

		if (n < 1 || n > 254)
			return 255;
		l = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (l <= 0)
			return 255;
		self[l] = '\0';
		got = tree(self, n);
		if (!strcmp(argv[1], "node"))
			return got;
		printf("processes=%d\n", got);
		return got == n ? 0 : 1;
	}
	if (argc == 6 && !strcmp(argv[1], "fan")) {
		fan_seconds = atof(argv[4]);
		return fan(atoi(argv[2]), atoi(argv[3]), argv[5]);
	}
	fprintf(stderr, "usage: stress_procs tree N | fan K T SECONDS PIDFILE\n");
	return 2;
}
