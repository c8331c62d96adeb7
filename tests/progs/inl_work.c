/* One static function, kern, inlined into three callers f_a, f_b and f_c,
 * each doing UNITS of work through it; f_b does B times as much.
 *
 *   inl_work [B [UNITS]]
 *
 * tests/integration/inline_callers.sh profiles B=1 and B=2: a diff must
 * show kern-in-f_b grow and kern-in-f_a and -f_c shrink, not one kern row
 * with a ratio of 1. */
#include <stdlib.h>

#define UNIT 1000000L

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long kern(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + (unsigned long)i;
	return x;
}

__attribute__((noinline)) void f_a(long n) { sink = kern(sink, n); }
__attribute__((noinline)) void f_b(long n) { sink = kern(sink ^ 1, n); }
__attribute__((noinline)) void f_c(long n) { sink = kern(sink ^ 2, n); }

int main(int argc, char **argv)
{
	long b = argc > 1 ? atol(argv[1]) : 1, units = argc > 2 ? atol(argv[2]) : 40;
	f_a(units * UNIT);
	f_b(b * units * UNIT);
	f_c(units * UNIT);
	return (int)(sink & 0);
}
