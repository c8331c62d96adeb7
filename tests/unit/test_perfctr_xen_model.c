/* perfctr_xen against the executable Xen model (tests/xenmodel): the
 * plugin's own code reads the model's shared pages through the seam.
 * Directed scenarios first (eq. 4, the skipped hypercall, reads racing a
 * migration, counter width, overflow delivery incl. the pending flag),
 * then seeded random schedules whose every read must equal the model's
 * ground truth exactly. */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/perfctr_xen/pcx.h"
#include "tests/harness.h"
#include "tests/xenmodel/perfctr_abi.h"
#include "tests/xenmodel/xenmodel.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SIGNO 40
#define MAXEV 4
#define MAXTH (XM_MAX_DOM * XM_MAX_THREAD)

enum { EV_CYC, EV_INS, EV_BR, EV_LLC, EV_TSC };

/* Event sets threads use: A and C differ in control (hypercall on a switch
 * between them), two A threads share one (the hypercall is skipped). */
static const struct evset {
	const char *name;
	int n;
	int which[MAXEV];
	bool sampled[MAXEV];
} sets[] = {
	{ "A", 3, { EV_CYC, EV_INS, EV_TSC }, { 0 } },
	{ "B", 3, { EV_CYC, EV_BR, EV_TSC }, { 0, 1, 0 } },
	{ "C", 3, { EV_LLC, EV_INS, EV_TSC }, { 0 } },
	{ "D", 4, { EV_CYC, EV_BR, EV_INS, EV_TSC }, { 0, 1, 1, 0 } },
};
enum { SET_A, SET_B, SET_C, SET_D };

struct thr {
	void *ctx;
	int set;
	int slot[MAXEV];
	uint64_t foreign;		/* signals we sent that are not overflows */
	uint64_t refused;		/* model notifications the plugin refused */
	bool have_last;
	siginfo_t last;
};

struct run {
	struct xm *m;
	struct thr th[MAXTH];
	uint64_t seed;
	uint64_t reads, bad_reads, injected_reads, rearm_fail;
	char first_bad[256];
};

static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static struct pmc_event make_event(int which, uint64_t period)
{
	static const uint64_t hw[] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
				       PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
				       PERF_COUNT_HW_CACHE_REFERENCES };
	struct pmc_event ev;

	memset(&ev, 0, sizeof(ev));
	if (which == EV_TSC) {
		ev.kind = PMC_KIND_PLUGIN;
		strcpy(ev.name, PCX_TSC_EVENT);
		strcpy(ev.plugin, "perfctr_xen");
		return ev;
	}
	ev.kind = PMC_KIND_PERF;
	ev.type = PERF_TYPE_HARDWARE;
	ev.config = hw[which];
	ev.hardware = true;
	ev.period = period;
	return ev;
}

/* Open, arm and start the set for the current (running) thread.  Slots as
 * perfctr orders them: a-mode events first, then i-mode. */
static int thr_open(struct run *r, int tid, int set, uint64_t period)
{
	const struct evset *es = &sets[set];
	struct thr *th = &r->th[tid];
	struct pmc_event evs[MAXEV];
	bool sample = false;
	int ret, s = 0;

	for (int i = 0; i < es->n; i++) {
		evs[i] = make_event(es->which[i], es->sampled[i] ? period : 0);
		sample |= es->sampled[i];
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < es->n; i++)
			if (es->which[i] == EV_TSC)
				th->slot[i] = -1;
			else if (es->sampled[i] == (pass == 1))
				th->slot[i] = s++;
	PMC_GROUP_OPTS(o, .sample = sample, .signo = SIGNO);
	xm_set_current(r->m, tid);
	ret = pcx_open(evs, es->n, &o, &th->ctx);
	if (ret == 0 && sample)
		ret = pcx_arm(th->ctx, SIGNO);
	if (ret == 0)
		ret = pcx_start(th->ctx);
	th->set = set;
	return ret;
}

static uint64_t expect(struct run *r, int tid, int e)
{
	int s = r->th[tid].slot[e];
	return s < 0 ? xm_expect_tsc(r->m, tid) : xm_expect_slot(r->m, tid, s);
}

/* One read by tid (current); compare every event with the model. */
static bool check_read(struct run *r, int tid, const char *what)
{
	struct thr *th = &r->th[tid];
	struct pmc_count vals[MAXEV];
	int n = sets[th->set].n, ret;

	ret = pcx_read(th->ctx, vals, n);
	r->reads++;
	for (int e = 0; e < n; e++) {
		if (ret == 0 && vals[e].value == expect(r, tid, e))
			continue;
		if (!r->bad_reads++)
			snprintf(r->first_bad, sizeof(r->first_bad),
				 "%s: seed %llu thread %d event %d: ret %d, read %llu, truth %llu",
				 what, (unsigned long long)r->seed, tid, e, ret,
				 (unsigned long long)vals[e].value,
				 (unsigned long long)expect(r, tid, e));
		return false;
	}
	return true;
}

static siginfo_t make_si(int code, uint32_t mask)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGNO;
	si.si_code = code;
	si._sifields._pad[0] = (int)mask;
	return si;
}

/* The thread's signal handler runs: take each queued notification as the
 * collector would (overflow, then rearm).  Returns notifications taken. */
static int deliver(struct run *r, int tid)
{
	struct thr *th = &r->th[tid];
	uint32_t mask;
	int taken = 0;

	xm_set_current(r->m, tid);
	while (xm_notification_pop(r->m, tid, &mask)) {
		siginfo_t si = make_si(PCX_SI_PMC_OVF, mask);
		int idx = pcx_overflow(th->ctx, &si);

		if (idx < 0) {
			th->refused++;
			continue;
		}
		if (!(mask & (1u << th->slot[idx])) || pcx_rearm(th->ctx, idx, 0) != 0)
			r->rearm_fail++;
		th->last = si;
		th->have_last = true;
		taken++;
	}
	return taken;
}

/* The model of machine cfg (copied), its counters as the plugin's. */
static struct xm *model(struct run *r, struct xm_config cfg)
{
	memset(r, 0, sizeof(*r));
	r->seed = cfg.seed;
	r->m = xm_new(&cfg);
	if (r->m)
		pcx_sys_set(xm_sys(r->m));
	return r->m;
}

static void run_free(struct run *r)
{
	for (int i = 0; i < MAXTH; i++)
		if (r->th[i].ctx) {
			if (xm_thread_running(r->m, i)) {
				xm_set_current(r->m, i);
				pcx_close(r->th[i].ctx);
			}
		}
	pcx_sys_set(NULL);
	xm_free(r->m);
}

