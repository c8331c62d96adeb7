/* The second static helper of names_static.c. */
extern volatile unsigned long sink;

static __attribute__((noinline)) void helper(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + (unsigned long)i;
	sink = x;
}

void other(long n) { helper(n); }
