/* uw_capture and its libunwind walk; the per-thread and process setup.
 * docs/unwinding.md says what libunwind does on the handler path. */
#include "config.h"

#include <errno.h>
#include <stddef.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "unwinder/internal.h"
#include "unwinder/unwind.h"

static uintptr_t uc_reg(const ucontext_t *uc, int reg)
{
	return (uintptr_t)uc->uc_mcontext.gregs[reg];
}

static int walk_unwind(const ucontext_t *uc, uintptr_t *pcs, int max, unsigned *flags)
{
	unw_cursor_t cursor;
	unw_word_t ip;
	int n = 0, ret;

	pcs[n++] = uc_reg(uc, REG_RIP);
	/* SIGNAL_FRAME: pcs[0] was interrupted, not called, so libunwind must
	 * look up its unwind info at the pc itself rather than pc - 1.
	 * libunwind wants a non-const context but only reads it here. */
	if (unw_init_local2(&cursor, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
		*flags |= UW_FAILED;
		return n;
	}
	while ((ret = unw_step(&cursor)) > 0) {
		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0) {
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
		return walk_unwind(uc, pcs, max, flags);
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
	/* Only the frame-pointer walk needs the bounds (no /proc: none). */
	if (ret < 0 && mode == UW_MODE_FP)
		return ret;
	if (mode == UW_MODE_UNWIND) {
		ucontext_t uc;
		uintptr_t pcs[8];
		unsigned flags;

		/* One walk outside any handler, so that libunwind's one-time
		 * setup, its memory pools and the lazy binding of the functions
		 * it calls are done before a signal needs them. */
		if (getcontext(&uc) < 0)
			return -errno;
		walk_unwind(&uc, pcs, 8, &flags);
	}
	return 0;
}

int uw_global_init(void)
{
	/* Debian's libunwind 1.6.2 is built without per-thread caches and
	 * silently turns this into UNW_CACHE_GLOBAL (docs/unwinding.md). */
	if (unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD) < 0)
		return -EINVAL;
	return 0;
}
