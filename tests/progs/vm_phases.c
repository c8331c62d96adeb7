/* A workload in phases of known character, for `pmcprof vm` (native vs a
 * guest): pure computation, a memory walk, page faults, system calls and
 * clock reads, each in its own function so the comparison has one row per
 * kind of work.  Usage: vm_phases [SCALE] (default 1: about 0.05-0.1 s of
 * CPU per phase natively).  Prints a checksum, the same on every machine,
 * so no phase is optimized away and both sides can be seen to agree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline))

/* Registers only: what emulation and virtualization differ least on. */
NOINLINE static uint64_t phase_compute(long n)
{
	uint64_t x = 88172645463325252ull, s = 0;

	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s += x * 2654435761u;
	}
	return s;
}

/* A random pointer chase through 16 MiB: cache and TLB misses. */
NOINLINE static uint64_t phase_memwalk(uint32_t *next, size_t len, long n)
{
	uint32_t i = 0;
	uint64_t s = 0;

	for (long k = 0; k < n; k++) {
		i = next[i];
		s += i;
	}
	(void)len;
	return s;
}

/* Fresh anonymous memory touched page by page: one fault per page. */
NOINLINE static uint64_t phase_faults(long pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t s = 0;

	for (long done = 0; done < pages; done += 256) {
		size_t len = (size_t)pg * 256;
		volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			exit(2);
		for (size_t o = 0; o < len; o += (size_t)pg)
			p[o] = (char)o;
		s += (uint64_t)p[len / 2];
		munmap((void *)p, len);
	}
	return s;
}

/* Cheap system calls: kernel entry and exit. */
NOINLINE static uint64_t phase_syscalls(long n)
{
	uint64_t s = 0;

	/* counted, not summed: the parent's pid differs between machines */
	for (long i = 0; i < n; i++)
		s += syscall(SYS_getppid) > 0;
	return s;
}

/* Clock reads: the vDSO where the clock source allows it (a guest's may not). */
NOINLINE static uint64_t phase_clock(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec >= 0;	/* the same checksum on every machine */
	}
	return s;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1;
	size_t len = 4u << 20;	/* 16 MiB of uint32_t */
	uint32_t *next = malloc(len * sizeof(*next));
	uint64_t s = 0, r = 12345;

	if (!next || scale <= 0)
		return 2;
	/* Sattolo's shuffle: one cycle through every slot. */
	for (size_t i = 0; i < len; i++)
		next[i] = (uint32_t)i;
	for (size_t i = len - 1; i > 0; i--) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		size_t j = (size_t)(r >> 33) % i;
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	s += phase_compute((long)(60e6 * scale));
	s += phase_memwalk(next, len, (long)(1e6 * scale));
	s += phase_faults((long)(100000 * scale));
	s += phase_syscalls((long)(1.2e6 * scale));
	s += phase_clock((long)(2e6 * scale));
	printf("vm_phases: checksum %llu\n", (unsigned long long)(s & 0xffff));
	free(next);
	return 0;
}
