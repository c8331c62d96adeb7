/* rec_intr MODE N: system calls that a signal would cut short or fail with
 * EINTR.  Each mode prints what the program itself can see (byte counts,
 * short transfers, EINTR returns), which must be the same alone and
 * profiled: a sampling signal sent while the thread is in the kernel
 * changes it (tests/integration/record_intr.sh).  No mode installs a
 * handler that restarts anything: SA_RESTART would hide the EINTRs.
 *
 *   getrandom N   N calls of getrandom(1 MiB): how many returned short
 *   pipe N        N blocking 8 MiB writes to a pipe a child reads
 *   socket N      the same to a stream socket
 *   epoll N       N epoll_wait()s for a byte a child sends every 50 us
 *   poll N        the same with poll()
 *   nanosleep N   N nanosleep()s of 300 us after some kernel work each
 *   pause N       N times: ualarm(3 ms), pause(): how many came back early
 *   uring N       N io_uring timeouts of 300 us waited with io_uring_wait_cqe
 *   blocked MS    a thread computes in blocked_work() with every signal
 *                 blocked (raw rt_sigprocmask), 5 ms at a time, while main
 *                 computes in free_work(), MS ms of CPU time each
 *   blocklong MS  computes 300 ms in long_blocked() with every signal
 *                 blocked (far more overflows than a batch of credits and
 *                 a ring hold), then MS ms in free_work()
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "rec_common.h"

#define BIG (8 << 20)

static void die(const char *what)
{
	fprintf(stderr, "rec_intr: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void __attribute__((noinline)) do_getrandom(long n)
{
	static char buf[1 << 20];
	long shorts = 0;

	for (long i = 0; i < n; i++) {
		ssize_t r = getrandom(buf, sizeof(buf), 0);

		if (r < 0 && errno != EINTR)
			die("getrandom");
		shorts += r != (ssize_t)sizeof(buf);
	}
	printf("getrandom calls=%ld short=%ld\n", n, shorts);
}

/* A child that reads everything from fd until EOF, then exits 0. */
static pid_t reader(int fd, int other)
{
	pid_t pid = fork();
	static char buf[1 << 16];

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(other);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(fd);
	return pid;
}

static void __attribute__((noinline)) do_writes(const char *what, long n)
{
	int fds[2], st;
	long shorts = 0, eintr = 0;
	long long total = 0;
	char *buf = malloc(BIG);
	pid_t pid;

	if (!buf)
		die("malloc");
	memset(buf, 'x', BIG);
	if (strcmp(what, "pipe") == 0 ? pipe(fds) < 0
				      : socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		die(what);
	pid = reader(fds[0], fds[1]);
	for (long i = 0; i < n; i++) {
		ssize_t r = write(fds[1], buf, BIG);

		if (r < 0 && errno == EINTR)
			eintr++;
		else if (r < 0)
			die("write");
		else
			total += r;
		shorts += r != BIG;
	}
	close(fds[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("reader");
	printf("%s writes=%ld short=%ld eintr=%ld bytes=%lld\n", what, n, shorts, eintr, total);
	free(buf);
}

/* A child that sends a byte every 50 us until the other end closes. */
static pid_t sender(int fd, int other)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct timespec gap = { 0, 50000 };

		close(other);
		while (write(fd, "x", 1) == 1)
			nanosleep(&gap, NULL);
		_exit(0);
	}
	close(fd);
	return pid;
}

static void __attribute__((noinline)) do_waits(const char *what, long n)
{
	int fds[2], ep = -1, st;
	long eintr = 0, got = 0;
	struct epoll_event ev = { .events = EPOLLIN };
	char c[64];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		die("socketpair");
	pid = sender(fds[1], fds[0]);
	if (strcmp(what, "epoll") == 0) {
		ep = epoll_create1(EPOLL_CLOEXEC);
		ev.data.fd = fds[0];
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev) < 0)
			die("epoll");
	}
	for (long i = 0; i < n; i++) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		int r = ep >= 0 ? epoll_wait(ep, &ev, 1, 1000) : poll(&p, 1, 1000);

		if (r < 0 && errno == EINTR) {
			eintr++;
			continue;
		}
		if (r < 0)
			die(what);
		if (r > 0 && read(fds[0], c, sizeof(c)) > 0)
			got++;
	}
	close(fds[0]);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	if (ep >= 0)
		close(ep);
	printf("%s waits=%ld eintr=%ld ready=%s\n", what, n, eintr, got > n / 2 ? "most" : "few");
}

