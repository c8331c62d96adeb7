/* rec_systime SECONDS: two threads that each spend about half of their CPU
 * time in the kernel (reading /dev/zero: the kernel clears the buffer) and
 * half in a loop of their own, in turns of 0.4 ms of CPU time.  The main
 * thread stops after SECONDS of its CPU time and exits with the other still
 * running, so the collector writes one profile on the thread's own exit
 * path and the other's from another thread. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rec_common.h"

#define TURN_MS 0.4

static char bufs[2][64 * 1024];

static void __attribute__((noinline)) in_kernel(int fd, char *buf)
{
	double t0 = rec_cpu_ms();

	while (rec_cpu_ms() - t0 < TURN_MS)
		if (read(fd, buf, sizeof(bufs[0])) < 0)
			exit(3);
}

static void __attribute__((noinline)) in_user(void)
{
	REC_BURN(TURN_MS, 7);
}

static void mix(int fd, char *buf, double ms)
{
	double t0 = rec_cpu_ms();

	while (rec_cpu_ms() - t0 < ms) {
		in_kernel(fd, buf);
		in_user();
	}
}

static void *worker(void *arg)
{
	mix(*(int *)arg, bufs[1], 1e12);
	return NULL;
}

int main(int argc, char **argv)
{
	static int fd;
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: rec_systime SECONDS\n");
		return 2;
	}
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pthread_create(&t, NULL, worker, &fd) != 0)
		return 3;
	mix(fd, bufs[0], atof(argv[1]) * 1000);
	exit(0);
}
