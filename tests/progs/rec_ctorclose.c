/* A library whose constructor closes every descriptor above 2 (as a
 * daemon's start does), then puts one file on numbers 900..1023, where
 * descriptors the collector opened before it could have been
 * (record_firstlaw.sh: rec_firstlaw fds must find them all open). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((constructor)) static void ctorclose_init(void)
{
	int fd;

	syscall(SYS_close_range, 3, ~0u, 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (int n = 900; n < 1024; n++)
		dup2(fd, n);
	close(fd);
}
