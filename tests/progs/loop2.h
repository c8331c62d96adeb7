/* A loop of exactly 2 instructions per iteration (subs/b.ne; dec/jnz on
 * x86-64), n iterations (n > 0): work of a known instruction count. */
#ifndef TESTS_PROGS_LOOP2_H
#define TESTS_PROGS_LOOP2_H

#include <stdint.h>

static inline void loop2(uint64_t n)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#endif
}

#endif
