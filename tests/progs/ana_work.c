/* Analyzer test workload (built -g -O2).  Functions with known shares of
 * identical work, a static inline hot function, and a hot loop on a marked
 * line.  Test profiles point at these functions; under `pmcprof record`
 * the same program gives the real thing.
 *
 *   ana_work split [UNITS] [B_FACTOR]  work_a/work_b/work_c do 6:3:1 parts
 *                                      (work_b x B_FACTOR, default 1)
 *   ana_work inline [UNITS]            hot_inline inlined into inline_caller
 *   ana_work lines [UNITS]             a hot loop in hot_lines
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

#ifdef ANA_ALT
/* ana_work_alt: the same program, rebuilt differently (another build-id) */
const char ana_variant[] = "alternative build";
#endif

/* The same loop in each function, so self time lands in the function
 * itself and not in a shared helper. */
#define SPIN(n)                                                                \
	do {                                                                   \
		unsigned long x_ = sink;                                       \
		for (long i_ = 0; i_ < (n); i_++)                              \
			x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		sink = x_;                                                     \
	} while (0)

#define UNIT 1000000L
#define ROUNDS 100	/* split work is interleaved in rounds of UNIT/ROUNDS */

__attribute__((noinline)) void work_a(long n) { SPIN(n * 6); }
__attribute__((noinline)) void work_b(long n, double f) { SPIN((long)(n * 3 * f)); }
__attribute__((noinline)) void work_c(long n) { SPIN(n * 1); }

static inline __attribute__((always_inline)) unsigned long hot_inline(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

__attribute__((noinline)) void inline_caller(long units)
{
	sink = hot_inline(sink, units * 4 * UNIT);
	SPIN(units * UNIT / 4);
}

__attribute__((noinline)) void hot_lines(long units)
{
	unsigned long x = sink, y = 1;
	/* the inner loop is all on one line, so its instructions are too */
	for (long i = 0; i < units * UNIT; i++) {
		y += x >> 3;
		for (int k = 0; k < 8; k++) x = x * 6364136223846793005UL + (unsigned long)k; /* HOT_LOOP */
	}
	sink = x + y;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "split";
	long units = argc > 2 ? atol(argv[2]) : 20;
	double f = argc > 3 ? atof(argv[3]) : 1.0;
	if (!strcmp(mode, "split")) {
		/* many short rounds, not three long phases: a VM's speed changes
		 * over time (steal), and must not favour one function */
		for (long r = 0; r < units * ROUNDS; r++) {
			work_a(UNIT / ROUNDS);
			work_b(UNIT / ROUNDS, f);
			work_c(UNIT / ROUNDS);
		}
	} else if (!strcmp(mode, "inline")) {
		inline_caller(units);
	} else if (!strcmp(mode, "lines")) {
		hot_lines(units);
	} else {
		fprintf(stderr, "usage: ana_work split|inline|lines [UNITS] [B_FACTOR]\n");
		return 1;
	}
	return 0;
}
