/* The sampling signal handler and everything it runs, in one file.
 *
 * ASYNC-SIGNAL-SAFE: every function here runs inside a signal handler.
 * No malloc, no locks of ours, no stdio, no lazily bound call (-z now);
 * errno is saved.  One lock is not ours: for a frame the unwinder's own
 * CFI recipes cannot walk, libunwind takes its pool lock with every signal
 * blocked (docs/unwinding.md, "Locks with every signal blocked").  Uses
 * only the thread's own state, the load-map snapshot (under the thread's
 * hazard pointer), the unwinder and the backend's async-signal-safe calls
 * (pmc_group_overflow, pmc_group_rearm).
 *
 * The path, top to bottom:
 *   thr_on_signal   on the collector's own stack (switch if the kernel
 *                   used the program's), errno saved
 *   handle          guard, state, which counter, throttle, sample, re-arm
 *   throttle        keep the handler under a quarter of the thread's time
 *   sample          unwind, map through the load map, insert into the CCT
 * Timing hooks (TIME_*) compile to nothing unless COLL_TIMING (tests/bench).
 * docs/collector.md, "The sampling handler", says what each counter means. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#include "collector/collector.h"
#include "collector/kernel.h"
#include "collector/owntime.h"
#include "unwinder/arch.h"

/* ---- clocks and timing hooks (the hooks: benchmark builds only) ---- */

/* CLOCK_MONOTONIC through the vDSO: no system call. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef COLL_TIMING
static void timing_add(uint32_t *hist, uint64_t ns)
{
	uint64_t b = ns / COLL_TIMING_NS;

	hist[b < COLL_TIMING_BUCKETS ? b : COLL_TIMING_BUCKETS - 1]++;
}
#define TIME_NOW() now_ns()
#define TIME_ADD(t, hist, ns) timing_add((t)->hist, (ns))
#else
#define TIME_NOW() 0
#define TIME_ADD(t, hist, ns) ((void)(ns))
#endif

/* ---- stacks ---- */

/* fn(signo, si, uc) with the stack pointer at top (16-byte aligned). */
void coll_call_on_stack(void *top, void (*fn)(int, siginfo_t *, void *), int signo,
			siginfo_t *si, void *uc);
#if defined(__x86_64__)
__asm__(".text\n"
	".globl coll_call_on_stack\n"
	".hidden coll_call_on_stack\n"
	".type coll_call_on_stack, @function\n"
	"coll_call_on_stack:\n"
	".cfi_startproc\n"
	"	push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"	and $-16, %rdi\n"
	"	mov %rdi, %rsp\n"
	"	mov %rsi, %rax\n"
	"	mov %edx, %edi\n"
	"	mov %rcx, %rsi\n"
	"	mov %r8, %rdx\n"
	"	call *%rax\n"
	"	mov %rbp, %rsp\n"
	"	pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	".cfi_endproc\n"
	".size coll_call_on_stack, .-coll_call_on_stack\n");
#elif !defined(__aarch64__)	/* AArch64's is in arch-aarch64.c */
void coll_call_on_stack(void *top, void (*fn)(int, siginfo_t *, void *), int signo,
			siginfo_t *si, void *uc)
{
	(void)top;
	fn(signo, si, uc);
}
#endif

/* The frame address, not a local's: a sanitizer may keep locals on a
 * heap "fake stack". */
bool coll_stack_holds(const void *base, size_t len)
{
	return (uintptr_t)__builtin_frame_address(0) - (uintptr_t)base < len;
}

/* ---- the sample ---- */

/* The next interval for event i: base + (random & mask) (perfmon2 3.4.2),
 * times 2^slow while the handler is throttled. */
uint64_t thr_next_period(struct thr *t, size_t i)
{
	uint64_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	return (coll.ev[i].period + (x & coll.random_mask)) << t->th.slow[i];
}

