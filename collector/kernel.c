/* The kernel part of each sample (see kernel.h).
 *
 * perf_event writes a sample record for every overflow before it signals
 * it: with PERF_SAMPLE_IP its header says whether the overflow hit kernel
 * code, and with PERF_SAMPLE_CALLCHAIN + exclude_callchain_user it holds
 * the kernel's own call chain (up to 127 pcs, the sampled instruction
 * first).  The user stack is still ours (the unwinder, from the signal's
 * context, which for a kernel-mode sample is the syscall site or the
 * faulting instruction), so the two are stitched: kernel frames as the
 * leaf side, below the user frame that entered the kernel. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/kernel.h"
#include "unwinder/arch.h"

enum kmode {
	KM_CHAIN,		/* kernel chains from the backend */
	KM_LEAF,		/* kernel-mode samples get a [kernel] leaf */
	KM_EXCLUDED,		/* the events do not count the kernel */
	KM_CHARGED,		/* the backend cannot tell: kernel time lands on the caller */
};

static enum kmode mode = KM_CHARGED;
static int no_backend_support;	/* atomic: the backend has no kernel_chain op */
/* perf_event: kernel-mode samples raise no signal (a silent twin per
 * event), and every record carries this many bytes of the user stack. */
static bool silent;
static uint32_t stack_copy;

/* The default stack copy: docs/performance.md says what it costs and how
 * often it falls short. */
#define KERN_STACK_COPY 4096

void kern_init(const char *backend, struct pmc_event *ev, size_t n_ev)
{
	const char *want = getenv("PMCPROF_KERNEL");
	bool perf = n_ev > 0, counts_kernel = false;

	const char *copy = getenv("PMCPROF_STACK_COPY");

	for (size_t i = 0; i < n_ev; i++)
		perf &= ev[i].kind == PMC_KIND_PERF;
	/* Only a backend that can sample the kernel silently (perf_event,
	 * kvm_vpmu) hands out records.  PMCPROF_STACK_COPY=0: the
	 * signal-only scheme of old, for comparison. */
	stack_copy = KERN_STACK_COPY;
	if (copy && *copy)
		stack_copy = (uint32_t)strtoul(copy, NULL, 10);
	if (stack_copy > COLL_REC_BUF - 2048)
		stack_copy = COLL_REC_BUF - 2048;
	(void)backend;
	if (!perf || !coll.be || pmc_backend_signals_only(coll.be))
		stack_copy = 0;
	if (!perf) {
		/* Plugin events (CPUTIME): POSIX CPU timers fire at the tick
		 * and signal on the way back to user space, whatever mode the
		 * tick interrupted. */
		mode = KM_CHARGED;
		return;
	}
	/* A backend that can only signal: a kernel-mode sample would cut the
	 * program's system call short, so the kernel is left out unless
	 * PMCPROF_KERNEL asks for it (leaf). */
	if (coll.be && pmc_backend_signals_only(coll.be) && (!want || strcmp(want, "leaf") != 0))
		want = "off";
	if (want && strcmp(want, "off") == 0) {
		/* What an unprivileged user at perf_event_paranoid 2 gets
		 * (':u'): an event that only counts user mode.  An event that
		 * only counts the kernel (':k') is left as asked. */
		for (size_t i = 0; i < n_ev; i++)
			if (!ev[i].exclude_user)
				ev[i].exclude_kernel = true;
	}
	for (size_t i = 0; i < n_ev; i++)
		counts_kernel |= !ev[i].exclude_kernel;
	if (!counts_kernel)
		mode = KM_EXCLUDED;
	else if (want && strcmp(want, "leaf") == 0)
		mode = KM_LEAF;
	else
		mode = KM_CHAIN;
	silent = stack_copy && (mode == KM_CHAIN || mode == KM_LEAF);
#if !defined(__x86_64__)
	/* The walk from a record's registers and stack copy is x86-64's
	 * alone (unwinder/unwind.c): elsewhere every sample signals. */
	silent = false;
#endif
}

void kern_group_opts(struct pmc_group_opts *o)
{
	o->kernel_chain = mode == KM_CHAIN;
	o->kernel_silent = silent;
	o->stack_copy = stack_copy;
}