/* A machine of pcpu physical CPUs, dom domains of vcpu VCPUs and thread
 * threads each. */
static struct xm_config machine_cfg(uint64_t seed, int pcpu, int dom, int vcpu, int thread)
{
	struct xm_config c = { .seed = seed, .n_pcpu = pcpu, .n_dom = dom, .n_vcpu = vcpu,
			       .n_thread = thread, .cpu_type = PCX_X86_INTEL_NHLM };
	return c;
}

static struct xm_config base_cfg(uint64_t seed)
{
	return machine_cfg(seed, 1, 1, 1, 2);
}

/* Let tid run (switched in if needed), then current. */
static void as_thread(struct run *r, int tid)
{
	xm_make_running(r->m, tid);
	xm_set_current(r->m, tid);
}

/* Threads 0 and 1 of VCPU 0 open set0 and set1 (period 0: counting), in
 * turn: 0 or the first error. */
static int open_two(struct run *r, int set0, uint64_t period0, int set1, uint64_t period1)
{
	int ret;

	as_thread(r, 0);
	ret = thr_open(r, 0, set0, period0);
	xm_guest_switch(r->m, 0, 0, 1);
	as_thread(r, 1);
	int ret1 = thr_open(r, 1, set1, period1);

	return ret ? ret : ret1;
}

/* ---- directed scenarios ---- */

static void test_refusals(void)
{
	struct xm_config cfg = base_cfg(11);
	struct pmc_event evs[2] = { make_event(EV_CYC, 1000), make_event(EV_TSC, 0) };
	struct run r;
	void *ctx;

	if (!model(&r, cfg)) {
		T_OK(0, "model: xm_new failed");
		return;
	}
	as_thread(&r, 0);
	PMC_GROUP_OPTS(other, .pid = 1234);
	T_OK(pcx_open(evs, 1, &other, &ctx) == -PMC_ENOTSUP, "open: another thread's counters refused");
	PMC_GROUP_OPTS(inh, .inherit = true);
	T_OK(pcx_open(evs, 1, &inh, &ctx) == -PMC_ENOTSUP, "open: inherit refused");
	PMC_GROUP_OPTS(smp, .sample = true, .signo = SIGNO);
	evs[1].period = 100;
	T_OK(pcx_open(evs, 2, &smp, &ctx) == -PMC_ENOTSUP, "open: sampling the TSC refused");
	evs[1].period = 0;
	evs[0].period = 0;
	evs[0].freq = 1000;
	T_OK(pcx_open(evs, 1, &smp, &ctx) == -PMC_ENOTSUP, "open: frequency sampling refused");
	evs[0].freq = 0;
	evs[0].period = 1ULL << 31;
	T_OK(pcx_open(evs, 1, &smp, &ctx) == -PMC_EPERIOD,
	     "open: a period the 32-bit counter write cannot hold refused");
	run_free(&r);

	cfg.native_layout = true;
	model(&r, cfg);
	as_thread(&r, 0);
	PMC_GROUP_OPTS(plain, .pid = 0);
	T_OK(pcx_open(evs, 1, &plain, &ctx) == -PMC_EABI,
	     "open: a native perfctr (one-page mmap) is not perfctr-xen: -PMC_EABI");
	run_free(&r);

	cfg.native_layout = false;
	cfg.abi = 0x05010500;
	model(&r, cfg);
	as_thread(&r, 0);
	T_OK(pcx_open(evs, 1, &plain, &ctx) == -PMC_EABI, "open: another perfctr ABI: -PMC_EABI");
	run_free(&r);
}

/* Intra- and inter-domain switches and VCPU migrations of one thread. */
static void test_amode_switches(void)
{
	struct xm_config cfg = machine_cfg(21, 2, 2, 2, 3);
	struct run r;
	int ok = 0, n = 0;

	if (!model(&r, cfg))
		return;
	as_thread(&r, 0);
	T_OK(thr_open(&r, 0, SET_A, 0) == 0, "a-mode: open cycles, instructions, TSC");
	for (int i = 0; i < 1000; i++) {
		xm_step(r.m);
		if (!xm_thread_running(r.m, 0))
			continue;
		xm_set_current(r.m, 0);
		xm_run_thread(r.m, 0, 1 + rnd() % 500);
		n++;
		ok += check_read(&r, 0, "a-mode switches");
	}
	struct xm_stats st;
	xm_get_stats(r.m, &st);
	T_OK(n > 100 && ok == n && st.migrations > 0 && st.vcpu_switches > 0,
	     "a-mode: %d/%d reads exact across %llu guest switches, %llu VCPU switches, %llu "
	     "migrations%s%s",
	     ok, n, (unsigned long long)st.guest_switches, (unsigned long long)st.vcpu_switches,
	     (unsigned long long)st.migrations, r.bad_reads ? " -- " : "", r.first_bad);
	run_free(&r);
}

/* Eq. 4: the events between the hypervisor's sample in the resume
 * hypercall and the guest's Start* are not the thread's, even when Xen
 * switches the domain out inside the hypercall. */
static void test_eq4(void)
{
	struct xm_config cfg = machine_cfg(31, 1, 2, 1, 2);
	struct run r;
	struct xm_stats st;
	int ok = 0;

	cfg.hypercall_preempt = true;
	if (!model(&r, cfg))
		return;
	/* Thread 0 counts set A, thread 1 set C: every switch needs the hypercall. */
	open_two(&r, SET_A, 0, SET_C, 0);
	for (int i = 0; i < 200; i++) {
		int tid = i & 1;
		xm_guest_switch(r.m, 0, 0, tid);
		if (rnd() % 3 == 0) {	/* Xen runs the other domain for a while */
			xm_vcpu_deschedule(r.m, 0, 0);
			xm_vcpu_schedule(r.m, 1, 0, 0);
			xm_run_pcpu(r.m, 0, 1 + rnd() % 5000);
			xm_vcpu_deschedule(r.m, 1, 0);
			xm_vcpu_schedule(r.m, 0, 0, 0);
		}
		as_thread(&r, tid);
		xm_run_thread(r.m, tid, 1 + rnd() % 2000);
		ok += check_read(&r, tid, "eq4");
	}
	xm_get_stats(r.m, &st);
	T_OK(ok == 200, "eq. 4: 200/200 reads exact with a hypercall on every switch%s%s",
	     r.bad_reads ? " -- " : "", r.first_bad);
	T_OK(st.hypercall_preempts > 10 && st.hypercalls > 200,
	     "eq. 4: %llu resume hypercalls, %llu preempted by Xen inside the hypercall",
	     (unsigned long long)st.hypercalls, (unsigned long long)st.hypercall_preempts);
	T_OK(xm_hypercall_tail_tsc(r.m, 0) > 0 && xm_hypercall_tail_slot(r.m, 0, 0) > 0 &&
		     xm_hypercall_tail_slot(r.m, 1, 0) > 0,
	     "eq. 4: the excluded hypercall tails are real (%llu TSC cycles, %llu cycles): a "
	     "read without the compensation would be off by them",
	     (unsigned long long)xm_hypercall_tail_tsc(r.m, 0),
	     (unsigned long long)xm_hypercall_tail_slot(r.m, 0, 0));
	run_free(&r);
}

