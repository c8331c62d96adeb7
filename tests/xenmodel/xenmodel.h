/* An executable model of the Xen hypervisor and the perfctr-xen guest
 * kernel driver (VEE'11 paper, sections 4.1-4.2.3), for testing the
 * perfctr_xen plugin without Xen.
 *
 * The model owns physical CPUs (TSC and width-bit general counters with
 * PerfEvtSel), domains with VCPUs, and guest threads.  It keeps the
 * per-VCPU state (Sum_vcpu, Start_vcpu) and the per-thread perfctr state
 * in real shared memory laid out as struct pcx_vstate, updated exactly as
 * the paper describes on intra-domain switches (with the resume hypercall
 * or its skipped-hypercall optimization, eq. 4), inter-domain switches,
 * VCPU migrations, overflows with delayed VIRQ_PERFCTR delivery and the
 * pending flag.  The plugin reaches it only through struct pcx_sys: the
 * model answers open/ioctl/mmap as /dev/perfctr would for the "current"
 * thread, and rdpmc/rdtsc from the PCPU that thread's VCPU runs on.
 *
 * Ground truth: every event a PCPU counts is attributed to the thread whose
 * logical count it belongs to (a-mode: between its resume point t_r and its
 * suspend sample; i-mode: while its counter is live in a register).  What
 * the driver reports differs from that by the patch's arithmetic: each
 * upward crossing of a counter's sign bit inside a thread's a-mode interval
 * costs 2^width (sign-extended samples, plain 64-bit subtraction); the
 * model counts those crossings, so the driver's value is known exactly.
 * It shares no code or definitions with the plugin: only the seam.
 * Randomness comes from the seed only.  Aborts on a broken invariant.
 */
#ifndef XENMODEL_H
#define XENMODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "plugins/perfctr_xen/seam.h"	/* the seam only: no plugin ABI */
#include "tests/xenmodel/perfctr_abi.h"

#define XM_MAX_PCPU 4
#define XM_MAX_DOM 3
#define XM_MAX_VCPU 4
#define XM_MAX_THREAD 6		/* per domain */
#define XM_NCTR 4		/* general counters per PCPU */

struct xm_config {
	uint64_t seed;
	int n_pcpu, n_dom, n_vcpu, n_thread;	/* VCPUs and threads per domain */
	uint32_t cpu_type;		/* reported by PERFCTR_INFO: sets the width */
	uint64_t pmc_init;		/* initial raw value of every PCPU counter */
	uint64_t pmc_jitter;		/* plus a random 0 .. pmc_jitter - 1 each */
	bool hypercall_preempt;		/* Xen may switch the domain inside the resume hypercall */
	bool no_overflow_check;		/* a broken guest: VIRQs delivered without the check */
	bool native_layout;		/* a native perfctr: mmap of more than one page fails */
	uint32_t abi;			/* PERFCTR_ABI answer, 0 = XP_ABI_VERSION */
	bool hv_perfctr_off;		/* Xen booted without `perfctr`: per-VCPU pages stay 0 */
};

struct xm_stats {
	uint64_t guest_switches, migrations, vcpu_switches;
	uint64_t hypercalls, hypercalls_skipped, hypercall_preempts;
	uint64_t overflows, virqs, virqs_dropped, pending_set, pending_delivered;
	uint64_t notifications, injected;
};

enum xm_inject {
	XM_INJ_NONE,
	XM_INJ_VCPU_SWITCH,	/* Xen deschedules the reader's VCPU, runs another, resumes it
				 * (on another PCPU when one is free) */
	XM_INJ_MIGRATE,		/* the guest preempts the reader and resumes it on another VCPU */
	XM_INJ_SAME_VCPU,	/* the guest preempts the reader and resumes it on the same
				 * VCPU (the hypercall is skipped when controls match) */
};

struct xm;

/* NULL on a bad config (errno EINVAL) or when memfd/mmap fail. */
struct xm *xm_new(const struct xm_config *cfg);
void xm_free(struct xm *m);
/* The seam to hand to pcx_sys_set(). */
const struct pcx_sys *xm_sys(struct xm *m);
/* Width of the PCPU counters. */
unsigned xm_width(const struct xm *m);

/* Threads are numbered 0 .. n_dom * n_thread - 1. */
int xm_nthreads(const struct xm *m);
int xm_thread_dom(const struct xm *m, int tid);
/* Is tid executing on a VCPU that is on a PCPU? */
bool xm_thread_running(const struct xm *m, int tid);
/* A random running thread, or -1. */
int xm_pick_running(struct xm *m);
/* The thread whose syscalls and rdpmc/rdtsc come next (it must be running);
 * starts a new read: forgets the per-instruction truth snapshots. */
void xm_set_current(struct xm *m, int tid);

