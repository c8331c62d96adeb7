/* unwinder: real signals land in a known call chain; the captured pcs must
 * name the chain's functions in order.  Built with -fno-omit-frame-pointer
 * (for UW_MODE_FP) and without sibling calls, so every level keeps a frame.
 * The chain's functions live in their own sections, whose __start_/__stop_
 * symbols give exact address ranges to check pcs against. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/harness.h"
#include "unwinder/internal.h"
#include "unwinder/unwind.h"

/* Address ranges of the functions a sample is checked against. */
T_RANGE(uwt_spin);
T_RANGE(uwt_chain);
T_RANGE(uwt_root);
T_RANGE(uwt_mid);
T_RANGE(uwt_usr1);
extern const char uwt_badfp_begin[], uwt_badfp_end[];

struct range {
	uintptr_t lo, hi;
};
#define R(s) ((struct range){ (uintptr_t)__start_##s, (uintptr_t)__stop_##s })

static bool in(struct range r, uintptr_t pc)
{
	return pc >= r.lo && pc < r.hi;
}

enum leaf {
	LEAF_SPIN,	/* spins in a plain C function */
	LEAF_BADFP,	/* spins in asm with rbp set to garbage */
	LEAF_NESTED,	/* spins in a SIGUSR1 handler running on the sigaltstack */
};

enum badfp {
	BAD_NONE,
	BAD_NONCANONICAL,	/* not a user address at all */
	BAD_UNALIGNED,		/* inside the stack, not 8-byte aligned */
	BAD_BELOW_SP,		/* inside the stack bounds but below sp */
	BAD_UNMAPPED,		/* a page that was unmapped */
	BAD_PROT_NONE,		/* a mapped page that cannot be read */
	BAD_LOOP,		/* a frame whose saved rbp points to itself */
};

#define MAXPCS 512
#define ALTSTACK_SIZE (256 * 1024)

/* What the signal handler sees and records; one case at a time. */
static struct probe {
	struct range accept;	/* a sample counts only if it lands here */
	enum leaf leaf;
	int max;
	atomic_int armed, done;
	uintptr_t pcs[MAXPCS];
	int n;
	unsigned flags;
	bool on_altstack;
	greg_t gregs[NGREG];
} probe;

static __thread struct uw_thread tls_uw;
static __thread uintptr_t alt_lo, alt_hi;

/* The cached walk against libunwind alone, on every sample. */
static struct agree {
	atomic_int active;
	atomic_int fired;	/* the handler ran: the loop re-arms the timer */
	int samples, mismatches, deep;
	uintptr_t bad_pc;	/* the first mismatch */
	int bad_n[2], bad_at;
	unsigned bad_flags[2];
} agree;

static void compare_walks(const ucontext_t *uc)
{
	uintptr_t a[128], b[128];
	unsigned fa, fb;
	int max = agree.samples % 3 ? 128 : 6, na, nb, i;

	na = uw_capture(&tls_uw, uc, a, max, &fa);
	nb = uw_walk_libunwind(&tls_uw, uc, b, max, (fb = 0, &fb));
	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		;
	if ((na != nb || fa != fb || i < na) && agree.mismatches++ == 0) {
		agree.bad_pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
		agree.bad_n[0] = na;
		agree.bad_n[1] = nb;
		agree.bad_at = i;
		agree.bad_flags[0] = fa;
		agree.bad_flags[1] = fb;
	}
	agree.deep += na > 12;
	agree.samples++;
	atomic_store(&agree.fired, 1);
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	const ucontext_t *uc = ucv;
	int saved = errno;
	char here;

	(void)sig;
	(void)si;
	if (atomic_load(&agree.active))
		compare_walks(uc);
	else if (atomic_load(&probe.armed) && !atomic_load(&probe.done) &&
	    in(probe.accept, (uintptr_t)uc->uc_mcontext.gregs[REG_RIP])) {
		probe.n = uw_capture(&tls_uw, uc, probe.pcs, probe.max, &probe.flags);
		probe.on_altstack = (uintptr_t)&here >= alt_lo && (uintptr_t)&here < alt_hi;
		memcpy(probe.gregs, uc->uc_mcontext.gregs, sizeof(probe.gregs));
		atomic_store(&probe.done, 1);
	}
	errno = saved;
}

