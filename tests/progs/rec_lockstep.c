/* rec_lockstep K ROUNDS: a loop in lockstep with a page-fault sampling
 * period of 2K: fa() first-touches K fresh pages, fb() the next K, ROUNDS
 * times.  Page faults are counted exactly, so with a fixed period of 2K
 * every sample hits the same place in the loop; with a randomized period
 * the samples spread over fa and fb as the faults do (half each).
 * Prints "faults_fa=N faults_fb=N". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static char *region;
static size_t pages, next, page;

/* The next page, zapping the region when it is used up. */
static char *fresh(void)
{
	if (next == pages) {
		madvise(region, pages * page, MADV_DONTNEED);
		next = 0;
	}
	return region + next++ * page;
}

__attribute__((noinline)) static void fa(int k)
{
	for (int i = 0; i < k; i++)
		*(volatile char *)fresh() = 1;
}

__attribute__((noinline)) static void fb(int k)
{
	for (int i = 0; i < k; i++)
		*(volatile char *)fresh() = 2;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 32;
	long rounds = argc > 2 ? atol(argv[2]) : 2000;

	page = (size_t)sysconf(_SC_PAGESIZE);
	/* A multiple of 2K pages, so a zap never splits a round. */
	pages = (size_t)k * 2 * 128;
	region = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (region == MAP_FAILED)
		return 1;
	/* One fault per page: no huge pages, no larger folios. */
	madvise(region, pages * page, MADV_NOHUGEPAGE);
	for (long r = 0; r < rounds; r++) {
		fa(k);
		fb(k);
	}
	printf("faults_fa=%ld faults_fb=%ld\n", rounds * k, rounds * k);
	return 0;
}
