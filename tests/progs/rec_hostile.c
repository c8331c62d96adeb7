/* rec_hostile MODE [ARG]: programs that notice a careless profiler.  Each
 * prints what it saw and a checksum over the memory it can see of itself,
 * so tests/integration/record_hostile.sh compares a run alone with a run
 * under `pmcprof record` line by line, and the exit status too.
 *   smallstack [KIB]  a thread on a 64 KiB (KIB) stack uses ~52 KB of it
 *   coro           32 ucontext coroutines on 16 KiB stacks, canaries below
 *   altstack       its own sigaltstack: a SIGUSR1 handler checks it runs
 *                  there, a stack overflow is caught there and jumped out of
 *   kill SIG       ask the disposition of SIG (default), then die of it
 *   pipe           write into a pipe whose reader is gone (SIGPIPE)
 *   exitrace N     N threads call exit(3) at the same moment
 *   longjmp        a SIGALRM handler every 500 us siglongjmps out
 *   sigwait        blocks every signal with the raw syscall, then takes
 *                  signals with sigtimedwait, sigwaitinfo, sigwait and
 *                  signalfd on full sets: only its own SIGUSR1/2 may come
 *   seccomp-strict | seccomp-kill | seccomp-eperm | seccomp-syscall
 *                  enter seccomp after burning: strict mode (prctl), a
 *                  filter that kills on anything but a few calls (prctl),
 *                  one that answers EPERM to open/openat (prctl), the kill
 *                  filter through syscall(SYS_seccomp) with TSYNC
 *   deep MS        burn MS ms at the bottom of a 3000-deep recursion */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "rec_common.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

#define FNV0 0xcbf29ce484222325ull

/* ---- smallstack ---- */

/* ~1 KB per frame, each frame's bytes folded into the sum. */
__attribute__((noinline)) static uint64_t frames(int n, uint64_t salt, double burn_ms)
{
	volatile unsigned char pad[1000];
	uint64_t h;

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = (unsigned char)(i * salt + n);
	if (n == 0) {
		REC_BURN(burn_ms, salt);
		h = FNV0;
	} else {
		h = frames(n - 1, salt, burn_ms);
	}
	for (size_t i = 0; i < sizeof(pad); i += 64)
		h = fnv(h, (const void *)&pad[i], 1);
	return h;
}

static void *small_thread(void *p)
{
	uint64_t h = FNV0;

	for (int r = 0; r < 150; r++)
		h ^= frames(48, (uint64_t)r + 1, 1);
	*(uint64_t *)p = h;
	return NULL;
}

static int mode_smallstack(int kib)
{
	pthread_attr_t a;
	pthread_t t;
	uint64_t h = 0;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)(kib > 0 ? kib : 64) << 10);
	if (pthread_create(&t, &a, small_thread, &h))
		return 2;
	pthread_join(t, NULL);
	printf("smallstack sum %016llx\n", (unsigned long long)h);
	return 0;
}

/* ---- coro ---- */

#define N_CORO 32
#define CORO_STACK (16 << 10)
#define CANARY 4096

static ucontext_t main_uc, coro_uc[N_CORO];
static unsigned char *coro_mem;
static uint64_t coro_sum[N_CORO];

static void coro_body(int i)
{
	for (int r = 0; r < 20; r++) {
		coro_sum[i] ^= frames(8, (uint64_t)i * 131 + r, 0.2);
		swapcontext(&coro_uc[i], &main_uc);
	}
}

static int mode_coro(void)
{
	size_t slot = CANARY + CORO_STACK;
	int damaged = 0;
	uint64_t h = FNV0;

	coro_mem = malloc(slot * N_CORO + CANARY);
	if (!coro_mem)
		return 2;
	memset(coro_mem, 0xa5, slot * N_CORO + CANARY);
	for (int i = 0; i < N_CORO; i++) {
		getcontext(&coro_uc[i]);
		/* [canary][stack]: the canary is the memory just below the stack. */
		coro_uc[i].uc_stack.ss_sp = coro_mem + i * slot + CANARY;
		coro_uc[i].uc_stack.ss_size = CORO_STACK;
		coro_uc[i].uc_link = &main_uc;
		makecontext(&coro_uc[i], (void (*)(void))coro_body, 1, i);
	}
	for (int r = 0; r < 20; r++)
		for (int i = 0; i < N_CORO; i++)
			swapcontext(&main_uc, &coro_uc[i]);
	for (int i = 0; i < N_CORO; i++) {
		const unsigned char *c = coro_mem + i * slot;
		bool bad = false;

		for (size_t k = 0; k < CANARY; k++)
			bad |= c[k] != 0xa5;
		damaged += bad;
		h = fnv(h, &coro_sum[i], sizeof(coro_sum[i]));
	}
	printf("coro canaries damaged %d of %d, sum %016llx\n", damaged, N_CORO,
	       (unsigned long long)h);
	return damaged ? 1 : 0;
}