/* Section 4.2.1's optimization: threads with the same control switch
 * without the hypercall; Start*_thread still comes from eq. 4, so each
 * subtracts the others' events. */
static void test_skipped_hypercall(void)
{
	struct xm_config cfg = machine_cfg(41, 1, 1, 1, 3);
	struct run r;
	struct xm_stats a, b;
	int ok = 0;

	if (!model(&r, cfg))
		return;
	for (int tid = 0; tid < 3; tid++) {
		xm_guest_switch(r.m, 0, 0, tid);
		as_thread(&r, tid);
		thr_open(&r, tid, SET_A, 0);
	}
	xm_get_stats(r.m, &a);
	for (int i = 0; i < 300; i++) {
		int tid = rnd() % 3;
		if (xm_thread_vcpu(r.m, tid) < 0)
			xm_guest_switch(r.m, 0, 0, tid);
		as_thread(&r, tid);
		xm_run_thread(r.m, tid, 1 + rnd() % 3000);
		ok += check_read(&r, tid, "skipped hypercall");
	}
	xm_get_stats(r.m, &b);
	T_OK(b.hypercalls == a.hypercalls && b.hypercalls_skipped - a.hypercalls_skipped > 100,
	     "skipped hypercall: %llu switches between equal controls, %llu hypercalls",
	     (unsigned long long)(b.hypercalls_skipped - a.hypercalls_skipped),
	     (unsigned long long)(b.hypercalls - a.hypercalls));
	T_OK(ok == 300, "skipped hypercall: 300/300 reads of three threads exact%s%s",
	     r.bad_reads ? " -- " : "", r.first_bad);
	run_free(&r);
}

/* A read racing a VCPU switch or a thread migration: one pass sees the
 * change (and, when the change hit before the first instruction, a wrong
 * value); the read retries and returns the right one. */
static void test_read_races(void)
{
	static const struct {
		enum xm_inject kind;
		const char *name;
	} kinds[] = {
		{ XM_INJ_VCPU_SWITCH, "VCPU switch" },
		{ XM_INJ_MIGRATE, "migration to another VCPU" },
		{ XM_INJ_SAME_VCPU, "switch away and back, hypercall skipped" },
	};
	struct xm_config cfg = machine_cfg(51, 2, 2, 2, 3);
	struct run r;

	if (!model(&r, cfg))
		return;
	for (int tid = 0; tid < 3; tid++) {
		as_thread(&r, tid);
		thr_open(&r, tid, SET_A, 0);
	}
	for (size_t k = 0; k < N(kinds); k++) {
		for (int at = 0; at < 3; at++) {	/* rdtsc, rdpmc slot 0, rdpmc slot 1 */
			uint64_t vals[MAXEV], before;
			bool consistent = true, wrong = false;

			as_thread(&r, 0);
			xm_run_thread(r.m, 0, 1000);
			xm_inject(r.m, kinds[k].kind, at);
			pcx_read_once(r.th[0].ctx, vals, 3, &consistent);
			for (int e = 0; e < 3; e++)
				wrong |= vals[e] != expect(&r, 0, e);
			T_OK(xm_inject_done(r.m) && !consistent && (at > 0 || wrong),
			     "race, %s before instruction %d: one pass detects it%s",
			     kinds[k].name, at, wrong ? " (and its values are wrong)" : "");
			as_thread(&r, 0);
			before = pcx_read_retries(r.th[0].ctx);
			xm_inject(r.m, kinds[k].kind, at);
			T_OK(check_read(&r, 0, kinds[k].name) &&
				     pcx_read_retries(r.th[0].ctx) > before,
			     "race, %s before instruction %d: the read retries and is exact%s%s",
			     kinds[k].name, at, r.bad_reads ? " -- " : "", r.first_bad);
		}
	}
	run_free(&r);
}

/* 48- and 40-bit counters whose raw values cross the sign bit or wrap
 * between a VCPU's Start sample and a read: the first reads follow the
 * cycles counter (one per TSC cycle) 10000 at a time through the crossing
 * 50000 cycles up, with nothing resampling Start_vcpu; then switches.
 * Every read must be what the patched driver reports: the true count less
 * 2^width per upward sign-bit crossing (sign-extended samples, plain 64-bit
 * subtraction, perfctr_r2b.patch).  A plugin that takes deltas mod 2^width
 * reads the true count there and disagrees with the driver's own sums. */
static void test_width(void)
{
	static const struct {
		int line;
		uint32_t cpu_type;
		int top;		/* 1: start below 2^(w-1); 0: below 2^w */
	} cases[] = {
		{ __LINE__, PCX_X86_INTEL_NHLM, 1 },
		{ __LINE__, PCX_X86_INTEL_NHLM, 0 },
		{ __LINE__, PCX_X86_INTEL_CORE2, 1 },
		{ __LINE__, PCX_X86_INTEL_CORE2, 0 },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct xm_config cfg = base_cfg(61 + i);
		struct run r;
		unsigned w;
		int ok = 0;

		cfg.cpu_type = cases[i].cpu_type;
		w = pcx_width_for_cpu_type(cfg.cpu_type);
		cfg.pmc_init = (1ULL << (w - cases[i].top)) - 50000;
		cfg.n_dom = 2;
		if (!model(&r, cfg))
			return;
		as_thread(&r, 0);
		thr_open(&r, 0, SET_A, 0);
		for (int k = 0; k < 40; k++) {
			as_thread(&r, 0);
			xm_run_thread(r.m, 0, 10000);
			if (k >= 10 && k % 3 == 0)
				xm_guest_switch(r.m, 0, 0, 1);
			else if (k >= 10 && k % 3 == 1) {
				xm_vcpu_deschedule(r.m, 0, 0);
				xm_vcpu_schedule(r.m, 1, 0, 0);
				xm_run_pcpu(r.m, 0, 3000);
				xm_vcpu_deschedule(r.m, 1, 0);
				xm_vcpu_schedule(r.m, 0, 0, 0);
			}
			as_thread(&r, 0);
			ok += check_read(&r, 0, "width");
		}
		T_OK(ok == 40 && xm_truth_slot(r.m, 0, 0) >= 400000 &&
			     xm_crossings(r.m, 0, 0) == (unsigned)cases[i].top,
		     "width case at line %d: %u-bit counters from %#llx: %d/40 reads as the "
		     "driver's, %llu sign-bit crossing(s)%s%s",
		     cases[i].line, w, (unsigned long long)cfg.pmc_init, ok,
		     (unsigned long long)xm_crossings(r.m, 0, 0), r.bad_reads ? " -- " : "",
		     r.first_bad);
		run_free(&r);
	}
}