uint32_t coll_insert(struct thr *t, int idx, uintptr_t *pcs, int n, uint32_t count)
{
	const struct lm_snap *snap;
	uint32_t node, shared = 0, seq;
	bool unknown = false;
	uint64_t tc = TIME_NOW();

	/* A return address points after its call: step back into it (the
	 * leaf's pc is the interrupted instruction itself). */
	for (int i = 1; i < n; i++)
		pcs[i]--;
	/* Only the frames below the part shared with the previous sample's
	 * path (root first) are looked up; a load-map change forgets it. */
	seq = loadmap_seq();
	if (seq != t->path_seq)
		t->path_len = 0, t->path_seq = seq;
	while (shared < t->path_len && shared < (uint32_t)n &&
	       t->path_addr[shared] == pcs[n - 1 - shared])
		shared++;
	node = shared ? t->path_node[shared - 1] : 0;
	snap = loadmap_acquire(&t->hazard);
	for (uint32_t k = shared; k < (uint32_t)n; k++) {
		uintptr_t a = pcs[n - 1 - k];
		uint32_t mod;
		uint64_t off;

		if (!loadmap_lookup(snap, a, &mod, &off))
			mod = PROF_NO_MODULE, off = a, unknown = true;
		node = cct_child(&t->cct, node, mod, off);
		if (!node)
			break;	/* the path keeps what is known to be in the tree */
		t->path_addr[k] = a;
		t->path_node[k] = node;
		t->path_len = k + 1;
	}
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	TIME_ADD(t, timing_cct, TIME_NOW() - tc);
	t->ctr[CTR_UNKNOWN_MODULE] += unknown;
	if (!node) {
		t->ctr[CTR_DROPPED_CCT_FULL] += count;
		return 0;
	}
	coll_count(t, idx, node, count);
	return node;
}

void coll_count(struct thr *t, int idx, uint32_t node, uint32_t count)
{
	t->cct.counts[(size_t)node * t->cct.n_events + (uint32_t)idx] += count;
	t->ctr[CTR_SAMPLES] += count;
	/* The timeline: a record placed from the kernel's ring is timed
	 * here, when it is read (docs/collector.md, "The timeline"). */
	for (uint32_t i = 0; i < count; i++)
		tl_add(&t->tl, node, (uint32_t)idx, (uint32_t)coll.n_ev);
}

/* Take one sample into t's tree; false if it was dropped (and counted). */
static bool sample(struct thr *t, int idx, const ucontext_t *uc)
{
	uintptr_t pc = uc_pc(uc), *pcs = t->pcs;
	unsigned flags = 0;
	uint64_t tu = TIME_NOW();
	int n;

	if (coll_inside || loadmap_in_collector(pc))
		return t->ctr[CTR_DROPPED_IN_COLLECTOR]++, false;
	/* libunwind calls dl_iterate_phdr, which must not run on top of an
	 * interrupted dlopen: take the leaf alone there. */
	if (coll_in_dl || loadmap_in_loader(pc)) {
		pcs[0] = pc;
		n = 1;
		t->ctr[CTR_LEAF_ONLY_LOADER]++;
	} else {
		n = uw_capture(&t->uw, uc, pcs, COLL_MAX_DEPTH, &flags);
		t->ctr[CTR_TRUNCATED] += !!(flags & UW_TRUNCATED);
		t->ctr[CTR_UNWIND_FAILED] += !!(flags & UW_FAILED);
		if (n <= 0)
			return t->ctr[CTR_DROPPED_NO_STACK]++, false;
	}
	/* The kernel side of a kernel-mode sample as the leaf side (a
	 * backend that signals kernel-mode samples). */
	if (!t->rec_mode)
		n = kern_stitch(t, idx, pcs, n, COLL_MAX_DEPTH);
	TIME_ADD(t, timing_unwind, TIME_NOW() - tu);
	return coll_insert(t, idx, pcs, n, 1) != 0;
}

/* ---- the throttle (throttle.h) ---- */

static bool throttle(struct thr *t, int idx, uint64_t now)
{
	switch (throttle_check(&t->th, idx, coll.ev[idx].period != 0, now)) {
	case THROTTLE_PASS:
		return false;
	case THROTTLE_RAISE:
		t->ctr[CTR_THROTTLE_RAISED]++;
		/* fall through */
	default:
		t->ctr[CTR_DROPPED_THROTTLED]++;
		return true;
	}
}