/* Kernel work before each wait, so that samples land in the kernel. */
static void kernel_work(void)
{
	static char buf[256 << 10];
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
		die("/dev/zero");
	close(fd);
}

static void __attribute__((noinline)) do_nanosleep(long n)
{
	long eintr = 0;

	for (long i = 0; i < n; i++) {
		struct timespec ts = { 0, 300000 };

		kernel_work();
		if (nanosleep(&ts, NULL) < 0) {
			if (errno != EINTR)
				die("nanosleep");
			eintr++;
		}
	}
	printf("nanosleep calls=%ld eintr=%ld\n", n, eintr);
}

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

static void __attribute__((noinline)) do_pause(long n)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	long early = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		die("sigaction");
	for (long i = 0; i < n; i++) {
		alarmed = 0;
		kernel_work();
		ualarm(3000, 0);
		pause();
		if (!alarmed) {
			early++;
			while (!alarmed)
				pause();
		}
	}
	printf("pause calls=%ld early=%ld\n", n, early);
}

static void __attribute__((noinline)) do_uring(long n)
{
#ifdef HAVE_LIBURING
	struct io_uring ring;
	long eintr = 0, done = 0;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret < 0) {
		errno = -ret;
		die("io_uring_queue_init");
	}
	for (long i = 0; i < n; i++) {
		struct __kernel_timespec ts = { 0, 300000 };
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		kernel_work();
		io_uring_prep_timeout(sqe, &ts, 0, 0);
		io_uring_submit(&ring);
		while ((ret = io_uring_wait_cqe(&ring, &cqe)) == -EINTR)
			eintr++;
		if (ret < 0) {
			errno = -ret;
			die("io_uring_wait_cqe");
		}
		done += cqe->res == -ETIME;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	printf("uring waits=%ld eintr=%ld timeouts=%s\n", n, eintr, done == n ? "all" : "some");
#else
	(void)n;
	printf("uring: built without liburing\n");
	exit(77);
#endif
}

/* ---- blocked ---- */

static double budget_ms;

static void raw_mask(int how, const sigset_t *set, sigset_t *old)
{
	/* the raw system call: what a runtime that manages its own masks does */
	if (syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8) < 0)
		die("rt_sigprocmask");
}

static void __attribute__((noinline)) blocked_work(void)
{
	REC_BURN(5, 3);
}

static void __attribute__((noinline)) free_work(void)
{
	REC_BURN(budget_ms, 5);
}

static void *blocked_thread(void *arg)
{
	sigset_t all, old;
	double t0 = rec_cpu_ms();

	(void)arg;
	sigfillset(&all);
	while (rec_cpu_ms() - t0 < budget_ms) {
		raw_mask(SIG_SETMASK, &all, &old);
		blocked_work();
		raw_mask(SIG_SETMASK, &old, NULL);
	}
	return NULL;
}

static void do_blocked(long ms)
{
	pthread_t t;

	budget_ms = (double)ms;
	if (pthread_create(&t, NULL, blocked_thread, NULL) != 0)
		die("pthread_create");
	free_work();
	pthread_join(t, NULL);
	printf("blocked done\n");
}

static void __attribute__((noinline)) long_blocked(void)
{
	REC_BURN(300, 7);
}

static void do_blocklong(long ms)
{
	sigset_t all, old;

	sigfillset(&all);
	raw_mask(SIG_SETMASK, &all, &old);
	long_blocked();
	raw_mask(SIG_SETMASK, &old, NULL);
	budget_ms = (double)ms;
	free_work();
	printf("blocklong done\n");
}

int main(int argc, char **argv)
{
	long n;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: rec_intr MODE N (see the source)\n");
		return 2;
	}
	if (!strcmp(argv[1], "getrandom"))
		do_getrandom(n);
	else if (!strcmp(argv[1], "pipe") || !strcmp(argv[1], "socket"))
		do_writes(argv[1], n);
	else if (!strcmp(argv[1], "epoll") || !strcmp(argv[1], "poll"))
		do_waits(argv[1], n);
	else if (!strcmp(argv[1], "nanosleep"))
		do_nanosleep(n);
	else if (!strcmp(argv[1], "pause"))
		do_pause(n);
	else if (!strcmp(argv[1], "uring"))
		do_uring(n);
	else if (!strcmp(argv[1], "blocked"))
		do_blocked(n);
	else if (!strcmp(argv[1], "blocklong"))
		do_blocklong(n);
	else
		return 2;
	return 0;
}