static bool past(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec > deadline->tv_nsec);
}

/* *t = now + ms on CLOCK_MONOTONIC. */
static void deadline_in(struct timespec *t, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += ms % 1000 * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

static struct timespec deadline;

T_IN_SECTION("uwt_spin") T_NOINLINE static int spin(void)
{
	unsigned long i = 0;

	while (!atomic_load_explicit(&probe.done, memory_order_relaxed))
		if ((++i & 0xfffff) == 0 && past(&deadline))
			return -1;
	return 0;
}

/* While the loop between the two labels runs, rbp holds garbage; the
 * compiler's CFI still says CFA = rbp + 16.  The 128 bytes skip the red
 * zone.  Gives up like spin() after the deadline. */
T_IN_SECTION("uwt_badfp") T_NOINLINE static int spin_badfp(uintptr_t bad)
{
	unsigned long budget;

	while (!atomic_load(&probe.done) && !past(&deadline)) {
		budget = 1ul << 22;
		__asm__ volatile("sub $128, %%rsp\n\t"
				 "push %%rbp\n\t"
				 "mov %[bad], %%rbp\n"
				 ".globl uwt_badfp_begin\n"
				 "uwt_badfp_begin:\n\t"
				 "pause\n\t"
				 "cmpl $0, %[done]\n\t"
				 "jne 1f\n\t"
				 "dec %[budget]\n\t"
				 "jnz uwt_badfp_begin\n"
				 "1:\n"
				 ".globl uwt_badfp_end\n"
				 "uwt_badfp_end:\n\t"
				 "pop %%rbp\n\t"
				 "add $128, %%rsp\n\t"
				 : [budget] "+r"(budget)
				 : [bad] "r"(bad), [done] "m"(probe.done)
				 : "memory", "cc");
	}
	return atomic_load(&probe.done) ? 0 : -1;
}

T_IN_SECTION("uwt_usr1") T_NOINLINE static void on_usr1(int sig)
{
	unsigned long i = 0;

	(void)sig;
	while (!atomic_load_explicit(&probe.done, memory_order_relaxed))
		if ((++i & 0xfffff) == 0 && past(&deadline))
			return;
}

T_IN_SECTION("uwt_mid") T_NOINLINE static int raise_nested(void)
{
	/* pthread_kill, not raise: the SIGUSR1 handler must run in this thread. */
	int ret = pthread_kill(pthread_self(), SIGUSR1);

	__asm__ volatile("" ::: "memory");
	return ret ? -1 : atomic_load(&probe.done) ? 0 : -1;
}

static volatile int sink;

T_IN_SECTION("uwt_chain") T_NOINLINE static int chain(int n, enum leaf leaf, uintptr_t bad)
{
	int ret;

	if (n > 1)
		ret = chain(n - 1, leaf, bad);
	else if (leaf == LEAF_BADFP)
		ret = spin_badfp(bad);
	else if (leaf == LEAF_NESTED)
		ret = raise_nested();
	else
		ret = spin();
	sink = n;	/* work after the call: no tail call, no loop */
	return ret;
}

static uintptr_t bad_value(enum badfp kind, void *loopframe)
{
	static void *unmapped, *prot_none;
	char here;

	switch (kind) {
	case BAD_NONCANONICAL:
		return 0xdead00000000beefu;
	case BAD_UNALIGNED:
		return ((uintptr_t)&here + 256) | 3;
	case BAD_BELOW_SP:
		return ((uintptr_t)&here - 4096) & ~(uintptr_t)15;
	case BAD_UNMAPPED:
		if (!unmapped) {
			unmapped = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			munmap(unmapped, 4096);
		}
		return (uintptr_t)unmapped + 64;
	case BAD_PROT_NONE:
		if (!prot_none)
			prot_none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return (uintptr_t)prot_none + 64;
	case BAD_LOOP:
		return (uintptr_t)loopframe;
	case BAD_NONE:
	default:
		return 0;
	}
}

T_IN_SECTION("uwt_root") T_NOINLINE static int root(int depth, enum leaf leaf, enum badfp bad)
{
	/* A fake frame above the chain: saved rbp = itself, junk return. */
	volatile uintptr_t loopframe[2];
	int ret;

	loopframe[0] = (uintptr_t)loopframe;
	loopframe[1] = 0x1234;
	ret = chain(depth, leaf, bad_value(bad, (void *)loopframe));
	sink = ret;
	return ret;
}

struct sample_case {
	int line;
	const char *name;
	enum uw_mode mode;
	int depth, max;
	bool thread;		/* on a second thread (else the main thread) */
	bool altstack;		/* the SIGPROF handler runs on a sigaltstack */
	enum leaf leaf;
	enum badfp bad;
};

static const struct sample_case sample_cases[] = {
	{ __LINE__, "unwind depth 10", UW_MODE_UNWIND, 10, MAXPCS, false, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "unwind depth 50", UW_MODE_UNWIND, 50, MAXPCS, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "unwind depth 300", UW_MODE_UNWIND, 300, MAXPCS, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "unwind depth 300 main", UW_MODE_UNWIND, 300, MAXPCS, false, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp depth 10", UW_MODE_FP, 10, MAXPCS, false, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp depth 50", UW_MODE_FP, 50, MAXPCS, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp depth 300", UW_MODE_FP, 300, MAXPCS, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp depth 300 main", UW_MODE_FP, 300, MAXPCS, false, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "none depth 10", UW_MODE_NONE, 10, MAXPCS, true, false, LEAF_SPIN, BAD_NONE },
	/* max depth */
	{ __LINE__, "unwind truncated", UW_MODE_UNWIND, 50, 20, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp truncated", UW_MODE_FP, 50, 20, false, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "unwind max = depth + 1", UW_MODE_UNWIND, 10, 11, false, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp max = depth + 1", UW_MODE_FP, 10, 11, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "unwind max 1", UW_MODE_UNWIND, 10, 1, true, false, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp max 1", UW_MODE_FP, 10, 1, true, false, LEAF_SPIN, BAD_NONE },
	/* the handler on a sigaltstack; the interrupted code on the normal stack */
	{ __LINE__, "unwind altstack", UW_MODE_UNWIND, 20, MAXPCS, true, true, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp altstack", UW_MODE_FP, 20, MAXPCS, true, true, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "unwind altstack main", UW_MODE_UNWIND, 20, MAXPCS, false, true, LEAF_SPIN, BAD_NONE },
	{ __LINE__, "fp altstack main", UW_MODE_FP, 20, MAXPCS, false, true, LEAF_SPIN, BAD_NONE },
	/* the interrupted code itself runs on the sigaltstack (a handler) */
	{ __LINE__, "unwind nested", UW_MODE_UNWIND, 10, MAXPCS, true, true, LEAF_NESTED, BAD_NONE },
	{ __LINE__, "fp nested", UW_MODE_FP, 10, MAXPCS, true, true, LEAF_NESTED, BAD_NONE },
	/* rbp is garbage where the signal lands */
	{ __LINE__, "fp bad rbp noncanonical", UW_MODE_FP, 10, MAXPCS, true, false, LEAF_BADFP, BAD_NONCANONICAL },
	{ __LINE__, "fp bad rbp unaligned", UW_MODE_FP, 10, MAXPCS, true, false, LEAF_BADFP, BAD_UNALIGNED },
	{ __LINE__, "fp bad rbp below sp", UW_MODE_FP, 10, MAXPCS, false, false, LEAF_BADFP, BAD_BELOW_SP },
	{ __LINE__, "fp bad rbp unmapped", UW_MODE_FP, 10, MAXPCS, true, false, LEAF_BADFP, BAD_UNMAPPED },
	{ __LINE__, "fp bad rbp prot_none", UW_MODE_FP, 10, MAXPCS, true, false, LEAF_BADFP, BAD_PROT_NONE },
	{ __LINE__, "fp bad rbp loop", UW_MODE_FP, 10, MAXPCS, false, false, LEAF_BADFP, BAD_LOOP },
	{ __LINE__, "unwind bad rbp noncanonical", UW_MODE_UNWIND, 10, MAXPCS, true, false, LEAF_BADFP, BAD_NONCANONICAL },
	{ __LINE__, "unwind bad rbp unaligned", UW_MODE_UNWIND, 10, MAXPCS, true, false, LEAF_BADFP, BAD_UNALIGNED },
	{ __LINE__, "unwind bad rbp unmapped", UW_MODE_UNWIND, 10, MAXPCS, false, false, LEAF_BADFP, BAD_UNMAPPED },
	{ __LINE__, "unwind bad rbp prot_none", UW_MODE_UNWIND, 10, MAXPCS, true, false, LEAF_BADFP, BAD_PROT_NONE },
	{ __LINE__, "unwind bad rbp loop", UW_MODE_UNWIND, 10, MAXPCS, true, false, LEAF_BADFP, BAD_LOOP },
};

/* Index of the first chain frame after pcs[0], as the case predicts it. */
static int first_chain_frame(const struct sample_case *c)
{
	int i;

	if (c->leaf != LEAF_NESTED)
		return 1;
	/* handler, sigreturn trampoline, pthread_kill's frames, raise_nested */
	for (i = 2; i < probe.n && i < 16; i++)
		if (in(R(uwt_chain), probe.pcs[i]))
			return in(R(uwt_mid), probe.pcs[i - 1]) ? i : -1;
	return -1;
}

static void check_chain(const struct sample_case *c)
{
	int first = first_chain_frame(c), i, bad = -1, want_n;

	T_OK(first > 0, "%s: chain found (line %d, first %d, n %d)", c->name, c->line, first, probe.n);
	if (first < 0)
		return;
	want_n = first + c->depth + 1;	/* ... chain, root: and more above */
	for (i = first; i < probe.n && i < want_n && bad < 0; i++)
		if (!in(i < first + c->depth ? R(uwt_chain) : R(uwt_root), probe.pcs[i]))
			bad = i;
	T_OK(bad < 0, "%s: frames in order (line %d, first wrong pcs[%d] of %d)", c->name, c->line,
	     bad, probe.n);
	if (c->max >= want_n)
		T_OK(probe.n > want_n && !(probe.flags & UW_TRUNCATED),
		     "%s: whole chain and its callers (line %d, n %d, want > %d, flags %#x)", c->name,
		     c->line, probe.n, want_n, probe.flags);
	else
		T_OK(probe.n == c->max && (probe.flags & UW_TRUNCATED) &&
			     !(probe.flags & UW_FAILED),
		     "%s: truncated at max (line %d, n %d, flags %#x)", c->name, c->line, probe.n,
		     probe.flags);
	/* Both walks reach the outermost frame: libunwind by CFI, the rbp walk
	 * at a zero rbp (threads) or at glibc's start code (main thread). */
	if (c->max >= want_n)
		T_OK(probe.flags == 0, "%s: reached the outermost frame (line %d, flags %#x)",
		     c->name, c->line, probe.flags);
}

static void check_sample(const struct sample_case *c)
{
	T_OK(probe.n >= 1 && probe.n <= c->max && in(probe.accept, probe.pcs[0]),
	     "%s: pcs[0] is the interrupted pc (line %d, n %d)", c->name, c->line, probe.n);
	T_OK(probe.on_altstack == c->altstack, "%s: handler %s the sigaltstack (line %d)", c->name,
	     c->altstack ? "on" : "off", c->line);
	if (c->mode == UW_MODE_NONE) {
		T_OK(probe.n == 1 && probe.flags == 0, "%s: leaf only (line %d, n %d, flags %#x)",
		     c->name, c->line, probe.n, probe.flags);
	} else if (c->leaf == LEAF_BADFP) {
		/* No fault (we got here) and no made-up stack: the walk fails,
		 * or stops within the two words of the fake loop frame. */
		T_OK((probe.flags & UW_FAILED) || probe.n <= 3,
		     "%s: stops on the bad rbp (line %d, n %d, flags %#x)", c->name, c->line,
		     probe.n, probe.flags);
		if (c->mode == UW_MODE_FP)
			T_OK(probe.n <= 2 && (probe.flags & UW_FAILED),
			     "%s: fp walk rejects the bad rbp (line %d, n %d, flags %#x)", c->name,
			     c->line, probe.n, probe.flags);
	} else if (c->leaf == LEAF_NESTED && c->mode == UW_MODE_FP) {
		/* sp is on the sigaltstack: outside the bounds, nothing to check */
		T_OK(probe.n == 1 && probe.flags == UW_FAILED,
		     "%s: leaf only off the thread's stack (line %d, n %d, flags %#x)", c->name,
		     c->line, probe.n, probe.flags);
	} else if (c->max == 1) {
		T_OK(probe.n == 1 && probe.flags == UW_TRUNCATED,
		     "%s: one pc, truncated (line %d, n %d, flags %#x)", c->name, c->line, probe.n,
		     probe.flags);
	} else {
		check_chain(c);
	}
}

/* Runs in the thread under test: arm a CPU timer aimed at this thread,
 * enter the chain, and wait for a sample to land where the case wants it. */
static void *run_case(void *arg)
{
	const struct sample_case *c = arg;
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF };
	struct itimerspec its = { .it_value.tv_nsec = 1000000, .it_interval.tv_nsec = 1000000 };
	stack_t ss = { .ss_size = ALTSTACK_SIZE }, old;
	timer_t timer;
	int ret;

	ret = uw_thread_init(&tls_uw, c->mode);
	T_OK(ret == 0, "%s: uw_thread_init (line %d, %d)", c->name, c->line, ret);
	if (c->altstack) {
		ss.ss_sp = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		alt_lo = (uintptr_t)ss.ss_sp;
		alt_hi = alt_lo + ALTSTACK_SIZE;
		sigaltstack(&ss, &old);
	}
	memset(&probe, 0, sizeof(probe));
	probe.max = c->max;
	probe.leaf = c->leaf;
	probe.accept = c->leaf == LEAF_BADFP	? (struct range){ (uintptr_t)uwt_badfp_begin,
								  (uintptr_t)uwt_badfp_end }
		       : c->leaf == LEAF_NESTED ? R(uwt_usr1)
						: R(uwt_spin);
	sev._sigev_un._tid = gettid();	/* sigev_notify_thread_id: glibc >= 2.37 */
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) < 0) {
		T_OK(0, "%s: timer_create (line %d, errno %d)", c->name, c->line, errno);
		return NULL;
	}
	deadline_in(&deadline, 2000);
	atomic_store(&probe.armed, 1);
	timer_settime(timer, 0, &its, NULL);
	ret = root(c->depth, c->leaf, c->bad);
	atomic_store(&probe.armed, 0);
	timer_delete(timer);
	if (c->altstack) {
		const unsigned char *p = ss.ss_sp;

		/* The altstack came zeroed: the lowest byte written shows how
		 * deep the handler (kernel signal frame included) went. */
		while (p < (const unsigned char *)alt_hi && !*p)
			p++;
		T_OK(alt_hi - (uintptr_t)p <= 64 * 1024,
		     "%s: the handler used %lu bytes of the sigaltstack (line %d)", c->name,
		     (unsigned long)(alt_hi - (uintptr_t)p), c->line);
		ss.ss_flags = SS_DISABLE;
		sigaltstack(&ss, NULL);
		munmap(ss.ss_sp, ALTSTACK_SIZE);
		alt_lo = alt_hi = 0;
	}
	T_OK(ret == 0 && atomic_load(&probe.done), "%s: a sample landed (line %d)", c->name, c->line);
	if (atomic_load(&probe.done))
		check_sample(c);
	return NULL;
}

