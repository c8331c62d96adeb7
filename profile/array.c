/* Growing arrays for the collector's and attach's tables (profile/ is the
 * one layer below both).  Not async-signal-safe: realloc. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
