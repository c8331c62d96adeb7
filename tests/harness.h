/* A tiny test harness.  Each check prints "PASS: name" or "FAIL: name (why)";
 * tests/run-tests.sh counts those lines.  Table-driven tests pass their
 * case's __LINE__ so a failure names the line of the case. */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

static int t_failures;

#define T_OK(cond, ...)                                                        \
	do {                                                                   \
		if (cond) {                                                    \
			printf("PASS: ");                                      \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
		} else {                                                       \
			t_failures++;                                          \
			printf("FAIL: ");                                      \
			printf(__VA_ARGS__);                                   \
			printf("  [%s:%d: %s]\n", __FILE__, __LINE__, #cond);  \
		}                                                              \
		fflush(stdout);                                                \
	} while (0)

#define T_SKIP(...)                                                            \
	do {                                                                   \
		printf("SKIP: ");                                              \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		fflush(stdout);                                                \
	} while (0)

/* Test functions whose frames and addresses a test checks: never inlined
 * (noclone keeps one copy of each function: gcc only), placed in a
 * section of their own, whose bounds T_RANGE declares. */
#ifdef __clang__
#define T_NOINLINE __attribute__((noinline))
#else
#define T_NOINLINE __attribute__((noinline, noclone))
#endif
#define T_IN_SECTION(s) __attribute__((section(s), used))
#define T_RANGE(s) extern const char __start_##s[], __stop_##s[]

/* Exit status for main(): non-zero if any check failed. */
#define T_DONE() (t_failures ? 1 : 0)

#endif
