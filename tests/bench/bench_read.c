/* Cost of one counter read, and of a start/stop pair, through libpmc and
 * its peers measured in the same run: a raw read() on a perf fd, PAPI_read
 * (when built with PAPI) and the getpid syscall as the floor of any kernel
 * entry.  Also says whether the task-clock user page offers a syscall-free
 * read here, and measures the rdpmc path when a hardware event opens.
 * Then groups of 1, 2 and 4 software events (task-clock, cpu-clock,
 * page-faults, context-switches): one raw read() of a kernel group
 * (PERF_FORMAT_GROUP|ID), pmc_group_read on the same events, and PAPI_read
 * on them; target: libpmc <= 1.05x the raw group read.
 *
 * Usage: bench_read [CALLS]   (default 1000000 reads per method) */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc.h"
#ifdef BENCH_PAPI
#include <papi.h>
#endif

#define ROUNDS 101

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A method under test: run it n times. */
struct method {
	const char *name;
	int (*run)(long n);
	double ns[ROUNDS];
	double best;
	bool ok;
};

static struct pmc_group *g_read, *g_hw;
static int raw_fd = -1, raw_hw_fd = -1;
static volatile uint64_t sink;

static int run_group_read(struct pmc_group *g, long n)
{
	struct pmc_count c;
	for (long i = 0; i < n; i++) {
		if (pmc_group_read(g, &c, 1) < 0)
			return -1;
		sink += c.value;
	}
	return 0;
}

static int run_pmc(long n)
{
	return run_group_read(g_read, n);
}

static int run_read_fd(int fd, long n)
{
	uint64_t buf[3];
	for (long i = 0; i < n; i++) {
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
		sink += buf[0];
	}
	return 0;
}

static int run_raw(long n)
{
	return run_read_fd(raw_fd, n);
}

static int run_getpid(long n)
{
	for (long i = 0; i < n; i++)
		sink += (uint64_t)syscall(SYS_getpid);
	return 0;
}

static int run_pmc_hw(long n)
{
	return run_group_read(g_hw, n);
}

static int run_raw_hw(long n)
{
	return run_read_fd(raw_hw_fd, n);
}

static int run_pmc_startstop(long n)
{
	for (long i = 0; i < n; i++)
		if (pmc_group_start(g_read) < 0 || pmc_group_stop(g_read) < 0)
			return -1;
	return 0;
}

#ifdef BENCH_PAPI
static int papi_es = PAPI_NULL;

static int run_papi(long n)
{
	long long v;
	for (long i = 0; i < n; i++) {
		if (PAPI_read(papi_es, &v) != PAPI_OK)
			return -1;
		sink += (uint64_t)v;
	}
	return 0;
}

static int run_papi_startstop(long n)
{
	long long v;
	for (long i = 0; i < n; i++)
		if (PAPI_start(papi_es) != PAPI_OK || PAPI_stop(papi_es, &v) != PAPI_OK)
			return -1;
	return 0;
}

static const char *papi_setup(void)
{
	static char why[128];
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		snprintf(why, sizeof(why), "PAPI_library_init failed (%d)", rc);
		return why;
	}
	if ((rc = PAPI_create_eventset(&papi_es)) != PAPI_OK ||
	    (rc = PAPI_add_named_event(papi_es, "perf::TASK-CLOCK")) != PAPI_OK ||
	    (rc = PAPI_start(papi_es)) != PAPI_OK) {
		snprintf(why, sizeof(why), "PAPI perf::TASK-CLOCK: %s", PAPI_strerror(rc));
		return why;
	}
	return NULL;
}
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Interleave the methods round by round so drift on a shared machine hits
 * them alike; report each one's best round (the cost with the least
 * interference from other tenants). */
