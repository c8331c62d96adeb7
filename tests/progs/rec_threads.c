/* rec_threads N MS: N threads; thread i spends MS ms of its own CPU time in
 * hot<i % 8>().  After joining, prints "tid=<tid> hot=<k>" for each thread
 * and "tid=<tid> hot=main" for the main thread (which burns MS/4 in main_hot). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rec_common.h"

static double ms;

#define HOT(k) \
	__attribute__((noinline)) static void hot##k(void) { REC_BURN(ms, k + 1); }
HOT(0) HOT(1) HOT(2) HOT(3) HOT(4) HOT(5) HOT(6) HOT(7)

static void (*const hots[8])(void) = { hot0, hot1, hot2, hot3, hot4, hot5, hot6, hot7 };

struct arg {
	int k;
	pid_t tid;
};

static void *worker(void *p)
{
	struct arg *a = p;

	a->tid = gettid();
	hots[a->k % 8]();
	return NULL;
}

__attribute__((noinline)) static void main_hot(void)
{
	REC_BURN(ms / 4, 9);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	struct arg *a = calloc((size_t)n, sizeof(*a));

	ms = argc > 2 ? atof(argv[2]) : 50;
	for (int i = 0; i < n; i++) {
		a[i].k = i;
		if (pthread_create(&th[i], NULL, worker, &a[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	main_hot();
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < n; i++)
		printf("tid=%d hot=hot%d\n", a[i].tid, a[i].k % 8);
	printf("tid=%d hot=main_hot\n", gettid());
	return 0;
}
