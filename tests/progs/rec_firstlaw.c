/* Workloads for record_firstlaw.sh: what a program can notice of the
 * collector, each printed so that alone and profiled runs compare.
 *   aslimit N   start N threads (4 MiB stacks) that wait, then allocate
 *               1 MiB blocks until malloc fails: prints threads made, MiB
 *   vm N        N threads alive (each computed 20 ms): prints VmSize, VmRSS
 *   rawclone S  main and a thread made by clone() (no pthread_create, no
 *               TLS of its own) each compute S seconds of CPU time
 *   rawthread S main and a thread of its group made by clone() without
 *               pthread_create (no TLS of its own) each compute S seconds
 *   lost MODE   setuid (to nobody), chroot DIR or nofile (RLIMIT_NOFILE 4),
 *               then compute 0.2 s
 *   fds         how many of descriptors 900..1023 are closed (linked with
 *               rec_ctorclose.c, whose constructor put a file on each)
 *   env         print the environment, one variable a line
 *   work S      compute S seconds of CPU time in main_work
 *   ctor S      (built -DWITH_CTORLIB, linked with rec_ctorlib.c) main_work
 *               S seconds after the library's 0.5 s constructor */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static volatile double sink;

static double cpu_now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void main_work(double s)
{
	double end = cpu_now(CLOCK_THREAD_CPUTIME_ID) + s;

	while (cpu_now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 100000; i++)
			sink += i * 0.5;
}

static pthread_barrier_t go;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	return NULL;
}

static int aslimit(int n)
{
	pthread_t th[256];
	pthread_attr_t a;
	int made = 0;
	size_t mib = 0;
	void **blocks = calloc(4096, sizeof(void *));

	if (n > 256 || !blocks)
		return 2;
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 4 << 20);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[made], &a, waiter, NULL) == 0)
			made++;
	/* Allocate while the threads live. */
	while (mib < 4096 && (blocks[mib] = malloc(1 << 20)) != NULL)
		mib++;
	printf("threads %d of %d\nallocated %zu MiB\n", made, n, mib);
	fflush(stdout);
	for (size_t i = 0; i < mib; i++)
		free(blocks[i]);
	if (made < n) {
		/* The barrier would never open: leave. */
		_exit(made == n ? 0 : 3);
	}
	pthread_barrier_wait(&go);
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* N threads alive, each having run 20 ms (sampled), then VmSize and
 * VmRSS from /proc/self/status. */
static void *worker(void *arg)
{
	(void)arg;
	main_work(0.02);
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&go);
	return NULL;
}

static int vm(int n)
{
	pthread_t th[256];
	char line[256];
	FILE *f;

	if (n < 1 || n > 256)
		return 2;
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 3;
	pthread_barrier_wait(&go);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmSize:", 7) || !strncmp(line, "VmRSS:", 6))
			fputs(line, stdout);
	if (f)
		fclose(f);
	fflush(stdout);
	pthread_barrier_wait(&go);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static double clone_secs;

static int clone_fn(void *arg)
{
	(void)arg;
	/* No libc calls that need our own TLS: only the vDSO clock. */
	double end = cpu_now(CLOCK_THREAD_CPUTIME_ID) + clone_secs;

	while (cpu_now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 100000; i++)
			sink += i * 0.25;
	return 0;
}

static int rawclone(double s)
{
	size_t len = 256 << 10;
	char *stack = malloc(len);
	pid_t tid;
	int status = 0;

	clone_secs = s;
	/* A CLONE_VM child with its own exit signal: shares the memory,
	 * not the thread group, and is waited for like a process. */
	tid = clone(clone_fn, stack + len, CLONE_VM | CLONE_FS | CLONE_FILES | SIGCHLD, NULL);
	if (tid < 0)
		return 2;
	main_work(s);
	waitpid(tid, &status, 0);
	printf("clone child status %d\n", status);
	return 0;
}

static volatile pid_t thread_tid = 1;

static int rawthread(double s)
{
	size_t len = 256 << 10;
	char *stack = malloc(len);
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;

	clone_secs = s;
	if (clone(clone_fn, stack + len, flags, NULL, NULL, NULL, &thread_tid) < 0)
		return 2;
	main_work(s);
	/* The kernel clears thread_tid and wakes us when it ends. */
	while (thread_tid)
		syscall(SYS_futex, &thread_tid, FUTEX_WAIT, thread_tid, NULL, NULL, 0);
	printf("thread done\n");
	return 0;
}

static int lost(int argc, char **argv)
{
	struct rlimit four = { 4, 4 };

	if (!strcmp(argv[2], "setuid") && (setgid(65534) || setuid(65534)))
		return 9;
	if (!strcmp(argv[2], "chroot") && (argc < 4 || chroot(argv[3]) || chdir("/")))
		return 9;
	if (!strcmp(argv[2], "nofile") && setrlimit(RLIMIT_NOFILE, &four))
		return 9;
	main_work(0.2);
	printf("%s done\n", argv[2]);
	return 0;
}

#ifdef WITH_CTORLIB
int ctorlib_value(void);
#endif

int main(int argc, char **argv)
{
#ifdef WITH_CTORLIB
	if (argc > 2 && strcmp(argv[1], "ctor") == 0) {
		main_work(atof(argv[2]));
		printf("constructor ran: %d\n", ctorlib_value());
		return 0;
	}
#endif
	if (argc > 2 && strcmp(argv[1], "rawthread") == 0)
		return rawthread(atof(argv[2]));
	if (argc > 2 && strcmp(argv[1], "lost") == 0)
		return lost(argc, argv);
	if (argc > 1 && strcmp(argv[1], "fds") == 0) {
		int closed = 0;

		for (int n = 900; n < 1024; n++)
			closed += fcntl(n, F_GETFD) < 0;
		printf("descriptors 900..1023 closed under the program: %d\n", closed);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "vm") == 0)
		return vm(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "aslimit") == 0)
		return aslimit(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "rawclone") == 0)
		return rawclone(atof(argv[2]));
	if (argc > 2 && strcmp(argv[1], "work") == 0) {
		main_work(atof(argv[2]));
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "env") == 0) {
		for (char **e = environ; *e; e++)
			puts(*e);
		return 0;
	}
	fprintf(stderr, "usage: rec_firstlaw aslimit N | rawclone S | rawthread S | lost MODE | work S | env\n");
	return 1;
}
