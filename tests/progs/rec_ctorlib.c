/* A library whose constructor computes 0.5 s of CPU time before main, as
 * C++ static initializers do (record_firstlaw.sh links rec_firstlaw with
 * it: -DWITH_CTORLIB). */
#include <time.h>

static volatile double sink;

__attribute__((noinline)) void ctorlib_work(void)
{
	struct timespec ts;

	do {
		for (int i = 0; i < 100000; i++)
			sink += i * 0.5;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000000000ll + ts.tv_nsec < 500000000ll);
}

__attribute__((constructor)) static void ctorlib_init(void)
{
	ctorlib_work();
}

int ctorlib_value(void)
{
	return sink > 0;
}
