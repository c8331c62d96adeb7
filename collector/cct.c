/* The calling-context tree (see cct.h).  Everything here runs in the
 * sampling signal handler: no allocation from the C library, no locks;
 * the one system call is the arena's mremap when it grows. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "collector/cct.h"

/* The first hash size; doubled whenever the load would pass one half. */
#define FIRST_SLOTS 1024u

static size_t node_bytes(uint32_t n_events)
{
	/* offset + counts + parent + module */
	return 8 + 8 * (size_t)n_events + 4 + 4;
}

/* Bytes for max_slots hash slots and max_slots / 2 nodes. */
static size_t layout_bytes(uint32_t max_slots, uint32_t n_events)
{
	return (size_t)max_slots * 4 + (size_t)(max_slots / 2) * node_bytes(n_events);
}

static uint32_t max_slots_for(size_t bytes, uint32_t n_events)
{
	uint32_t s = 0;

	for (uint32_t t = 4; t && t <= (1u << 30); t <<= 1) {
		if (layout_bytes(t, n_events) > bytes)
			break;
		s = t;
	}
	return s;
}

uint32_t cct_capacity(size_t bytes, uint32_t n_events)
{
	return n_events ? max_slots_for(bytes, n_events) / 2 : 0;
}

/* Point the arrays into c->mem for max_slots slots. */
static void lay_out(struct cct *c, uint32_t slots)
{
	char *p = c->mem;

	c->max_slots = slots;
	c->max_nodes = slots / 2;
	/* 8-byte arrays first, so every array stays aligned. */
	c->offset = (uint64_t *)p;
	p += (size_t)c->max_nodes * 8;
	c->counts = (uint64_t *)p;
	p += (size_t)c->max_nodes * 8 * c->n_events;
	c->parent = (uint32_t *)p;
	p += (size_t)c->max_nodes * 4;
	c->module = (uint32_t *)p;
	p += (size_t)c->max_nodes * 4;
	c->slot = (uint32_t *)p;
}

int cct_init(struct cct *c, void *mem, size_t bytes, uint32_t n_events)
{
	uint32_t slots = n_events ? max_slots_for(bytes, n_events) : 0;

	if (slots < 4 || ((uintptr_t)mem & 7))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->n_events = n_events;
	c->mem = mem;
	c->bytes = bytes;
	c->limit = bytes;
	lay_out(c, slots);
	c->mask = (slots < FIRST_SLOTS ? slots : FIRST_SLOTS) - 1;
	/* The root: its own parent, no module. */
	c->parent[0] = 0;
	c->module[0] = PROF_NO_MODULE;
	c->offset[0] = 0;
	c->n_nodes = 1;
	return 0;
}

static uint32_t hash(uint32_t parent, uint32_t module, uint64_t offset)
{
	uint64_t h = offset * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)parent << 32 | module) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return (uint32_t)h;
}

static void place(struct cct *c, uint32_t node)
{
	uint32_t i = hash(c->parent[node], c->module[node], c->offset[node]) & c->mask;

	while (c->slot[i])
		i = (i + 1) & c->mask;
	c->slot[i] = node;
}

/* Double the table and re-place every node: O(nodes), once per doubling. */
static void grow(struct cct *c)
{
	uint32_t slots = (c->mask + 1) * 2;

	memset(c->slot, 0, (size_t)slots * 4);
	c->mask = slots - 1;
	for (uint32_t n = 1; n < c->n_nodes; n++)
		place(c, n);
}

void cct_allow_growth(struct cct *c, size_t limit)
{
	if (limit > c->bytes)
		c->limit = limit;
}

/* Double the arena (mremap may move it) and move the arrays to their new
 * places: every array starts further on than before, so moving them from
 * the last to the first never overwrites one not yet moved.  The hash is
 * rebuilt; counts of nodes not yet created are zeroed at their creation,
 * so the untouched rest of the arena stays untouched (not resident). */
static bool enlarge(struct cct *c)
{
	struct cct old = *c;
	size_t bytes = c->bytes * 2 > c->limit ? c->limit : c->bytes * 2;
	uint32_t slots = max_slots_for(bytes, c->n_events);
	void *m;

	if (bytes <= c->bytes || slots <= c->max_slots ||
	    !prof_map_resize(&c->mem, &c->bytes, bytes))
		return false;
	m = c->mem;
	lay_out(c, slots);
#define REBASE(a) ((typeof(old.a))((char *)m + ((char *)old.a - (char *)old.mem)))
	memmove(c->module, REBASE(module), (size_t)old.n_nodes * 4);
	memmove(c->parent, REBASE(parent), (size_t)old.n_nodes * 4);
	memmove(c->counts, REBASE(counts), (size_t)old.n_nodes * 8 * c->n_events);
#undef REBASE
	/* offset stays at the start. */
	memset(c->slot, 0, ((size_t)c->mask + 1) * 4);
	for (uint32_t n = 1; n < c->n_nodes; n++)
		place(c, n);
	return true;
}

uint32_t cct_child(struct cct *c, uint32_t parent, uint32_t module, uint64_t offset)
{
	uint32_t i, n;

	i = hash(parent, module, offset) & c->mask;
	while ((n = c->slot[i]) != 0) {
		if (c->parent[n] == parent && c->module[n] == module && c->offset[n] == offset)
			return n;
		i = (i + 1) & c->mask;
	}
	if (c->n_nodes >= c->max_nodes) {
		if (!enlarge(c))
			return 0;
		/* The slots moved: probe again in the new table. */
		i = hash(parent, module, offset) & c->mask;
		while (c->slot[i])
			i = (i + 1) & c->mask;
	}
	n = c->n_nodes++;
	memset(&c->counts[(size_t)n * c->n_events], 0, 8 * (size_t)c->n_events);
	c->parent[n] = parent;
	c->module[n] = module;
	c->offset[n] = offset;
	/* Keep the load at most one half: short probe sequences. */
	if ((uint64_t)c->n_nodes * 2 > (uint64_t)c->mask + 1 && c->mask + 1 < c->max_slots)
		grow(c);
	else
		c->slot[i] = n;
	return n;
}

void cct_view(const struct cct *c, struct prof_cct *out)
{
	out->n_nodes = c->n_nodes;
	out->n_events = c->n_events;
	out->parent = c->parent;
	out->module = c->module;
	out->offset = c->offset;
	out->counts = c->counts;
}
