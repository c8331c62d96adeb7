/* The analyzer's small utilities, which every stage uses: growable
 * arrays, the hash index (ids by 64-bit hash, keys kept by the caller),
 * interned strings (idx.c); not installed. */
#ifndef ANALYZER_UTIL_H
#define ANALYZER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NONE UINT32_MAX

/* Grow *p (of *cap elements of size el) to hold at least need; new space zeroed.
 * 0 or -ENOMEM. */
int vec_reserve(void *p, size_t *cap, size_t need, size_t el);
/* The same, the new space left as it is (untouched pages cost nothing:
 * for arrays whose every element is written when it is added). */
int vec_grow(void *p, size_t *cap, size_t need, size_t el);

/* ---- hash index: maps 64-bit hashes to ids whose keys live elsewhere ---- */
struct idx {
	uint64_t *slot;		/* hash's top 32 bits | id; 0 = empty (idx.c) */
	size_t cap, n;
};
typedef bool (*idx_eq_fn)(const void *ctx, uint32_t id, const void *key);
uint64_t hash_bytes(const void *p, size_t len, uint64_t seed);
uint64_t hash_u64(uint64_t a, uint64_t b);
/* The id whose key equals key, or NONE. */
uint32_t idx_find(const struct idx *x, uint64_t h, idx_eq_fn eq, const void *ctx, const void *key);
/* Room for n ids in all without growing (a known count: one allocation,
 * not a doubling per power of two).  0 or -ENOMEM. */
int idx_reserve(struct idx *x, size_t n);
/* Add id under h (the caller checked it is absent).  0 or -ENOMEM. */
int idx_put(struct idx *x, uint64_t h, uint32_t id);
void idx_free(struct idx *x);

/* ---- interned strings: equal strings share one stable pointer ---- */
struct strpool {
	struct idx idx;
	char **str;
	size_t n, cap;
};
/* The interned copy of s (len bytes), or NULL on ENOMEM. */
const char *strpool_get(struct strpool *sp, const char *s, size_t len);
const char *strpool_str(struct strpool *sp, const char *s);
void strpool_free(struct strpool *sp);

/* Whether v is an element of the comma-separated list (ana_opts filters). */
bool filter_has(const char *list, const char *v);

/* free() each of p[n] in turn (idx.c; systemd's free_many), for destructors
 * that release a list of members: FREE_EACH(r->a, r->b, r) frees r last. */
void free_many(void *const *p, size_t n);
#define FREE_EACH(...) \
	free_many((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
/* -1, 0 or 1 as a is below, equal to or above b: for qsort comparators
 * (idx.c). */
int cmp_u64(uint64_t a, uint64_t b);

#endif
