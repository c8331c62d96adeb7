/* A per-thread calling-context tree in one arena that grows on demand.
 *
 * Nodes are keyed by (parent, module, offset) in an open-addressed hash of
 * node indices; node arrays are laid out as the profile writer wants them
 * (struct prof_cct), so writing needs no copy.  Node 0 is the root.  The
 * hash starts small and doubles in place (rebuilt from the node arrays),
 * so only the memory in use is ever touched.  Internal to collector/. */
#ifndef COLLECTOR_CCT_H
#define COLLECTOR_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct cct {
	uint32_t n_nodes, max_nodes, n_events;
	uint32_t mask;			/* slots in use - 1 */
	uint32_t max_slots;
	uint32_t *parent, *module, *slot;
	uint64_t *offset, *counts;
	void *mem;			/* the arena */
	size_t bytes;			/* its length now */
	size_t limit;			/* it may grow up to this (mremap) */
};

/* How many nodes an arena of bytes holds with n_events counts each. */
uint32_t cct_capacity(size_t bytes, uint32_t n_events);

/* Lay the tree out in mem (bytes long, zero-filled, 8-byte aligned) and
 * create the root.  0, or -EINVAL if not even the smallest tree fits. */
int cct_init(struct cct *c, void *mem, size_t bytes, uint32_t n_events);

/* Let a tree whose arena is an anonymous mapping of its own (mem of
 * cct_init) grow, by doubling with mremap, up to limit bytes: only the
 * address space a thread's tree needs is taken. */
void cct_allow_growth(struct cct *c, size_t limit);

/* The child of parent keyed (module, offset), created if new.  Returns its
 * index, or 0 when the arena is full and cannot grow (its limit, or the
 * kernel refused: RLIMIT_AS).  Async-signal-safe (growing is one mremap
 * system call, log2(limit / start) times at most); one writer. */
uint32_t cct_child(struct cct *c, uint32_t parent, uint32_t module, uint64_t offset);

/* Add one to event ev's count at node. */
static inline void cct_count(struct cct *c, uint32_t node, uint32_t ev)
{
	c->counts[(size_t)node * c->n_events + ev]++;
}

/* The tree as the profile writer takes it (pointers into the arena). */
void cct_view(const struct cct *c, struct prof_cct *out);

#endif
