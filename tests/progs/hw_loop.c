/* Work of a known instruction count, for the hardware-event tests in the
 * arm64 guest (tests/arm64/guest.sh), where QEMU's -icount shift=0 makes
 * every count exact:
 *   hw_loop loop N        one loop of exactly 2 instructions per iteration
 *                         (subs/b.ne; dec/jnz on x86-64), N iterations
 *   hw_loop split A B     A iterations in spin_a, then B in spin_b: the
 *                         two functions' shares are A/(A+B) and B/(A+B)
 *   hw_loop read N        N read(2) calls of 1 byte from /dev/zero, each
 *                         checked: a short read exits 3 (the first law) */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/progs/loop2.h"

__attribute__((noinline)) void spin_a(uint64_t n)
{
	if (n)
		loop2(n);
}

__attribute__((noinline)) void spin_b(uint64_t n)
{
	if (n)
		loop2(n);
}

static int reads(long n)
{
	char c;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 2;
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return 3;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "loop") == 0) {
		uint64_t n = strtoull(argv[2], NULL, 0);
		if (n)
			loop2(n);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "split") == 0) {
		spin_a(strtoull(argv[2], NULL, 0));
		spin_b(strtoull(argv[3], NULL, 0));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "read") == 0)
		return reads(strtol(argv[2], NULL, 0));
	fprintf(stderr, "usage: hw_loop loop N | split A B | read N\n");
	return 1;
}
