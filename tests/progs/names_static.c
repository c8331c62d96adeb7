/* Two static functions of one name in two files (names_static2.c): two
 * functions, so two rows, keyed by name and address; a third work share
 * in a function of its own.  helper here does 3 units, the other 1. */
#include <stdlib.h>

volatile unsigned long sink;
void other(long n);

static __attribute__((noinline)) void helper(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + (unsigned long)i;
	sink = x;
}

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 20) * 1000000L;
	helper(3 * n);
	other(n);
	return 0;
}
