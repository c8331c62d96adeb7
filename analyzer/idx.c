/* Open-addressing hash index (ids keyed by hashes, keys stored by the
 * caller), interned strings and growable arrays. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/util.h"

int vec_grow(void *pp, size_t *cap, size_t need, size_t el)
{
	void **p = pp;
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / el)
		return -ENOMEM;
	char *q = realloc(*p, n * el);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int vec_reserve(void *pp, size_t *cap, size_t need, size_t el)
{
	size_t old = *cap;
	int e = vec_grow(pp, cap, need, el);
	if (!e && *cap > old)
		memset(*(char **)pp + old * el, 0, (*cap - old) * el);
	return e;
}

static uint64_t mix(uint64_t x)
{
	/* splitmix64 finalizer: cheap and well spread */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t hash_u64(uint64_t a, uint64_t b)
{
	return mix(a * 0x9e3779b97f4a7c15ULL + mix(b));
}

uint64_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL);
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = mix(h ^ w);
		s += 8;
		len -= 8;
	}
	uint64_t w = 0;
	if (len)	/* s may be NULL for an empty key */
		memcpy(&w, s, len);
	return mix(h ^ w ^ 0xff);
}

/* A slot is one word: the hash's top 32 bits (bit 32 forced to 1, so that
 * 0 is an empty slot) above the id, so that a probe reads one word of one
 * cache line.  A slot's home is the hash's bits 33-63, which the slot
 * keeps: the table can grow without the keys. */
static uint64_t tag(uint64_t h)
{
	return (h | 1ULL << 32) & 0xffffffff00000000ULL;
}

static size_t home(uint64_t h)
{
	return (size_t)(h >> 33);
}

uint32_t idx_find(const struct idx *x, uint64_t h, idx_eq_fn eq, const void *ctx, const void *key)
{
	if (!x->cap)
		return NONE;
	uint64_t t = tag(h);
	size_t m = x->cap - 1;
	for (size_t i = home(h) & m;; i = (i + 1) & m) {
		uint64_t v = x->slot[i];
		if (!v)
			return NONE;
		if ((v & 0xffffffff00000000ULL) == t && eq(ctx, (uint32_t)v, key))
			return (uint32_t)v;
	}
}

static void place(uint64_t *slots, size_t cap, uint64_t v)
{
	size_t m = cap - 1, i = home(v) & m;
	while (slots[i])
		i = (i + 1) & m;
	slots[i] = v;
}

/* Room for n ids at a load under 3/4. */
int idx_reserve(struct idx *x, size_t n)
{
	if (n * 4 <= x->cap * 3)
		return 0;
	size_t cap = x->cap ? x->cap : 64;
	while (n * 4 > cap * 3)
		cap *= 2;
	if (cap > (size_t)1 << 31)
		return -ENOMEM;
	uint64_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++)
		if (x->slot[i])
			place(slots, cap, x->slot[i]);
	free(x->slot);
	x->slot = slots;
	x->cap = cap;
	return 0;
}

int idx_put(struct idx *x, uint64_t h, uint32_t id)
{
	if (idx_reserve(x, x->n + 1))
		return -ENOMEM;
	place(x->slot, x->cap, tag(h) | id);
	x->n++;
	return 0;
}

void idx_free(struct idx *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}

void free_many(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

struct skey {
	const char *s;
	size_t len;
};

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct strpool *sp = ctx;
	const struct skey *k = key;
	return strncmp(sp->str[id], k->s, k->len) == 0 && sp->str[id][k->len] == 0;
}

const char *strpool_get(struct strpool *sp, const char *s, size_t len)
{
	struct skey k = { s, len };
	uint64_t h = hash_bytes(s, len, 0);
	uint32_t id = idx_find(&sp->idx, h, str_eq, sp, &k);
	if (id != NONE)
		return sp->str[id];
	if (vec_reserve(&sp->str, &sp->cap, sp->n + 1, sizeof(*sp->str)))
		return NULL;
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = 0;
	if (idx_put(&sp->idx, h, (uint32_t)sp->n)) {
		free(c);
		return NULL;
	}
	sp->str[sp->n++] = c;
	return c;
}

const char *strpool_str(struct strpool *sp, const char *s)
{
	return strpool_get(sp, s, strlen(s));
}

void strpool_free(struct strpool *sp)
{
	for (size_t i = 0; i < sp->n; i++)
		free(sp->str[i]);
	free(sp->str);
	idx_free(&sp->idx);
	memset(sp, 0, sizeof(*sp));
}
