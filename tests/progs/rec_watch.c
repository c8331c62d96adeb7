/* rec_watch [MS]: what a program could notice of the collector's watcher
 * (collector/watch.c), printed so that alone and profiled runs compare:
 *   - children: wait() of every kind finds none (the watcher is nobody's
 *     child here);
 *   - descriptors: the same open descriptors (but perf_event counters);
 *   - processes: one process of this name in this session (`pgrep`);
 *   - a pipe's reader, in a forked child, sees EOF as soon as the writer
 *     closes its end (no copy of the write end lives on elsewhere);
 *   - a SIGTERM to the whole process group ends only the program, which
 *     has a handler for it and exits 0.
 * Burns MS ms (default 200) of CPU meanwhile, so there are samples. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_common.h"

static double ms = 200;
static volatile sig_atomic_t got_term;

__attribute__((noinline)) static void burn_watch(void)
{
	REC_BURN(ms, 7);
}

static void on_term(int signo)
{
	(void)signo;
	got_term = 1;
}

/* Open descriptors, but a profiler's counters (perf_event): those are
 * the collector's, and expected. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[256];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		ssize_t len;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		if (!strstr(target, "perf_event"))
			n++;
	}
	closedir(d);
	return n;
}

/* Processes of this session whose name (comm) is ours. */
static int count_named(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char me[32] = "", path[300], name[32];
	FILE *f;
	int n = 0;

	f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(me, sizeof(me), f))
		return -1;
	fclose(f);
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (getsid(atoi(e->d_name)) != getsid(0))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(name, sizeof(name), f) && !strcmp(name, me))
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int fds[2], st;
	pid_t kid;
	siginfo_t si;
	char buf[64];
	ssize_t n, total = 0;

	if (argc > 1)
		ms = atof(argv[1]);
	alarm(30);
	burn_watch();
	errno = 0;
	printf("wait(__WALL): %s\n", waitpid(-1, &st, WNOHANG | __WALL) < 0 && errno == ECHILD
					     ? "no children" : "a child");
	memset(&si, 0, sizeof(si));
	errno = 0;
	printf("waitid(P_ALL, __WALL): %s\n",
	       waitid(P_ALL, 0, &si, WEXITED | WNOHANG | __WALL) < 0 && errno == ECHILD ? "no children"
											: "a child");
	printf("descriptors: %d\n", count_fds());
	printf("processes named like this one: %d\n", count_named());
	fflush(stdout);

	if (pipe(fds) < 0)
		return 2;
	kid = fork();
	if (kid == 0) {
		close(fds[1]);
		while ((n = read(fds[0], buf, sizeof(buf))) > 0)
			total += n;
		printf("reader: %zd bytes, then EOF\n", total);
		fflush(stdout);
		_exit(0);
	}
	close(fds[0]);
	for (int i = 0; i < 100; i++)
		if (write(fds[1], "0123456789", 10) != 10)
			return 3;
	burn_watch();
	close(fds[1]);
	if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 4;

	signal(SIGTERM, on_term);
	kill(0, SIGTERM);
	printf("SIGTERM to the group: %s\n", got_term ? "handled" : "not seen");
	return 0;
}
