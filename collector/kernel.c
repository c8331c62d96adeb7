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

enum kmode {
	KM_CHAIN,		/* kernel chains from the backend */
	KM_LEAF,		/* kernel-mode samples get a [kernel] leaf */
	KM_EXCLUDED,		/* the events do not count the kernel */
	KM_CHARGED,		/* the backend cannot tell: kernel time lands on the caller */
};

static enum kmode mode = KM_CHARGED;
static int no_backend_support;	/* atomic: the backend has no kernel_chain op */

void kern_init(const char *backend, struct pmc_event *ev, size_t n_ev)
{
	const char *want = getenv("PMCPROF_KERNEL");
	bool perf = n_ev > 0, counts_kernel = false;

	(void)backend;
	for (size_t i = 0; i < n_ev; i++)
		perf &= ev[i].kind == PMC_KIND_PERF;
	if (!perf) {
		/* Plugin events (CPUTIME): POSIX CPU timers fire at the tick
		 * and signal on the way back to user space, whatever mode the
		 * tick interrupted. */
		mode = KM_CHARGED;
		return;
	}
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
}

bool kern_want_chain(void)
{
	return mode == KM_CHAIN;
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