static void run_sample_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(sample_cases) / sizeof(sample_cases[0]); i++) {
		const struct sample_case *c = &sample_cases[i];
		pthread_t th;

		if (!c->thread) {
			run_case((void *)c);
		} else if (pthread_create(&th, NULL, run_case, (void *)c) == 0) {
			pthread_join(th, NULL);
		} else {
			T_OK(0, "%s: pthread_create (line %d)", c->name, c->line);
		}
	}
}

T_NOINLINE static unsigned work(unsigned x)
{
	char buf[64];

	/* into libc: frames without frame pointers, described by CFI only */
	snprintf(buf, sizeof(buf), "%u %x %s", x, x * 7, x & 1 ? "odd" : "even");
	return (unsigned)strlen(buf) + x;
}

T_NOINLINE static unsigned busy(int n, unsigned x)
{
	if (n == 0)
		return work(x);
	x = work(x);
	x += busy(n - 1, x);
	return x ^ (unsigned)n;
}

/* Samples land anywhere: prologues, epilogues, libc, the vDSO.  The timer
 * is one-shot and re-armed by the loop, never by the handler: where the two
 * walks take longer than the period (slow interrupts, a loaded host), a
 * periodic timer would leave the loop no time to run at all.  The loop
 * runs for at least 300 ms and until 300 samples were compared, and never
 * longer than 20 s. */