/* Run tid until its i-mode counters overflowed `target` times in all. */
static bool run_until_overflow(struct run *r, int tid, uint64_t target)
{
	for (int i = 0; i < 10000 && xm_overflows(r->m, tid) < target; i++)
		xm_run_thread(r->m, tid, 500);
	return xm_overflows(r->m, tid) >= target;
}

static void test_imode(void)
{
	struct run r;
	struct xm_stats a, b;
	struct pmc_sample_stats ps;
	struct pmc_count v0;
	uint32_t mask;
	int idx;

	if (!model(&r, machine_cfg(71, 2, 1, 2, 3)))
		return;
	/* Thread 0 samples branches every 5000 on VCPU 0; thread 1 counts;
	 * thread 2 does not use counters. */
	as_thread(&r, 0);
	T_OK(thr_open(&r, 0, SET_B, 5000) == 0, "i-mode: open with branches sampled");
	xm_guest_switch(r.m, 0, 1, 1);
	as_thread(&r, 1);
	thr_open(&r, 1, SET_A, 0);

	/* 1. Direct: the VIRQ finds the thread that overflowed. */
	as_thread(&r, 0);
	T_OK(run_until_overflow(&r, 0, 1) && xm_virq_pending(r.m, 0, 0),
	     "i-mode: the counter reached zero and Xen raised VIRQ_PERFCTR");
	xm_virq(r.m, 0, 0);
	T_OK(xm_notification_pop(r.m, 0, &mask) && mask == 1u << r.th[0].slot[1],
	     "i-mode: the guest signalled thread 0 with its slot mask (%#x)", mask);
	xm_set_current(r.m, 0);
	siginfo_t si = make_si(PCX_SI_PMC_OVF, mask);
	idx = pcx_overflow(r.th[0].ctx, &si);
	T_OK(idx == 1, "i-mode: the plugin confirms the overflow of event 1 (got %d)", idx);
	pcx_read(r.th[0].ctx, &v0, 1);
	T_OK(pcx_rearm(r.th[0].ctx, idx, 0) == 0, "i-mode: VPERFCTR_IRESUME");
	T_OK(pcx_rearm(r.th[0].ctx, idx, 0) == -EINVAL, "i-mode: rearm twice is refused");

	/* 2. Pending: thread 0 overflows, the guest switches it out before the
	 * VIRQ; the VIRQ finds thread 2 (no overflow) and is dropped; thread 0
	 * gets its signal when resumed, on the other VCPU. */
	xm_get_stats(r.m, &a);
	as_thread(&r, 0);
	T_OK(run_until_overflow(&r, 0, 2), "pending: second overflow");
	xm_guest_switch(r.m, 0, 0, 2);
	T_OK(xm_thread_pending(r.m, 0) && xm_virq_pending(r.m, 0, 0),
	     "pending: suspended with the VIRQ undelivered: 'interrupt pending' set");
	xm_virq(r.m, 0, 0);
	T_OK(xm_notifications_queued(r.m, 0) == 0 && xm_notifications_queued(r.m, 1) == 0,
	     "pending: the late VIRQ is dropped (the current thread did not overflow)");
	xm_guest_switch(r.m, 0, 1, 0);	/* resumed on VCPU 1 */
	xm_get_stats(r.m, &b);
	T_OK(b.virqs_dropped == a.virqs_dropped + 1 && b.pending_delivered == a.pending_delivered + 1 &&
		     xm_notifications_queued(r.m, 0) == 1,
	     "pending: delivered on resume, in thread 0's context");
	T_OK(deliver(&r, 0) == 1 && r.rearm_fail == 0, "pending: the plugin takes it and rearms");

	/* 3. The VIRQ outlives a VCPU switch: Xen moves VCPU 1 to PCPU 0. */
	as_thread(&r, 0);
	T_OK(run_until_overflow(&r, 0, 3), "VCPU switch: third overflow");
	xm_vcpu_deschedule(r.m, 0, 0);
	xm_vcpu_deschedule(r.m, 0, 1);
	xm_vcpu_schedule(r.m, 0, 1, 0);
	xm_virq(r.m, 0, 1);
	T_OK(deliver(&r, 0) == 1, "VCPU switch: the overflow still reaches thread 0");

	/* 4. Not ours: a signal with our number from elsewhere; the same
	 * notification again after rearm. */
	as_thread(&r, 0);
	si = make_si(SI_QUEUE, 1u << r.th[0].slot[1]);
	T_OK(pcx_overflow(r.th[0].ctx, &si) == -1, "spurious: SI_QUEUE is not an overflow");
	T_OK(r.th[0].have_last && pcx_overflow(r.th[0].ctx, &r.th[0].last) == -1,
	     "spurious: a stale notification while the counter runs is refused");
	si.si_signo = SIGNO + 1;
	T_OK(pcx_overflow(r.th[0].ctx, &si) == -1, "another signal number is not this group's");
	pcx_stats(r.th[0].ctx, &ps);
	T_OK(ps.overflows == 3 && ps.spurious == 2 && ps.lost == 0,
	     "stats: 3 overflows, 2 spurious (got %llu, %llu)",
	     (unsigned long long)ps.overflows, (unsigned long long)ps.spurious);

	/* 5. Rearm with a new period: the next overflow comes no earlier. */
	as_thread(&r, 0);
	T_OK(run_until_overflow(&r, 0, 4), "new period: fourth overflow");
	xm_virq(r.m, 0, xm_thread_vcpu(r.m, 0));
	xm_set_current(r.m, 0);
	T_OK(xm_notification_pop(r.m, 0, &mask), "new period: notification");
	si = make_si(PCX_SI_PMC_OVF, mask);
	T_OK(pcx_overflow(r.th[0].ctx, &si) == 1 && pcx_rearm(r.th[0].ctx, 1, 40000) == 0,
	     "new period: rearm with period 40000 (a new control)");
	struct pmc_count at_rearm[2], at_ovf[2];
	xm_set_current(r.m, 0);
	pcx_read(r.th[0].ctx, at_rearm, 2);
	T_OK(run_until_overflow(&r, 0, 5), "new period: fifth overflow");
	xm_virq(r.m, 0, xm_thread_vcpu(r.m, 0));
	xm_set_current(r.m, 0);
	pcx_read(r.th[0].ctx, at_ovf, 2);
	T_OK(at_ovf[1].value - at_rearm[1].value >= 39000 && deliver(&r, 0) == 1,
	     "new period: %llu branches to the next overflow",
	     (unsigned long long)(at_ovf[1].value - at_rearm[1].value));
	run_free(&r);
}

