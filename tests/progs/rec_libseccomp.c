/* rec_libseccomp: a libseccomp filter that kills the process on any system
 * call but a few (libseccomp loads it through syscall(SYS_seccomp), the
 * path a careless profiler misses).  Built at test time by
 * tests/integration/record_hostile.sh when <seccomp.h> is there.
 *
 * rec_libseccomp exec: a kill filter that allows what a dynamically linked
 * program needs to start (and exec), then runs itself again under it
 * ("child"), as sandboxes do: a collector in the new image that made a
 * system call of its own there would kill it. */
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_common.h"

__attribute__((noinline)) static void burn_before(void)
{
	REC_BURN(100, 41);
}

/* No clock: clock_gettime is not on the list. */
__attribute__((noinline)) static void burn_after(void)
{
	REC_BURN_NOCLOCK(43);
}

/* What ld.so, libc's start and the C library's stdio use. */
static const char *const start_calls[] = {
	"execve", "brk", "arch_prctl", "mmap", "munmap", "mprotect", "access", "openat",
	"newfstatat", "fstat", "close", "read", "pread64", "set_tid_address",
	"set_robust_list", "rseq", "prlimit64", "getrandom", "write", "exit_group", "exit",
	"rt_sigreturn", "rt_sigaction", "rt_sigprocmask", "futex", "ioctl", "lseek",
};

/* Profiled time, a line of output, then a filter that kills on any
 * system call not yet allowed (NULL: out of memory). */
static scmp_filter_ctx kill_filter(const char *what)
{
	burn_before();
	printf("libseccomp: %s\n", what);
	fflush(stdout);
	return seccomp_init(SCMP_ACT_KILL_PROCESS);
}

static int run_exec(const char *self)
{
	scmp_filter_ctx ctx = kill_filter("a kill filter, then exec");

	if (!ctx)
		return 2;
	for (size_t i = 0; i < sizeof(start_calls) / sizeof(start_calls[0]); i++)
		seccomp_rule_add(ctx, SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(start_calls[i]), 0);
	if (seccomp_load(ctx) != 0)
		return 3;
	execl(self, self, "child", (char *)NULL);
	return 4;
}

int main(int argc, char **argv)
{
	static const char msg[] = "libseccomp: still running\n";
	scmp_filter_ctx ctx;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return run_exec("/proc/self/exe");
	if (argc > 1 && !strcmp(argv[1], "child")) {
		burn_after();
		printf("libseccomp: the child runs under the filter\n");
		return 0;
	}
	ctx = kill_filter("loading a kill filter");
	if (!ctx)
		return 2;
	seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 0);
	seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(exit_group), 0);
	seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(exit), 0);
	seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigreturn), 0);
	ret = seccomp_load(ctx);
	burn_after();
	if (ret == 0)
		write(1, msg, strlen(msg));
	_exit(ret == 0 ? 0 : 3);
}
