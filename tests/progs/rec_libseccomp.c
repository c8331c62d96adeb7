/* rec_libseccomp: a libseccomp filter that kills the process on any system
 * call but a few (libseccomp loads it through syscall(SYS_seccomp), the
 * path a careless profiler misses).  Built at test time by
 * tests/integration/record_hostile.sh when <seccomp.h> is there. */
#include <seccomp.h>
#include <stdio.h>
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
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < 30000000ul; i++)
		x += i * 43;
}

int main(void)
{
	static const char msg[] = "libseccomp: still running\n";
	scmp_filter_ctx ctx;
	int ret;

	burn_before();
	printf("libseccomp: loading a kill filter\n");
	fflush(stdout);
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
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
