/* rec_coro MS: 8 ucontext coroutines on 64 KiB heap stacks, each burning
 * CPU 6-13 calls deep, switched round-robin for MS ms of CPU.  Samples land
 * on stacks that are not the thread's: the unwinder must check what it
 * reads there.  Prints "ok", and on stderr how many rt_sigprocmask calls
 * it made itself (glibc's swapcontext makes one per switch). */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "tests/progs/rec_common.h"

#define N 8

static ucontext_t main_ctx, co[N];
static volatile unsigned long sink;

__attribute__((noinline)) static void work(int d)
{
	if (d) {
		work(d - 1);
		sink++;
		return;
	}
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
}

static void body(int k)
{
	for (;;) {
		work(5 + k);
		swapcontext(&co[k], &main_ctx);
	}
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, t0;
	unsigned long switches = 0;

	for (int k = 0; k < N; k++) {
		getcontext(&co[k]);
		co[k].uc_stack.ss_sp = malloc(65536);
		co[k].uc_stack.ss_size = 65536;
		co[k].uc_link = &main_ctx;
		makecontext(&co[k], (void (*)(void))body, 1, k);
	}
	t0 = rec_cpu_ms();
	while (rec_cpu_ms() - t0 < ms)
		for (int k = 0; k < N; k++, switches += 2)
			swapcontext(&main_ctx, &co[k]);
	printf("ok\n");
	/* + the N getcontexts */
	fprintf(stderr, "own_sigprocmask=%lu\n", switches + N);
	return 0;
}
