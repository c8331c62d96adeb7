/* Shared by the record test workloads: burn a thread's own CPU time. */
#ifndef REC_COMMON_H
#define REC_COMMON_H

#include <time.h>

static inline double rec_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Spin for ms of this thread's CPU time, in the caller's own loop (a macro,
 * so the samples land in the function that uses it). */
#define REC_BURN(ms, salt)                                                  \
	do {                                                                \
		volatile unsigned long rec_x_ = 0;                          \
		double rec_t0_ = rec_cpu_ms();                              \
		while (rec_cpu_ms() - rec_t0_ < (ms))                       \
			for (int rec_i_ = 0; rec_i_ < 20000; rec_i_++)      \
				rec_x_ += (unsigned long)rec_i_ * (salt);   \
	} while (0)

/* Spin a fixed 30M iterations with no clock at all (under a seccomp
 * filter even clock_gettime may be fatal). */
#define REC_BURN_NOCLOCK(salt)                                              \
	do {                                                                \
		volatile unsigned long rec_x_ = 0;                          \
		for (unsigned long rec_i_ = 0; rec_i_ < 30000000ul; rec_i_++) \
			rec_x_ += rec_i_ * (salt);                          \
	} while (0)

#endif
