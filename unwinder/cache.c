/* Per-thread cache of frame recipes: for a pc, how to find the caller's
 * frame (the CFA from rsp or rbp plus an offset, the return address at
 * CFA - 8, rbp unchanged or saved at CFA + k).  libunwind fills it on a miss
 * (unwind.c); a hit costs a hash probe instead of libunwind's per-step
 * signal-mask syscalls.  Each thread owns its cache, so the handler needs no
 * lock; a thread only ever touches its own. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "unwinder/internal.h"
#include "unwinder/unwind.h"

#define SLOTS 4096		/* 64 KiB a thread */
#define PROBES 8

struct slot {
	uintptr_t key;		/* 0: empty */
	struct uw_recipe recipe;
};

struct cache {
	unsigned generation;
	struct slot slot[SLOTS];
};

/* initial-exec: the collector is preloaded, so its TLS is static and the
 * handler's access is a plain load (no __tls_get_addr, no allocation). */
static __thread struct cache *tls_cache __attribute__((tls_model("initial-exec")));
static atomic_uint generation;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;
static int cache_key_err;

static void cache_free(void *arg)
{
	tls_cache = NULL;	/* first: a late signal then takes the slow path */
	atomic_signal_fence(memory_order_seq_cst);
	munmap(arg, sizeof(struct cache));
}

static void cache_key_create(void)
{
	cache_key_err = pthread_key_create(&cache_key, cache_free);
}

int uw_cache_thread_init(void)
{
	struct cache *c;
	int ret;

	if (tls_cache)
		return 0;
	pthread_once(&cache_key_once, cache_key_create);
	if (cache_key_err)
		return -cache_key_err;
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return -errno;
	c->generation = atomic_load(&generation);
	ret = pthread_setspecific(cache_key, c);
	if (ret) {
		munmap(c, sizeof(*c));
		return -ret;
	}
	tls_cache = c;
	return 0;
}

static size_t hash(uintptr_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15u) >> 52) & (SLOTS - 1);
}

static struct cache *current(void)
{
	struct cache *c = tls_cache;
	unsigned gen = atomic_load_explicit(&generation, memory_order_relaxed);

	if (c && c->generation != gen) {
		memset(c->slot, 0, sizeof(c->slot));
		c->generation = gen;
	}
	return c;
}

bool uw_cache_ready(void)
{
	return tls_cache != NULL;
}

bool uw_cache_lookup(uintptr_t key, struct uw_recipe *r)
{
	struct cache *c = current();
	size_t i, h = hash(key);

	if (!c)
		return false;
	for (i = 0; i < PROBES; i++) {
		const struct slot *s = &c->slot[(h + i) & (SLOTS - 1)];

		if (s->key == key) {
			*r = s->recipe;
			return true;
		}
		if (!s->key)
			return false;
	}
	return false;
}

void uw_cache_insert(uintptr_t key, const struct uw_recipe *r)
{
	struct cache *c = current();
	size_t i, h = hash(key);
	struct slot *s;

	if (!c)
		return;
	for (i = 0; i < PROBES; i++) {
		s = &c->slot[(h + i) & (SLOTS - 1)];
		if (!s->key || s->key == key)
			break;
	}
	if (i == PROBES)	/* full run: evict the first */
		s = &c->slot[h];
	s->recipe = *r;
	s->key = key;
}

void uw_cache_invalidate(void)
{
	atomic_fetch_add(&generation, 1);
}