void kern_loadmap(void)
{
	uint8_t bid[64];
	bool on = mode == KM_CHAIN || mode == KM_LEAF;
	uint32_t n = on ? (uint32_t)prof_notes_build_id("/sys/kernel/notes", bid, sizeof(bid)) : 0;

	loadmap_set_kernel(on, KERN_MODULE_PATH, KERN_START, KERN_END, bid, n);
}

const char *kern_frames_meta(void)
{
	if (__atomic_load_n(&no_backend_support, __ATOMIC_RELAXED))
		return "charged_to_user";
	switch (mode) {
	case KM_CHAIN:
		return "callchain";
	case KM_LEAF:
		return "leaf";
	case KM_EXCLUDED:
		return "excluded";
	default:
		return "charged_to_user";
	}
}

int kern_stitch(struct thr *t, int idx, uintptr_t *pcs, int n, int max)
{
	uint64_t kpcs[128];
	unsigned flags;
	int k;

	if (mode != KM_CHAIN && mode != KM_LEAF)
		return n;
	k = pmc_group_kernel_chain(t->g, idx, kpcs, sizeof(kpcs) / sizeof(kpcs[0]), &flags);
	if (k == -PMC_ENOTSUP) {
		__atomic_store_n(&no_backend_support, 1, __ATOMIC_RELAXED);
		return n;
	}
	if (k < 0) {
		/* No record of this overflow (the handler fell behind and an
		 * earlier handler took it, or the kernel lost it): its mode is
		 * unknown, and the sample keeps the user stack alone. */
		t->ctr[CTR_KERNEL_UNKNOWN]++;
		return n;
	}
	if (!(flags & PMC_KCHAIN_KERNEL))
		return n;
	t->ctr[CTR_KERNEL_SAMPLES]++;
	if (k == 0 || mode == KM_LEAF) {
		/* Kernel mode without a chain: a [kernel] leaf, so the time is
		 * never passed off as the user frame's. */
		kpcs[0] = KERN_START;
		k = 1;
		t->ctr[CTR_KERNEL_LEAF_ONLY]++;
	}
	if (flags & PMC_KCHAIN_TRUNCATED)
		t->ctr[CTR_TRUNCATED]++;
	if (k > max)
		k = max;
	if (n + k > max) {
		/* Keep the leaf side: the root-most user frames go. */
		n = max - k;
		t->ctr[CTR_TRUNCATED]++;
	}
	memmove(pcs + k, pcs, (size_t)n * sizeof(pcs[0]));
	for (int i = 0; i < k; i++)
		pcs[i] = (uintptr_t)kpcs[i];
	return n + k;
}

/* ---- the kernel's records (perf_event; see kernel.h) ---- */

/* The path of record r into pcs[max], leaf first: its kernel chain (or
 * the [kernel] leaf), then the user stack unwound from its copy.  0 when
 * there is nothing to place. */
static int rec_path(struct thr *t, const struct pmc_record *r, uintptr_t *pcs, int max)
{
	struct uw_regs ur;
	struct uw_stack_copy sc;
	unsigned fl = 0;
	int k = 0, n;

	if (r->kernel) {
		for (size_t i = 0; i < r->n_kchain && k < max && mode == KM_CHAIN; i++)
			pcs[k++] = (uintptr_t)r->kchain[i];
		if (k == 0) {
			pcs[k++] = KERN_START;
			t->ctr[CTR_KERNEL_LEAF_ONLY]++;
		}
	}
	if (!r->regs || !r->stack_size) {
		if (!r->kernel && r->ip)
			pcs[k++] = (uintptr_t)r->ip;
		return k;
	}
	uw_regs_from_perf(&ur, r->regs, r->regs_mask);
	sc.start = ur.r[UW_REG_RSP];
	sc.data = r->stack;
	sc.size = (size_t)r->stack_size;
	if (t->uw.mode == UW_MODE_NONE || coll_in_dl) {
		pcs[k++] = (uintptr_t)ur.r[UW_REG_RIP];	/* the leaf, as sample() would */
		return k;
	}
	n = uw_unwind_copy(&ur, &sc, NULL, pcs + k, max - k, &fl);
	if (fl & UW_COPY_SHORT) {
		t->ctr[CTR_STACK_COPY_SHORT]++;
		t->ctr[CTR_TRUNCATED]++;
	}
	t->ctr[CTR_TRUNCATED] += !!(fl & UW_TRUNCATED);
	t->ctr[CTR_UNWIND_FAILED] += !!(fl & UW_FAILED);
	return k + (n > 0 ? n : 0);
}