/* A guest kernel without the non-negative check delivers VIRQs to whoever
 * runs: the plugin's own check refuses those, and restarts the counters
 * the driver stopped, so sampling goes on. */
static void test_broken_guest(void)
{
	struct xm_config cfg = base_cfg(81);
	struct run r;
	struct pmc_sample_stats p[2];
	uint64_t ov_at_mis[2] = { UINT64_MAX, UINT64_MAX };

	cfg.no_overflow_check = true;
	if (!model(&r, cfg))
		return;
	T_OK(open_two(&r, SET_B, 3000, SET_B, 5000) == 0,
	     "broken guest: both threads sample branches (every 3000 and 5000)");
	for (int i = 0; i < 120; i++) {
		int tid = i & 1;
		xm_guest_switch(r.m, 0, 0, tid);
		as_thread(&r, tid);
		xm_run_thread(r.m, tid, 4000);
		if (xm_virq_pending(r.m, 0, 0) && rnd() % 2)
			xm_guest_switch(r.m, 0, 0, !tid);	/* VIRQ lands on the other */
		if (xm_virq_pending(r.m, 0, 0))
			xm_virq(r.m, 0, 0);
		for (int t = 0; t < 2; t++) {
			if (xm_thread_vcpu(r.m, t) >= 0)
				deliver(&r, t);
			if (ov_at_mis[t] == UINT64_MAX && xm_misdelivered(r.m, t))
				ov_at_mis[t] = xm_overflows(r.m, t);
		}
	}
	for (int round = 0; round < 10; round++) {
		xm_quiesce(r.m);
		for (int t = 0; t < 2; t++) {
			as_thread(&r, t);
			deliver(&r, t);
		}
	}
	for (int t = 0; t < 2; t++) {
		pcx_stats(r.th[t].ctx, &p[t]);
		T_OK(xm_misdelivered(r.m, t) > 0 && p[t].spurious == xm_misdelivered(r.m, t),
		     "broken guest, thread %d: %llu signals for counters that had not overflowed, "
		     "all refused",
		     t, (unsigned long long)xm_misdelivered(r.m, t));
		T_OK(p[t].overflows + p[t].lost == xm_delivered(r.m, t) &&
			     xm_overflows(r.m, t) > ov_at_mis[t] && r.rearm_fail == 0,
		     "broken guest, thread %d: each of its %llu overflows taken, sampling went on "
		     "after the first refusal (%llu then)",
		     t, (unsigned long long)xm_overflows(r.m, t),
		     (unsigned long long)ov_at_mis[t]);
	}
	run_free(&r);
}

static void test_stop_start(void)
{
	struct xm_config cfg = base_cfg(91);
	struct run r;
	struct pmc_count a[3], b[3];

	if (!model(&r, cfg))
		return;
	as_thread(&r, 0);
	thr_open(&r, 0, SET_A, 0);
	xm_run_thread(r.m, 0, 5000);
	T_OK(pcx_stop(r.th[0].ctx) == 0, "stop");
	xm_set_current(r.m, 0);
	pcx_read(r.th[0].ctx, a, 3);
	xm_run_thread(r.m, 0, 5000);
	xm_guest_switch(r.m, 0, 0, 1);
	xm_run_pcpu(r.m, 0, 5000);
	as_thread(&r, 0);
	pcx_read(r.th[0].ctx, b, 3);
	bool same = true;
	for (int e = 0; e < 3; e++)
		same &= a[e].value == b[e].value && a[e].enabled == b[e].enabled;
	T_OK(same && a[0].value > 0,
	     "stopped counters keep their sums and do not move");
	T_OK(pcx_start(r.th[0].ctx) == 0, "start again");
	xm_run_thread(r.m, 0, 5000);
	T_OK(check_read(&r, 0, "restart") && xm_truth_slot(r.m, 0, 0) >= a[0].value + 5000,
	     "restarted counters continue from the sums, exactly");
	T_OK(a[2].enabled == a[2].running && a[2].enabled == a[2].value * 1000000 / 2500000,
	     "enabled = running = the thread's TSC at the driver's 2.5 GHz");
	run_free(&r);
}

/* ---- random schedules ---- */

struct sched_cfg {
	int line;
	int n_pcpu, n_dom, n_vcpu, n_thread;
	uint32_t cpu_type;
	uint64_t pmc_init;		/* 0: low values; 1: near the sign bit */
	bool preempt;
};

struct totals {
	uint64_t schedules, steps, reads, injected, notifications, overflows;
	struct xm_stats st;
};

static bool random_schedule(const struct sched_cfg *sc, uint64_t seed, int steps,
			    struct totals *tot, char *why, size_t whylen)
{
	struct xm_config cfg = { .seed = seed, .n_pcpu = sc->n_pcpu, .n_dom = sc->n_dom,
				 .n_vcpu = sc->n_vcpu, .n_thread = sc->n_thread,
				 .cpu_type = sc->cpu_type, .hypercall_preempt = sc->preempt };
	struct run r;
	struct xm_stats st;
	bool ok = true;