static void *run_agree(void *arg)
{
	const char *who = arg;
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF };
	struct itimerspec its = { .it_value.tv_nsec = 50000 };
	struct timespec end, give_up;
	timer_t timer;
	unsigned x = 0;
	int d;

	T_OK(uw_thread_init(&tls_uw, UW_MODE_UNWIND) == 0, "agree %s: uw_thread_init", who);
	memset(&agree, 0, sizeof(agree));
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0) {
		T_OK(0, "agree %s: timer_create (errno %d)", who, errno);
		return NULL;
	}
	deadline_in(&end, 300);
	deadline_in(&give_up, 20000);
	atomic_store(&agree.active, 1);
	atomic_store(&agree.fired, 1);
	while ((!past(&end) || agree.samples < 300) && !past(&give_up))
		for (d = 1; d < 40; d++) {
			if (atomic_exchange(&agree.fired, 0))
				timer_settime(timer, 0, &its, NULL);
			x += busy(d, x);
		}
	atomic_store(&agree.active, 0);
	timer_delete(timer);
	sink = (int)x;
	T_OK(agree.samples >= 200 && agree.deep >= 50, "agree %s: %d samples, %d deep", who,
	     agree.samples, agree.deep);
	T_OK(agree.mismatches == 0,
	     "agree %s: cached walk = libunwind walk (%d mismatches; first at pc %#lx: n %d vs %d, "
	     "pcs differ at %d, flags %#x vs %#x)",
	     who, agree.mismatches, (unsigned long)agree.bad_pc, agree.bad_n[0], agree.bad_n[1],
	     agree.bad_at, agree.bad_flags[0], agree.bad_flags[1]);
	return NULL;
}

