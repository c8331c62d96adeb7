/* The timeline: with opts.timeline, each profiled thread's samples in
 * time order, their stacks, and the walk that turns them into slices.
 * Threads and frames' strings are owned by the set; frames are filled
 * into the caller's array.
 */
#ifndef ANALYZER_ANA_TIMELINE_H
#define ANALYZER_ANA_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the timeline (timeline.c; docs/analyzer.md, "Timeline") ----
 * With opts.timeline, each profiled thread's samples in time order, for
 * the files that have a timeline (`record` keeps one unless --no-timeline). */

struct ana_thread {
	unsigned run;			/* output run (a --by group is one) */
	const char *path;		/* the profile file */
	const char *command;		/* the command's basename */
	const char *comm;		/* the thread's name */
	long pid, tid;
	uint64_t origin_ns;		/* CLOCK_MONOTONIC of its run's start */
	uint64_t start_ns, end_ns;	/* sampled from .. profile written, after the origin */
	uint64_t n_samples;		/* in the timeline */
	uint64_t lost;			/* samples of the thread not in it (buffer full) */
	uint64_t interval_ns;		/* median time between its samples (0: < 2) */
};
/* Threads with a timeline, in file order; NULL past the end. */
ANA_API size_t ana_set_n_threads(const struct ana_set *s);
ANA_API const struct ana_thread *ana_set_thread(const struct ana_set *s, size_t i);

struct ana_sample {
	uint64_t time_ns;		/* after its run's start */
	uint32_t stack;			/* ana_set_stack's argument */
	size_t event;			/* event column */
	uint64_t period;		/* the event's mean period in this file, or 1 */
	bool selected;			/* inside opts.time (true without it) */
};
/* Sample i of thread t.  0, or -EINVAL past the end. */
ANA_API int ana_set_thread_sample(const struct ana_set *s, size_t t, uint64_t i,
				  struct ana_sample *out);

struct ana_frame {
	const char *name;		/* function ("[module+0xOFF]" if unresolved) */
	const char *module;		/* module path, or NULL */
	const char *file;		/* source file of the address, or NULL */
	unsigned line;			/* 0: unknown */
	uint64_t addr;			/* ELF address in the module (addr2line's) */
	bool inlined;			/* inlined into the next (outer) frame */
	uint32_t key;			/* the same function and inlining, the same key */
};
/* The frames of a sample's stack, leaf first, into fr[max] (inlined
 * frames each their own).  Returns the number of frames, which may be
 * more than max (then only max were filled). */
ANA_API size_t ana_set_stack(const struct ana_set *s, uint32_t stack, struct ana_frame *fr,
			     size_t max);

/* Thread t's selected samples of event column ev (SIZE_MAX: every event)
 * as slices, "frame on the stack from t0 to t1" (trace.c): a sample stands
 * from its time until the next one, but at most twice the thread's
 * interval (a longer gap: the thread did not run, every slice closes).
 * open and close are called in time order, properly nested (close
 * innermost first), t in ns after the run's start; they return 0 or
 * -errno, which stops the walk.  0, -EINVAL (no thread t), -ENOMEM, or
 * the callback's error. */
struct ana_walk_cb {
	int (*open)(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t);
	int (*close)(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t);
};
ANA_API int ana_set_walk_thread(const struct ana_set *s, size_t t, size_t ev,
				const struct ana_walk_cb *cb, void *arg);

/* Files read without a timeline (opts.timeline: their samples are in no
 * thread's). */
ANA_API size_t ana_set_n_untimed(const struct ana_set *s);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_TIMELINE_H */