	cfg.pmc_jitter = 400000;
	if (sc->pmc_init)	/* the counters cross their sign bit early on */
		cfg.pmc_init = (1ULL << (pcx_width_for_cpu_type(sc->cpu_type) - 1)) - 400000;
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!model(&r, cfg)) {
		snprintf(why, whylen, "xm_new failed");
		return false;
	}
	for (int i = 0; i < steps; i++) {
		int tid, op;
		struct thr *th;

		xm_step(r.m);
		if (rnd() % 3)
			continue;
		tid = xm_pick_running(r.m);
		if (tid < 0)
			continue;
		th = &r.th[tid];
		xm_set_current(r.m, tid);
		if (!th->ctx) {
			if (thr_open(&r, tid, tid % N(sets), 3000 + rnd() % 20000) != 0) {
				snprintf(why, whylen, "open failed for thread %d", tid);
				ok = false;
				break;
			}
			continue;
		}
		deliver(&r, tid);	/* the signal handler runs first */
		xm_set_current(r.m, tid);
		op = rnd() % 10;
		if (op < 6) {
			if (rnd() % 3 == 0) {
				xm_inject(r.m, 1 + rnd() % 3, rnd() % (sets[th->set].n));
				r.injected_reads++;
			}
			check_read(&r, tid, "random read");
			xm_inject(r.m, XM_INJ_NONE, 0);
		} else if (op == 6) {
			xm_run_thread(r.m, tid, 1 + rnd() % 5000);
		} else if (op == 7) {
			pcx_stop(th->ctx);
			xm_run_thread(r.m, tid, 1 + rnd() % 1000);
			xm_set_current(r.m, tid);
			check_read(&r, tid, "stopped read");
			pcx_start(th->ctx);
		} else if (op == 8 && sets[th->set].sampled[1]) {
			siginfo_t si = make_si(SI_QUEUE, 1u << th->slot[1]);
			th->foreign++;
			if (pcx_overflow(th->ctx, &si) != -1)
				th->refused += 1000000;	/* flagged below */
		} else if (op == 9 && th->have_last) {
			th->foreign++;
			if (pcx_overflow(th->ctx, &th->last) != -1)
				th->refused += 1000000;
		}
	}
	/* Drain: every overflow still in flight reaches its thread. */
	for (int round = 0; ok && round < 50; round++) {
		bool more = false;
		if (xm_quiesce(r.m) < 0) {
			snprintf(why, whylen, "the model did not quiesce");
			ok = false;
		}
		for (int tid = 0; tid < xm_nthreads(r.m); tid++)
			if (r.th[tid].ctx && xm_notifications_queued(r.m, tid)) {
				as_thread(&r, tid);
				deliver(&r, tid);
				more = true;
			}
		if (!more)
			break;
	}
	for (int tid = 0; ok && tid < xm_nthreads(r.m); tid++) {
		struct pmc_sample_stats ps;
		struct thr *th = &r.th[tid];
		uint64_t ov = xm_overflows(r.m, tid), del = xm_delivered(r.m, tid);

		if (!th->ctx)
			continue;
		pcx_stats(th->ctx, &ps);
		if (ov != del + xm_discarded(r.m, tid) || xm_outstanding(r.m, tid) != 0) {
			snprintf(why, whylen,
				 "thread %d: %llu overflows, %llu delivered, %llu discarded, %d "
				 "outstanding",
				 tid, (unsigned long long)ov, (unsigned long long)del,
				 (unsigned long long)xm_discarded(r.m, tid), xm_outstanding(r.m, tid));
			ok = false;
		} else if (ps.overflows + ps.lost != del || th->refused ||
			   ps.spurious != th->foreign) {
			snprintf(why, whylen,
				 "thread %d: plugin took %llu (+%llu lost) of %llu delivered, refused "
				 "%llu, spurious %llu of %llu foreign",
				 tid, (unsigned long long)ps.overflows, (unsigned long long)ps.lost,
				 (unsigned long long)del, (unsigned long long)th->refused,
				 (unsigned long long)ps.spurious, (unsigned long long)th->foreign);
			ok = false;
		}
		tot->overflows += ov;
	}
	if (ok && (r.bad_reads || r.rearm_fail)) {
		snprintf(why, whylen, "%llu bad reads, %llu failed rearms; first: %s",
			 (unsigned long long)r.bad_reads, (unsigned long long)r.rearm_fail,
			 r.first_bad);
		ok = false;
	}
	xm_get_stats(r.m, &st);
	tot->schedules++;
	tot->steps += steps;
	tot->reads += r.reads;
	tot->injected += r.injected_reads;
	tot->notifications += st.notifications;
	tot->st.guest_switches += st.guest_switches;
	tot->st.vcpu_switches += st.vcpu_switches;
	tot->st.migrations += st.migrations;
	tot->st.hypercalls += st.hypercalls;
	tot->st.hypercalls_skipped += st.hypercalls_skipped;
	tot->st.hypercall_preempts += st.hypercall_preempts;
	tot->st.virqs_dropped += st.virqs_dropped;
	tot->st.pending_delivered += st.pending_delivered;
	run_free(&r);
	return ok;
}

static void test_random_schedules(void)
{
	static const struct sched_cfg cfgs[] = {
		{ __LINE__, 1, 1, 1, 3, PCX_X86_INTEL_NHLM, 0, false },
		{ __LINE__, 2, 2, 2, 4, PCX_X86_INTEL_NHLM, 0, true },
		{ __LINE__, 4, 3, 2, 3, PCX_X86_INTEL_NHLM, 1, true },
		{ __LINE__, 2, 1, 4, 6, PCX_X86_INTEL_CORE2, 0, false },
		{ __LINE__, 3, 2, 3, 5, PCX_X86_INTEL_CORE2, 1, true },
		{ __LINE__, 1, 3, 2, 4, PCX_X86_AMD_FAM10H, 0, true },
	};
	const int seeds = 8, steps = 10000;
	struct totals tot;

	memset(&tot, 0, sizeof(tot));
	for (size_t c = 0; c < N(cfgs); c++) {
		int passed = 0;
		char why[512] = "";
		for (int s = 0; s < seeds; s++) {
			char w[512] = "";
			uint64_t seed = 1000 * (c + 1) + s;
			if (random_schedule(&cfgs[c], seed, steps, &tot, w, sizeof(w)))
				passed++;
			else if (!why[0])
				snprintf(why, sizeof(why), "seed %llu: %s", (unsigned long long)seed, w);
		}
		T_OK(passed == seeds,
		     "random schedules, config at line %d (%d PCPUs, %d domains x %d VCPUs x %d "
		     "threads): %d/%d seeds exact%s%s",
		     cfgs[c].line, cfgs[c].n_pcpu, cfgs[c].n_dom, cfgs[c].n_vcpu,
		     cfgs[c].n_thread, passed, seeds, why[0] ? " -- " : "", why);
	}
	T_OK(tot.st.migrations > 1000 && tot.st.hypercalls_skipped > 1000 &&
		     tot.st.hypercall_preempts > 100 && tot.st.pending_delivered > 10 &&
		     tot.st.virqs_dropped > 10 && tot.injected > 1000,
	     "random schedules covered it all: %llu schedules, %llu steps, %llu reads (%llu with "
	     "an injected race), %llu guest switches, %llu VCPU switches, %llu thread migrations, "
	     "%llu hypercalls (%llu skipped, %llu preempted), %llu overflows, %llu notifications "
	     "(%llu pending-delivered, %llu VIRQs dropped)",
	     (unsigned long long)tot.schedules, (unsigned long long)tot.steps,
	     (unsigned long long)tot.reads, (unsigned long long)tot.injected,
	     (unsigned long long)tot.st.guest_switches, (unsigned long long)tot.st.vcpu_switches,
	     (unsigned long long)tot.st.migrations, (unsigned long long)tot.st.hypercalls,
	     (unsigned long long)tot.st.hypercalls_skipped,
	     (unsigned long long)tot.st.hypercall_preempts, (unsigned long long)tot.overflows,
	     (unsigned long long)tot.notifications, (unsigned long long)tot.st.pending_delivered,
	     (unsigned long long)tot.st.virqs_dropped);
}