/* How many samples of event idx a record of this period stands for: a
 * silent twin samples at a multiple of its event's period while the
 * thread shows little kernel time (plugins/perf_event, twin_adapt), and
 * the tree counts samples of the event's period.  1 for a frequency. */
static uint32_t rec_count(int idx, uint64_t period)
{
	uint64_t base = coll.ev[idx].period, k;

	if (!base || !period || period <= base)
		return 1;
	k = (period + base / 2) / base;
	return k > 64 ? 64 : (uint32_t)k;
}

/* Samples a LOST record stands for: placed round-robin on the nodes of
 * the samples taken just before it from the same ring (the thread was
 * doing the same thing then), else dropped; counted either way. */
struct near {
	uint32_t node[16];
	unsigned n, next;
	uint64_t period;	/* of the last sample: a twin's may be longer */
};

static void near_add(struct near *nb, uint32_t node, const struct pmc_record *r)
{
	if (r->period)
		nb->period = r->period;
	if (!node)
		return;
	nb->node[nb->next++ % 16] = node;
	if (nb->n < 16)
		nb->n++;
}

static void place_lost(struct thr *t, int idx, struct near *nb, uint64_t lost)
{
	uint32_t each = rec_count(idx, nb->period);

	if (!nb->n) {
		t->ctr[CTR_DROPPED_RING_FULL] += lost * each;
		return;
	}
	for (uint64_t k = 0; k < lost; k++)
		coll_count(t, idx, nb->node[k % nb->n], each);
	t->weight[idx] += lost * (nb->period ? nb->period : t->period[idx]);
	t->ctr[CTR_RING_LOST_PLACED] += lost * each;
}

/* Put record r (a sample) into t's tree; its node or 0. */
static uint32_t rec_insert(struct thr *t, int idx, const struct pmc_record *r)
{
	uint32_t node, count;
	int n;

	if (r->tid && (pid_t)r->tid != t->tid) {
		t->ctr[CTR_DROPPED_OTHER_THREAD]++;
		return 0;
	}
	n = rec_path(t, r, t->pcs, COLL_MAX_DEPTH);
	if (n <= 0) {
		t->ctr[CTR_DROPPED_NO_STACK]++;
		return 0;
	}
	count = rec_count(idx, r->period);
	node = coll_insert(t, idx, t->pcs, n, count);
	if (node)
		t->weight[idx] += r->period ? r->period : t->period[idx];
	if (node && r->kernel)
		t->ctr[CTR_KERNEL_SAMPLES] += count;
	return node;
}

/* One record of event idx's ring `ring` into rec; 1, or 0 when none (or
 * the ring is busy: a drain in a handler we interrupted). */
static int rec_next(struct thr *t, int idx, enum pmc_record_ring ring, struct pmc_record *r)
{
	unsigned busy = 0;
	int ret;

	/* -ENOSPC, -EIO: that one was skipped, take the next.  -EBUSY:
	 * another thread's flush or the owner's handler is in the ring for a
	 * moment (never the handler's own thread: it would be the one that
	 * was interrupted, and waits). */
	do
		ret = pmc_group_record(t->g, idx, ring, t->rec_buf, sizeof(t->rec_buf), r);
	while (ret == -ENOSPC || ret == -EIO || (ret == -EBUSY && ++busy < 1000));
	return ret == 1;
}