static void measure(struct method *m, size_t nm, long calls)
{
	long per = calls / ROUNDS;

	for (size_t k = 0; k < nm; k++)
		m[k].ok = m[k].run != NULL;
	for (int r = 0; r < ROUNDS; r++) {
		/* Each round starts with another method: none is always the
		 * one that finds the caches cold. */
		for (size_t j = 0; j < nm; j++) {
			size_t k = (j + (size_t)r) % nm;

			if (!m[k].ok)
				continue;
			uint64_t t0 = now_ns();
			if (m[k].run(per) < 0)
				m[k].ok = false;
			m[k].ns[r] = (double)(now_ns() - t0) / (double)per;
		}
	}
	for (size_t k = 0; k < nm; k++) {
		double s[ROUNDS];
		memcpy(s, m[k].ns, sizeof(s));
		qsort(s, ROUNDS, sizeof(s[0]), cmp_double);
		m[k].best = s[0];
	}
}

/* Median over the rounds of m[a]'s time over m[b]'s in the same round:
 * what a loaded host does to both within a round cancels out. */
static double paired_ratio(const struct method *m, size_t a, size_t b)
{
	double s[ROUNDS];

	for (int r = 0; r < ROUNDS; r++)
		s[r] = m[a].ns[r] / m[b].ns[r];
	qsort(s, ROUNDS, sizeof(s[0]), cmp_double);
	return s[ROUNDS / 2];
}

static void print_table(const char *title, struct method *m, size_t nm, size_t ref)
{
	printf("%s\n", title);
	printf("  %-34s %10s %10s\n", "method", "ns/call", "vs first");
	for (size_t k = 0; k < nm; k++) {
		if (!m[k].ok) {
			printf("  %-34s %10s\n", m[k].name, "n/a");
			continue;
		}
		printf("  %-34s %10.1f %9.2fx\n", m[k].name, m[k].best,
		       m[k].best / m[ref].best);
	}
}

/* ---- groups of 1, 2, 4 events ---- */

static const struct {
	const char *spec, *papi;
	uint64_t config;
} grp_ev[4] = {
	{ "task-clock", "perf::TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", "perf::CPU-CLOCK", PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", "perf::PAGE-FAULTS", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "perf::CONTEXT-SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES },
};
static size_t grp_n;
static int grp_fd = -1;
static struct pmc_group *grp_pmc;

static int run_raw_group(long n)
{
	uint64_t buf[3 + 2 * 4];
	ssize_t want = (ssize_t)((3 + 2 * grp_n) * sizeof(uint64_t));

	for (long i = 0; i < n; i++) {
		if (read(grp_fd, buf, (size_t)want) != want)
			return -1;
		for (size_t k = 0; k < grp_n; k++)
			sink += buf[3 + 2 * k];
	}
	return 0;
}

static int run_pmc_group(long n)
{
	struct pmc_count c[4];

	for (long i = 0; i < n; i++) {
		if (pmc_group_read(grp_pmc, c, grp_n) < 0)
			return -1;
		for (size_t k = 0; k < grp_n; k++)
			sink += c[k].value;
	}
	return 0;
}

#ifdef BENCH_PAPI
static int papi_grp = PAPI_NULL;

static int run_papi_group(long n)
{
	long long v[4];

	for (long i = 0; i < n; i++) {
		if (PAPI_read(papi_grp, v) != PAPI_OK)
			return -1;
		for (size_t k = 0; k < grp_n; k++)
			sink += (uint64_t)v[k];
	}
	return 0;
}
#endif

/* A raw kernel group of the first n events, enabled; leader fd or -1. */
static int raw_group_open(size_t n)
{
	int lead = -1;

	for (size_t k = 0; k < n; k++) {
		struct perf_event_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = grp_ev[k].config;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, lead, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -1;
		if (lead < 0)
			lead = fd;
	}
	return lead;
}

