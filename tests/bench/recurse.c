/* A CPU-bound workload with deep, varied call stacks, for the profile-size
 * benchmark: three mutually recursive walkers, 16 paths through them and
 * a fixed depth of 20 to 35 per path, so the calling contexts (a few hundred,
 * times the sampled pcs in each leaf loop) do not grow with the run time.
 * Usage: recurse [SECONDS] (default 3): CPU seconds, so a busy machine still
 * yields the same number of cpu-clock samples. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

static NOINLINE uint64_t mix_lcg(uint64_t x)
{
	for (int i = 0; i < 3000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static NOINLINE uint64_t mix_xorshift(uint64_t x)
{
	for (int i = 0; i < 3000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static NOINLINE uint64_t mix_div(uint64_t x)
{
	for (int i = 1; i < 300; i++)
		x += x / (uint64_t)i + 7;
	return x;
}

static uint64_t walk_a(int depth, unsigned path, uint64_t x);
static uint64_t walk_b(int depth, unsigned path, uint64_t x);
static uint64_t walk_c(int depth, unsigned path, uint64_t x);

/* Which walker comes next depends on the path and the depth only. */
static NOINLINE uint64_t step(int depth, unsigned path, uint64_t x)
{
	static uint64_t (*const next[])(int, unsigned, uint64_t) = { walk_a, walk_b, walk_c };

	if (depth == 0) {
		static uint64_t (*const leaf[])(uint64_t) = { mix_lcg, mix_xorshift, mix_div };

		return leaf[path % 3](x);
	}
	return next[(path >> (depth % 4)) % 3](depth - 1, path, x);
}

static NOINLINE uint64_t walk_a(int depth, unsigned path, uint64_t x)
{
	return step(depth, path, x + 1) ^ 0x5a;
}

static NOINLINE uint64_t walk_b(int depth, unsigned path, uint64_t x)
{
	/* A little work of its own, so inner frames get samples too. */
	for (int i = 0; i < 40; i++)
		x = x * 31 + (uint64_t)i;
	return step(depth, path, x) + 3;
}

static NOINLINE uint64_t walk_c(int depth, unsigned path, uint64_t x)
{
	return step(depth, path * 7 + 1, x) * 5;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0, end = now() + seconds;
	uint64_t x = 1;
	unsigned rounds = 0;

	while (now() < end) {
		for (unsigned path = 0; path < 16; path++)
			x = walk_a(20 + (int)(path * 5 % 16), path, x);
		rounds++;
	}
	sink = x;
	printf("%u rounds\n", rounds);
	return 0;
}
