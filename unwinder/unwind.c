/* uw_capture's walks (libunwind, with a cache of frame recipes in front of
 * it) and the per-thread and process setup.  docs/unwinding.md says what
 * libunwind does on the handler path and why the cache is there. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "unwinder/internal.h"
#include "unwinder/unwind.h"

static uintptr_t uc_reg(const ucontext_t *uc, int reg)
{
	return (uintptr_t)uc->uc_mcontext.gregs[reg];
}

/* libunwind's locks (its unwind-info cache, its memory pools) are plain
 * mutexes; a child forked while another thread held one would block on it
 * at its first unwind, with every signal masked.  So captures count
 * themselves in and out of libunwind, and fork waits for the count to drop
 * (Dekker-style: both sides write, then read the other's flag). */
static atomic_int lib_users, fork_pending;

static bool lib_enter(void)
{
	if (atomic_load(&fork_pending))
		return false;
	atomic_fetch_add(&lib_users, 1);
	if (atomic_load(&fork_pending)) {
		atomic_fetch_sub(&lib_users, 1);
		return false;
	}
	return true;
}

static void lib_leave(void)
{
	atomic_fetch_sub(&lib_users, 1);
}

static void fork_prepare(void)
{
	const struct timespec tick = { .tv_nsec = 100000 };
	int i;

	atomic_store(&fork_pending, 1);
	/* Bounded: a fork() from a handler that interrupted a capture in this
	 * very thread would otherwise wait for itself. */
	for (i = 0; i < 1000 && atomic_load(&lib_users); i++)
		nanosleep(&tick, NULL);
}

static void fork_parent(void)
{
	atomic_store(&fork_pending, 0);
}

static void fork_child(void)
{
	atomic_store(&lib_users, 0);
	atomic_store(&fork_pending, 0);
}

/* Step a cursor set on the frame whose pc is pcs[n - 1] to the end;
 * append the return addresses. */
static int step_all(unw_cursor_t *cursor, uintptr_t *pcs, int n, int max, unsigned *flags)
{
	unw_word_t ip;
	int ret;

	while ((ret = unw_step(cursor)) > 0) {
		if (unw_get_reg(cursor, UNW_REG_IP, &ip) < 0) {
			ret = -UNW_EUNSPEC;
			break;
		}
		if (ip == 0)	/* an undefined return address ends the chain */
			return n;
		if (n == max) {
			*flags |= UW_TRUNCATED;
			return n;
		}
		pcs[n++] = ip;
	}
	if (ret < 0)
		*flags |= UW_FAILED;
	return n;
}

