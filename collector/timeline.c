/* The per-thread timeline (see timeline.h).  tl_add runs in the sampling
 * signal handler: no allocation, no locks, no system call. */
#include "config.h"

#include <stdbool.h>
#include <time.h>

#include "collector/timeline.h"

static uint64_t origin_ns;

/* CLOCK_MONOTONIC through the vDSO: no system call. */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Units after the origin; a clock read before it (a foreign origin) is 0. */
static uint64_t units_now(void)
{
	uint64_t now = mono_ns();

	return now > origin_ns ? (now - origin_ns) / TL_UNIT_NS : 0;
}

void tl_process_init(uint64_t origin)
{
	origin_ns = origin ? origin : mono_ns();
}

void tl_reset(struct tl *tl, void *buf, size_t cap)
{
	tl->buf = cap ? buf : NULL;
	tl->cap = cap;
	tl->limit = cap;
	tl->len = 0;
	tl->n = tl->lost = 0;
	tl->start = tl->last = units_now();
}

void tl_allow_growth(struct tl *tl, size_t limit)
{
	if (tl->buf && limit > tl->cap)
		tl->limit = limit;
}

/* Double the buffer (mremap may move it), up to its limit: one system
 * call, async-signal-safe.  A writer on another thread reads the buffer
 * only while the thread cannot sample (collector/thread.c's states). */
static bool enlarge(struct tl *tl)
{
	size_t cap = tl->cap * 2 > tl->limit ? tl->limit : tl->cap * 2;

	return cap > tl->cap && prof_map_resize(&tl->buf, &tl->cap, cap);
}

void tl_add(struct tl *tl, uint32_t node, uint32_t ev, uint32_t n_ev)
{
	uint64_t now;

	if (!tl->buf)
		return;
	if (tl->cap - tl->len < PROF_TIMELINE_RECORD_MAX && !enlarge(tl)) {
		tl->lost++;
		return;
	}
	now = units_now();
	/* Never backwards: a sample's time is at least its predecessor's. */
	if (now < tl->last)
		now = tl->last;
	tl->len += prof_timeline_record(tl->buf + tl->len, now - tl->last,
					(uint64_t)node * n_ev + ev);
	tl->last = now;
	/* The record is complete before it is counted: a writer on another
	 * thread takes n records (tl_view). */
	__atomic_store_n(&tl->n, tl->n + 1, __ATOMIC_RELEASE);
}

/* Bytes of the first n records. */
static size_t records_len(const uint8_t *b, uint64_t n)
{
	size_t len = 0;

	for (uint64_t i = 0; i < 2 * n; i++)
		while (b[len++] & 0x80)
			;
	return len;
}

void tl_view(const struct tl *tl, struct prof_timeline *out)
{
	uint64_t end = units_now();

	*out = (struct prof_timeline){ 0 };
	if (!tl->buf)
		return;
	out->unit_ns = TL_UNIT_NS;
	out->origin_ns = origin_ns;
	out->start = tl->start;
	out->end = end > tl->last ? end : tl->last;
	out->n = __atomic_load_n(&tl->n, __ATOMIC_ACQUIRE);
	out->lost = tl->lost;
	out->records = tl->buf;
	out->records_len = records_len(tl->buf, out->n);
}