static void run_agree_cases(void)
{
	pthread_t th;

	run_agree("main thread");
	pthread_create(&th, NULL, run_agree, "second thread");
	pthread_join(th, NULL);
	/* again with every thread's cache dropped: learned afresh */
	T_OK(uw_cache_flush() == 0, "uw_cache_flush");
	run_agree("main thread, flushed");
}

/* getcontext returns twice: kept out of the loops that use its result. */
T_NOINLINE static void fill_context(ucontext_t *uc)
{
	getcontext(uc);
}

/* A capture of the caller's own, live stack. */
T_NOINLINE static int capture_here(const struct uw_thread *t, unsigned *flags)
{
	ucontext_t uc;
	uintptr_t pcs[64];

	if (getcontext(&uc) < 0)
		return -1;
	return uw_capture(t, &uc, pcs, 64, flags);
}

/* fork() while another thread is inside libunwind: libunwind's locks are
 * plain mutexes, and a child forked while one was held would hang on it
 * forever (with every signal blocked).  uw_global_init's fork handlers
 * wait for captures inside libunwind to leave first. */
static atomic_int churning;

static void *churn_libunwind(void *arg)
{
	struct uw_thread t;
	unsigned flags;

	(void)arg;
	uw_thread_init(&t, UW_MODE_UNWIND);
	while (atomic_load(&churning)) {
		uw_cache_flush();	/* every capture learns: always in libunwind */
		capture_here(&t, &flags);
	}
	return NULL;
}

