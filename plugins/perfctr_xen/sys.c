/* The real side of the seam: syscalls on /dev/perfctr and the two
 * user-mode counter instructions. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plugins/perfctr_xen/pcx.h"

static int real_open(const char *path, void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int real_ioctl(int fd, unsigned long req, void *argp, void *arg)
{
	int r = ioctl(fd, req, argp);
	return r < 0 ? -errno : r;
}

static int real_mmap(int fd, size_t len, const void **out, void *arg)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

static int real_munmap(const void *addr, size_t len, void *arg)
{
	return munmap((void *)addr, len) < 0 ? -errno : 0;
}

static int real_close(int fd, void *arg)
{
	return close(fd) < 0 ? -errno : 0;
}

static uint64_t real_rdpmc(uint32_t counter, void *arg)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (uint64_t)hi << 32;
}

static uint64_t real_rdtsc(void *arg)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}

const struct pcx_sys pcx_sys_real = {
	.open = real_open,
	.ioctl = real_ioctl,
	.mmap = real_mmap,
	.munmap = real_munmap,
	.close = real_close,
	.rdpmc = real_rdpmc,
	.rdtsc = real_rdtsc,
	.arg = NULL,
};
