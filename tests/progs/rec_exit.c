/* rec_exit MODE [MS]: burn MS ms (default 100) of CPU, then end as MODE says:
 *   return        return 0 from main
 *   exit3         exit(3)
 *   _exit4        _exit(4)
 *   _Exit5        _Exit(5)
 *   thread-exit6  a second thread burns, then calls exit(6) while main waits
 *   main-pthread-exit  main calls pthread_exit; the other thread returns (0)
 *   segv | abort | term | int   die of SIGSEGV / SIGABRT / SIGTERM / SIGINT
 *   rawexit7      a second thread burns; main leaves by a raw exit_group(7)
 *                 system call while it still runs (as Go's runtime does),
 *                 once both have burned MS ms
 *   kill9         a second thread burns; main sends the process SIGKILL once
 *                 both have burned MS ms
 *   overflow      die of SIGSEGV from unbounded recursion (stack overflow)
 * The main thread burns in burn_main, the second thread in burn_worker. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec_common.h"

static double ms = 100;

__attribute__((noinline)) static void burn_main(void)
{
	REC_BURN(ms, 3);
}

__attribute__((noinline)) static void burn_worker(void)
{
	REC_BURN(ms, 5);
}

/* Each frame keeps a live array, so the stack really grows. */
__attribute__((noinline)) static int recurse(int n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	return recurse(n + 1) + pad[0];
}

/* Set once main has burned its share: the worker's exit(6) must come while
 * main waits in pthread_join, not cut its burn short (on a loaded machine
 * the worker could finish first, leaving main few samples). */
static int main_done;

static void *worker_exit(void *p)
{
	(void)p;
	burn_worker();
	while (!__atomic_load_n(&main_done, __ATOMIC_ACQUIRE))
		usleep(1000);
	exit(6);
}

/* Set once the burning worker has had its share: the process must not end
 * before (on a loaded machine main could get its MS of CPU while the worker
 * got a few, leaving it few samples). */
static int worker_done;

/* Burns until the process ends. */
static void *worker_forever(void *p)
{
	(void)p;
	burn_worker();
	__atomic_store_n(&worker_done, 1, __ATOMIC_RELEASE);
	for (;;)
		burn_worker();
	return NULL;
}

static void *worker_return(void *p)
{
	(void)p;
	burn_worker();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "return";
	pthread_t t;

	if (argc > 2)
		ms = atof(argv[2]);
	if (!strcmp(mode, "thread-exit6")) {
		pthread_create(&t, NULL, worker_exit, NULL);
		burn_main();
		__atomic_store_n(&main_done, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		return 1;	/* not reached: the worker exits first */
	}
	if (!strcmp(mode, "main-pthread-exit")) {
		pthread_create(&t, NULL, worker_return, NULL);
		burn_main();
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "rawexit7") || !strcmp(mode, "kill9")) {
		pthread_create(&t, NULL, worker_forever, NULL);
		burn_main();
		while (!__atomic_load_n(&worker_done, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (!strcmp(mode, "kill9"))
			kill(getpid(), SIGKILL);
		syscall(SYS_exit_group, 7);
	}
	burn_main();
	if (!strcmp(mode, "exit3"))
		exit(3);
	if (!strcmp(mode, "_exit4"))
		_exit(4);
	if (!strcmp(mode, "_Exit5"))
		_Exit(5);
	if (!strcmp(mode, "segv"))
		*(volatile int *)(uintptr_t)8 = 1;
	if (!strcmp(mode, "overflow"))
		return recurse(0);
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "term"))
		raise(SIGTERM);
	if (!strcmp(mode, "int"))
		raise(SIGINT);
	return 0;
}
