/* stress_signals T UNITS K: a program that uses signals heavily itself.
 *   - a SIGPROF handler on setitimer(ITIMER_PROF) at 10 kHz (100 us);
 *   - T worker threads, each running UNITS work units (half of them with
 *     every signal blocked) and a pipe round trip per unit (system calls
 *     that signals interrupt and SA_RESTART restarts);
 *   - K realtime signals with values: SIGRTMIN+1 queued to the process,
 *     SIGRTMIN+2 queued to one worker thread at a time, SIGRTMIN+3 queued
 *     to the process and taken by a thread in sigtimedwait (blocked
 *     everywhere else).
 * Every value must arrive exactly once; in order where the order is
 * defined (one receiving thread: SIGRTMIN+2 per worker, SIGRTMIN+3).
 * stdout: "workers=T checksum=X rt_sent=3K rt_got=3K order_ok=1
 * pipes_ok=1 prof=1" (prof=1: the SIGPROF handler ran); stderr:
 * "prof_ticks=N".  Exit 0 when all of that holds. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 32
#define IN_FLIGHT 16		/* queued and not yet handled, per signal */
#define MAX_K 100000

struct worker {
	pthread_t t;
	int index;
	int pipe[2];
	long units;
	uint64_t result;
	int pipes_ok;
	int rt2_got;		/* atomic: SIGRTMIN+2 values received, in order */
	int rt2_bad;
};

static struct worker workers[MAX_WORKERS];
static __thread struct worker *me;
static int n_workers;
static int prof_ticks;		/* atomic */
static int rt1_got, rt3_got;	/* atomic */
static int rt_bad;		/* atomic */
static unsigned char rt1_seen[MAX_K + 1];	/* atomic */
static pthread_barrier_t ready;
static int all_done;		/* atomic */

__attribute__((noinline)) static uint64_t sig_work(uint64_t x)
{
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		x ^= x >> 29;
	}
	return x;
}

static void on_prof(int s)
{
	(void)s;
	__atomic_add_fetch(&prof_ticks, 1, __ATOMIC_RELAXED);
}

/* Process-directed: two threads may run this at once, so values are
 * checked off, not compared with a running count. */
static void on_rt1(int s, siginfo_t *si, void *uc)
{
	int v = si->si_value.sival_int;

	(void)s;
	(void)uc;
	if (v < 1 || v > MAX_K || __atomic_exchange_n(&rt1_seen[v], 1, __ATOMIC_SEQ_CST))
		__atomic_store_n(&rt_bad, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&rt1_got, 1, __ATOMIC_SEQ_CST);
}

static void on_rt2(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)uc;
	if (!me) {
		__atomic_store_n(&rt_bad, 1, __ATOMIC_SEQ_CST);
		return;
	}
	if (si->si_value.sival_int != __atomic_load_n(&me->rt2_got, __ATOMIC_SEQ_CST) + 1)
		me->rt2_bad = 1;
	__atomic_add_fetch(&me->rt2_got, 1, __ATOMIC_SEQ_CST);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	sigset_t all, old;
	uint64_t x = (uint64_t)w->index + 1;

	me = w;
	pthread_barrier_wait(&ready);
	sigfillset(&all);
	w->pipes_ok = 1;
	for (long u = 0; u < w->units; u++) {
		uint64_t back = 0;
		bool blocked = (u / 8) % 2 == 1;

		if (blocked)
			pthread_sigmask(SIG_BLOCK, &all, &old);
		x = sig_work(x);
		if (blocked)
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (write(w->pipe[1], &x, sizeof(x)) != sizeof(x) ||
		    read(w->pipe[0], &back, sizeof(back)) != sizeof(back) || back != x)
			w->pipes_ok = 0;
	}
	w->result = x;
	/* Stay alive (and able to take SIGRTMIN+2) until the sender is done. */
	while (!__atomic_load_n(&all_done, __ATOMIC_SEQ_CST))
		usleep(1000);
	return NULL;
}