int uw_walk_libunwind(const ucontext_t *uc, uintptr_t *pcs, int max, unsigned *flags)
{
	unw_cursor_t cursor;
	int n = 1;

	pcs[0] = uc_reg(uc, REG_RIP);
	if (!lib_enter()) {
		*flags |= UW_FAILED;
		return n;
	}
	/* SIGNAL_FRAME: pcs[0] was interrupted, not called, so its unwind row
	 * is the one at the pc itself, not at pc - 1.  libunwind wants a
	 * non-const context but only reads it on this path. */
	if (unw_init_local2(&cursor, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
		*flags |= UW_FAILED;
	else
		n = step_all(&cursor, pcs, n, max, flags);
	lib_leave();
	return n;
}

/* Hand over to libunwind at a caller's frame (pc, sp, fp), pcs[n - 1] = pc.
 * Only rip, rsp and rbp are known there; rules that need another register
 * are rare (none in gcc's or glibc's code) and fail validated. */
static int walk_libunwind_from(uintptr_t pc, uintptr_t sp, uintptr_t fp, uintptr_t *pcs, int n,
			       int max, unsigned *flags)
{
	unw_cursor_t cursor;
	ucontext_t uc;

	memset(&uc.uc_mcontext, 0, sizeof(uc.uc_mcontext));
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
	uc.uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
	if (!lib_enter()) {
		*flags |= UW_FAILED;
		return n;
	}
	if (unw_init_local2(&cursor, &uc, 0) < 0)
		*flags |= UW_FAILED;
	else
		n = step_all(&cursor, pcs, n, max, flags);
	lib_leave();
	return n;
}

struct step {
	uintptr_t cfa, rip_at, rbp_at;	/* the CFA; where rip and rbp were found */
	int ret;			/* unw_step's */
};

/* One libunwind step from a made-up frame at key with the given rsp, rbp;
 * first: also make sure there is unwind info at key. */
static struct step step_once(ucontext_t *uc, uintptr_t key, uintptr_t sp, uintptr_t fp, bool first)
{
	struct step s = { .ret = -UNW_EUNSPEC };
	unw_cursor_t cursor;
	unw_proc_info_t pi;
	unw_save_loc_t loc;
	unw_word_t cfa;

	memset(&uc->uc_mcontext, 0, sizeof(uc->uc_mcontext));
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)key;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
	uc->uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
	/* SIGNAL_FRAME: look up the row at key itself (key is already pc - 1
	 * for a caller).  Without unwind info libunwind guesses from the
	 * register values: nothing that could be cached. */
	if (unw_init_local2(&cursor, uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return s;
	s.ret = first ? unw_get_proc_info(&cursor, &pi) : 0;
	if (s.ret < 0)
		return s;
	s.ret = unw_step(&cursor);
	if (s.ret <= 0)
		return s;
	if (unw_get_reg(&cursor, UNW_X86_64_CFA, &cfa) < 0) {
		s.ret = -UNW_EUNSPEC;
		return s;
	}
	s.cfa = cfa;
	if (unw_get_save_loc(&cursor, UNW_X86_64_RIP, &loc) == 0 && loc.type == UNW_SLT_MEMORY)
		s.rip_at = loc.u.addr;
	if (unw_get_save_loc(&cursor, UNW_X86_64_RBP, &loc) == 0 && loc.type == UNW_SLT_MEMORY)
		s.rbp_at = loc.u.addr;
	return s;
}

/* Learn the recipe at key: step once from the real registers, then twice
 * more with rsp and rbp moved by different amounts.  A CFA of register +
 * constant follows its register exactly, both times; one computed by an
 * expression (the signal trampoline, realigned frames) would have to match
 * by chance twice.  -1 if libunwind could not step: that depends on the
 * data (a garbage rbp), not on the code, so nothing is cached. */
static int learn(uintptr_t key, uintptr_t sp, uintptr_t fp, struct uw_recipe *r)
{
	static const uintptr_t dsp[2] = { 64, 192 }, dfp[2] = { 128, 320 };
	ucontext_t uc;
	uintptr_t rbp_slot = (uintptr_t)&uc.uc_mcontext.gregs[REG_RBP];
	struct step a, b[2];
	intptr_t off = 0, rbp_off;
	int i, base = 0;

	memset(r, 0, sizeof(*r));
	r->kind = UW_RECIPE_SLOW;
	a = step_once(&uc, key, sp, fp, true);
	if (a.ret == -UNW_ENOINFO)
		return 0;	/* no unwind info at key: libunwind guesses */
	if (a.ret < 0)
		return -1;
	if (a.ret == 0) {
		r->kind = UW_RECIPE_END;
		return 0;
	}
	rbp_off = a.rbp_at == rbp_slot ? 0 : (intptr_t)(a.rbp_at - a.cfa);
	for (i = 0; i < 2; i++) {
		b[i] = step_once(&uc, key, sp + dsp[i], fp + dfp[i], false);
		if (b[i].ret <= 0)
			return -1;
		if (b[i].cfa == a.cfa + dsp[i] && base != UW_RECIPE_RBP)
			base = UW_RECIPE_RSP;
		else if (b[i].cfa == a.cfa + dfp[i] && base != UW_RECIPE_RSP)
			base = UW_RECIPE_RBP;
		else
			return 0;
		/* the return address right below the CFA; rbp saved at a
		 * fixed place below it, or not touched */
		if (b[i].rip_at != b[i].cfa - 8 ||
		    (rbp_off ? (intptr_t)(b[i].rbp_at - b[i].cfa) != rbp_off : b[i].rbp_at != rbp_slot))
			return 0;
	}
	off = (intptr_t)(a.cfa - (base == UW_RECIPE_RSP ? sp : fp));
	if (a.rip_at != a.cfa - 8 || off < INT32_MIN || off > INT32_MAX || rbp_off > 0 ||
	    rbp_off < INT16_MIN)
		return 0;
	r->kind = (uint8_t)base;
	r->cfa_off = (int32_t)off;
	r->rbp_off = (int16_t)rbp_off;
	return 0;
}

/* The cached walk.  Reads only inside [sp, stack_hi) of the interrupted
 * frame; a frame it cannot do (no recipe, SLOW, off the stack) goes to
 * libunwind from there on, which validates its own reads. */
static int walk_cached(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs, int max,
		       unsigned *flags)
{
	uintptr_t pc = uc_reg(uc, REG_RIP), sp = uc_reg(uc, REG_RSP), fp = uc_reg(uc, REG_RBP);
	uintptr_t lo = sp, hi = t->stack_hi, key, cfa, ra;
	struct uw_recipe r;
	int n = 0;

	if (sp < t->stack_lo || sp >= hi)
		return uw_walk_libunwind(uc, pcs, max, flags);
	pcs[n++] = pc;
	for (;;) {
		key = n == 1 ? pc : pc - 1;
		if (!uw_cache_lookup(key, &r)) {
			int ret;

			if (!lib_enter()) {
				*flags |= UW_FAILED;
				return n;
			}
			ret = learn(key, sp, fp, &r);
			lib_leave();
			if (ret < 0)
				goto slow;
			uw_cache_insert(key, &r);
		}
		if (r.kind == UW_RECIPE_END)
			return n;
		if (r.kind != UW_RECIPE_RSP && r.kind != UW_RECIPE_RBP)
			goto slow;
		cfa = (r.kind == UW_RECIPE_RSP ? sp : fp) + (uintptr_t)(intptr_t)r.cfa_off;
		if (cfa - 8 < lo || cfa > hi || (r.rbp_off && cfa + r.rbp_off < lo) ||
		    cfa <= sp || (cfa & 7))
			goto slow;
		ra = ((const uintptr_t *)cfa)[-1];
		if (ra == 0)
			return n;
		if (n == max) {
			*flags |= UW_TRUNCATED;
			return n;
		}
		if (r.rbp_off)
			fp = *(const uintptr_t *)(cfa + r.rbp_off);
		pcs[n++] = ra;
		pc = ra;
		sp = lo = cfa;
	}
slow:
	if (n == 1)
		return uw_walk_libunwind(uc, pcs, max, flags);
	return walk_libunwind_from(pc, sp, fp, pcs, n, max, flags);
}

int uw_capture(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs, int max,
	       unsigned *flags)
{
	unsigned ignored;

	if (!flags)
		flags = &ignored;
	*flags = 0;
	if (!uc || !pcs) {
		*flags = UW_FAILED;
		return 0;
	}
	if (max < 1) {
		*flags = UW_TRUNCATED;
		return 0;
	}
	switch (t ? t->mode : UW_MODE_NONE) {
	case UW_MODE_UNWIND:
		if (!uw_cache_ready())
			return uw_walk_libunwind(uc, pcs, max, flags);
		return walk_cached(t, uc, pcs, max, flags);
	case UW_MODE_FP:
		return uw_fp_walk(t->stack_lo, t->stack_hi, uc_reg(uc, REG_RIP),
				  uc_reg(uc, REG_RSP), uc_reg(uc, REG_RBP), pcs, max, flags);
	case UW_MODE_NONE:
	default:
		pcs[0] = uc_reg(uc, REG_RIP);
		return 1;
	}
}

int uw_thread_init(struct uw_thread *t, enum uw_mode mode)
{
	int ret;

	if (!t || (mode != UW_MODE_UNWIND && mode != UW_MODE_FP && mode != UW_MODE_NONE))
		return -EINVAL;
	t->stack_lo = t->stack_hi = 0;
	t->mode = mode;
	ret = uw_stack_bounds(&t->stack_lo, &t->stack_hi);
	/* Only the frame-pointer walk needs the bounds; the cached walk
	 * without them leaves every frame to libunwind. */
	if (ret < 0 && mode == UW_MODE_FP)
		return ret;
	if (mode == UW_MODE_UNWIND) {
		ucontext_t uc;
		uintptr_t pcs[8];
		unsigned flags;

		ret = uw_cache_thread_init();
		if (ret < 0)
			return ret;
		/* One walk outside any handler, so that libunwind's one-time
		 * setup, its memory pools and the lazy binding of the functions
		 * it calls are done before a signal needs them. */
		if (getcontext(&uc) < 0)
			return -errno;
		walk_cached(t, &uc, pcs, 8, &flags);
	}
	return 0;
}

int uw_cache_flush(void)
{
	uw_cache_invalidate();
	unw_flush_cache(unw_local_addr_space, 0, 0);
	return 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static int atfork_err;

static void atfork_register(void)
{
	atfork_err = pthread_atfork(fork_prepare, fork_parent, fork_child);
}

int uw_global_init(void)
{
	/* Debian's libunwind 1.6.2 is built without per-thread caches and
	 * silently turns this into UNW_CACHE_GLOBAL (docs/unwinding.md). */
	if (unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD) < 0)
		return -EINVAL;
	pthread_once(&atfork_once, atfork_register);
	return -atfork_err;
}