static void run_fork_case(void)
{
	int i, hung = 0, bad = 0, forks = 40;
	pthread_t th;

	atomic_store(&churning, 1);
	pthread_create(&th, NULL, churn_libunwind, NULL);
	usleep(20000);
	for (i = 0; i < forks; i++) {
		int status = 0, waited = 0;
		pid_t pid = fork();

		if (pid == 0) {
			struct uw_thread t;
			unsigned flags = 0;
			int n;

			uw_thread_init(&t, UW_MODE_UNWIND);
			uw_cache_flush();
			n = capture_here(&t, &flags);
			_exit(n > 2 && !(flags & UW_FAILED) ? 0 : 3);
		}
		if (pid < 0)
			break;
		while (waitpid(pid, &status, WNOHANG) == 0 && waited < 2000) {
			usleep(1000);
			waited++;
		}
		if (waited >= 2000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			hung++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			bad++;
		}
		usleep(2000);
	}
	atomic_store(&churning, 0);
	pthread_join(th, NULL);
	T_OK(i == forks && hung == 0 && bad == 0,
	     "fork while another thread unwinds: %d children, %d hung, %d failed to unwind", i, hung,
	     bad);
}

/* Crafted contexts: registers from a real sample with one of them spoiled.
 * Nothing may fault; the frame-pointer walk must refuse. */
