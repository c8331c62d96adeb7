/* Per-thread state: one mapping per thread (this struct, then the CCT
 * arena), found by the handler through an initial-exec TLS pointer and by
 * flushers through an append-only registry.  A state is never unmapped:
 * when its thread ends the arena is released with MADV_DONTNEED and the
 * state is reused, so a flusher racing with a thread's exit never touches
 * freed memory.  Ownership moves by compare-and-swap on `status`. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/kernel.h"

__thread struct thr *coll_self __attribute__((tls_model("initial-exec")));

static struct thr *registry;		/* atomic head */
static uint32_t n_threads;		/* atomic: threads begun in this process */
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int warned_begin;		/* atomic: one "cannot sample" line per process */

/* A flusher waits at most this long for a handler or another flusher. */
#define WAIT_NS (2 * 1000000000ll)

static int status_get(struct thr *t)
{
	return __atomic_load_n(&t->status, __ATOMIC_SEQ_CST);
}

static void status_set(struct thr *t, int s)
{
	__atomic_store_n(&t->status, s, __ATOMIC_SEQ_CST);
}

static bool status_move(struct thr *t, int from, int to)
{
	return __atomic_compare_exchange_n(&t->status, &from, to, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/* Spin politely until cond(t) or the deadline; false on timeout. */
static bool wait_for(struct thr *t, bool (*cond)(struct thr *))
{
	struct timespec nap = { 0, 100000 };
	long long waited = 0;

	while (!cond(t)) {
		if (waited >= WAIT_NS)
			return false;
		nanosleep(&nap, NULL);
		waited += nap.tv_nsec;
	}
	return true;
}

static bool handler_idle(struct thr *t)
{
	return !__atomic_load_n(&t->in_handler, __ATOMIC_SEQ_CST);
}

static bool not_busy(struct thr *t)
{
	return status_get(t) != THR_BUSY;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void key_destructor(void *arg)
{
	thr_end(arg);
}

static void key_make(void)
{
	pthread_key_create(&key, key_destructor);
}

/* A state to use: a free one from the registry, else a new mapping. */
static struct thr *thr_alloc(void)
{
	size_t head = ((sizeof(struct thr) + 4095) & ~(size_t)4095);
	struct thr *t, *old;
	void *m;

	for (t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next)
		if (status_move(t, THR_FREE, THR_SETUP))
			return t;
	/* NORESERVE: only the pages the tree really uses become resident. */
	m = mmap(NULL, head + COLL_ALTSTACK + coll.set.cct_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	t = m;
	t->status = THR_SETUP;
	t->map_len = head + COLL_ALTSTACK + coll.set.cct_bytes;
	t->altstack = (char *)m + head;
	t->arena = (char *)m + head + COLL_ALTSTACK;
	t->arena_len = coll.set.cct_bytes;
	old = __atomic_load_n(&registry, __ATOMIC_ACQUIRE);
	do
		t->next = old;
	while (!__atomic_compare_exchange_n(&registry, &old, t, false, __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE));
	return t;
}

/* Our signal stack on the calling thread, unless it has one already. */
static void altstack_on(struct thr *t)
{
	stack_t cur, ss;

	t->own_altstack = false;
	if (sigaltstack(NULL, &cur) < 0 || !(cur.ss_flags & SS_DISABLE))
		return;
	ss.ss_sp = t->altstack;
	ss.ss_size = COLL_ALTSTACK;
	ss.ss_flags = 0;
	t->own_altstack = sigaltstack(&ss, NULL) == 0;
}

/* Before t's memory can serve another thread (calling thread only). */
static void altstack_off(struct thr *t)
{
	stack_t cur, off = { .ss_flags = SS_DISABLE };

	if (t->own_altstack && sigaltstack(NULL, &cur) == 0 && cur.ss_sp == t->altstack &&
	    !(cur.ss_flags & SS_ONSTACK))
		sigaltstack(&off, NULL);
	t->own_altstack = false;
}

/* Give the arena's memory back and make the state reusable. */
static void thr_release(struct thr *t)
{
	madvise(t->altstack, COLL_ALTSTACK + t->arena_len, MADV_DONTNEED);
	/* Writers scanning the registry read it concurrently. */
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	t->g = NULL;
	status_set(t, THR_FREE);
}

/* Reset the profile part of t for a thread starting now. */
static int thr_reset(struct thr *t)
{
	memset(t->ctr, 0, sizeof(t->ctr));
	t->path_len = 0;
#ifdef COLL_TIMING
	memset(t->timing, 0, sizeof(t->timing));
	memset(t->timing_rearm, 0, sizeof(t->timing_rearm));
	memset(t->timing_own, 0, sizeof(t->timing_own));
#endif
	memset(t->weight, 0, sizeof(t->weight));
	__atomic_store_n(&t->in_handler, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	t->tid = gettid();
	t->written[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &t->start);
	t->thread_seed = splitmix64(coll.set.seed ^ ((uint64_t)coll.pid << 32) ^ t->index);
	t->rng = t->thread_seed ? t->thread_seed : 1;
	for (size_t i = 0; i < coll.n_ev; i++)
		t->period[i] = coll.ev[i].period;
	return cct_init(&t->cct, t->arena, t->arena_len, (uint32_t)coll.n_ev);
}

/* The next interval for event i: base + (random & mask) (perfmon2 3.4.2). */
static uint64_t next_period(struct thr *t, size_t i)
{
	return coll.ev[i].period + (xorshift64(&t->rng) & coll.random_mask);
}

static void warn_once(const char *what, int err)
{
	if (__atomic_exchange_n(&warned_begin, 1, __ATOMIC_RELAXED))
		return;
	coll_warn("pmcprof: ", what, err ? pmc_strerror(err) : "", (char *)NULL);
}

/* Open and start t's counters on the calling thread. */
static int thr_arm(struct thr *t)
{
	PMC_GROUP_OPTS(opts, .sample = true, .signo = coll.sigrt,
		       .kernel_chain = kern_want_chain());
	sigset_t ours;
	int ret;

	ret = pmc_group_open(coll.be, coll.ev, coll.n_ev, &opts, &t->g);
	if (ret < 0) {
		t->g = NULL;
		return ret;
	}
	if (coll.random_mask) {
		for (size_t i = 0; i < coll.n_ev; i++) {
			if (!coll.ev[i].period)
				continue;
			t->period[i] = next_period(t, i);
			pmc_group_rearm(t->g, (int)i, t->period[i]);
		}
	}
	/* A thread born with every signal blocked would never be sampled. */
	sigemptyset(&ours);
	sigaddset(&ours, coll.sigrt);
	coll_real.pthread_sigmask(SIG_UNBLOCK, &ours, NULL);
	ret = pmc_group_start(t->g);
	if (ret < 0) {
		pmc_group_close(t->g);
		t->g = NULL;
	}
	return ret;
}

struct thr *thr_begin(void)
{
	struct thr *t;
	int ret;

	if (!coll.active)
		return NULL;
	coll_inside++;
	pthread_once(&key_once, key_make);
	t = thr_alloc();
	if (!t) {
		warn_once("cannot allocate a thread's profile: out of memory", 0);
		coll_inside--;
		return NULL;
	}
	t->index = __atomic_fetch_add(&n_threads, 1, __ATOMIC_RELAXED);
	ret = thr_reset(t);
	if (ret == 0)
		ret = uw_thread_init(&t->uw, coll.set.call_graph);
	if (ret < 0) {
		warn_once("cannot set up a thread for unwinding: ", ret);
		thr_release(t);
		coll_inside--;
		return NULL;
	}
	coll_self = t;
	altstack_on(t);
	status_set(t, THR_ACTIVE);
	ret = thr_arm(t);
	if (ret < 0) {
		status_set(t, THR_SETUP);
		altstack_off(t);
		coll_self = NULL;
		warn_once("cannot sample a thread, it runs unprofiled: ", ret);
		thr_release(t);
		coll_inside--;
		return NULL;
	}
	pthread_setspecific(key, t);
	coll_inside--;
	return t;
}

void thr_end(struct thr *t)
{

	if (!t)
		return;
	coll_inside++;
	if (status_move(t, THR_ACTIVE, THR_BUSY)) {
		flush_thread(t, false, false, "thread_exit");
		status_set(t, THR_WRITTEN);
	} else {
		/* Someone else is writing it (exit in another thread). */
		wait_for(t, not_busy);
	}
	coll_self = NULL;
	if (t->g) {
		pmc_group_stop(t->g);
		pmc_group_close(t->g);
	}
	pthread_setspecific(key, NULL);
	altstack_off(t);
	thr_release(t);
	coll_inside--;
}

void thr_flush_all(bool partial, bool hold, const char *reason)
{
	struct thr *self = coll_self, *t;

	coll_inside++;
	for (t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next) {
		bool torn = false;

		if (!status_move(t, THR_ACTIVE, THR_BUSY))
			continue;
		/* A handler that started before BUSY finishes in microseconds;
		 * ours (a crash inside it) never will. */
		if (t != self)
			torn = !wait_for(t, handler_idle);
		flush_thread(t, partial || torn || (t == self && t->in_handler), partial, reason);
		status_set(t, hold ? THR_HELD : THR_WRITTEN);
	}
	/* Threads writing themselves right now: let them finish first. */
	for (t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next)
		if (t != self)
			wait_for(t, not_busy);
	coll_inside--;
}

void thr_resume_all(void)
{
	for (struct thr *t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next) {
		if (status_get(t) != THR_HELD)
			continue;
		flush_unlink(t);
		status_set(t, THR_ACTIVE);
	}
}

void thr_disarm_self(void)
{
	struct thr *t = coll_self;
	struct timespec zero = { 0, 0 };
	sigset_t ours, old;

	if (!t || !t->g)
		return;
	sigemptyset(&ours);
	sigaddset(&ours, coll.sigrt);
	coll_real.pthread_sigmask(SIG_BLOCK, &ours, &old);
	pmc_group_stop(t->g);
	pmc_group_close(t->g);
	t->g = NULL;
	/* A queued overflow must not outlive its counter: after an exec the
	 * signal would find the default action (terminate). */
	while (sigtimedwait(&ours, NULL, &zero) > 0)
		;
	coll_real.pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void thr_rearm_self(void)
{
	struct thr *t = coll_self;
	int ret;

	if (!t || t->g)
		return;
	ret = thr_arm(t);
	if (ret < 0)
		warn_once("cannot re-arm sampling after a failed exec: ", ret);
}

bool thr_hazard_in_use(const struct lm_snap *snap)
{
	for (struct thr *t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->hazard, __ATOMIC_SEQ_CST) == snap)
			return true;
	return false;
}

void thr_fork_child(void)
{
	struct thr *self = coll_self;

	for (struct thr *t = registry; t; t = t->next) {
		if (t == self)
			continue;
		/* The parent's threads do not exist here; their descriptors
		 * are copies, closing them leaves the parent's counters be. */
		if (t->g && status_get(t) != THR_FREE)
			pmc_group_close(t->g);
		if (status_get(t) != THR_FREE)
			thr_release(t);
	}
	__atomic_store_n(&n_threads, 1, __ATOMIC_RELAXED);
	if (!self) {
		/* Forked by a thread we never saw: the child is still a process
		 * of the run. */
		__atomic_store_n(&n_threads, 0, __ATOMIC_RELAXED);
		thr_begin();
		return;
	}
	if (self->g)
		pmc_group_close(self->g);
	self->g = NULL;
	if (status_get(self) != THR_ACTIVE) {
		/* Forked after its own flush (in a TSD destructor): not sampled. */
		coll_self = NULL;
		return;
	}
	madvise(self->arena, self->arena_len, MADV_DONTNEED);
	self->index = 0;
	if (thr_reset(self) < 0 || thr_arm(self) < 0) {
		status_set(self, THR_SETUP);
		coll_self = NULL;
		warn_once("cannot sample a forked child, it runs unprofiled", 0);
		thr_release(self);
	}
}

/* ---- the sampling handler ---- */

/* Take one sample into t's tree; false if it was dropped. */
static bool sample(struct thr *t, int idx, const ucontext_t *uc)
{
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t *pcs = t->pcs;
	const struct lm_snap *snap;
	unsigned flags = 0;
	uint32_t node = 0, shared = 0, seq;
	bool unknown = false;
	int n;

	if (coll_inside || loadmap_in_collector(pc)) {
		t->ctr[CTR_DROPPED_IN_COLLECTOR]++;
		return false;
	}
	/* libunwind calls dl_iterate_phdr, which must not run on top of an
	 * interrupted dlopen: take the leaf alone there. */
	if (coll_in_dl || loadmap_in_loader(pc)) {
		pcs[0] = pc;
		n = 1;
		t->ctr[CTR_LEAF_ONLY_LOADER]++;
	} else {
		n = uw_capture(&t->uw, uc, pcs, COLL_MAX_DEPTH, &flags);
		if (flags & UW_TRUNCATED)
			t->ctr[CTR_TRUNCATED]++;
		if (flags & UW_FAILED)
			t->ctr[CTR_UNWIND_FAILED]++;
		if (n <= 0) {
			t->ctr[CTR_DROPPED_NO_STACK]++;
			return false;
		}
	}
	/* The kernel side of a kernel-mode sample as the leaf side. */
	n = kern_stitch(t, idx, pcs, n, COLL_MAX_DEPTH);
	/* Root first; a return address points after its call: step back
	 * into it (the leaf's pc is the interrupted instruction itself). */
	for (int i = 0; i < n; i++)
		pcs[i] -= i > 0;
	seq = loadmap_seq();
	if (seq != t->path_seq) {
		t->path_len = 0;
		t->path_seq = seq;
	}
	while (shared < t->path_len && shared < (uint32_t)n &&
	       t->path_addr[shared] == pcs[n - 1 - shared])
		shared++;
	node = shared ? t->path_node[shared - 1] : 0;
	snap = loadmap_acquire(&t->hazard);
	for (uint32_t k = shared; k < (uint32_t)n; k++) {
		uintptr_t a = pcs[n - 1 - k];
		uint32_t mod;
		uint64_t off;

		if (!loadmap_lookup(snap, a, &mod, &off)) {
			mod = PROF_NO_MODULE;
			off = a;
			unknown = true;
		}
		node = cct_child(&t->cct, node, mod, off);
		if (!node) {
			/* Keep what is known to be in the tree. */
			t->path_len = k;
			break;
		}
		t->path_addr[k] = a;
		t->path_node[k] = node;
		t->path_len = k + 1;
	}
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	if (unknown)
		t->ctr[CTR_UNKNOWN_MODULE]++;
	if (!node) {
		t->ctr[CTR_DROPPED_CCT_FULL]++;
		return false;
	}
	cct_count(&t->cct, node, (uint32_t)idx);
	t->ctr[CTR_SAMPLES]++;
	return true;
}

#ifdef COLL_TIMING
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void timing_add(uint32_t *hist, uint64_t ns)
{
	uint64_t b = ns / COLL_TIMING_NS;

	hist[b < COLL_TIMING_BUCKETS ? b : COLL_TIMING_BUCKETS - 1]++;
}
#endif

void thr_on_signal(int signo, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct thr *t = coll_self;
	uint64_t next = 0;
	int idx, status;
#ifdef COLL_TIMING
	uint64_t t0 = now_ns(), t1, t2;
#endif

	(void)signo;
	if (!t)
		goto out;
	if (t->in_handler) {
		t->ctr[CTR_REENTERED]++;
		goto out;
	}
	__atomic_store_n(&t->in_handler, 1, __ATOMIC_SEQ_CST);
	status = status_get(t);
	if (t->g && status == THR_BUSY) {
		/* Being written: take no sample, but keep the backend going
		 * (perf_event pauses an event whose end-of-batch signal is not
		 * re-armed).  The group is not closed before WRITTEN. */
		idx = pmc_group_overflow(t->g, si);
		if (idx >= 0) {
			t->ctr[CTR_DROPPED_WRITING]++;
			pmc_group_rearm(t->g, idx, 0);
		}
		goto done;
	}
	if (!t->g || (status != THR_ACTIVE && status != THR_HELD))
		goto done;
	idx = pmc_group_overflow(t->g, si);
	if (idx < 0) {
		if (status == THR_ACTIVE)
			t->ctr[CTR_NOT_OURS]++;
		goto done;
	}
	/* HELD: written before an exec that may still fail; keep the
	 * counter running but leave the written profile alone. */
	if (status == THR_ACTIVE) {
		/* A POSIX timer signal stands for 1 + si_overrun periods: CPU
		 * timers expire at the scheduler tick, so shorter periods fold
		 * into one signal.  The stack is a fair sample of them all, so
		 * the periods go into the weight and nothing counts as lost. */
		uint64_t periods = 1;
		if (si->si_code == SI_TIMER && si->si_overrun > 0) {
			periods += (uint64_t)si->si_overrun;
			t->ctr[CTR_TIMER_OVERRUNS] += (uint64_t)si->si_overrun;
		}
		if (sample(t, idx, uc))
			t->weight[idx] += t->period[idx] * periods;
		if (coll.random_mask && coll.ev[idx].period) {
			next = next_period(t, (size_t)idx);
			t->period[idx] = next;
		}
	}
#ifdef COLL_TIMING
	t1 = now_ns();
#endif
	if (pmc_group_rearm(t->g, idx, next) < 0 && status == THR_ACTIVE)
		t->ctr[CTR_REARM_FAILED]++;
#ifdef COLL_TIMING
	t2 = now_ns();
	timing_add(t->timing_rearm, t2 - t1);
	timing_add(t->timing_own, t2 - t0 - (t2 - t1));
#endif
done:
#ifdef COLL_TIMING
	timing_add(t->timing, now_ns() - t0);
#endif
	__atomic_store_n(&t->in_handler, 0, __ATOMIC_RELEASE);
out:
	errno = saved_errno;
}