/* ---- overflow pauses the a-mode counters (vperfctr_handle_overflow) ---- */

/* perfctr's overflow handler leaves only the TSC on ("suspend a-mode and
 * i-mode PMCs") until VPERFCTR_IRESUME.  While paused, reads of the a-mode
 * event must hold still at the driver's sum, the TSC must go on, a VCPU
 * switch must not disturb either, and after the rearm counting resumes. */
static void test_overflow_pause(void)
{
	struct xm_config cfg = base_cfg(95);
	struct pmc_count a[3], b[3], c[3];
	struct run r;
	uint32_t mask;
	int idx;

	cfg.n_dom = 2;
	if (!model(&r, cfg))
		return;
	as_thread(&r, 0);
	T_OK(thr_open(&r, 0, SET_B, 4000) == 0, "pause: open cycles (a-mode), branches sampled");
	T_OK(run_until_overflow(&r, 0, 1) && xm_virq(r.m, 0, 0) == 0 &&
		     xm_notification_pop(r.m, 0, &mask),
	     "pause: overflow delivered");
	T_OK(xm_thread_cstatus(r.m, 0) == xp_mk_cstatus(1, 0, 0) &&
		     xm_vcpu_cstatus(r.m, 0, 0) == xp_mk_cstatus(1, 0, 0),
	     "pause: the driver's cstatus (and Xen's copy) is TSC-only (%#x)",
	     xm_thread_cstatus(r.m, 0));
	xm_set_current(r.m, 0);
	pcx_read(r.th[0].ctx, a, 3);
	T_OK(check_read(&r, 0, "paused"), "pause: reads equal the model's while paused");
	xm_run_thread(r.m, 0, 20000);
	xm_vcpu_deschedule(r.m, 0, 0);		/* Xen switches domains meanwhile */
	xm_vcpu_schedule(r.m, 1, 0, 0);
	xm_run_pcpu(r.m, 0, 3000);
	xm_vcpu_deschedule(r.m, 1, 0);
	xm_vcpu_schedule(r.m, 0, 0, 0);
	xm_run_thread(r.m, 0, 20000);
	as_thread(&r, 0);
	pcx_read(r.th[0].ctx, b, 3);
	T_OK(check_read(&r, 0, "paused after a switch") && b[0].value == a[0].value &&
		     b[1].value == a[1].value && b[2].value >= a[2].value + 40000,
	     "pause: cycles (%llu) and branches hold still over 40000 cycles and a domain "
	     "switch; the TSC goes on (+%llu)",
	     (unsigned long long)b[0].value, (unsigned long long)(b[2].value - a[2].value));
	siginfo_t si = make_si(PCX_SI_PMC_OVF, mask);
	idx = pcx_overflow(r.th[0].ctx, &si);
	T_OK(idx == 1 && pcx_rearm(r.th[0].ctx, idx, 0) == 0 &&
		     xm_thread_cstatus(r.m, 0) == xp_mk_cstatus(1, 1, 1),
	     "pause: taken and rearmed; VPERFCTR_IRESUME restores the full cstatus");
	xm_run_thread(r.m, 0, 3000);
	xm_set_current(r.m, 0);
	pcx_read(r.th[0].ctx, c, 3);
	T_OK(check_read(&r, 0, "resumed") && c[0].value >= b[0].value + 3000,
	     "pause: a-mode counting resumes after the rearm (+%llu cycles)",
	     (unsigned long long)(c[0].value - b[0].value));
	run_free(&r);
}

/* ---- a hypervisor without its perfctr side ---- */

static struct pmc_env xen_env(void)
{
	struct pmc_env env;

	memset(&env, 0, sizeof(env));
	strcpy(env.hv_signature, "XenVMMXenVMM");
	env.hv_name = "Xen";
	strcpy(env.sys_hypervisor, "xen");
	env.hv_present = true;
	return env;
}

/* Xen booted without `perfctr`: the 7 shared_info pages exist but stay
 * zero, the hypercalls fail, the guest's rdpmc/rdtsc wrappers return 0 --
 * perfctr's library would report 0 for everything.  The plugin refuses. */
static void test_hv_off(void)
{
	struct xm_config cfg = base_cfg(97);
	struct pmc_env env = xen_env();
	struct pmc_probe pr;
	struct run r;

	for (int off = 0; off < 2; off++) {
		cfg.hv_perfctr_off = off;
		if (!model(&r, cfg))
			return;
		as_thread(&r, 0);
		pcx_probe(&env, &pr);
		if (off)
			T_OK(!pr.usable && strcmp(pr.reason, PCX_HV_OFF_REASON) == 0,
			     "hypervisor side off: the probe says '%s'", pr.reason);
		else
			T_OK(pr.usable && strstr(pr.detail, "per-VCPU pages are live"),
			     "hypervisor side on: the probe checks it ('%s')", pr.detail);
		as_thread(&r, 0);
		int ret = thr_open(&r, 0, SET_B, 4000);
		if (off)
			T_OK(ret == -PMC_EDISABLED, "hypervisor side off: start is -PMC_EDISABLED (%d)",
			     ret);
		else
			T_OK(ret == 0 && (xm_run_thread(r.m, 0, 1000), xm_set_current(r.m, 0),
					  check_read(&r, 0, "on")),
			     "hypervisor side on: the same group opens and reads exactly (%d)%s%s",
			     ret, r.bad_reads ? " -- " : "", r.first_bad);
		run_free(&r);
	}
}

/* P4: an ESCR/CCCR PMU.  The model's driver refuses a control without
 * ESCRs (p4_check_control); the plugin never builds one: it refuses. */
