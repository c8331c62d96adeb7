/* rec_signals MS: a program with signal handling of its own, profiled.
 *   - a SIGPROF handler fed by setitimer(ITIMER_PROF, 2 ms)
 *   - an SA_SIGINFO handler for SIGRTMIN+1, queued to itself with sigqueue
 *   - a handler asked for on SIGRTMIN+4 (pmcprof's default sampling signal)
 *   - a stretch of work with every signal blocked (burn_blocked)
 * Burns MS ms in burn_signals and MS/4 in burn_blocked, then prints
 *   prof_ticks=N prof_expected=N rt_sent=N rt_got=N rt_value_ok=0|1
 * and exits 0 when every queued signal arrived with its value. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "rec_common.h"

static volatile sig_atomic_t prof_ticks, rt_got, rt_bad;

static void on_prof(int s)
{
	(void)s;
	prof_ticks++;
}

static void on_rt(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)uc;
	if (si->si_value.sival_int != rt_got + 1)
		rt_bad = 1;
	rt_got++;
}

static void on_ours(int s)
{
	(void)s;
}

__attribute__((noinline)) static int burn_signals(double ms)
{
	int sent = 0;
	double t0 = rec_cpu_ms();

	while (rec_cpu_ms() - t0 < ms) {
		union sigval v = { .sival_int = sent + 1 };

		REC_BURN(1, 17);
		if (sigqueue(getpid(), SIGRTMIN + 1, v) == 0)
			sent++;
	}
	return sent;
}

__attribute__((noinline)) static void burn_blocked(double ms)
{
	REC_BURN(ms, 19);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t all, old;
	int sent;

	signal(SIGPROF, on_prof);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	signal(SIGRTMIN + 4, on_ours);

	setitimer(ITIMER_PROF, &it, NULL);
	sent = burn_signals(ms);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	burn_blocked(ms / 4);
	sigprocmask(SIG_SETMASK, &old, NULL);
	setitimer(ITIMER_PROF, &off, NULL);

	printf("prof_ticks=%d prof_expected=%d rt_sent=%d rt_got=%d rt_value_ok=%d\n",
	       (int)prof_ticks, (int)((ms + ms / 4) / 2), sent, (int)rt_got, !rt_bad);
	return sent > 0 && rt_got == sent && !rt_bad ? 0 : 1;
}
