/* Per-thread state: one mapping per thread (this struct, then the CCT
 * arena), found by the handler through an initial-exec TLS pointer and by
 * flushers through an append-only registry.  A state is never unmapped:
 * when its thread ends the arena is released with MADV_DONTNEED and the
 * state is reused, so a flusher racing with a thread's exit never touches
 * freed memory.  Ownership moves by compare-and-swap on `status`. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/owntime.h"
#include "collector/kernel.h"
#include "collector/unseen.h"

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

static void key_destructor(void *arg)
{
	thr_end(arg);
}

static void key_make(void)
{
	pthread_key_create(&key, key_destructor);
}

/* The CCT arena a thread starts with: it doubles on demand (cct.c) up to
 * PMCPROF_CCT_BYTES, so a thread takes the address space its tree needs,
 * not the limit (which RLIMIT_AS would charge to the program). */
#define ARENA_START (64u << 10)

/* LeakSanitizer's, when the program is built with it: it does not scan
 * our mappings, so what a state points to (the backend's counters, from
 * malloc) would be reported as leaked at the program's exit. */
extern void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));

/* A state to use: a free one from the registry, else a new mapping. */
static struct thr *thr_alloc(void)
{
	size_t head = ((sizeof(struct thr) + 4095) & ~(size_t)4095);
	size_t start = coll.set.cct_bytes < ARENA_START ? coll.set.cct_bytes : ARENA_START;
	size_t tl_start = coll.set.timeline_bytes < TL_START ? coll.set.timeline_bytes : TL_START;
	struct thr *t, *old;
	void *m, *arena, *tl = NULL;

