/* The per-thread timeline (collector/timeline.c): each sample's time and
 * calling context, appended by the signal handler to a buffer of the
 * thread's own mapping, already encoded as the profile's records
 * (prof_timeline_record), so the writer only copies them column by column.
 * The buffer is a mapping of its own that starts at TL_START bytes and
 * doubles with mremap as it fills (about 3 bytes a sample), up to
 * PMCPROF_TIMELINE_BYTES: a thread takes the address space its samples
 * need (RLIMIT_AS).  A sample that does not fit is still in the CCT and
 * counted as lost in the timeline.  Internal
 * to collector/; docs/collector.md, "The timeline". */
#ifndef COLLECTOR_TIMELINE_H
#define COLLECTOR_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* Resolution of the recorded times: a microsecond keeps the deltas of a
 * 1 kHz sampler in two bytes, and zstd cannot compress the noise in
 * nanoseconds (docs/profile-format.md). */
#define TL_UNIT_NS 1000u

/* A thread's first buffer. */
#define TL_START (16u << 10)

struct tl {
	uint8_t *buf;			/* NULL: no timeline */
	size_t cap, len;
	size_t limit;			/* it may grow up to this (mremap) */
	uint64_t n, lost;
	uint64_t start, last;		/* units after the origin */
};

/* The run's origin: origin_ns (the launcher's CLOCK_MONOTONIC when it
 * started the command), or now if 0.  At process init. */
void tl_process_init(uint64_t origin_ns);

/* Start t's timeline now over buf[cap] (cap 0: none). */
void tl_reset(struct tl *tl, void *buf, size_t cap);

/* Let the buffer tl_reset gave (a mapping of its own) grow up to limit
 * bytes. */
void tl_allow_growth(struct tl *tl, size_t limit);

/* Append a sample of event ev (of n_ev) at node, timed now.
 * Async-signal-safe (a vDSO clock read and a few stores). */
void tl_add(struct tl *tl, uint32_t node, uint32_t ev, uint32_t n_ev);

/* The timeline as the profile writer takes it (records point into the
 * buffer); unit_ns 0 when there is none. */
void tl_view(const struct tl *tl, struct prof_timeline *out);

#endif
