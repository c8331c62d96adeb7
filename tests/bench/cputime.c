/* cputime OUT CMD [ARGS...]: runs CMD and writes "user_ms sys_ms" of its
 * whole process tree (every descendant that was waited for: a profiler,
 * the program under it, their threads) to the file OUT; exits with CMD's
 * status.  The CPU-overhead benchmarks compare these sums. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int st;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: cputime OUT CMD [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%.1f %.1f\n", ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
		ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