static void *waiter(void *arg)
{
	long k = (long)arg;
	sigset_t s;
	siginfo_t si;

	struct timespec tick = { 0, 10000000 };

	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 3);
	while (__atomic_load_n(&rt3_got, __ATOMIC_SEQ_CST) < k) {
		if (sigtimedwait(&s, &si, &tick) < 0) {
			if (errno == EINTR)
				continue;
			/* EAGAIN: nothing yet; give up once the sender has. */
			if (errno == EAGAIN && !__atomic_load_n(&all_done, __ATOMIC_SEQ_CST))
				continue;
			__atomic_store_n(&rt_bad, 1, __ATOMIC_SEQ_CST);
			break;
		}
		if (si.si_value.sival_int != __atomic_load_n(&rt3_got, __ATOMIC_SEQ_CST) + 1)
			__atomic_store_n(&rt_bad, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&rt3_got, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* Queue one signal, waiting while too many are in flight or the queue is
 * full (EAGAIN: RLIMIT_SIGPENDING). */
static int send_one(int signo, const pthread_t *to, int *got, int value)
{
	union sigval v = { .sival_int = value };

	while (value - __atomic_load_n(got, __ATOMIC_SEQ_CST) > IN_FLIGHT)
		usleep(100);
	for (;;) {
		int ret = to ? pthread_sigqueue(*to, signo, v)
			     : sigqueue(getpid(), signo, v) < 0 ? errno : 0;

		if (ret == 0)
			return 0;
		if (ret != EAGAIN)
			return -1;
		usleep(100);
	}
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t rt3;
	pthread_t wt;
	long units, k;
	int got = 0, pipes_ok = 1, order_ok, ticks;
	uint64_t sum = 0;

	if (argc != 4 || (n_workers = atoi(argv[1])) < 1 || n_workers > MAX_WORKERS ||
	    (k = atol(argv[3])) < 1 || k > MAX_K) {
		fprintf(stderr, "usage: stress_signals T(1-32) UNITS K(1-%d)\n", MAX_K);
		return 2;
	}
	units = atol(argv[2]);
	pthread_barrier_init(&ready, NULL, (unsigned)n_workers + 1);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	sa.sa_sigaction = on_rt1;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	sa.sa_sigaction = on_rt2;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	/* Blocked in every thread (inherited), so only sigtimedwait takes it. */
	sigemptyset(&rt3);
	sigaddset(&rt3, SIGRTMIN + 3);
	pthread_sigmask(SIG_BLOCK, &rt3, NULL);

	setitimer(ITIMER_PROF, &it, NULL);
	pthread_create(&wt, NULL, waiter, (void *)k);
	for (int i = 0; i < n_workers; i++) {
		workers[i].index = i;
		workers[i].units = units;
		if (pipe(workers[i].pipe) < 0 ||
		    pthread_create(&workers[i].t, NULL, work, &workers[i])) {
			perror("stress_signals");
			return 1;
		}
	}
	/* Every worker has its `me` before a signal is aimed at it. */
	pthread_barrier_wait(&ready);
	for (long v = 1; v <= k; v++) {
		struct worker *w = &workers[v % n_workers];
		/* Each worker sees its own values 1, 2, 3, ... */
		int wv = (int)((v - 1) / n_workers) + 1;

		if (send_one(SIGRTMIN + 1, NULL, &rt1_got, (int)v) < 0 ||
		    send_one(SIGRTMIN + 2, &w->t, &w->rt2_got, wv) < 0 ||
		    send_one(SIGRTMIN + 3, NULL, &rt3_got, (int)v) < 0) {
			perror("stress_signals: sigqueue");
			return 1;
		}
	}
	/* Everything sent: wait until it has all arrived (bounded). */
	for (int waited = 0; waited < 10000; waited++) {
		int n = __atomic_load_n(&rt1_got, __ATOMIC_SEQ_CST) +
			__atomic_load_n(&rt3_got, __ATOMIC_SEQ_CST);

		for (int i = 0; i < n_workers; i++)
			n += __atomic_load_n(&workers[i].rt2_got, __ATOMIC_SEQ_CST);
		if (n == 3 * k)
			break;
		usleep(1000);
	}
	__atomic_store_n(&all_done, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < n_workers; i++) {
		pthread_join(workers[i].t, NULL);
		sum = sum * 31 + workers[i].result;
		pipes_ok &= workers[i].pipes_ok;
		got += workers[i].rt2_got;
		if (workers[i].rt2_bad)
			__atomic_store_n(&rt_bad, 1, __ATOMIC_SEQ_CST);
	}
	pthread_join(wt, NULL);
	setitimer(ITIMER_PROF, &off, NULL);
	got += rt1_got + rt3_got;
	order_ok = !__atomic_load_n(&rt_bad, __ATOMIC_SEQ_CST);
	ticks = __atomic_load_n(&prof_ticks, __ATOMIC_RELAXED);
	fprintf(stderr, "prof_ticks=%d\n", ticks);
	printf("workers=%d checksum=%016llx rt_sent=%ld rt_got=%d order_ok=%d pipes_ok=%d prof=%d\n",
	       n_workers, (unsigned long long)sum, 3 * k, got, order_ok, pipes_ok, ticks > 0);
	return got == 3 * k && order_ok && pipes_ok && ticks > 0 ? 0 : 1;
}
