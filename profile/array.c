/* Growing arrays for the collector's and attach's tables (profile/ is the
 * one layer below both): on the heap (realloc: not in a signal handler),
 * or a mapping of their own (mremap: async-signal-safe). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "profile/profile.h"

int prof_array_resize(void *arr, size_t cap, size_t el)
{
	void *p;

	memcpy(&p, arr, sizeof(p));
	if (cap > SIZE_MAX / el)
		return -ENOMEM;
	p = realloc(p, cap * el);
	if (!p)
		return -ENOMEM;
	memcpy(arr, &p, sizeof(p));
	return 0;
}

int prof_array_grow(void *arr, size_t *cap, size_t n, size_t el)
{
	size_t want = *cap ? *cap * 2 : 32;
	int err;

	if (n < *cap)
		return 0;
	err = prof_array_resize(arr, want, el);
	if (!err)
		*cap = want;
	return err;
}

bool prof_map_resize(void *mem, size_t *bytes, size_t to)
{
	void *p, *m;

	memcpy(&p, mem, sizeof(p));
	m = mremap(p, *bytes, to, MREMAP_MAYMOVE);
	if (m == MAP_FAILED)
		return false;
	memcpy(mem, &m, sizeof(m));
	*bytes = to;
	return true;
}