/* ---- altstack ---- */

static unsigned char *own_stack;
static size_t own_size;
static volatile int usr1_on_own, usr1_runs;
static sigjmp_buf overflow_jmp;

static bool on_own_stack(void)
{
	unsigned char probe;

	return &probe >= own_stack && &probe < own_stack + own_size;
}

static void on_usr1(int s)
{
	(void)s;
	usr1_runs++;
	usr1_on_own += on_own_stack();
	REC_BURN(0.5, 7);
}

static void on_segv(int s)
{
	(void)s;
	if (on_own_stack())
		siglongjmp(overflow_jmp, 1);
	siglongjmp(overflow_jmp, 2);
}

__attribute__((noinline)) static int recurse(int n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	return recurse(n + 1) + pad[0];
}

static int mode_altstack(void)
{
	struct sigaction sa;
	stack_t ss, cur;
	int how;

	/* A program that set none sees none (a profiler's is not its own). */
	sigaltstack(NULL, &cur);
	printf("altstack: at start disabled %d\n", !!(cur.ss_flags & SS_DISABLE));
	own_size = 256 << 10;
	own_stack = malloc(own_size);
	ss.ss_sp = own_stack;
	ss.ss_size = own_size;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < 100; i++) {
		REC_BURN(1, 11);
		raise(SIGUSR1);
	}
	sigaltstack(NULL, &cur);
	printf("altstack: reported back %s, flags %d\n",
	       cur.ss_sp == own_stack && cur.ss_size == own_size ? "ours" : "another",
	       cur.ss_flags);
	printf("altstack: SIGUSR1 ran %d times, %d on the program's stack\n", usr1_runs,
	       usr1_on_own);
	how = sigsetjmp(overflow_jmp, 1);
	if (!how)
		recurse(0);
	printf("altstack: overflow caught %s\n", how == 1 ? "on the program's stack" : "elsewhere");
	/* Off again: the call must answer as the kernel would. */
	ss.ss_flags = SS_DISABLE;
	printf("altstack: disable -> %d\n", sigaltstack(&ss, NULL));
	sigaltstack(NULL, &cur);
	printf("altstack: now disabled %d\n", !!(cur.ss_flags & SS_DISABLE));
	/* Signals go on after it is gone (the profiler's stack is back). */
	for (int i = 0; i < 50; i++)
		REC_BURN(1, 13);
	printf("altstack: ran on after disabling it\n");
	free(own_stack);
	return 0;
}

/* ---- fatal signals ---- */

__attribute__((noinline)) static void burn_before_death(void)
{
	REC_BURN(60, 13);
}

static int mode_kill(int sig)
{
	struct sigaction old;

	burn_before_death();
	sigaction(sig, NULL, &old);
	printf("signal %d: disposition %s\n", sig,
	       old.sa_handler == SIG_DFL ? "SIG_DFL" : old.sa_handler == SIG_IGN ? "SIG_IGN" : "a handler");
	printf("signal(%d) gives back %s\n", sig, signal(sig, SIG_DFL) == SIG_DFL ? "SIG_DFL" : "other");
	fflush(stdout);
	raise(sig);
	printf("survived\n");
	return 0;
}

static int mode_pipe(void)
{
	int p[2];

	burn_before_death();
	if (pipe(p) < 0)
		return 2;
	close(p[0]);
	printf("writing into a closed pipe\n");
	fflush(stdout);
	write(p[1], "x", 1);
	printf("survived\n");
	return 0;
}

/* ---- exitrace ---- */

static pthread_barrier_t race_bar;

static void *race_thread(void *p)
{
	(void)p;
	REC_BURN(10, 17);
	pthread_barrier_wait(&race_bar);
	exit(3);
}

static int mode_exitrace(int n)
{
	pthread_t t;

	pthread_barrier_init(&race_bar, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, race_thread, NULL);
	for (;;)
		pause();
}

/* ---- longjmp ---- */

static sigjmp_buf alrm_jmp;
static volatile unsigned long jumps;
static volatile sig_atomic_t jumping;

static void on_alrm(int s)
{
	(void)s;
	if (!jumping)
		return;
	jumps++;
	siglongjmp(alrm_jmp, 1);
}

__attribute__((noinline)) static void burn_jumping(double ms)
{
	double t0 = rec_cpu_ms();
	volatile unsigned long x = 0;

	sigsetjmp(alrm_jmp, 1);
	jumping = 1;
	while (rec_cpu_ms() - t0 < ms)
		for (int i = 0; i < 20000; i++)
			x += (unsigned long)i * 19;
	jumping = 0;
}

static int mode_longjmp(void)
{
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	burn_jumping(400);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("longjmp: jumped %s\n", jumps > 10 ? "many times" : "too rarely");
	return 0;
}

/* ---- sigwait ---- */