/* One random scheduling action: a PCPU runs for a while, a guest switches
 * threads (migrating them between VCPUs), Xen switches VCPUs between
 * PCPUs, or a pending VIRQ is handled. */
void xm_step(struct xm *m);
/* Let a running thread execute user code for ticks TSC cycles. */
void xm_run_thread(struct xm *m, int tid, unsigned ticks);
/* Let whatever is on PCPU p run for ticks TSC cycles. */
void xm_run_pcpu(struct xm *m, int p, unsigned ticks);
/* Drive the machine until every overflow has been delivered to its thread:
 * handle pending VIRQs, resume threads with the pending flag.  No events
 * beyond kernel overheads.  Returns the number of rounds (< 0: gave up). */
int xm_quiesce(struct xm *m);

/* Directed control, for scenario tests.  0 or -errno. */
int xm_guest_switch(struct xm *m, int dom, int vcpu, int next_tid);	/* next -1: idle */
int xm_vcpu_deschedule(struct xm *m, int dom, int vcpu);
int xm_vcpu_schedule(struct xm *m, int dom, int vcpu, int pcpu);
int xm_virq(struct xm *m, int dom, int vcpu);
bool xm_virq_pending(const struct xm *m, int dom, int vcpu);
int xm_thread_vcpu(const struct xm *m, int tid);
/* Make tid run: load its VCPU, or switch it in on a VCPU of its domain. */
void xm_make_running(struct xm *m, int tid);	/* -1 when not current anywhere */
bool xm_thread_pending(const struct xm *m, int tid);	/* its 'interrupt pending' flag */

/* The next injection: during the current thread's at_call-th rdpmc/rdtsc
 * (0 = the next one), before the instruction reads its value. */
void xm_inject(struct xm *m, enum xm_inject kind, int at_call);
bool xm_inject_done(const struct xm *m);

/* Ground truth of a thread: its logical TSC and slot counts now, or as they
 * were at the last rdtsc/rdpmc of that slot since xm_set_current (what a
 * read that used that instruction must have returned). */
uint64_t xm_truth_tsc(const struct xm *m, int tid);
uint64_t xm_truth_slot(const struct xm *m, int tid, int slot);
uint64_t xm_expect_tsc(const struct xm *m, int tid);
/* What the patched driver reports for the slot (truth less 2^width per
 * sign-bit crossing), now or at the last rdpmc of it since xm_set_current. */
uint64_t xm_expect_slot(const struct xm *m, int tid, int slot);
/* Upward sign-bit crossings inside the thread's a-mode intervals so far. */
uint64_t xm_crossings(const struct xm *m, int tid, int slot);
/* Its control's cstatus as the driver holds it (paused after an overflow:
 * TSC only), and the per-VCPU state's cstatus of the VCPU it runs on. */
uint32_t xm_thread_cstatus(const struct xm *m, int tid);
uint32_t xm_vcpu_cstatus(const struct xm *m, int dom, int vcpu);
/* The model's own encodings for golden tests: PERFCTR_INFO's answer, and
 * the words it expects for a control (0 or -errno from its decoder). */
int xm_info_words(const struct xm *m, uint32_t *buf, unsigned cap);
/* The state page of thread tid and the domain's per-VCPU array, as the
 * model writes them (read-only views, for layout tests). */
const struct xp_cpu_state *xm_thread_state(const struct xm *m, int tid);
const struct xp_cpu_state *xm_vcpu_state(const struct xm *m, int dom, int vcpu);
/* Events between the hypervisor's sample in the resume hypercalls and the
 * guest's Start* (eq. 4), summed over the thread's resumes: what it would
 * over-count without the compensation. */
uint64_t xm_hypercall_tail_tsc(const struct xm *m, int tid);
uint64_t xm_hypercall_tail_slot(const struct xm *m, int tid, int slot);

/* Overflow notifications for a thread, oldest first: the slot mask of the
 * signal the guest kernel sent it (si_code SI_PMC_OVF). */
bool xm_notification_pop(struct xm *m, int tid, uint32_t *mask);
int xm_notifications_queued(const struct xm *m, int tid);
/* Zero crossings of the thread's i-mode counters, and overflow bits
 * delivered to it (signals it was sent). */
uint64_t xm_overflows(const struct xm *m, int tid);
uint64_t xm_delivered(const struct xm *m, int tid);
/* i-mode slots of the thread at or past zero and not yet delivered. */
int xm_outstanding(const struct xm *m, int tid);
/* Signals delivered to the thread for a counter that had not overflowed
 * (only with no_overflow_check). */
uint64_t xm_misdelivered(const struct xm *m, int tid);
/* Overflows that died undelivered because the thread changed its control. */
uint64_t xm_discarded(const struct xm *m, int tid);

void xm_get_stats(const struct xm *m, struct xm_stats *st);

#endif /* XENMODEL_H */
