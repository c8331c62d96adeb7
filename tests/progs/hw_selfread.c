/* libpmc's user-space counter read on a real PMU (the arm64 guest's
 * tests/arm64/guest.sh): one self-monitoring counter through the perf_event
 * plugin's code, its user page as the kernel fills it, the same loop
 * counted through pe_read (the user page when the kernel allows it, else
 * read()) and through read() on the fd, and the cost of each.
 *
 * Usage: hw_selfread EVENT[,EVENT2] ITERATIONS READS
 * Two events form one kernel group (counting only, own thread): without
 * user access, one read() of PERF_FORMAT_GROUP gives both at one instant.
 * Prints one line of key=value:
 *   cap_user_rdpmc index pmc_width  the page after start
 *   page_read   0 if the seqlock read gave a value, else -errno (-EAGAIN:
 *               user access off, the fallback to read() takes over)
 *   pe_delta read_delta   the loop's count through pe_read and read()
 *   pe_delta1   the second event's, through pe_read
 *   pe_ns read_ns         ns per pe_read and per read() (READS each) */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugins/perf_event/pe.h"
#include "tests/progs/loop2.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The first event's count by read(): value, enabled, running; or, for a
 * group leader (PERF_FORMAT_GROUP|ID), nr, enabled, running, then value
 * and id per member. */
static int fd_read(int fd, uint64_t *v)
{
	uint64_t buf[16];
	ssize_t r = read(fd, buf, sizeof(buf));

	if (r == 3 * sizeof(uint64_t))
		*v = buf[0];
	else if (r >= 5 * (ssize_t)sizeof(uint64_t))
		*v = buf[3];
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	PMC_GROUP_OPTS(opts, .pid = 0);
	struct pmc_event ev[2];
	struct pmc_count c0[2], c1[2];
	char *spec2;
	size_t nev = 1;
	struct pe_raw raw;
	char msg[256];
	void *ctx;
	uint64_t r0, r1, n, reads, t0, t1, t2, pe_delta, pe_delta1 = 0, read_delta;
	const struct perf_event_mmap_page *pg;
	int fd, rc;

	if (argc != 4) {
		fprintf(stderr, "usage: hw_selfread EVENT ITERATIONS READS\n");
		return 1;
	}
	n = strtoull(argv[2], NULL, 0);
	reads = strtoull(argv[3], NULL, 0);
	if ((spec2 = strchr(argv[1], ','))) {
		*spec2++ = '\0';
		nev = 2;
	}
	for (size_t i = 0; i < nev; i++)
		if (pmc_event_parse(i ? spec2 : argv[1], &ev[i], msg, sizeof(msg)) < 0) {
			fprintf(stderr, "hw_selfread: %s: %s\n", i ? spec2 : argv[1], msg);
			return 2;
		}
	if ((rc = pe_open(ev, nev, &opts, &ctx)) < 0 || (rc = pe_start(ctx)) < 0) {
		fprintf(stderr, "hw_selfread: open/start: %d\n", rc);
		return 2;
	}
	fd = pe_fd(ctx, 0);
	pg = pe_page(ctx, 0);
	loop2(1000);	/* scheduled in, index published */
	rc = pg ? pe_page_read(pg, &pe_hw_native, &raw) : -ENOENT;
	if (pe_read(ctx, c0, nev) < 0 || fd_read(fd, &r0) < 0)
		return 3;
	loop2(n);
	if (pe_read(ctx, c1, nev) < 0 || fd_read(fd, &r1) < 0)
		return 3;
	pe_delta = c1[0].value - c0[0].value;
	if (nev == 2)
		pe_delta1 = c1[1].value - c0[1].value;
	read_delta = r1 - r0;
	t0 = now_ns();
	for (uint64_t i = 0; i < reads; i++)
		if (pe_read(ctx, c0, nev) < 0)
			return 3;
	t1 = now_ns();
	for (uint64_t i = 0; i < reads; i++)
		if (fd_read(fd, &r0) < 0)
			return 3;
	t2 = now_ns();
	printf("cap_user_rdpmc=%d index=%u pmc_width=%u page_read=%d pe_delta=%" PRIu64
	       " pe_delta1=%" PRIu64 " read_delta=%" PRIu64 " pe_ns=%.0f read_ns=%.0f\n",
	       pg ? (int)pg->cap_user_rdpmc : -1, pg ? pg->index : 0, pg ? pg->pmc_width : 0, rc,
	       pe_delta, pe_delta1, read_delta, reads ? (double)(t1 - t0) / reads : 0,
	       reads ? (double)(t2 - t1) / reads : 0);
	pe_close(ctx);
	return 0;
}