struct craft_case {
	int line;
	const char *name;
	int reg;		/* REG_RBP, REG_RSP or REG_RIP */
	enum badfp bad;
	uintptr_t value;	/* when bad == BAD_NONE */
};

static const struct craft_case craft_cases[] = {
	{ __LINE__, "rbp noncanonical", REG_RBP, BAD_NONCANONICAL, 0 },
	{ __LINE__, "rbp unaligned", REG_RBP, BAD_UNALIGNED, 0 },
	{ __LINE__, "rbp unmapped", REG_RBP, BAD_UNMAPPED, 0 },
	{ __LINE__, "rbp prot_none", REG_RBP, BAD_PROT_NONE, 0 },
	{ __LINE__, "rbp in the null page", REG_RBP, BAD_NONE, 0x10 },
	{ __LINE__, "rbp all ones", REG_RBP, BAD_NONE, ~(uintptr_t)7 },
	{ __LINE__, "rsp noncanonical", REG_RSP, BAD_NONCANONICAL, 0 },
	{ __LINE__, "rsp unmapped", REG_RSP, BAD_UNMAPPED, 0 },
	{ __LINE__, "rsp zero", REG_RSP, BAD_NONE, 0 },
	{ __LINE__, "rip zero", REG_RIP, BAD_NONE, 0 },
	{ __LINE__, "rip unmapped", REG_RIP, BAD_UNMAPPED, 0 },
};

static void run_craft_cases(const greg_t *gregs)
{
	static const enum uw_mode modes[] = { UW_MODE_FP, UW_MODE_UNWIND };
	struct uw_thread t;
	uintptr_t pcs[64];
	size_t i, m;

	for (m = 0; m < 2; m++) {
		T_OK(uw_thread_init(&t, modes[m]) == 0, "craft: uw_thread_init mode %d", modes[m]);
		for (i = 0; i < sizeof(craft_cases) / sizeof(craft_cases[0]); i++) {
			const struct craft_case *c = &craft_cases[i];
			ucontext_t uc;
			unsigned flags;
			int n;

			fill_context(&uc);
			memcpy(uc.uc_mcontext.gregs, gregs, sizeof(uc.uc_mcontext.gregs));
			uc.uc_mcontext.gregs[c->reg] =
				(greg_t)(c->bad == BAD_NONE ? c->value : bad_value(c->bad, NULL));
			n = uw_capture(&t, &uc, pcs, 64, &flags);
			T_OK(n >= 1 && pcs[0] == (uintptr_t)uc.uc_mcontext.gregs[REG_RIP],
			     "craft %s, %s: no fault, pcs[0] = rip (line %d, n %d, flags %#x)",
			     modes[m] == UW_MODE_FP ? "fp" : "unwind", c->name, c->line, n, flags);
			if (modes[m] == UW_MODE_FP && c->reg != REG_RIP)
				T_OK(n == 1 && flags == UW_FAILED,
				     "craft fp, %s: refused (line %d, n %d, flags %#x)", c->name,
				     c->line, n, flags);
		}
	}
}