/* Returns libpmc / raw for n events (0 when not measured). */
static double bench_group(struct pmc_backend *be, size_t n, long calls)
{
	const char *specs[4];
	struct pmc_event evs[4];
	struct pmc_diag diag;
	PMC_GROUP_OPTS(opts, .pid = 0);
	int (*papi)(long) = NULL;
	char title[160];

	grp_n = n;
	for (size_t k = 0; k < n; k++)
		specs[k] = grp_ev[k].spec;
	if (pmc_event_parse_list(specs, n, evs, &diag) < 0 ||
	    pmc_group_open(be, evs, n, &opts, &grp_pmc) < 0 || pmc_group_start(grp_pmc) < 0) {
		printf("group of %zu: libpmc open failed\n", n);
		return 0;
	}
	grp_fd = raw_group_open(n);
#ifdef BENCH_PAPI
	papi_grp = PAPI_NULL;
	bool papi_ok = PAPI_create_eventset(&papi_grp) == PAPI_OK;
	for (size_t k = 0; k < n && papi_ok; k++)
		papi_ok = PAPI_add_named_event(papi_grp, grp_ev[k].papi) == PAPI_OK;
	if (papi_ok && PAPI_start(papi_grp) == PAPI_OK)
		papi = run_papi_group;
#endif
	struct method m[] = {
		{ .name = "one read() of a raw group", .run = grp_fd >= 0 ? run_raw_group : NULL },
		{ .name = "pmc_group_read (libpmc)", .run = run_pmc_group },
		{ .name = "PAPI_read", .run = papi },
	};
	snprintf(title, sizeof(title), "group of %zu software event%s, %ld reads per method", n,
		 n > 1 ? "s" : "", calls);
	measure(m, 3, calls);
	print_table(title, m, 3, 0);
#ifdef BENCH_PAPI
	long long v[4];
	if (papi)
		PAPI_stop(papi_grp, v);
	if (papi_grp != PAPI_NULL) {
		PAPI_cleanup_eventset(papi_grp);
		PAPI_destroy_eventset(&papi_grp);
	}
#endif
	pmc_group_close(grp_pmc);
	if (grp_fd >= 0)
		close(grp_fd);	/* the members go with the process */
	if (m[0].ok && m[1].ok && m[2].ok)
		printf("  paired, median of rounds: libpmc / raw %.3f, PAPI / raw %.3f\n",
		       paired_ratio(m, 1, 0), paired_ratio(m, 2, 0));
	return m[0].ok && m[1].ok ? paired_ratio(m, 1, 0) : 0;
}

static int perf_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* What the kernel offers on a counter's user page. */
static void print_page(const char *what, int fd)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg =
		mmap(NULL, (size_t)ps, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);

	if (pg == MAP_FAILED) {
		printf("%s user page: mmap failed (%s)\n", what, strerror(errno));
		return;
	}
	printf("%s user page: cap_user_rdpmc=%d cap_user_time=%d cap_user_time_zero=%d "
	       "cap_user_time_short=%d index=%u pmc_width=%u\n",
	       what, (int)pg->cap_user_rdpmc, (int)pg->cap_user_time, (int)pg->cap_user_time_zero,
	       (int)pg->cap_user_time_short, pg->index, pg->pmc_width);
	if (!(pg->cap_user_rdpmc && pg->index))
		printf("  -> no syscall-free read: the count is not on a PMC the task can rdpmc%s\n",
		       pg->cap_user_time ? " (times alone could be computed in user space)" : "");
	else
		printf("  -> syscall-free read possible (rdpmc)\n");
	munmap(pg, (size_t)ps);
}

