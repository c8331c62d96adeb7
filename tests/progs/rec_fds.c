/* rec_fds MODE MS: a program that handles its own descriptors the way
 * daemons and shells do, and checks that nobody else touched them.  It
 * prints what it saw (identical alone and profiled) and exits 0 when its
 * data came back intact, 1 when not.
 *
 *   pipe    close_range(3, ~0U, 0); pipe() (fds 3 and 4); 10,000 bytes in;
 *           MS ms of CPU in code without unwind tables; read back, checksum
 *   thread  the same, but the burning is done by a thread that then ends;
 *           afterwards the program's own write(4)/read(3) must still work
 *   file    close_range(3, ~0U, 0); a log file opened for writing (fd 3); a
 *           thread burns MS ms in code without unwind tables and ends;
 *           then write(3) (libunwind's local address checks read from its
 *           pipe's old number, fail with EBADF, and close 3 and 4 to make
 *           a new pipe: this write then failed with EBADF)
 *   dup2    a thread dup2()s a log file onto the highest-numbered open
 *           descriptor (under the profiler: its own counter's), writes
 *           through it, burns MS ms and ends; main writes through the same
 *           number and reads the log back
 *   stderr  closes descriptor 2 and opens its data file there (as daemons
 *           do), then sets a handler on signal 38 (the collector's: it
 *           warns that it keeps its own) and burns MS ms; the data file
 *           must hold only what the program wrote
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/progs/rec_common.h"

#define BYTES 10000

void rec_noinfo_burn(double ms, unsigned long salt);

static double ms;
static int log_fd_no = -1;
static char log_path[] = "/tmp/rec_fds.XXXXXX";

static unsigned long checksum(const unsigned char *p, size_t n)
{
	unsigned long h = 5381;

	for (size_t i = 0; i < n; i++)
		h = h * 33 + p[i];
	return h;
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + i / 251);
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *burner(void *arg)
{
	(void)arg;
	rec_noinfo_burn(ms, 3);
	return NULL;
}

/* pipe and thread modes */
static int run_pipe(int threaded)
{
	unsigned char out[BYTES], in[BYTES + 16];
	size_t got = 0;
	int p[2], status = 0;

	if (syscall(SYS_close_range, 3u, ~0u, 0) < 0) {
		perror("close_range");
		return 2;
	}
	if (pipe(p) < 0) {
		perror("pipe");
		return 2;
	}
	printf("pipe fds %d %d\n", p[0], p[1]);
	fill(out, BYTES);
	if (threaded) {
		pthread_t th;

		/* Some data before, some after the thread's end. */
		if (write_all(p[1], out, BYTES / 2) < 0)
			printf("write before the thread: %s\n", strerror(errno)), status = 1;
		pthread_create(&th, NULL, burner, NULL);
		pthread_join(th, NULL);
		rec_noinfo_burn(ms / 4, 5);
		if (write_all(p[1], out + BYTES / 2, BYTES - BYTES / 2) < 0)
			printf("write after the thread: %s\n", strerror(errno)), status = 1;
	} else {
		if (write_all(p[1], out, BYTES) < 0)
			printf("write: %s\n", strerror(errno)), status = 1;
		rec_noinfo_burn(ms, 3);
	}
	close(p[1]);
	for (;;) {
		ssize_t r = read(p[0], in + got, sizeof(in) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			printf("read: %s\n", strerror(errno)), status = 1;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(p[0]);
	printf("bytes %zu checksum %lu (expected %d %lu)\n", got, checksum(in, got), BYTES,
	       checksum(out, BYTES));
	if (got != BYTES || memcmp(in, out, BYTES))
		status = 1;
	printf("%s\n", status ? "CORRUPTED" : "intact");
	return status;
}

/* file mode */
static int run_file(void)
{
	static const char a[] = "before the thread\n", b[] = "after the thread\n";
	char buf[256];
	pthread_t th;
	ssize_t n;
	int fd, rfd, status = 0;

	if (syscall(SYS_close_range, 3u, ~0u, 0) < 0) {
		perror("close_range");
		return 2;
	}
	char path[64];

	snprintf(path, sizeof(path), "/tmp/rec_fds.%d", (int)getpid());
	/* write-only: a read() on it fails with EBADF */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rfd = open(path, O_RDONLY);
	unlink(path);
	if (fd < 0 || rfd < 0) {
		perror("open");
		return 2;
	}
	printf("log fds %d %d\n", fd, rfd);
	if (write_all(fd, a, sizeof(a) - 1) < 0)
		printf("write before the thread: %s\n", strerror(errno)), status = 1;
	pthread_create(&th, NULL, burner, NULL);
	pthread_join(th, NULL);
	rec_noinfo_burn(ms / 4, 9);
	if (write_all(fd, b, sizeof(b) - 1) < 0)
		printf("write after the thread: %s\n", strerror(errno)), status = 1;
	n = pread(rfd, buf, sizeof(buf), 0);
	printf("log %zd bytes checksum %lu\n", n, n > 0 ? checksum((unsigned char *)buf, (size_t)n) : 0);
	if (n != (ssize_t)(sizeof(a) + sizeof(b) - 2))
		status = 1;
	printf("%s\n", status ? "CORRUPTED" : "intact");
	return status;
}

/* The highest open descriptor number, below 1024. */
static int highest_fd(void)
{
	for (int fd = 1023; fd >= 3; fd--)
		if (fcntl(fd, F_GETFD) >= 0)
			return fd;
	return -1;
}

static void *logger(void *arg)
{
	int fd = *(int *)arg, target = highest_fd();
	static const char line[] = "thread: hello\n";

	/* Alone, the highest is the log itself (or nothing above it): use a
	 * fixed high number instead, so both runs do the same thing. */
	if (target <= fd)
		target = 1000;
	log_fd_no = target;
	if (dup2(fd, target) < 0) {
		perror("dup2");
		return NULL;
	}
	write_all(target, line, sizeof(line) - 1);
	rec_noinfo_burn(ms, 7);
	write_all(target, line, sizeof(line) - 1);
	return NULL;
}

static int run_dup2(void)
{
	static const char line[] = "main: after the thread\n";
	char buf[4096];
	pthread_t th;
	ssize_t n;
	int fd = mkstemp(log_path), status = 0;

	if (fd < 0) {
		perror("mkstemp");
		return 2;
	}
	unlink(log_path);
	pthread_create(&th, NULL, logger, &fd);
	pthread_join(th, NULL);
	if (log_fd_no < 0)
		return 2;
	if (write_all(log_fd_no, line, sizeof(line) - 1) < 0)
		printf("write to the log after the thread: %s\n", strerror(errno)), status = 1;
	n = pread(fd, buf, sizeof(buf), 0);
	printf("log %zd bytes checksum %lu\n", n, n > 0 ? checksum((unsigned char *)buf, (size_t)n) : 0);
	if (n != 2 * 14 + (ssize_t)sizeof(line) - 1)
		status = 1;
	printf("%s\n", status ? "CORRUPTED" : "intact");
	return status;
}

static void on_38(int signo)
{
	(void)signo;
}

static int run_stderr(void)
{
	static const char line[] = "program data\n";
	char buf[4096];
	ssize_t n;
	int fd, status = 0;

	close(2);
	fd = mkstemp(log_path);
	if (fd != 2)
		return 2;
	unlink(log_path);
	write_all(2, line, sizeof(line) - 1);
	signal(38, on_38);
	rec_noinfo_burn(ms, 7);
	write_all(2, line, sizeof(line) - 1);
	n = pread(2, buf, sizeof(buf), 0);
	printf("data on fd 2: %zd bytes checksum %lu\n", n,
	       n > 0 ? checksum((unsigned char *)buf, (size_t)n) : 0);
	if (n != 2 * ((ssize_t)sizeof(line) - 1))
		status = 1;
	printf("%s\n", status ? "CORRUPTED" : "intact");
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rec_fds pipe|thread|file|dup2|stderr MS\n");
		return 2;
	}
	ms = atof(argv[2]);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(argv[1], "pipe"))
		return run_pipe(0);
	if (!strcmp(argv[1], "thread"))
		return run_pipe(1);
	if (!strcmp(argv[1], "file"))
		return run_file();
	if (!strcmp(argv[1], "dup2"))
		return run_dup2();
	if (!strcmp(argv[1], "stderr"))
		return run_stderr();
	fprintf(stderr, "rec_fds: unknown mode %s\n", argv[1]);
	return 2;
}
