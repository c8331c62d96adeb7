/* The calling-context tree: sizing, lookup, growth of the hash, and a full
 * arena, with a PROT_NONE page right after the arena so that any write
 * past its end crashes the test. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/cct.h"
#include "tests/harness.h"

/* An arena of bytes with an inaccessible page right after it. */
static void *guarded(size_t bytes, size_t *map_len)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (bytes + ps - 1) / ps * ps;
	char *m = mmap(NULL, len + ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	mprotect(m + len, ps, PROT_NONE);
	*map_len = len + ps;
	/* The arena ends exactly at the guard page. */
	return m + len - bytes;
}

static const struct {
	int line;
	size_t bytes;
	uint32_t n_events;
	uint32_t nodes;		/* expected capacity */
} sizes[] = {
	/* 8 + 8*e + 4 + 4 bytes a node, 4 bytes a slot, two slots a node */
	{ __LINE__, 64 << 10, 1, 2048 },
	{ __LINE__, 4 << 20, 1, 131072 },
	{ __LINE__, 4 << 20, 2, 65536 },
	{ __LINE__, (4 << 20) - 1, 1, 65536 },
	{ __LINE__, 64, 1, 2 },
	{ __LINE__, 63, 1, 0 },
	{ __LINE__, 4 << 20, 0, 0 },
};

static void test_sizes(void)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t got = cct_capacity(sizes[i].bytes, sizes[i].n_events);

		T_OK(got == sizes[i].nodes, "capacity of %zu bytes, %u events is %u (got %u) [line %d]",
		     sizes[i].bytes, sizes[i].n_events, sizes[i].nodes, got, sizes[i].line);
	}
}

static void test_paths(void)
{
	size_t len;
	void *mem = guarded(64 << 10, &len);
	struct cct c;
	struct prof_cct v;
	uint32_t a, b, a2, ab, ba;

	T_OK(cct_init(&c, mem, 64 << 10, 2) == 0, "init 64 KiB, 2 events");
	T_OK(c.n_nodes == 1 && c.parent[0] == 0 && c.module[0] == PROF_NO_MODULE,
	     "a fresh tree is just the root");
	a = cct_child(&c, 0, 1, 0x10);
	b = cct_child(&c, 0, 1, 0x20);
	a2 = cct_child(&c, 0, 1, 0x10);
	ab = cct_child(&c, a, 1, 0x20);
	ba = cct_child(&c, b, 1, 0x10);
	T_OK(a && b && a != b, "two children of the root are two nodes");
	T_OK(a2 == a, "the same key finds the same node");
	T_OK(ab != b && ba != a && ab != ba, "the same frame under another parent is another node");
	T_OK(cct_child(&c, 0, 2, 0x10) != a, "the same offset in another module is another node");
	T_OK(c.parent[ab] == a && c.module[ab] == 1 && c.offset[ab] == 0x20, "a node keeps its key");
	cct_count(&c, ab, 1);
	cct_count(&c, ab, 1);
	cct_count(&c, ab, 0);
	cct_view(&c, &v);
	T_OK(v.n_nodes == c.n_nodes && v.n_events == 2 && v.counts[ab * 2] == 1 &&
	     v.counts[ab * 2 + 1] == 2 && v.counts[a * 2] == 0,
	     "counts are per node and per event, row-major");
}

/* Many nodes: several doublings of the hash, every node still found. */
static void test_growth(void)
{
	const uint32_t n = 50000;
	size_t len;
	void *mem = guarded(4 << 20, &len);
	struct cct c;
	uint32_t bad = 0, prev = 0;

	cct_init(&c, mem, 4 << 20, 1);
	for (uint32_t i = 0; i < n; i++) {
		/* A chain and a fan: parents vary as well as offsets. */
		uint32_t parent = i % 3 ? prev : 0;
		uint32_t node = cct_child(&c, parent, i % 7, (uint64_t)i * 64);

		if (node != i + 1)
			bad++;
		prev = node;
	}
	T_OK(bad == 0 && c.n_nodes == n + 1, "%u new keys get nodes 1..%u in order", n, n);
	T_OK(c.mask + 1 >= 2 * c.n_nodes, "the hash stays at most half full (%u slots)", c.mask + 1);
	bad = 0;
	for (uint32_t i = 1; i <= n; i++)
		if (cct_child(&c, c.parent[i], c.module[i], c.offset[i]) != i)
			bad++;
	T_OK(bad == 0 && c.n_nodes == n + 1, "after growing, every key finds its node again");
}

/* A full arena refuses new nodes, keeps the old ones and stays in bounds. */
static void test_full(void)
{
	size_t bytes = 64 << 10, len;
	void *mem = guarded(bytes, &len);
	struct cct c;
	uint32_t made = 0, refused = 0;

	cct_init(&c, mem, bytes, 3);
	for (uint32_t i = 0; i < c.max_nodes + 100; i++) {
		uint32_t node = cct_child(&c, 0, 0, i);

		if (node) {
			made++;
			cct_count(&c, node, 2);
		} else {
			refused++;
		}
	}
	T_OK(made == c.max_nodes - 1 && refused == 101,
	     "a full tree refuses new nodes (%u made, %u refused, capacity %u)", made, refused,
	     c.max_nodes);
	T_OK(cct_child(&c, 0, 0, 5) == 6, "a full tree still finds old nodes");
	T_OK(c.counts[(size_t)(c.max_nodes - 1) * 3 + 2] == 1, "the last node's counts are its own");
}

/* An arena that grows by mremap from 64 KiB: every node and its counts
 * survive each move, new nodes start at zero, and it stops at its limit. */
static void test_arena_grows(void)
{
	const size_t start = 64 << 10, limit = 1 << 20;
	void *mem = mmap(NULL, start, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct cct c;
	uint32_t bad = 0, made = 0, first_max;

	T_OK(mem != MAP_FAILED && cct_init(&c, mem, start, 2) == 0, "init a 64 KiB mapping");
	first_max = c.max_nodes;
	cct_allow_growth(&c, limit);
	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t node = cct_child(&c, i % 5 ? made : 0, i % 3, (uint64_t)i * 16);

		if (!node)
			break;
		made = node;
		c.counts[(size_t)node * 2 + 1] += node;
	}
	T_OK(c.bytes == limit && c.max_nodes > 8 * first_max,
	     "grew from %u to %u nodes (%zu bytes)", first_max, c.max_nodes, c.bytes);
	T_OK(made == c.max_nodes - 1, "filled up to its limit (%u nodes)", made);
	for (uint32_t n = 1; n <= made; n++)
		if (c.counts[(size_t)n * 2] != 0 || c.counts[(size_t)n * 2 + 1] != n ||
		    cct_child(&c, c.parent[n], c.module[n], c.offset[n]) != n)
			bad++;
	T_OK(bad == 0, "every node keeps its key and counts across the moves");
	T_OK(cct_child(&c, 0, 9, 1) == 0, "at the limit, a new key is refused");
	munmap(c.mem, c.bytes);
}

static void test_misuse(void)
{
	static uint64_t small[8];
	struct cct c;

	T_OK(cct_init(&c, small, 56, 1) == -EINVAL,
	     "an arena too small for the root and a child is refused");
	T_OK(cct_init(&c, small, 64, 1) == 0 && c.max_nodes == 2,
	     "64 bytes hold the root and one child");
	T_OK(cct_init(&c, (char *)small + 4, sizeof(small) - 4, 1) == -EINVAL,
	     "a misaligned arena is refused");
}

int main(void)
{
	test_sizes();
	test_paths();
	test_growth();
	test_full();
	test_arena_grows();
	test_misuse();
	return T_DONE();
}
