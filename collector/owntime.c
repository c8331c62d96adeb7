/* The collector's own time and each thread's CPU time (owntime.h). */
#include "config.h"

#include <errno.h>
#include <sys/types.h>
#include <time.h>

#include "collector/collector.h"
#include "collector/owntime.h"
#include "profile/profile.h"

/* Ticks and CLOCK_MONOTONIC when the library was loaded: converting handler
 * ticks to ns at flush time uses the rate over the whole run, so no
 * calibration loop delays the program's start. */
static uint64_t tick0, mono0;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void owntime_start(void)
{
	mono0 = mono_ns();
	tick0 = owntime_ticks();
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t dt = owntime_ticks() - tick0, dm = mono_ns() - mono0;

	if (!dt || !dm)
		return 0;
	return (uint64_t)((double)ticks * (double)dm / (double)dt);
#else
	return ticks;
#endif
}

uint64_t owntime_thread_cpu_ns(pid_t tid)
{
	struct timespec ts;
	/* The kernel's per-thread CPU clock id, as glibc's
	 * pthread_getcpuclockid builds it: (~tid << 3) | PERTHREAD | SCHED. */
	clockid_t id = tid ? (clockid_t)((~(unsigned)tid << 3) | 6) : CLOCK_THREAD_CPUTIME_ID;
	int saved = errno;	/* the program must not see ours (a gone thread: EINVAL) */
	uint64_t ns = 0;

	if (clock_gettime(id, &ts) == 0)
		ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	errno = saved;
	return ns;
}

size_t owntime_counters(const struct thr *t, struct prof_counter *out)
{
	size_t n = 0;
	uint64_t now = owntime_thread_cpu_ns(t->tid);

	if (t->cpu_start_ns && now >= t->cpu_start_ns)
		out[n++] = (struct prof_counter){ "thread_cpu_ns", now - t->cpu_start_ns };
	out[n++] = (struct prof_counter){ "handler_ns", ticks_to_ns(t->handler_ticks) };
	return n;
}
