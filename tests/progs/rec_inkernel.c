/* rec_inkernel: a program whose samples all wait in the kernel's rings
 * until it is killed.  It blocks every signal with the raw system call
 * (the collector strips our signal from libc's sigprocmask only), so no
 * sample signal is ever handled, and then reads /dev/zero 4 MiB at a time
 * (the kernel clears the buffer: nearly all its time is kernel time)
 * until SIGKILL ends it, which runs no code of ours either. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static char buf[4 << 20];

static void __attribute__((noinline)) read_zero(int fd)
{
	for (;;)
		if (read(fd, buf, sizeof(buf)) < 0)
			exit(3);
}

int main(void)
{
	int fd = open("/dev/zero", O_RDONLY);
	sigset_t all;

	if (fd < 0)
		return 2;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, _NSIG / 8);
	read_zero(fd);
	return 0;
}
