/* Samples taken before the collector starts (early.c).  Internal to
 * collector/. */
#ifndef COLLECTOR_EARLY_H
#define COLLECTOR_EARLY_H

struct thr;

/* Put the samples the early counter took since the dynamic loader
 * relocated us into t's tree (t: the main thread, sampling just armed;
 * NULL when the process runs unprofiled), then close the counter.  Not
 * async-signal-safe; once, at init. */
void early_finish(struct thr *t);

#endif