	for (t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next)
		if (status_move(t, THR_FREE, THR_SETUP))
			return t;
	/* NORESERVE: only the pages really used become resident.
	 * [state][guard][signal stack], and the CCT arena and the timeline
	 * apart (each moves when it grows). */
	m = mmap(NULL, head + COLL_GUARD + COLL_ALTSTACK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	arena = mmap(NULL, start, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		     -1, 0);
	if (arena != MAP_FAILED && tl_start) {
		tl = mmap(NULL, tl_start, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (tl == MAP_FAILED)
			tl = NULL;
	}
	/* An overflowing signal stack faults instead of writing our state. */
	if (arena == MAP_FAILED || (tl_start && !tl) ||
	    mprotect((char *)m + head, COLL_GUARD, PROT_NONE) < 0) {
		if (arena != MAP_FAILED)
			munmap(arena, start);
		if (tl)
			munmap(tl, tl_start);
		munmap(m, head + COLL_GUARD + COLL_ALTSTACK);
		return NULL;
	}
	if (__lsan_register_root_region)
		__lsan_register_root_region(m, head);
	t = m;
	t->status = THR_SETUP;
	t->map_len = head + COLL_GUARD + COLL_ALTSTACK;
	t->altstack = (char *)m + head + COLL_GUARD;
	t->cct.mem = arena;
	t->cct.bytes = start;
	t->tl.buf = tl;
	t->tl.cap = tl_start;
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
	if (coll_real.sigaltstack(NULL, &cur) < 0 || !(cur.ss_flags & SS_DISABLE))
		return;
	ss.ss_sp = t->altstack;
	ss.ss_size = COLL_ALTSTACK;
	ss.ss_flags = 0;
	t->own_altstack = coll_real.sigaltstack(&ss, NULL) == 0;
}

/* The program's sigaltstack, interposed.  The kernel keeps one signal
 * stack per thread.  Ours is installed while the program has none; when
 * the program sets its own, the kernel gets the program's (its handlers
 * run exactly where it asked, and it sees what it set), and our handlers
 * move to our stack themselves (coll_call_on_stack).  Disabling the
 * program's puts ours back.  The program is told what it would see
 * without us: SS_DISABLE while ours is in. */
int thr_sigaltstack(const stack_t *ss, stack_t *old)
{
	struct thr *t = coll_self;
	stack_t cur, prog, ours = { .ss_sp = NULL, .ss_size = COLL_ALTSTACK };
	bool mine;

	if (!t || coll_real.sigaltstack(NULL, &cur) < 0)
		return coll_real.sigaltstack(ss, old);
	mine = !(cur.ss_flags & SS_DISABLE) && cur.ss_sp == t->altstack;
	prog = cur;
	if (mine)
		prog = (stack_t){ .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
	if (ss && ss->ss_flags == SS_DISABLE) {
		if (!mine) {
			if (cur.ss_flags & SS_ONSTACK) {
				errno = EPERM;
				return -1;
			}
			ours.ss_sp = t->altstack;
			if (coll_real.sigaltstack(&ours, NULL) < 0 && coll_real.sigaltstack(ss, NULL) < 0)
				return -1;
			t->own_altstack = true;
		}
	} else if (ss && coll_real.sigaltstack(ss, NULL) < 0) {
		return -1;
	}
	if (old)
		*old = prog;
	return 0;
}

/* Before t's memory can serve another thread (calling thread only). */
static void altstack_off(struct thr *t)
{
	stack_t cur, off = { .ss_flags = SS_DISABLE };

	if (t->own_altstack && coll_real.sigaltstack(NULL, &cur) == 0 && cur.ss_sp == t->altstack &&
	    !(cur.ss_flags & SS_ONSTACK))
		coll_real.sigaltstack(&off, NULL);
	t->own_altstack = false;
}

/* Give the arena's memory back and make the state reusable. */
static void thr_release(struct thr *t)
{
	madvise(t->altstack, COLL_ALTSTACK, MADV_DONTNEED);
	madvise(t->cct.mem, t->cct.bytes, MADV_DONTNEED);
	if (t->tl.buf)
		madvise(t->tl.buf, t->tl.cap, MADV_DONTNEED);
	/* Writers scanning the registry read it concurrently. */
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	t->g = NULL;
	status_set(t, THR_FREE);
}

/* Reset the profile part of t for a thread starting now. */
static int thr_reset(struct thr *t)
{
	int ret;

	memset(t->ctr, 0, sizeof(t->ctr));
	t->path_len = 0;
#ifdef COLL_TIMING
	memset(t->timing, 0, sizeof(t->timing));
	memset(t->timing_rearm, 0, sizeof(t->timing_rearm));
	memset(t->timing_own, 0, sizeof(t->timing_own));
	memset(t->timing_unwind, 0, sizeof(t->timing_unwind));
	memset(t->timing_cct, 0, sizeof(t->timing_cct));
#endif
	memset(t->weight, 0, sizeof(t->weight));
	__atomic_store_n(&t->in_handler, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	t->tid = gettid();
	t->tcb = (uintptr_t)pthread_self();
	t->written[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &t->start);
	t->cpu_start_ns = owntime_thread_cpu_ns(0);
	t->cpu_last_ns = 0;
	if (owntime_thread_user_ns(0, &t->user_start_ns, &(uint64_t){ 0 }) < 0)
		t->user_start_ns = OWNTIME_UNKNOWN;
	t->handler_ticks = 0;
	t->thread_seed = splitmix64(coll.set.seed ^ ((uint64_t)coll.pid << 32) ^ t->index);
	t->rng = t->thread_seed ? t->thread_seed : 1;
	memset(&t->th, 0, sizeof(t->th));
	for (size_t i = 0; i < coll.n_ev; i++)
		t->period[i] = coll.ev[i].period;
	/* The arena and the timeline as they are now (they keep what they
	 * grew to), zero-filled. */
	tl_reset(&t->tl, t->tl.buf, t->tl.cap);
	tl_allow_growth(&t->tl, coll.set.timeline_bytes);
	ret = cct_init(&t->cct, t->cct.mem, t->cct.bytes, (uint32_t)coll.n_ev);
	if (ret == 0)
		cct_allow_growth(&t->cct, coll.set.cct_bytes);
	return ret;
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
	PMC_GROUP_OPTS(opts, .sample = true, .signo = coll.sigrt);
	sigset_t ours;
	int ret;

	kern_group_opts(&opts);
	ret = pmc_group_open(coll.be, coll.ev, coll.n_ev, &opts, &t->g);
	if (ret < 0 && opts.kernel_silent) {
		/* No silent kernel-mode twin here (a kernel that refuses the
		 * stack copy, no room for its ring in the mlock budget):
		 * kernel-mode samples signal, as before.  Said once. */
		static int warned;

		opts.kernel_silent = false;
		opts.stack_copy = 0;
		ret = pmc_group_open(coll.be, coll.ev, coll.n_ev, &opts, &t->g);
		if (ret == 0 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			coll_warn("pmcprof: a thread's kernel-mode samples raise a signal (no ring "
				  "for them: the mlock budget?): its system calls may return short "
				  "or with EINTR", (char *)NULL);
	}
	if (ret < 0) {
		t->g = NULL;
		return ret;
	}
	kern_thread_armed(t);
	if (coll.random_mask) {
		for (size_t i = 0; i < coll.n_ev; i++) {
			if (!coll.ev[i].period)
				continue;
			t->period[i] = thr_next_period(t, i);
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

	if (!coll.active || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST))
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
	/* After seccomp, no system call of ours (thr_stop_all). */
	if (!t || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST))
		return;
	coll_inside++;
	if (status_move(t, THR_ACTIVE, THR_BUSY)) {
		kern_drain(t);
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
	/* Its whole CPU time, its profile's writing included. */
	unseen_thread_ended(owntime_thread_cpu_ns(0));
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
		/* The kernel's records still waiting, unless the tree may be
		 * half updated (a crash inside the handler). */
		if (!torn && !(t == self && t->in_handler))
			kern_drain(t);
		flush_thread(t, partial || torn || (t == self && t->in_handler), partial, reason);
		status_set(t, hold ? THR_HELD : THR_WRITTEN);
	}
	/* Threads being written right now (by themselves or by another
	 * thread ending the process): let them finish first, ours too.  Not
	 * ours after a crash: that may be our own write, torn. */
	for (t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next)
		if (t != self || !partial)
			wait_for(t, not_busy);
	coll_inside--;
}

void thr_stop_all(const char *reason)
{
	if (__atomic_exchange_n(&coll.stopped, true, __ATOMIC_SEQ_CST))
		return;
	coll_inside++;
	/* The fatal-signal handlers would make system calls: the default
	 * actions come back, as the program believes they are. */
	coll_fatal_uninstall();
	thr_flush_all(false, false, reason);
	flush_marker(false);
	/* Our counters stop; other threads' pause at their next overflow,
	 * whose signal the handler ignores (no system call) now. */
	thr_disarm_self();
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

/* Whether t's profile was already published under the name it chose (a
 * write cut short between its rename and its status change). */
static bool already_written(struct thr *t)
{
	const char *why;
	bool there;
	int dirfd;

	if (!t->written[0])
		return false;
	dirfd = flush_outdir_open(&why);
	if (dirfd < 0)
		return false;
	there = faccessat(dirfd, t->written, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	close(dirfd);
	return there;
}

int thr_salvage_all(bool partial, const char *reason)
{
	int n = 0;

	for (struct thr *t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next) {
		int s = status_get(t);

		/* BUSY: its writer died with it. */
		if (s != THR_ACTIVE && s != THR_BUSY)
			continue;
		if (s == THR_BUSY && already_written(t))
			continue;
		status_set(t, THR_BUSY);
		/* The kernel's records still waiting in its rings (mapped
		 * memory, ours too), as thr_end would have taken them; not
		 * after a writer that died (BUSY) or inside the handler (the
		 * tree may be half updated), and not from a backend that
		 * cannot be told its descriptors are gone (the watcher's
		 * descriptor table is not the program's). */
		if (s == THR_ACTIVE && !t->in_handler && t->g && pmc_group_orphan(t->g) == 0)
			kern_drain(t);
		/* Killed inside the handler: the tree may be half updated. */
		flush_thread(t, partial || t->in_handler, true, reason);
		status_set(t, THR_WRITTEN);
		n++;
	}
	return n;
}

uint64_t thr_cpu_sampled(void)
{
	uint64_t sum = 0;

	for (struct thr *t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next) {
		int s = status_get(t);
		uint64_t now;

		if (s == THR_FREE || s == THR_SETUP)
			continue;
		/* Its own clock counts from its creation; gone: as last written. */
		now = owntime_thread_cpu_ns(t->tid);
		sum += now ? now : t->cpu_start_ns + t->cpu_last_ns;
	}
	return sum;
}

uintptr_t thr_any_tcb(void)
{
	for (struct thr *t = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); t; t = t->next) {
		int s = status_get(t);

		if ((s == THR_ACTIVE || s == THR_BUSY) && t->tcb)
			return t->tcb;
	}
	return 0;
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
	madvise(self->cct.mem, self->cct.bytes, MADV_DONTNEED);
	if (self->tl.buf)
		madvise(self->tl.buf, self->tl.cap, MADV_DONTNEED);
	self->index = 0;
	if (thr_reset(self) < 0 || thr_arm(self) < 0) {
		status_set(self, THR_SETUP);
		coll_self = NULL;
		warn_once("cannot sample a forked child, it runs unprofiled", 0);
		thr_release(self);
	}
}
