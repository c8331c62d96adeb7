/* Marsaglia's xorshift64: the same pseudo-random sequence on every run
 * (set rng to start another), for test inputs and synthetic profiles. */
#ifndef TESTS_RNG_H
#define TESTS_RNG_H

#include <stdint.h>

static uint64_t rng = 88172645463325252ULL;

static inline uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#endif
