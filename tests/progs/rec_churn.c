/* rec_churn N: N short threads, 8 at a time, each burning 2 ms of CPU in
 * churn_work; halfway through, a fork whose child starts 8 threads of its
 * own, and an exit() while 4 more threads are still burning.  Prints
 * "threads=N child=PID" and exits 0 from the main thread's exit() while
 * the last threads run. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_common.h"

__attribute__((noinline)) static void churn_work(void)
{
	REC_BURN(2, 23);
}

static void *worker(void *p)
{
	(void)p;
	churn_work();
	return NULL;
}

static int started;

static void *forever(void *p)
{
	(void)p;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	for (;;)
		churn_work();
	return NULL;
}

static void batch(int n)
{
	pthread_t t[8];

	for (int i = 0; i < n; i += 8) {
		int k = n - i < 8 ? n - i : 8;

		for (int j = 0; j < k; j++)
			pthread_create(&t[j], NULL, worker, NULL);
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	pthread_t t;
	pid_t child;
	int st;

	batch(n / 2);
	child = fork();
	if (child == 0) {
		batch(8);
		exit(0);
	}
	batch(n - n / 2);
	waitpid(child, &st, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, forever, NULL);
	/* They run (and are sampled) by the time exit() writes them. */
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 4)
		churn_work();
	churn_work();
	printf("threads=%d child=%d\n", n, child);
	fflush(stdout);
	exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1);
}