/* Every kernel-mode sample waiting in the silent rings. */
static void take_silent(struct thr *t)
{
	struct pmc_record r;

	for (size_t i = 0; i < coll.n_ev; i++) {
		struct near nb = { .n = 0 };

		while (rec_next(t, (int)i, PMC_RING_SILENT, &r)) {
			if (r.kind == PMC_REC_LOST)
				place_lost(t, (int)i, &nb, r.lost);
			else
				near_add(&nb, rec_insert(t, (int)i, &r), &r);
		}
	}
}

/* The records of signals: the one of this signal (its ip is the
 * signal's: in time, 1 returned so the caller samples the context it was
 * given, which unwinds best), and any taken before their signals came
 * (late: the program had blocked the signal), placed from their own
 * registers and stack.  keep false: count them, place nothing (a
 * throttled signal). */
/* Whether record r is the sample of a signal that came at (rip, rsp): the
 * same instruction (a software clock: the signal comes from the interrupt
 * that took the sample), or a few instructions on in the same frame (a
 * hardware counter's skid: the overflow interrupt, then the one that
 * signals).  A late signal comes where the program unblocked it: another
 * frame. */
static bool rec_is_signal(const struct pmc_record *r, uintptr_t rip, uintptr_t rsp)
{
	struct uw_regs ur;

	if (r->ip == rip)
		return true;
	if (!r->regs || r->ip > rip || rip - r->ip > 256)
		return false;
	uw_regs_from_perf(&ur, r->regs, r->regs_mask);
	return (ur.have & (1u << UW_REG_RSP)) && ur.r[UW_REG_RSP] == rsp;
}

static bool take_signalled(struct thr *t, int idx, uintptr_t rip, uintptr_t rsp, bool keep)
{
	struct pmc_record r;
	struct near nb = { .n = 0 };
	bool own = false;
	uint32_t taken = 0;

	while (rec_next(t, idx, PMC_RING_SIGNALLED, &r)) {
		if (r.kind == PMC_REC_LOST) {
			taken += (uint32_t)r.lost;
			if (keep)
				place_lost(t, idx, &nb, r.lost);
			continue;
		}
		taken++;
		if (!own && rip && rec_is_signal(&r, rip, rsp)) {
			own = true;	/* the caller samples it */
			continue;
		}
		if (!keep)
			continue;
		t->ctr[CTR_SIGNAL_LATE]++;
		near_add(&nb, rec_insert(t, idx, &r), &r);
	}
	/* This signal stands for one of the records taken, now or before. */
	t->rec_ahead[idx] += taken;
	if (t->rec_ahead[idx]) {
		t->rec_ahead[idx]--;
		return own;
	}
	/* No record for it: the kernel wrote none we could read. */
	t->ctr[CTR_KERNEL_UNKNOWN]++;
	return true;
}

bool kern_on_signal(struct thr *t, int idx, const ucontext_t *uc)
{
	take_silent(t);
	return take_signalled(t, idx, uc_pc(uc), uc_sp(uc), true);
}

void kern_skip_signal(struct thr *t, int idx)
{
	take_signalled(t, idx, 0, 0, false);
}

void kern_drain(struct thr *t)
{
	struct pmc_record r;

	if (!t->rec_mode || !t->g)
		return;
	take_silent(t);
	/* Late samples whose signals never came (still blocked at the end). */
	for (size_t i = 0; i < coll.n_ev; i++) {
		struct near nb = { .n = 0 };

		while (rec_next(t, (int)i, PMC_RING_SIGNALLED, &r)) {
			if (r.kind == PMC_REC_LOST) {
				place_lost(t, (int)i, &nb, r.lost);
				continue;
			}
			t->ctr[CTR_SIGNAL_LATE]++;
			near_add(&nb, rec_insert(t, (int)i, &r), &r);
		}
	}
}

void kern_thread_armed(struct thr *t)
{
	struct pmc_record r;

	memset(t->rec_ahead, 0, sizeof(t->rec_ahead));
	/* Before start no record waits: this only asks whether the backend
	 * keeps them. */
	t->rec_mode = stack_copy && t->g &&
		      pmc_group_record(t->g, 0, PMC_RING_SIGNALLED, t->rec_buf, sizeof(t->rec_buf),
				       &r) != -PMC_ENOTSUP;
}
