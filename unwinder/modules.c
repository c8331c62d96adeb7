/* The loaded objects' segments, for the walk: which memory it may read
 * (an object's PT_LOAD segments with PF_R), and where each object's
 * .eh_frame_hdr is.  Built with dl_iterate_phdr outside any handler and
 * published as an immutable sorted snapshot; a handler reads it, and the
 * objects' memory, inside the guard below.
 *
 * The guard is one count of readers and one of blockers (Dekker-style:
 * each side writes its own, then reads the other's).  A blocker (fork,
 * dlclose, a rescan) waits until no capture is inside; a capture that
 * finds a blocker does without libunwind and without the objects' memory
 * for that sample.  So libunwind's locks are never inherited held by a
 * forked child, and dlclose never unmaps code or unwind tables a capture
 * is reading. */
#include "config.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "unwinder/internal.h"

struct map {
	size_t n, map_len;
	struct uw_seg seg[];	/* sorted by lo, not overlapping */
};

static _Atomic(struct map *) cur;
static atomic_int readers, blockers;
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;

bool uw_guard_enter(void)
{
	if (atomic_load(&blockers))
		return false;
	atomic_fetch_add(&readers, 1);
	if (atomic_load(&blockers)) {
		atomic_fetch_sub(&readers, 1);
		return false;
	}
	return true;
}

void uw_guard_leave(void)
{
	atomic_fetch_sub(&readers, 1);
}

bool uw_guard_block(void)
{
	const struct timespec tick = { .tv_nsec = 100000 };
	int i;

	atomic_fetch_add(&blockers, 1);
	/* Bounded: a fork() or dlclose() from a handler that interrupted a
	 * capture in this very thread would otherwise wait for itself. */
	for (i = 0; i < 1000 && atomic_load(&readers); i++)
		nanosleep(&tick, NULL);
	return atomic_load(&readers) == 0;
}

void uw_guard_unblock(void)
{
	atomic_fetch_sub(&blockers, 1);
}

void uw_guard_reset(void)
{
	atomic_store(&readers, 0);
	atomic_store(&blockers, 0);
}

/* fork: no rescan may be half done in the child (its lock would stay held
 * there), and no capture inside the guard. */
void uw_modules_fork_prepare(void)
{
	pthread_mutex_lock(&scan_lock);
	uw_guard_block();
}

void uw_modules_fork_parent(void)
{
	uw_guard_unblock();
	pthread_mutex_unlock(&scan_lock);
}

void uw_modules_fork_child(void)
{
	uw_guard_reset();
	pthread_mutex_init(&scan_lock, NULL);
}

struct scan {
	struct map *m;		/* NULL: counting */
	size_t n;
};

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	uintptr_t hdr = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !ph->p_memsz)
			continue;
		if (s->m && s->n < s->m->n) {
			struct uw_seg *g = &s->m->seg[s->n];

			g->lo = info->dlpi_addr + ph->p_vaddr;
			g->hi = g->lo + ph->p_memsz;
			g->eh_hdr = hdr;
			g->exec = (ph->p_flags & PF_X) != 0;
		}
		s->n++;
	}
	return 0;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct uw_seg *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int uw_modules_scan(void)
{
	struct scan s = { NULL, 0 };
	struct map *m, *old;
	size_t len, n;
	bool quiet;

	pthread_mutex_lock(&scan_lock);
	dl_iterate_phdr(scan_one, &s);
	n = s.n + 16;	/* room for objects loaded between the two passes */
	len = (sizeof(*m) + n * sizeof(m->seg[0]) + 4095) & ~(size_t)4095;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		pthread_mutex_unlock(&scan_lock);
		return -errno;
	}
	m->n = n;
	m->map_len = len;
	s.m = m;
	s.n = 0;
	dl_iterate_phdr(scan_one, &s);
	m->n = s.n < n ? s.n : n;
	qsort(m->seg, m->n, sizeof(m->seg[0]), seg_cmp);
	quiet = uw_guard_block();
	old = atomic_exchange(&cur, m);
	/* A reader still inside after the wait keeps the old one: leak it. */
	if (old && quiet)
		munmap(old, old->map_len);
	uw_guard_unblock();
	pthread_mutex_unlock(&scan_lock);
	return 0;
}

const struct uw_seg *uw_seg_find(uintptr_t addr)
{
	const struct map *m = atomic_load(&cur);
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->seg[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= m->seg[lo - 1].hi)
		return NULL;
	return &m->seg[lo - 1];
}

bool uw_readable(uintptr_t addr, size_t len)
{
	const struct uw_seg *g = uw_seg_find(addr);

	return g && addr + len >= addr && addr + len <= g->hi;
}
