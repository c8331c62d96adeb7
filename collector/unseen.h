/* CPU time the collector could not sample (unseen.c).  Internal to
 * collector/. */
#ifndef COLLECTOR_UNSEEN_H
#define COLLECTOR_UNSEEN_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct thr;

/* At init (and in a fork child), on the main thread; main_cpu_start: its CPU time where its
 * samples begin (earlier than now with early samples), 0 if unknown. */
void unseen_init(uint64_t main_cpu_start);

/* A sampled thread ended after cpu_ns of CPU time since its start. */
void unseen_thread_ended(uint64_t cpu_ns);

/* For the main thread's profile (index 0; none for others):
 * "unsampled_thread_cpu_ns", "unsampled_clone_cpu_ns" and
 * "clone_children" into out; returns how many (at most 3). */
size_t unseen_counters(const struct thr *main_thr, struct prof_counter *out);

#endif