__attribute__((noinline)) static void burn_blocked(void)
{
	REC_BURN(50, 23);
}

static int mode_sigwait(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t all;
	siginfo_t si;
	int s, fd, stray = 0;

	sigfillset(&all);
	/* The raw call: nothing between the program and the kernel. */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, _NSIG / 8);
	for (int round = 0; round < 4; round++) {
		burn_blocked();
		kill(getpid(), SIGUSR1);
		switch (round) {
		case 0:
			s = sigtimedwait(&all, &si, &zero);
			break;
		case 1:
			s = sigwaitinfo(&all, &si);
			break;
		case 2:
			if (sigwait(&all, &s))
				s = -1;
			break;
		default: {
			struct signalfd_siginfo ss;

			fd = signalfd(-1, &all, SFD_CLOEXEC);
			s = fd >= 0 && read(fd, &ss, sizeof(ss)) == sizeof(ss) ? (int)ss.ssi_signo : -1;
			close(fd);
		}
		}
		if (s != SIGUSR1)
			stray++;
		printf("sigwait round %d: got %s\n", round, s == SIGUSR1 ? "SIGUSR1" : "something else");
		/* Anything else queued is a stray too. */
		while ((s = sigtimedwait(&all, &si, &zero)) > 0) {
			stray++;
			printf("sigwait round %d: stray signal\n", round);
		}
	}
	return stray ? 1 : 0;
}

/* ---- seccomp ---- */

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static struct sock_filter kill_filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	ALLOW(__NR_read), ALLOW(__NR_write), ALLOW(__NR_exit), ALLOW(__NR_exit_group),
	ALLOW(__NR_rt_sigreturn), ALLOW(__NR_fstat), ALLOW(__NR_newfstatat),
	ALLOW(__NR_brk), ALLOW(__NR_mmap), ALLOW(__NR_munmap),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

static struct sock_filter eperm_filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __NR_open
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 1, 0),
#else	/* arm64 has openat only */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 1, 0),
#endif
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
};

__attribute__((noinline)) static void burn_before_seccomp(void)
{
	REC_BURN(100, 29);
}

__attribute__((noinline)) static void burn_in_seccomp(void)
{
	REC_BURN_NOCLOCK(31);
}

static int mode_seccomp(const char *how)
{
	struct sock_fprog kill_prog = { sizeof(kill_filter) / sizeof(kill_filter[0]), kill_filter };
	struct sock_fprog eperm_prog = { sizeof(eperm_filter) / sizeof(eperm_filter[0]),
					 eperm_filter };
	static const char msg[] = "seccomp: still running\n";
	int ret;

	burn_before_seccomp();
	printf("seccomp %s: entering\n", how);
	fflush(stdout);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (!strcmp(how, "strict")) {
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
		burn_in_seccomp();
		write(1, msg, sizeof(msg) - 1);
		/* Strict mode allows exit, not exit_group. */
		syscall(SYS_exit, ret ? 9 : 0);
	} else if (!strcmp(how, "kill")) {
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &kill_prog);
	} else if (!strcmp(how, "syscall")) {
		ret = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
				   &kill_prog);
	} else {
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &eperm_prog);
		printf("seccomp: open gives %s\n",
		       open("/dev/null", O_RDONLY) < 0 && errno == EPERM ? "EPERM" : "a descriptor");
	}
	burn_in_seccomp();
	printf("seccomp %s: filter %s, still running\n", how, ret == 0 ? "on" : "refused");
	fflush(stdout);
	return 0;
}

/* ---- deep ---- */

static double deep_ms;

__attribute__((noinline)) static uint64_t deep(int n)
{
	volatile uint64_t v = (uint64_t)n;

	if (n == 0) {
		REC_BURN(deep_ms, 37);
		return 1;
	}
	return deep(n - 1) + v;
}

/* The modes by name: run() takes no argument, run_n() ARG as a number. */
static const struct {
	const char *name;
	int (*run)(void);
	int (*run_n)(int);
} modes[] = {
	{ "smallstack", NULL, mode_smallstack },
	{ "coro", mode_coro, NULL },
	{ "altstack", mode_altstack, NULL },
	{ "kill", NULL, mode_kill },
	{ "pipe", mode_pipe, NULL },
	{ "exitrace", NULL, mode_exitrace },
	{ "longjmp", mode_longjmp, NULL },
	{ "sigwait", mode_sigwait, NULL },
};

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "0";

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(mode, modes[i].name))
			return modes[i].run ? modes[i].run() : modes[i].run_n(atoi(arg));
	if (!strncmp(mode, "seccomp-", 8))
		return mode_seccomp(mode + 8);
	if (!strcmp(mode, "deep")) {
		deep_ms = atof(arg);
		printf("deep: %llu\n", (unsigned long long)deep(3000));
		return 0;
	}
	fprintf(stderr, "usage: rec_hostile MODE [ARG]\n");
	return 2;
}
