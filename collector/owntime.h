/* The collector's own time and each thread's CPU time, so the analyzer can
 * check that samples add up (docs/collector.md, "Own time and CPU time").
 * Everything here is async-signal-safe. */
#ifndef COLLECTOR_OWNTIME_H
#define COLLECTOR_OWNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

struct thr;
struct prof_counter;

/* A cheap timestamp for timing the handler: the TSC on x86 (one
 * unprivileged instruction, ~10-40 cycles, not trapped by KVM, emulated by
 * TCG), the generic timer's CNTVCT_EL0 on AArch64, else CLOCK_MONOTONIC in
 * ns (vDSO).  Ticks; owntime_counters
 * converts them.  Not a CPU-time clock: a preempted handler counts the
 * time it was off the CPU, which is rare and errs on the high side. */
static inline uint64_t owntime_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;	/* the generic timer's virtual count: EL0 may read it */

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* The thread's own CPU time (the kernel's count: CLOCK_THREAD_CPUTIME_ID of
 * thread tid in this process), in ns; 0 if it cannot be read. */
uint64_t owntime_thread_cpu_ns(pid_t tid);

/* A time that could not be read (0 is a valid user time). */
#define OWNTIME_UNKNOWN UINT64_MAX

/* The user-mode part of thread tid's CPU time, in ns, in *ns, and its
 * resolution in *res: from getrusage(RUSAGE_THREAD) when tid is the calling
 * thread (or 0), 1 us; else from /proc/self/task/TID/stat, a clock tick
 * (1/USER_HZ s), the only way to read another thread's.  Returns 0, or
 * -errno if it cannot be read (a thread of another thread group: the
 * watcher).  Both are the kernel's one split of the CPU time into user and
 * system (cputime_adjust), in proportion to the ticks it found the thread
 * in each mode. */
int owntime_thread_user_ns(pid_t tid, uint64_t *ns, uint64_t *res);

/* Append "thread_cpu_ns" (the thread's CPU time from t->cpu_start_ns to
 * now), "thread_user_ns" (its user-mode part, from t->user_start_ns to now)
 * and "handler_ns" (time spent in the sampling handler, never more than
 * thread_cpu_ns; "handler_wall_ns" beside it when the wall reading was
 * more) to out, each one that could be read; returns how many (at most
 * 4). */
size_t owntime_counters(const struct thr *t, struct prof_counter *out);

#endif
