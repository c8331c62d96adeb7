/* Calls clock_gettime in a loop (time spent in the vdso), or with
 * "dump FILE" writes this process's vdso image to FILE (for
 * tests/integration/vdso_names.sh to make a "foreign kernel" vdso from),
 * or with "unmap" unmaps its own vdso, spins and exits 3 (a profiled run
 * must do the same; today the collector's own clock_gettime calls crash
 * it, a known bug reported to the collector's owner). */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "dump")) {
		const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
		FILE *f = fopen(argv[2], "wb");
		if (!eh || !f)
			return 2;
		fwrite(eh, 1, eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize, f);
		return fclose(f) ? 2 : 0;
	}
	if (argc > 1 && !strcmp(argv[1], "unmap")) {
		uintptr_t at = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
		volatile unsigned long x = 0;
		if (!at || munmap((void *)at, 8192))
			return 2;
		for (long i = 0; i < 50000000L; i++)
			x += (unsigned long)i;
		return 3;
	}
	long n = (argc > 1 ? atol(argv[1]) : 10) * 1000000L;
	unsigned long s = 0;
	struct timespec t;
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		s += (unsigned long)t.tv_nsec;
	}
	printf("%lu\n", s & 1);
	return 0;
}
