/* The collector's own time and each thread's CPU time (owntime.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/owntime.h"
#include "profile/profile.h"

/* Ticks and CLOCK_MONOTONIC when the library was loaded: converting handler
 * ticks to ns at flush time uses the rate over the whole run, so no
 * calibration loop delays the program's start. */
static uint64_t tick0, mono0;
/* A clock tick of /proc's times in ns (USER_HZ; sysconf may not be called
 * in a signal handler, so it is read here, from the auxiliary vector). */
static uint64_t clk_tck_ns = 10000000;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void owntime_start(void)
{
	unsigned long hz = getauxval(AT_CLKTCK);

	mono0 = mono_ns();
	tick0 = owntime_ticks();
	if (hz > 0 && hz <= 1000000000)
		clk_tck_ns = 1000000000u / hz;
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
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

/* utime, field 14 of /proc/self/task/TID/stat, in clock ticks; -1 if it
 * cannot be read.  The name (field 2) may hold spaces and parentheses: the
 * fields are counted from its last ')'. */
static int64_t proc_utime_ticks(pid_t tid)
{
	char path[48] = "/proc/self/task/", digits[12], s[1024], *p;
	size_t len = 16, nd = 0;
	int fd, field = 2;
	ssize_t n;
	int64_t v = 0;

	for (unsigned u = (unsigned)tid; u || !nd; u /= 10)
		digits[nd++] = (char)('0' + u % 10);
	while (nd)
		path[len++] = digits[--nd];
	memcpy(path + len, "/stat", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	s[n] = '\0';
	for (p = s + n; p > s && p[-1] != ')'; p--)
		;
	if (p == s)
		return -1;
	for (; *p && field < 14; p++)
		field += *p == ' ';
	if (field != 14 || *p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	return v;
}

int owntime_thread_user_ns(pid_t tid, uint64_t *ns, uint64_t *res)
{
	int saved = errno, ret = 0;

	if (!tid || tid == gettid()) {
		struct rusage ru;

		if (getrusage(RUSAGE_THREAD, &ru) == 0) {
			*ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
			      (uint64_t)ru.ru_utime.tv_usec * 1000u;
			*res = 1000;
		} else {
			ret = -errno;
		}
	} else {
		int64_t ticks = proc_utime_ticks(tid);

		if (ticks >= 0) {
			*ns = (uint64_t)ticks * clk_tck_ns;
			*res = clk_tck_ns;
		} else {
			ret = -ENOENT;
		}
	}
	errno = saved;
	return ret;
}

size_t owntime_counters(const struct thr *t, struct prof_counter *out)
{
	size_t n = 0;
	uint64_t now = owntime_thread_cpu_ns(t->tid), user, res, cpu = UINT64_MAX;
	uint64_t handler = ticks_to_ns(t->handler_ticks);

	if (t->cpu_start_ns && now >= t->cpu_start_ns) {
		cpu = now - t->cpu_start_ns;
		out[n++] = (struct prof_counter){ "thread_cpu_ns", cpu };
	}
	/* Both readings floored to the coarser resolution, so that a start in
	 * µs and an end in ticks do not make a difference below zero. */
	if (t->user_start_ns != OWNTIME_UNKNOWN &&
	    owntime_thread_user_ns(t->tid, &user, &res) == 0) {
		uint64_t start = t->user_start_ns - t->user_start_ns % res;

		if (user >= start)
			out[n++] = (struct prof_counter){ "thread_user_ns", user - start };
	}
	/* The TSC counts wall time: a handler run preempted mid-way (many
	 * short processes on few CPUs) counts time the thread did not run.
	 * Its share of the thread's CPU time can never pass the whole: the
	 * wall reading is kept apart when it does. */
	if (handler > cpu) {
		out[n++] = (struct prof_counter){ "handler_wall_ns", handler };
		handler = cpu;
	}
	out[n++] = (struct prof_counter){ "handler_ns", handler };
	return n;
}