/* Stack bounds: the current sp inside, a caller-supplied stack exactly. */
static void *check_bounds(void *arg)
{
	const char *who = arg;
	struct uw_thread t;
	pthread_attr_t attr;
	void *addr;
	size_t size;
	char here;
	int ret;

	ret = uw_thread_init(&t, UW_MODE_FP);
	T_OK(ret == 0 && t.mode == UW_MODE_FP, "bounds %s: uw_thread_init (%d)", who, ret);
	T_OK(t.stack_lo < (uintptr_t)&here && (uintptr_t)&here < t.stack_hi,
	     "bounds %s: sp within [%#lx, %#lx)", who, (unsigned long)t.stack_lo,
	     (unsigned long)t.stack_hi);
	T_OK(t.stack_hi - t.stack_lo >= 16 * 1024, "bounds %s: %lu KiB", who,
	     (unsigned long)(t.stack_hi - t.stack_lo) / 1024);
	if (strcmp(who, "own stack") == 0) {
		pthread_getattr_np(pthread_self(), &attr);
		pthread_attr_getstack(&attr, &addr, &size);
		pthread_attr_destroy(&attr);
		T_OK(t.stack_lo == (uintptr_t)addr && t.stack_hi == (uintptr_t)addr + size,
		     "bounds %s: the stack the creator gave", who);
	}
	return NULL;
}

static void run_bounds_cases(void)
{
	static char own_stack[256 * 1024] __attribute__((aligned(4096)));
	pthread_attr_t attr;
	pthread_t th;

	check_bounds("main thread");
	pthread_create(&th, NULL, check_bounds, "second thread");
	pthread_join(th, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, own_stack, sizeof(own_stack));
	pthread_create(&th, &attr, check_bounds, "own stack");
	pthread_join(th, NULL);
	pthread_attr_destroy(&attr);
}

static void run_argument_cases(void)
{
	struct uw_thread t;
	ucontext_t uc;
	uintptr_t pcs[4];
	unsigned flags;

	T_OK(uw_thread_init(&t, (enum uw_mode)42) == -EINVAL, "args: unknown mode is -EINVAL");
	T_OK(uw_thread_init(NULL, UW_MODE_FP) == -EINVAL, "args: NULL thread is -EINVAL");
	uw_thread_init(&t, UW_MODE_UNWIND);
	T_OK(uw_capture(&t, NULL, pcs, 4, &flags) == 0 && flags == UW_FAILED,
	     "args: NULL context gives nothing, UW_FAILED");
	fill_context(&uc);
	T_OK(uw_capture(&t, &uc, pcs, 0, &flags) == 0 && flags == UW_TRUNCATED,
	     "args: max 0 gives nothing, UW_TRUNCATED");
	T_OK(uw_capture(NULL, &uc, pcs, 4, &flags) == 1 && flags == 0 &&
		     pcs[0] == (uintptr_t)uc.uc_mcontext.gregs[REG_RIP],
	     "args: no thread state means leaf only");
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = on_prof, .sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK };
	struct sigaction su = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };

	T_OK(uw_global_init() == 0, "uw_global_init");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	sigemptyset(&su.sa_mask);
	sigaction(SIGUSR1, &su, NULL);

	run_bounds_cases();
	run_argument_cases();
	run_sample_cases();
	run_agree_cases();
	run_fork_case();
	/* the first case's registers, from a real sample in spin() */
	run_case((void *)&sample_cases[0]);
	run_craft_cases(probe.gregs);
	return T_DONE();
}