static void test_p4(void)
{
	struct xm_config cfg = base_cfg(98);
	struct pmc_env env = xen_env();
	struct pmc_event ev = make_event(EV_CYC, 0);
	struct pmc_probe pr;
	struct run r;
	void *ctx = NULL;

	cfg.cpu_type = XP_CPU_INTEL_P4M3;
	if (!model(&r, cfg))
		return;
	as_thread(&r, 0);
	pcx_probe(&env, &pr);
	T_OK(!pr.usable && strstr(pr.reason, "Pentium 4"), "P4: the probe refuses ('%s')",
	     pr.reason);
	PMC_GROUP_OPTS(o, .sample = false);
	as_thread(&r, 0);
	T_OK(pcx_open(&ev, 1, &o, &ctx) == -PMC_ENOTSUP && !ctx, "P4: open is -PMC_ENOTSUP");
	run_free(&r);
}

/* ---- the plugin's ABI against the model's own ---- */

static void test_golden(void)
{
	uint32_t words[128], mine[256];
	struct pcx_info info;
	struct run r;
	size_t nw;
	int n;

	if (!model(&r, base_cfg(99)))
		return;
	/* PERFCTR_INFO: bytes from the model's encoder. */
	n = xm_info_words(r.m, words, N(words));
	T_OK(n > 0 && pcx_marshal_decode(&info, &pcx_info_desc, words, n) == 0 &&
		     info.abi_version == XP_ABI_VERSION && info.cpu_type == XP_CPU_INTEL_NHLM &&
		     info.cpu_features == 7 && info.cpu_khz == 2500000 &&
		     info.tsc_to_cpu_mult == 1 &&
		     strcmp(info.driver_version, "2.6.42.2-xenmodel") == 0,
	     "golden: the plugin decodes the model's PERFCTR_INFO (%d words)", n);
	T_OK(pcx_marshal_encode(&info, &pcx_info_desc, mine, N(mine), &nw) == 0 &&
		     nw == (size_t)n && memcmp(mine, words, n * 4) == 0,
	     "golden: and encodes it back to the model's words");

	/* VPERFCTR_CONTROL: the same control spelled in both ABIs. */
	struct pcx_vcontrol pv;
	struct xp_vcontrol xv, back;
	memset(&pv, 0, sizeof(pv));
	memset(&xv, 0, sizeof(xv));
	pv.si_signo = xv.si_signo = 40;
	pv.preserve = xv.preserve = 7;
	pv.cpu_control.tsc_on = xv.cpu_control.tsc_on = 1;
	pv.cpu_control.nractrs = xv.cpu_control.nractrs = 2;
	pv.cpu_control.nrictrs = xv.cpu_control.nrictrs = 1;
	for (int j = 0; j < 3; j++) {
		pv.cpu_control.pmc_map[j] = xv.cpu_control.pmc_map[j] = j;
		pv.cpu_control.evntsel[j] = xv.cpu_control.evntsel[j] = 0x43003c + j;
	}
	pv.cpu_control.ireset[2] = xv.cpu_control.ireset[2] = -5000;
	pv.cpu_control.u.p4.escr[1] = xv.cpu_control.p4.escr[1] = 0x1234;
	pv.cpu_control._reserved4 = xv.cpu_control.rsvd4 = 9;
	n = xp_encode_vcontrol(&xv, words, N(words));
	T_OK(n > 0 && pcx_marshal_encode(&pv, &pcx_vcontrol_desc, mine, N(mine), &nw) == 0 &&
		     nw == (size_t)n && memcmp(mine, words, n * 4) == 0,
	     "golden: the plugin's VPERFCTR_CONTROL words equal the model's (%d words)", n);
	T_OK(xp_decode_vcontrol(&back, mine, nw) == 0 && memcmp(&back, &xv, sizeof(xv)) == 0,
	     "golden: the model's decoder reads the plugin's words back field by field");

	/* The state pages: each named field through the plugin's view of the
	 * model's bytes. */
	static struct xp_vstate page;
	const struct pcx_vstate *pl = (const void *)&page;
	struct xp_cpu_state *x = &page.hypervisor_perfctr[3];
	const struct pcx_cpu_state *p = &pl->vcpu[3];
	x->cstatus = 0x80010302;
	x->smp_id = 5;
	x->tsc_start = 0x1111222233334444ULL;
	x->tsc_sum = 0x5555666677778888ULL;
	for (int j = 0; j < XP_NPMC; j++) {
		x->pmc[j].map = 100 + j;
		x->pmc[j].start = 0xfffffff000000000ULL + j;
		x->pmc[j].sum = 0x100000000ULL * j + 7;
		x->control.evntsel[j] = 0x410000 + j;
	}
	x->pending_interrupt = 1;
	page.cpu_state.smp_id = 3;
	bool same = p->cstatus == x->cstatus && p->smp_id == x->smp_id &&
		    p->tsc_start == x->tsc_start && p->tsc_sum == x->tsc_sum &&
		    p->pending_interrupt == 1 && pl->t.cpu_state.smp_id == 3;
	for (int j = 0; j < XP_NPMC; j++)
		same &= p->pmc[j].map == x->pmc[j].map && p->pmc[j].start == x->pmc[j].start &&
			p->pmc[j].sum == x->pmc[j].sum &&
			p->control.evntsel[j] == x->control.evntsel[j];
	T_OK(same && sizeof(struct pcx_cpu_state) == sizeof(struct xp_cpu_state),
	     "golden: the plugin reads every field of the model's per-VCPU and thread states "
	     "where the model wrote it");
	T_OK(PCX_IOC_ABI == XP_PERFCTR_ABI && PCX_IOC_INFO == XP_PERFCTR_INFO &&
		     PCX_IOC_CREAT == XP_VPERFCTR_CREAT && PCX_IOC_CONTROL == XP_VPERFCTR_CONTROL &&
		     PCX_IOC_IRESUME == XP_VPERFCTR_IRESUME && PCX_IOC_UNLINK == XP_VPERFCTR_UNLINK &&
		     PCX_MAP_SIZE == XP_KSTATE_SIZE && PCX_ABI_VERSION == XP_ABI_VERSION,
	     "golden: ioctl numbers, ABI version and mmap size agree");
	run_free(&r);
}

int main(void)
{
	rng_state = 0x1234567;
	test_refusals();
	test_amode_switches();
	test_eq4();
	test_skipped_hypercall();
	test_read_races();
	test_width();
	test_imode();
	test_broken_guest();
	test_stop_start();
	test_overflow_pause();
	test_hv_off();
	test_p4();
	test_golden();
	test_random_schedules();
	return T_DONE();
}
