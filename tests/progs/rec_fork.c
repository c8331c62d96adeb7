/* rec_fork PROG: one process making others every way a program can; PROG
 * is run as "PROG return 50" (rec_exit).  Burns in parent_work, the plain
 * fork child in child_work.  Prints "pid=<pid> how=<way>" for each
 * process it made (system()'s shell included), parent last. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_common.h"

__attribute__((noinline)) static void parent_work(void)
{
	REC_BURN(50, 3);
}

__attribute__((noinline)) static void child_work(void)
{
	REC_BURN(50, 7);
}

static int wait_ok(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
	const char *prog = argc > 1 ? argv[1] : "./rec_exit";
	char *args[] = { (char *)prog, "return", "50", NULL };
	/* An environment of the program's own, without LD_PRELOAD. */
	char *bare_env[] = { "REC_FORK=1", NULL };
	char cmd[4200];
	pid_t pid;
	int ok = 1;

	parent_work();

	pid = fork();
	if (pid == 0) {
		child_work();
		exit(0);
	}
	printf("pid=%d how=fork\n", pid);
	ok &= wait_ok(pid);

	pid = fork();
	if (pid == 0) {
		child_work();
		execv(prog, args);
		_exit(127);
	}
	printf("pid=%d how=fork-exec\n", pid);
	ok &= wait_ok(pid);

	pid = vfork();
	if (pid == 0) {
		execve(prog, args, bare_env);
		_exit(127);
	}
	printf("pid=%d how=vfork-exec\n", pid);
	ok &= wait_ok(pid);

	if (posix_spawn(&pid, prog, NULL, NULL, args, bare_env) != 0)
		return 1;
	printf("pid=%d how=posix_spawn\n", pid);
	ok &= wait_ok(pid);

	snprintf(cmd, sizeof(cmd), "%s return 50", prog);
	ok &= system(cmd) == 0;

	parent_work();
	printf("pid=%d how=parent\n", getpid());
	return ok ? 0 : 1;
}
