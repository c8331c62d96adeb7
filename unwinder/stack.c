/* The calling thread's stack bounds, for validating frame pointers. */
#include "config.h"

#include <errno.h>
#include <pthread.h>

#include "unwinder/internal.h"

int uw_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	int ret;

	/* For threads glibc created this is the stack block minus the guard
	 * page.  For the main thread glibc reads /proc/self/maps: the top is
	 * the page above __libc_stack_end (the initial sp, so every frame is
	 * below it) and the size is RLIMIT_STACK, clamped to the gap down to
	 * the next mapping: the range the stack may grow into. */
	ret = pthread_getattr_np(pthread_self(), &attr);
	if (ret)
		return -ret;
	ret = pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_destroy(&attr);
	if (ret)
		return -ret;
	if (!addr || !size)
		return -ENOENT;
	*lo = (uintptr_t)addr;
	*hi = (uintptr_t)addr + size;
	return 0;
}
