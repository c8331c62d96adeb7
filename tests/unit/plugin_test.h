/* Helpers the backend and plugin unit tests share: thread CPU time, the
 * events the parser would build, the tests' own plugins on the search
 * path, and one table of sign-extension cases for the plugins that read
 * counters of a given width.  Include after tests/harness.h. */
#ifndef TESTS_UNIT_PLUGIN_TEST_H
#define TESTS_UNIT_PLUGIN_TEST_H

#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/pmc.h"

#define MS ((uint64_t)1000000)

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Burn ns of this thread's CPU time. */
static inline void spin_cpu(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

/* fn handles sig (SA_SIGINFO, system calls restarted, nothing blocked). */
static inline void on_signal_call(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* A hardware perf event (type, config), everything else zero. */
static inline struct pmc_event hw_perf_event(uint32_t type, uint64_t config)
{
	struct pmc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = PMC_KIND_PERF;
	ev.type = type;
	ev.config = config;
	ev.hardware = true;
	return ev;
}

/* PMCPROF_PLUGIN_PATH: the test plugins beside the unit tests first (the
 * deliberately broken ones, the fake counter), then the path given. */
static inline void plugin_path_tests_first(void)
{
	char path[4096];
	const char *build = getenv("PMCPROF_BUILD");
	const char *pp = getenv("PMCPROF_PLUGIN_PATH");

	snprintf(path, sizeof(path), "%s/tests/unit/.libs%s%s", build ? build : ".", pp ? ":" : "",
		 pp ? pp : "");
	setenv("PMCPROF_PLUGIN_PATH", path, 1);
}

/* fn(v, width) sign-extends a counter of width bits read as v (bits above
 * the width ignored, width 0 or 64: v itself), checked case by case. */
static inline void check_sign_extend(uint64_t (*fn)(uint64_t v, unsigned width))
{
	static const struct {
		int line;
		uint64_t v;
		unsigned width;
		uint64_t want;
	} cases[] = {
		{ __LINE__, 0x00007fffffffffffULL, 48, 0x00007fffffffffffULL },
		{ __LINE__, 0x0000800000000000ULL, 48, 0xffff800000000000ULL },
		{ __LINE__, 0x0000ffffffffffffULL, 48, UINT64_MAX },
		{ __LINE__, 0x0000fffffffff000ULL, 48, (uint64_t)-4096 },
		/* Bits above the width are what rdpmc leaves there: ignored. */
		{ __LINE__, 0xabcd000000000005ULL, 48, 5 },
		{ __LINE__, 0xabcd000000000001ULL, 48, 1 },
		{ __LINE__, 0x000000ffffffffffULL, 40, UINT64_MAX },
		{ __LINE__, 0x0000007fffffffffULL, 40, 0x0000007fffffffffULL },
		{ __LINE__, 0x0000008000000000ULL, 40, 0xffffff8000000000ULL },
		{ __LINE__, 0x1234ff0000000005ULL, 40, 5 },
		{ __LINE__, 0x00000000ffffffffULL, 32, UINT64_MAX },
		{ __LINE__, 0xdeadbeefcafef00dULL, 64, 0xdeadbeefcafef00dULL },
		{ __LINE__, 0x8000000000000000ULL, 64, 0x8000000000000000ULL },
		{ __LINE__, 0x0000800000000000ULL, 0, 0x0000800000000000ULL },	/* width unknown */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = fn(cases[i].v, cases[i].width);
		T_OK(got == cases[i].want, "sign_extend line %d: %#" PRIx64 " w%u -> %#" PRIx64,
		     cases[i].line, cases[i].v, cases[i].width, got);
	}
}

#endif