/* ---- the handler ---- */

static void handle(int signo, siginfo_t *si, void *uc)
{
	struct thr *t = coll_self;
	uint64_t own0 = owntime_ticks(), t0 = now_ns(), t1, next = 0, periods = 1;
	int idx, status;

	(void)signo;
	if (!t)
		return;
	if (t->in_handler) {	/* only a program's handler we interrupted could */
		t->ctr[CTR_REENTERED]++;
		return;
	}
	__atomic_store_n(&t->in_handler, 1, __ATOMIC_SEQ_CST);
	status = __atomic_load_n(&t->status, __ATOMIC_SEQ_CST);
	if (!t->g || (status != THR_ACTIVE && status != THR_HELD && status != THR_BUSY))
		goto done;
	idx = pmc_group_overflow(t->g, si);
	if (idx < 0) {
		t->ctr[CTR_NOT_OURS] += status == THR_ACTIVE;
		goto done;
	}
	/* BUSY: being written; HELD: written before an exec that may fail.
	 * No sample, but the counter keeps running (perf_event pauses an
	 * event whose end-of-batch signal is not re-armed). */
	if (status == THR_BUSY)	/* its writer reads the counters meanwhile */
		__atomic_fetch_add(&t->ctr[CTR_DROPPED_WRITING], 1, __ATOMIC_RELAXED);
	if (status == THR_ACTIVE && !throttle(t, idx, t0)) {
		/* A POSIX timer signal stands for 1 + si_overrun periods (CPU
		 * timers expire at the tick): the stack is a fair sample of
		 * them all, so they go into the weight, not into a loss. */
		if (si->si_code == SI_TIMER && si->si_overrun > 0) {
			periods += (uint64_t)si->si_overrun;
			t->ctr[CTR_TIMER_OVERRUNS] += (uint64_t)si->si_overrun;
		}
		/* perf_event's records: the silent kernel-mode samples, and
		 * the kernel's word on where this one was taken. */
		if (t->rec_mode && !coll_inside) {
			if (kern_on_signal(t, idx, uc) && sample(t, idx, uc))
				t->weight[idx] += t->period[idx] * periods;
		} else if (sample(t, idx, uc)) {
			t->weight[idx] += t->period[idx] * periods;
		}
	} else if (status == THR_ACTIVE && t->rec_mode && !coll_inside) {
		kern_skip_signal(t, idx);	/* throttled: its record goes too */
	}
	/* A new interval when periods are random or the throttle moved. */
	if (status == THR_ACTIVE && coll.ev[idx].period &&
	    (coll.random_mask || t->period[idx] != coll.ev[idx].period << t->th.slow[idx]))
		t->period[idx] = next = thr_next_period(t, (size_t)idx);
	t1 = TIME_NOW();
	if (pmc_group_rearm(t->g, idx, next) < 0 && status == THR_ACTIVE)
		t->ctr[CTR_REARM_FAILED]++;
	TIME_ADD(t, timing_rearm, TIME_NOW() - t1);
	TIME_ADD(t, timing_own, t1 - t0);
done:
	t1 = now_ns();
	throttle_charge(&t->th, t1 - t0);
	TIME_ADD(t, timing, t1 - t0);
	t->handler_ticks += owntime_ticks() - own0;
	__atomic_store_n(&t->in_handler, 0, __ATOMIC_RELEASE);
}

void thr_on_signal(int signo, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct thr *t = coll_self;

	/* After seccomp: not even a vDSO call (it may fall back to one). */
	if (__atomic_load_n(&coll.stopped, __ATOMIC_RELAXED))
		return;
	/* The kernel put us on the thread's signal stack: ours, or one the
	 * program installed (then its memory must not take our frames). */
	if (t && !coll_stack_holds(t->altstack, COLL_ALTSTACK))
		coll_call_on_stack((char *)t->altstack + COLL_ALTSTACK, handle, signo, si, uc);
	else
		handle(signo, si, uc);
	errno = saved_errno;
}
