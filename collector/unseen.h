/* CPU time the collector could not sample (unseen.c).  Internal to
 * collector/. */
#ifndef COLLECTOR_UNSEEN_H
#define COLLECTOR_UNSEEN_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct thr;

/* At init and in a fork child: counts start at zero. */
void unseen_init(void);

/* A sampled thread ends, having used cpu_ns of CPU time in all (its own
 * clock, read by itself). */
void unseen_thread_ended(uint64_t cpu_ns);

/* For the main thread's profile (index 0; none for others):
 * "unsampled_thread_cpu_ns", "unsampled_clone_cpu_ns" and
 * "clone_children" into out; returns how many (at most 3). */
size_t unseen_counters(const struct thr *main_thr, struct prof_counter *out);

#endif