static int group_for(const char *spec, struct pmc_backend *be, struct pmc_group **g,
		     char *why, size_t len)
{
	struct pmc_event ev;
	PMC_GROUP_OPTS(opts, .pid = 0);
	int rc = pmc_event_parse(spec, &ev, why, len);

	if (rc == 0)
		rc = pmc_group_open(be, &ev, 1, &opts, g);
	if (rc == 0)
		rc = pmc_group_start(*g);
	if (rc < 0 && !why[0])
		snprintf(why, len, "%s", pmc_strerror(rc));
	return rc;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	struct pmc_backend *be;
	char why[256] = "";

	if (calls < ROUNDS)
		calls = ROUNDS;
	if (pmc_backend_load("perf_event", &be, why, sizeof(why)) < 0) {
		fprintf(stderr, "bench_read: cannot load perf_event plugin: %s\n", why);
		return 2;
	}
	if (group_for("task-clock", be, &g_read, why, sizeof(why)) < 0) {
		fprintf(stderr, "bench_read: task-clock: %s\n", why);
		return 2;
	}
	raw_fd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (raw_fd < 0) {
		fprintf(stderr, "bench_read: perf_event_open(task-clock): %s\n", strerror(errno));
		return 2;
	}
	int page_fd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (page_fd >= 0) {
		print_page("task-clock", page_fd);
		close(page_fd);
	}

	const char *papi_why = "built without PAPI";
	int (*papi_read)(long) = NULL, (*papi_startstop)(long) = NULL;
#ifdef BENCH_PAPI
	papi_why = papi_setup();
	if (!papi_why) {
		papi_read = run_papi;
		papi_startstop = run_papi_startstop;
	}
#endif
	if (papi_why)
		printf("PAPI: n/a (%s)\n", papi_why);

	struct method reads[] = {
		{ .name = "read() on a perf fd", .run = run_raw },
		{ .name = "pmc_group_read (libpmc)", .run = run_pmc },
		{ .name = "PAPI_read (perf::TASK-CLOCK)", .run = papi_read },
		{ .name = "getpid syscall", .run = run_getpid },
	};
	char title[160];
	snprintf(title, sizeof(title), "task-clock read, %ld calls per method (best of %d rounds)",
		 calls, ROUNDS);
	measure(reads, 4, calls);
	print_table(title, reads, 4, 0);

	/* Start/stop from the stopped state, as a caliper would. */
	pmc_group_stop(g_read);
#ifdef BENCH_PAPI
	long long last;
	if (!papi_why)
		PAPI_stop(papi_es, &last);
#endif
	struct method ss[] = {
		{ .name = "pmc_group_start + stop", .run = run_pmc_startstop },
		{ .name = "PAPI_start + PAPI_stop", .run = papi_startstop },
	};
	snprintf(title, sizeof(title), "start+stop pair, %ld pairs per method", calls / 10);
	measure(ss, 2, calls / 10);
	print_table(title, ss, 2, 0);

	/* Ratios: medians of per-round pairs (see paired_ratio). */
	double lr = paired_ratio(reads, 1, 0);
	printf("libpmc / read()        %.3f   (target <= 1.05: %s)\n", lr,
	       lr <= 1.05 ? "met" : "MISSED");
	if (reads[2].ok) {
		double pl = paired_ratio(reads, 2, 1);
		printf("PAPI_read / libpmc     %.3f   (target >= 1.30: %s)\n", pl,
		       pl >= 1.30 ? "met" : "MISSED");
	}
	if (ss[1].ok)
		printf("PAPI start+stop / libpmc  %.3f\n", ss[1].best / ss[0].best);

	/* Groups: one read() for n events, against the same in PAPI. */
	double ratio[3];
	size_t sizes[3] = { 1, 2, 4 };
	for (int k = 0; k < 3; k++)
		ratio[k] = bench_group(be, sizes[k], calls);
	printf("libpmc / raw group read() (paired medians):");
	bool met = true;
	for (int k = 0; k < 3; k++) {
		printf("  %zu ev %.3f", sizes[k], ratio[k]);
		met &= ratio[k] > 0 && ratio[k] <= 1.05;
	}
	printf("   (target <= 1.05 each: %s)\n", met ? "met" : "MISSED");

	/* A hardware counter, where rdpmc may avoid the syscall altogether. */
	why[0] = '\0';
	if (group_for("instructions", be, &g_hw, why, sizeof(why)) < 0) {
		printf("rdpmc path: n/a here (instructions: %s)\n", why);
	} else {
		raw_hw_fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
		if (raw_hw_fd >= 0)
			print_page("instructions", raw_hw_fd);
		struct method hw[] = {
			{ .name = "read() on the instructions fd", .run = raw_hw_fd >= 0 ? run_raw_hw : NULL },
			{ .name = "pmc_group_read (instructions)", .run = run_pmc_hw },
		};
		measure(hw, 2, calls);
		print_table("hardware counter read", hw, 2, 0);
		if (hw[0].ok && hw[1].ok)
			printf("read() / libpmc (rdpmc gain)  %.2f\n", hw[0].best / hw[1].best);
		pmc_group_close(g_hw);
	}
	pmc_group_close(g_read);
	pmc_backend_unload(be);
	return 0;
}
