/* The Xen + perfctr-xen model; see xenmodel.h.  Names follow the paper:
 * hv_* is the hypervisor, hc_* its perfctr hypercalls, k_* the guest
 * kernel's perfctr driver, g_* the guest scheduler.  The state layout,
 * marshalling and widths are the model's own (perfctr_abi.h, written from
 * the published headers); the arithmetic is the patch's: counter values
 * sign-extended to 64 bits (perfctr_pmc_extend), deltas by plain 64-bit
 * subtraction (perfctr_cpu_suspend, _rdpmc_pfc, Xen's pmu_save_regs). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/xenmodel/xenmodel.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define QMAX 64
#define NFDS 64
#define FD_BASE 1000
#define OVERHEAD 64		/* guest kernel / hypercall work, TSC cycles */
#define XM_EVNTSEL_INT (1u << 20)
#define XM_EVNTSEL_EN (1u << 22)

#define die(...)                                                                            \
	do {                                                                                \
		fprintf(stderr, "xenmodel: " __VA_ARGS__);                                  \
		fputc('\n', stderr);                                                        \
		abort();                                                                    \
	} while (0)

/* Events per TSC cycle of the event codes the tests use (cycles: exactly
 * one; the rest random up to num/den per cycle). */
static const struct {
	uint16_t code;			/* umask << 8 | event */
	unsigned num, den;
} rates[] = {
	{ 0x003c, 1, 1 }, { 0x00c0, 2, 1 }, { 0x00c4, 1, 4 }, { 0x4f2e, 1, 16 }, { 0x412e, 1, 64 },
};

struct pcpu {
	uint64_t tsc;
	uint64_t reg[XM_NCTR];		/* raw, width bits */
	uint32_t evntsel[XM_NCTR];
	int dom, vcpu;			/* running VCPU, -1 idle */
};

struct vcpu {
	int pcpu;			/* -1: descheduled */
	int cur;			/* current guest thread, -1 idle */
	bool virq;			/* VIRQ_PERFCTR pending */
	bool have_control;		/* a resume hypercall installed a control */
};

struct thread {
	int dom, vcpu, last_vcpu;
	bool has_vperfctr, accounting;
	int memfd;
	struct xp_cpu_state *ts;	/* kernel's writable view of its page */
	int32_t si_signo;
	uint32_t iresume_cstatus;
	uint64_t truth_tsc, truth[XM_NCTR];
	uint64_t cross[XM_NCTR];	/* sign-bit crossings inside its a-mode intervals */
	uint64_t snap_tsc, snap[XM_NCTR], snap_cross[XM_NCTR];
	bool snap_tsc_ok, snap_ok[XM_NCTR];
	uint64_t tail_tsc, tail[XM_NCTR];
	uint64_t overflows, delivered, misdelivered, discarded;
	uint32_t q[QMAX];
	int qh, qn;
};

struct dom {
	int memfd;
	struct xp_cpu_state *vs;	/* hypervisor_perfctr[], writable */
	struct vcpu v[XM_MAX_VCPU];
};

struct fdent {
	bool used, vperfctr;
	int tid;
};

struct xm {
	struct xm_config cfg;
	uint64_t rng;
	unsigned width;
	uint64_t mask;
	struct pcpu pc[XM_MAX_PCPU];
	struct dom d[XM_MAX_DOM];
	struct thread t[XM_MAX_DOM * XM_MAX_THREAD];
	int nth, cur;
	struct fdent fds[NFDS];
	enum xm_inject inj;
	int inj_at;
	bool inj_done, in_hook;
	struct pcx_sys sys;
	struct xm_stats st;
};

/* ---- arithmetic ---- */

static uint64_t rnd(struct xm *m)
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * UINT64_C(2685821657736338717);
}

static uint64_t rnd_below(struct xm *m, uint64_t n)
{
	return n ? rnd(m) % n : 0;
}

/* perfctr_pmc_extend: the raw counter sign-extended from its width. */
static uint64_t sext(const struct xm *m, uint64_t v)
{
	unsigned sh = 64 - m->width;
	return (uint64_t)((int64_t)(v << sh) >> sh);
}

/* The patch's delta: plain 64-bit subtraction of two extended samples.
 * It is 2^width short when the counter crossed its sign bit upwards
 * between them (and exact across zero, where i-mode counters overflow). */
static uint64_t pdelta(uint64_t now, uint64_t start)
{
	return now - start;
}

static struct vcpu *vcpu_of(struct xm *m, int d, int v) { return &m->d[d].v[v]; }
static struct xp_cpu_state *vs_of(struct xm *m, int d, int v) { return &m->d[d].vs[v]; }

/* ---- the hardware ---- */

static void pmi(struct xm *m, int p, struct thread *t)
{
	struct pcpu *pc = &m->pc[p];

	if (!t)
		die("overflow of an i-mode counter nobody owns on pcpu %d", p);
	m->st.overflows++;
	t->overflows++;
	/* Xen's PMI handler raises VIRQ_PERFCTR on the running VCPU; the guest
	 * handles it later (a soft interrupt, possibly after a switch). */
	vcpu_of(m, pc->dom, pc->vcpu)->virq = true;
}

/* a events of register j (raw old -> now) go to t's logical count if they
 * are its.  An a-mode count that crossed the sign bit (2^(w-1)) upwards is
 * noted: the patch's arithmetic loses 2^w there. */
static void attribute(const struct xm *m, struct thread *t, int j, uint32_t sel, uint64_t a,
		      uint64_t old, uint64_t now)
{
	const struct xp_cpu_control *c = &t->ts->control;
	bool islot = (unsigned)j >= c->nractrs && (unsigned)j < c->nractrs + c->nrictrs;
	uint64_t half = UINT64_C(1) << (m->width - 1);

	if (sel & XM_EVNTSEL_INT) {
		if (!islot)
			die("i-mode register %d live for a thread without that i-mode slot", j);
		t->truth[j] += a;
	} else if (t->accounting && (unsigned)j < xp_nractrs(t->ts->cstatus)) {
		if ((sel & 0xffff) != (c->evntsel[j] & 0xffff))
			die("a-mode slot %d counts event %04x, thread asked for %04x", j,
			    sel & 0xffff, c->evntsel[j] & 0xffff);
		t->truth[j] += a;
		if (old < half && now >= half)
			t->cross[j]++;
	}
}

/* PCPU p runs for ticks TSC cycles: whatever is on it generates events. */
static void work(struct xm *m, int p, uint64_t ticks)
{
	struct pcpu *pc = &m->pc[p];
	struct thread *t = NULL;
	uint64_t amt[N(rates)];

	for (size_t i = 0; i < N(rates); i++)
		amt[i] = rates[i].num == rates[i].den
				 ? ticks
				 : rnd_below(m, ticks * rates[i].num / rates[i].den + 1);
	pc->tsc += ticks;
	if (pc->dom >= 0 && vcpu_of(m, pc->dom, pc->vcpu)->cur >= 0)
		t = &m->t[vcpu_of(m, pc->dom, pc->vcpu)->cur];
	if (t && t->accounting)
		t->truth_tsc += ticks;
	for (int j = 0; j < XM_NCTR; j++) {
		uint32_t sel = pc->evntsel[j];
		uint64_t a = ticks, old;

		if (!(sel & XM_EVNTSEL_EN))
			continue;
		for (size_t i = 0; i < N(rates); i++)
			if (rates[i].code == (sel & 0xffff))
				a = amt[i];
		old = sext(m, pc->reg[j]);
		pc->reg[j] = (pc->reg[j] + a) & m->mask;
		if (t)
			attribute(m, t, j, sel, a, old & m->mask, pc->reg[j]);
		if ((sel & XM_EVNTSEL_INT) && (int64_t)old < 0 && (int64_t)sext(m, pc->reg[j]) >= 0)
			pmi(m, p, t);
	}
}

static void kwork(struct xm *m, int p)
{
	work(m, p, 1 + rnd_below(m, OVERHEAD));
}

/* ---- the hypervisor ---- */

static void program(struct xm *m, int p, const struct xp_cpu_state *vs)
{
	unsigned nr = xp_nrctrs(vs->cstatus);

	for (unsigned j = 0; j < XM_NCTR; j++)
		m->pc[p].evntsel[j] = j < nr ? vs->control.evntsel[j] : 0;
}

/* Inter-domain switch, outgoing VCPU: Sum_vcpu += Phys - Start_vcpu; an
 * i-mode register's value is kept in Start_vcpu. */
static void hv_save(struct xm *m, int d, int vi)
{
	struct vcpu *v = vcpu_of(m, d, vi);
	struct xp_cpu_state *vs = vs_of(m, d, vi);
	struct pcpu *pc = &m->pc[v->pcpu];
	uint32_t cs = m->cfg.hv_perfctr_off ? 0 : vs->cstatus;

	if (xp_has_tsc(cs))
		vs->tsc_sum += pc->tsc - vs->tsc_start;
	for (unsigned j = 0; j < xp_nrctrs(cs); j++) {
		vs->pmc[j].sum += pdelta(sext(m, pc->reg[j]), vs->pmc[j].start);
		if (j >= xp_nractrs(cs))
			vs->pmc[j].start = sext(m, pc->reg[j]);
	}
	memset(pc->evntsel, 0, sizeof(pc->evntsel));
	pc->dom = pc->vcpu = -1;
	v->pcpu = -1;
	m->st.vcpu_switches++;
}

/* Inter-domain switch, incoming VCPU on p: Start_vcpu = Phys for the TSC
 * and a-mode counters; i-mode registers restored from Start_vcpu. */
static void hv_load(struct xm *m, int d, int vi, int p)
{
	struct vcpu *v = vcpu_of(m, d, vi);
	struct xp_cpu_state *vs = vs_of(m, d, vi);
	struct pcpu *pc = &m->pc[p];
	uint32_t cs = vs->cstatus;

	if (pc->dom >= 0 || v->pcpu >= 0)
		die("hv_load on a busy pcpu or of a running vcpu");
	pc->dom = d;
	pc->vcpu = vi;
	v->pcpu = p;
	if (m->cfg.hv_perfctr_off)
		return;		/* pmu_restore_regs does nothing without `perfctr` */
	if (xp_has_tsc(cs))
		vs->tsc_start = pc->tsc;
	for (unsigned j = 0; j < xp_nrctrs(cs); j++) {
		if (j < xp_nractrs(cs))
			vs->pmc[j].start = sext(m, pc->reg[j]);
		else
			pc->reg[j] = vs->pmc[j].start & m->mask;
	}
	program(m, p, vs);
}

/* PERFCTROP_resume: activate the thread's control; a-mode and TSC restart
 * from Sum_vcpu = 0, Start_vcpu = Phys; i-mode from the thread's values. */
static void hc_resume(struct xm *m, struct thread *t)
{
	struct vcpu *v = vcpu_of(m, t->dom, t->vcpu);
	struct xp_cpu_state *vs = vs_of(m, t->dom, t->vcpu), *ts = t->ts;
	struct pcpu *pc = &m->pc[v->pcpu];
	uint32_t cs = ts->cstatus;

	m->st.hypercalls++;
	if (m->cfg.hv_perfctr_off)
		return;		/* -ENODEV, which the guest ignores */
	vs->control = ts->control;
	vs->cstatus = cs;
	program(m, v->pcpu, vs);
	if (xp_has_tsc(cs)) {
		vs->tsc_sum = 0;
		vs->tsc_start = pc->tsc;
	}
	for (unsigned j = 0; j < xp_nrctrs(cs); j++) {
		if (j < xp_nractrs(cs)) {
			vs->pmc[j].sum = 0;
			vs->pmc[j].start = sext(m, pc->reg[j]);
		} else {
			vs->pmc[j].sum = ts->pmc[j].sum;
			vs->pmc[j].start = ts->pmc[j].start;
			pc->reg[j] = ts->pmc[j].start & m->mask;
		}
	}
	v->have_control = true;
}

/* PERFCTROP_isuspend: stop the VCPU's i-mode counters, keeping their
 * values in Sum_vcpu/Start_vcpu. */
static void hc_isuspend(struct xm *m, int d, int vi)
{
	struct xp_cpu_state *vs = vs_of(m, d, vi);
	struct pcpu *pc = &m->pc[vcpu_of(m, d, vi)->pcpu];
	uint32_t cs = vs->cstatus;

	m->st.hypercalls++;
	if (m->cfg.hv_perfctr_off)
		return;
	for (unsigned j = xp_nractrs(cs); j < xp_nrctrs(cs); j++) {
		vs->pmc[j].sum += pdelta(sext(m, pc->reg[j]), vs->pmc[j].start);
		vs->pmc[j].start = sext(m, pc->reg[j]);
		pc->evntsel[j] = 0;
	}
	vs->cstatus = xp_mk_cstatus(xp_has_tsc(cs), xp_nractrs(cs), 0);
}

static int free_pcpu(struct xm *m, int avoid)
{
	for (int p = 0; p < m->cfg.n_pcpu; p++)
		if (m->pc[p].dom < 0 && p != avoid)
			return p;
	return -1;
}

/* Another VCPU (any domain) takes PCPU p for a while. */
static void run_someone_else(struct xm *m, int p, int not_d, int not_v)
{
	int cand[XM_MAX_DOM * XM_MAX_VCPU][2], n = 0;

	for (int d = 0; d < m->cfg.n_dom; d++)
		for (int v = 0; v < m->cfg.n_vcpu; v++)
			if (vcpu_of(m, d, v)->pcpu < 0 && !(d == not_d && v == not_v)) {
				cand[n][0] = d;
				cand[n++][1] = v;
			}
	if (n) {
		int k = rnd_below(m, n);
		hv_load(m, cand[k][0], cand[k][1], p);
		work(m, p, 100 + rnd_below(m, 2000));
		hv_save(m, cand[k][0], cand[k][1]);
	} else {
		work(m, p, 100 + rnd_below(m, 2000));	/* idle */
	}
}

/* Xen deschedules VCPU (d, vi), runs something else, and resumes it,
 * preferably on another PCPU. */
static void hv_bounce(struct xm *m, int d, int vi)
{
	int p = vcpu_of(m, d, vi)->pcpu, q;

	hv_save(m, d, vi);
	run_someone_else(m, p, d, vi);
	q = free_pcpu(m, p);
	hv_load(m, d, vi, q >= 0 ? q : p);
}

/* ---- the guest kernel's perfctr driver ---- */

static struct pcpu *pcpu_of_thread(struct xm *m, struct thread *t)
{
	return &m->pc[vcpu_of(m, t->dom, t->vcpu)->pcpu];
}

/* The guest's _rdtsc_pfc / _rdpmc_pfc: Phys* (eq. 3) from its VCPU's
 * state; a VCPU state with cstatus 0 (Xen without `perfctr`) gives its
 * tsc_sum and 0. */
static uint64_t star_tsc(struct xm *m, struct thread *t)
{
	const struct xp_cpu_state *vs = vs_of(m, t->dom, t->vcpu);
	if (!vs->cstatus)
		return vs->tsc_sum;
	return vs->tsc_sum + (pcpu_of_thread(m, t)->tsc - vs->tsc_start);
}

static uint64_t star_pmc(struct xm *m, struct thread *t, unsigned j)
{
	const struct xp_cpu_state *vs = vs_of(m, t->dom, t->vcpu);
	if (!vs->cstatus)
		return 0;
	return vs->pmc[j].sum + pdelta(sext(m, pcpu_of_thread(m, t)->reg[j]), vs->pmc[j].start);
}

static void k_isuspend(struct xm *m, struct thread *t)
{
	const struct xp_cpu_state *vs = vs_of(m, t->dom, t->vcpu);
	struct xp_cpu_state *ts = t->ts;
	int p = vcpu_of(m, t->dom, t->vcpu)->pcpu;

	kwork(m, p);
	hc_isuspend(m, t->dom, t->vcpu);
	kwork(m, p);
	for (unsigned j = xp_nractrs(ts->cstatus); j < xp_nrctrs(ts->cstatus);
	     j++) {
		ts->pmc[j].start = vs->pmc[j].start;
		ts->pmc[j].sum = vs->pmc[j].sum;
	}
}

/* perfctr_cpu_suspend of the current thread: i-mode counters out through
 * the isuspend hypercall (pending flag if one had overflowed), then the
 * a-mode sample Sum_thread += Phys* - Start*_thread. */
static void k_suspend(struct xm *m, struct thread *t)
{
	struct xp_cpu_state *ts = t->ts;
	uint32_t cs = ts->cstatus;
	bool pending = false;

	if (!cs)
		return;
	if (xp_nrictrs(cs)) {
		k_isuspend(m, t);
		for (unsigned j = xp_nractrs(cs); j < xp_nrctrs(cs); j++)
			pending |= (int64_t)ts->pmc[j].start >= 0;
	}
	if (xp_has_tsc(cs))
		ts->tsc_sum += star_tsc(m, t) - ts->tsc_start;
	for (unsigned j = 0; j < xp_nractrs(cs); j++)
		ts->pmc[j].sum += star_pmc(m, t, j) - ts->pmc[j].start;
	t->accounting = false;
	if (pending)
		ts->pending_interrupt = 1;
}

/* perfctr_cpu_identify_overflow: restart overflowed slots at ireset. */
static uint32_t identify(struct thread *t)
{
	struct xp_cpu_state *ts = t->ts;
	const struct xp_cpu_control *c = &ts->control;
	uint32_t mask = 0;

	for (unsigned j = c->nractrs; j < c->nractrs + c->nrictrs; j++)
		if ((int64_t)ts->pmc[j].start >= 0) {
			ts->pmc[j].start = (uint64_t)(int64_t)c->ireset[j];
			mask |= 1u << j;
		}
	ts->pending_interrupt = 0;
	return mask;
}

static void notify(struct xm *m, struct thread *t, uint32_t mask)
{
	if (t->qn == QMAX)
		die("notification queue full");
	t->q[(t->qh + t->qn++) % QMAX] = mask;
	m->st.notifications++;
}

/* vperfctr_handle_overflow after identify (the thread is suspended):
 * "suspend a-mode and i-mode PMCs, leaving only TSC on" -- cstatus becomes
 * TSC-only (0 without the TSC) until VPERFCTR_IRESUME; the caller resumes
 * the thread with it; the thread gets a signal with the mask. */
static void stop_and_signal(struct xm *m, struct thread *t, uint32_t real, uint32_t sent)
{
	struct xp_cpu_state *ts = t->ts;
	uint32_t cs = ts->cstatus;

	t->iresume_cstatus = cs;
	ts->cstatus = xp_has_tsc(cs) ? xp_mk_cstatus(1, 0, 0) : 0;
	t->delivered += __builtin_popcount(real);
	if (!real)
		t->misdelivered++;
	notify(m, t, sent);
}

static bool same_control(const struct xp_cpu_state *vs, const struct xp_cpu_state *ts)
{
	if (vs->cstatus != ts->cstatus)
		return false;
	for (unsigned j = 0; j < xp_nrctrs(ts->cstatus); j++)
		if (vs->control.evntsel[j] != ts->control.evntsel[j] ||
		    vs->control.pmc_map[j] != ts->control.pmc_map[j])
			return false;
	return true;
}

/* perfctr_cpu_resume of the current thread (smp_id set): deliver a pending
 * overflow in this, the right, context; the resume hypercall unless the
 * VCPU already has this control (the skipped-hypercall optimization); then
 * Start*_thread = Phys*(t_r) (eq. 4). */
static void k_resume(struct xm *m, struct thread *t)
{
	struct vcpu *v = vcpu_of(m, t->dom, t->vcpu);
	struct xp_cpu_state *vs = vs_of(m, t->dom, t->vcpu), *ts = t->ts;
	uint32_t cs = ts->cstatus;

	if (!cs)
		return;
	if (ts->pending_interrupt) {
		uint32_t mask = identify(t);
		if (!mask)
			die("pending flag without an overflowed counter");
		stop_and_signal(m, t, mask, mask);
		m->st.pending_delivered++;
		cs = ts->cstatus;
		if (!cs)
			return;
	}
	if (xp_nrictrs(cs) || !v->have_control || !same_control(vs, ts)) {
		kwork(m, v->pcpu);
		hc_resume(m, t);
		kwork(m, v->pcpu);	/* after the hypervisor's sample: excluded by eq. 4 */
		if (m->cfg.hypercall_preempt && rnd_below(m, 4) == 0) {
			hv_bounce(m, t->dom, t->vcpu);
			m->st.hypercall_preempts++;
		}
		if (xp_has_tsc(cs))
			t->tail_tsc += star_tsc(m, t);
		for (unsigned j = 0; j < xp_nractrs(cs); j++)
			t->tail[j] += star_pmc(m, t, j);
	} else {
		m->st.hypercalls_skipped++;
	}
	if (xp_has_tsc(cs))
		ts->tsc_start = star_tsc(m, t);
	for (unsigned j = 0; j < xp_nrctrs(cs); j++) {
		if (j < xp_nractrs(cs))
			ts->pmc[j].start = star_pmc(m, t, j);
		else
			ts->pmc[j].start = ts->pmc[j].sum = 0;	/* held by the VCPU */
	}
	t->accounting = true;
}

/* ---- the guest scheduler ---- */

static void g_switch(struct xm *m, int d, int vi, int next)
{
	struct vcpu *v = vcpu_of(m, d, vi);

	if (v->pcpu < 0)
		die("guest switch on a descheduled vcpu");
	if (v->cur >= 0) {
		struct thread *o = &m->t[v->cur];
		k_suspend(m, o);
		m->st.pending_set += o->ts->pending_interrupt;
		o->vcpu = -1;
		v->cur = -1;
		kwork(m, v->pcpu);
	}
	if (next >= 0) {
		struct thread *t = &m->t[next];
		if (t->vcpu >= 0 || t->dom != d)
			die("switch to thread %d that is current elsewhere", next);
		if (t->last_vcpu >= 0 && t->last_vcpu != vi)
			m->st.migrations++;
		t->vcpu = t->last_vcpu = vi;
		v->cur = next;
		if (t->has_vperfctr)
			t->ts->smp_id = vi;
		k_resume(m, t);
	}
	m->st.guest_switches++;
}

/* The VIRQ_PERFCTR handler: deliver only if the current thread's counters
 * really overflowed (non-negative), else drop (paper 4.2.2). */
static void g_virq(struct xm *m, int d, int vi)
{
	struct vcpu *v = vcpu_of(m, d, vi);
	struct thread *t = v->cur >= 0 ? &m->t[v->cur] : NULL;
	uint32_t cs = t ? t->ts->cstatus : 0, real, all = 0;
	bool any = false;

	v->virq = false;
	m->st.virqs++;
	if (!t || !xp_nrictrs(cs)) {
		m->st.virqs_dropped++;
		return;
	}
	for (unsigned j = xp_nractrs(cs); j < xp_nrctrs(cs); j++) {
		any |= (int64_t)sext(m, m->pc[v->pcpu].reg[j]) >= 0;
		all |= 1u << j;
	}
	if (!any && !m->cfg.no_overflow_check) {
		m->st.virqs_dropped++;
		return;
	}
	/* vperfctr_ihandler: vperfctr_suspend, then handle the overflow and
	 * vperfctr_resume with the TSC-only cstatus. */
	k_suspend(m, t);
	real = identify(t);
	stop_and_signal(m, t, real, m->cfg.no_overflow_check ? all : real);
	k_resume(m, t);
}

static int running_vcpu(struct xm *m, int *d, int *vi)
{
	int cand[XM_MAX_DOM * XM_MAX_VCPU][2], n = 0;

	for (int i = 0; i < m->cfg.n_dom; i++)
		for (int j = 0; j < m->cfg.n_vcpu; j++)
			if (vcpu_of(m, i, j)->pcpu >= 0) {
				cand[n][0] = i;
				cand[n++][1] = j;
			}
	if (!n)
		return -1;
	n = rnd_below(m, n);
	*d = cand[n][0];
	*vi = cand[n][1];
	return 0;
}

/* A thread of domain d that is not current anywhere (prefer other than not), or -1. */
static int runnable_thread(struct xm *m, int d, int not)
{
	int cand[XM_MAX_THREAD], n = 0;

	for (int i = 0; i < m->cfg.n_thread; i++) {
		int tid = d * m->cfg.n_thread + i;
		if (m->t[tid].vcpu < 0 && tid != not)
			cand[n++] = tid;
	}
	return n ? cand[rnd_below(m, n)] : -1;
}

/* VCPU (d, vi) onto some PCPU, evicting another VCPU if all are busy. */
static void ensure_loaded(struct xm *m, int d, int vi, int keep_d, int keep_v)
{
	int q;

	if (vcpu_of(m, d, vi)->pcpu >= 0)
		return;
	q = free_pcpu(m, -1);
	if (q < 0) {
		for (int p = 0; p < m->cfg.n_pcpu && q < 0; p++)
			if (!(m->pc[p].dom == keep_d && m->pc[p].vcpu == keep_v))
				q = p;
		if (q < 0)
			q = 0;
		hv_save(m, m->pc[q].dom, m->pc[q].vcpu);
	}
	hv_load(m, d, vi, q);
}

/* ---- injections during a read ---- */

/* The current thread leaves VCPU vi of domain d, and another runnable
 * thread of d (if any) runs there a while. */
static void switch_away(struct xm *m, int d, int vi)
{
	int u;

	g_switch(m, d, vi, -1);
	u = runnable_thread(m, d, m->cur);
	if (u >= 0) {
		g_switch(m, d, vi, u);
		work(m, vcpu_of(m, d, vi)->pcpu, 100 + rnd_below(m, 1000));
	}
}

static void inject(struct xm *m, enum xm_inject kind)
{
	struct thread *t = &m->t[m->cur];
	int d = t->dom, vi = t->vcpu, w;

	switch (kind) {
	case XM_INJ_VCPU_SWITCH:
		hv_bounce(m, d, vi);
		break;
	case XM_INJ_MIGRATE:
		switch_away(m, d, vi);
		w = (vi + 1 + rnd_below(m, m->cfg.n_vcpu - 1)) % m->cfg.n_vcpu;
		ensure_loaded(m, d, w, -1, -1);
		g_switch(m, d, w, -1);
		g_switch(m, d, w, m->cur);
		break;
	case XM_INJ_SAME_VCPU:
		switch_away(m, d, vi);
		g_switch(m, d, vi, m->cur);
		break;
	case XM_INJ_NONE:
		break;
	}
	m->st.injected++;
}

/* Before each rdtsc/rdpmc of the current thread. */
static void instruction_hook(struct xm *m)
{
	if (m->inj == XM_INJ_NONE || m->in_hook)
		return;
	if (m->inj_at-- > 0)
		return;
	m->in_hook = true;
	inject(m, m->inj);
	m->inj = XM_INJ_NONE;
	m->inj_done = true;
	m->in_hook = false;
}

/* ---- /dev/perfctr ---- */

static struct thread *caller(struct xm *m)
{
	if (m->cur < 0 || !xm_thread_running(m, m->cur))
		die("syscall or instruction from thread %d, which is not running", m->cur);
	return &m->t[m->cur];
}

static int fd_new(struct xm *m, bool vperfctr, int tid)
{
	for (int i = 0; i < NFDS; i++)
		if (!m->fds[i].used) {
			m->fds[i] = (struct fdent){ true, vperfctr, tid };
			return FD_BASE + i;
		}
	return -EMFILE;
}

static struct fdent *fd_get(struct xm *m, int fd)
{
	if (fd < FD_BASE || fd >= FD_BASE + NFDS || !m->fds[fd - FD_BASE].used)
		return NULL;
	return &m->fds[fd - FD_BASE];
}

static int s_open(const char *path, void *arg)
{
	struct xm *m = arg;

	caller(m);
	if (strcmp(path, "/dev/perfctr") != 0)
		return -ENOENT;
	return fd_new(m, false, -1);
}

static int do_info(struct xm *m, struct xp_struct_buf *buf)
{
	struct xp_info info = {
		.abi_version = m->cfg.abi ? m->cfg.abi : XP_ABI_VERSION,
		.driver_version = "2.6.42.2-xenmodel",
		.cpu_type = m->cfg.cpu_type,
		.cpu_features = XP_FEATURE_RDPMC | XP_FEATURE_RDTSC | XP_FEATURE_PCINT,
		.cpu_khz = 2500000,
		.tsc_to_cpu_mult = 1,
	};
	int n = xp_encode_info(&info, buf->buffer, buf->wrsize);

	if (n < 0)
		return n;
	buf->rdsize = n;
	return 0;
}

static bool is_p4(uint32_t cpu_type)
{
	return cpu_type == XP_CPU_INTEL_P4 || cpu_type == XP_CPU_INTEL_P4M2 ||
	       cpu_type == XP_CPU_INTEL_P4M3;
}

/* VPERFCTR_CONTROL as sys_vperfctr_control + perfctr_cpu_update_control. */
static int do_control(struct xm *m, struct thread *t, const struct xp_struct_buf *buf)
{
	struct xp_cpu_state *ts = t->ts;
	struct xp_vcontrol vc;
	const struct xp_cpu_control *c = &vc.cpu_control;
	unsigned nr;
	uint32_t next;
	int ret = xp_decode_vcontrol(&vc, buf->buffer, buf->rdsize);

	if (ret < 0)
		return ret;
	nr = c->nractrs + c->nrictrs;
	if (nr > XM_NCTR)
		return -EINVAL;
	/* p4_check_control: every P4 counter needs its ESCR (and a CCCR, which
	 * a P6-style evntsel is not). */
	for (unsigned j = 0; j < nr && is_p4(m->cfg.cpu_type); j++)
		if (!c->p4.escr[j])
			return -EINVAL;
	for (unsigned j = 0; j < nr; j++) {
		bool imode = j >= c->nractrs;
		if (c->pmc_map[j] != j || !(c->evntsel[j] & XM_EVNTSEL_EN) ||
		    !(c->evntsel[j] & XM_EVNTSEL_INT) != !imode || (imode && c->ireset[j] >= 0))
			return -EINVAL;
	}
	if (c->nrictrs && !vc.si_signo)
		return -EINVAL;
	if (ts->cstatus)
		k_suspend(m, t);
	/* A crossing not yet delivered dies with the old control. */
	for (unsigned j = xp_nractrs(ts->cstatus); j < xp_nrctrs(ts->cstatus); j++)
		if ((int64_t)ts->pmc[j].start >= 0)
			t->discarded++;
	ts->cstatus = 0;
	ts->pending_interrupt = 0;
	t->iresume_cstatus = 0;
	ts->control = *c;
	next = (c->tsc_on || nr) ? xp_mk_cstatus(c->tsc_on, c->nractrs, c->nrictrs) : 0;
	if (!next)
		return 0;	/* stopped: sums kept */
	t->si_signo = vc.si_signo;
	if (!c->tsc_on)
		ts->tsc_sum = t->truth_tsc = 0;
	for (unsigned j = 0; j < nr; j++) {
		ts->pmc[j].map = c->pmc_map[j];
		if (!(vc.preserve & (1u << j)))
			ts->pmc[j].sum = t->truth[j] = t->cross[j] = 0;
		if (j >= c->nractrs)
			ts->pmc[j].start = (uint64_t)(int64_t)c->ireset[j];
	}
	ts->cstatus = next;
	k_resume(m, t);
	return 0;
}

static int do_iresume(struct xm *m, struct thread *t)
{
	if (!xp_nrictrs(t->iresume_cstatus))
		return -EPERM;
	k_suspend(m, t);
	t->ts->cstatus = t->iresume_cstatus;
	t->iresume_cstatus = 0;
	k_resume(m, t);
	return 0;
}

static int s_ioctl(int fd, unsigned long req, void *argp, void *arg)
{
	struct xm *m = arg;
	struct thread *t = caller(m);
	struct fdent *f = fd_get(m, fd);

	if (!f)
		return -EBADF;
	switch (req) {
	case XP_PERFCTR_ABI:
		*(unsigned int *)argp = m->cfg.abi ? m->cfg.abi : XP_ABI_VERSION;
		return 0;
	case XP_PERFCTR_INFO:
		return do_info(m, argp);
	case XP_VPERFCTR_CREAT:
		if (f->vperfctr)
			return -EINVAL;
		if ((intptr_t)argp != 0)
			return -ESRCH;	/* the model knows only self-monitoring */
		if (t->has_vperfctr)
			return -EEXIST;
		/* A new vperfctr starts from zero sums. */
		memset(t->ts, 0, sizeof(*t->ts));
		t->truth_tsc = 0;
		memset(t->truth, 0, sizeof(t->truth));
		memset(t->cross, 0, sizeof(t->cross));
		t->ts->smp_id = t->vcpu;
		t->has_vperfctr = true;
		return fd_new(m, true, m->cur);
	}
	if (!f->vperfctr)
		return -EINVAL;
	if (f->tid != m->cur || !t->has_vperfctr)
		return -EPERM;
	kwork(m, vcpu_of(m, t->dom, t->vcpu)->pcpu);	/* syscall entry */
	switch (req) {
	case XP_VPERFCTR_CONTROL:
		return do_control(m, t, argp);
	case XP_VPERFCTR_IRESUME:
		return do_iresume(m, t);
	case XP_VPERFCTR_UNLINK:
		if (t->ts->cstatus)
			k_suspend(m, t);
		t->ts->cstatus = 0;
		t->has_vperfctr = false;
		return 0;
	}
	return -ENOTTY;
}

static int s_mmap(int fd, size_t len, const void **out, void *arg)
{
	struct xm *m = arg;
	struct fdent *f = fd_get(m, fd);
	char *base;

	caller(m);
	if (!f || !f->vperfctr)
		return -EINVAL;
	if (len != (m->cfg.native_layout ? (size_t)XP_PAGE : (size_t)XP_KSTATE_SIZE))
		return -EINVAL;
	/* One read-only area: the thread's page, then its domain's shared
	 * per-VCPU pages, as perfctr-xen's vperfctr_mmap builds it. */
	base = mmap(NULL, XP_KSTATE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	if (mmap(base, XP_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, m->t[f->tid].memfd, 0) ==
		    MAP_FAILED ||
	    mmap(base + XP_PAGE, XP_KSTATE_SIZE - XP_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
		 m->d[m->t[f->tid].dom].memfd, 0) == MAP_FAILED) {
		int e = errno;
		munmap(base, XP_KSTATE_SIZE);
		return -e;
	}
	*out = base;
	return 0;
}

static int s_munmap(const void *addr, size_t len, void *arg)
{
	return munmap((void *)addr, len) < 0 ? -errno : 0;
}

static int s_close(int fd, void *arg)
{
	struct fdent *f = fd_get(arg, fd);

	if (!f)
		return -EBADF;
	f->used = false;
	return 0;
}

static uint64_t s_rdtsc(void *arg)
{
	struct xm *m = arg;
	struct thread *t;

	caller(m);
	instruction_hook(m);
	t = caller(m);
	work(m, vcpu_of(m, t->dom, t->vcpu)->pcpu, 1 + rnd_below(m, 8));
	/* A new pass of the read begins: earlier rdpmc snapshots are stale. */
	memset(t->snap_ok, 0, sizeof(t->snap_ok));
	t->snap_tsc = t->truth_tsc;
	t->snap_tsc_ok = true;
	return pcpu_of_thread(m, t)->tsc;
}

static uint64_t s_rdpmc(uint32_t ctr, void *arg)
{
	struct xm *m = arg;
	struct thread *t;

	caller(m);
	if (ctr >= XM_NCTR)
		die("rdpmc(%u): no such counter (#GP)", ctr);
	instruction_hook(m);
	t = caller(m);
	work(m, vcpu_of(m, t->dom, t->vcpu)->pcpu, 1 + rnd_below(m, 8));
	t->snap[ctr] = t->truth[ctr];
	t->snap_cross[ctr] = t->cross[ctr];
	t->snap_ok[ctr] = true;
	return pcpu_of_thread(m, t)->reg[ctr];
}

/* ---- public ---- */

static void *map_memfd(int *fdp, size_t len)
{
	void *p;

	*fdp = memfd_create("xenmodel", MFD_CLOEXEC);
	if (*fdp < 0)
		return NULL;
	if (ftruncate(*fdp, len) < 0) {
		close(*fdp);
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *fdp, 0);
	if (p == MAP_FAILED) {
		close(*fdp);
		return NULL;
	}
	return p;
}

struct xm *xm_new(const struct xm_config *cfg)
{
	struct xm *m;

	if (cfg->n_pcpu < 1 || cfg->n_pcpu > XM_MAX_PCPU || cfg->n_dom < 1 ||
	    cfg->n_dom > XM_MAX_DOM || cfg->n_vcpu < 1 || cfg->n_vcpu > XM_MAX_VCPU ||
	    cfg->n_thread < 1 || cfg->n_thread > XM_MAX_THREAD || !xp_width(cfg->cpu_type)) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->rng = cfg->seed * 2 + 1;
	/* The width the driver reports for this cpu_type. */
	m->width = xp_width(cfg->cpu_type);
	m->mask = m->width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << m->width) - 1;
	m->cur = -1;
	m->nth = cfg->n_dom * cfg->n_thread;
	for (int p = 0; p < cfg->n_pcpu; p++) {
		m->pc[p].dom = m->pc[p].vcpu = -1;
		m->pc[p].tsc = rnd(m) >> 24;	/* unsynchronized TSCs */
		for (int j = 0; j < XM_NCTR; j++)
			m->pc[p].reg[j] = (cfg->pmc_init + rnd_below(m, cfg->pmc_jitter)) & m->mask;
	}
	for (int d = 0; d < cfg->n_dom; d++) {
		/* shared_info's 7 extra pages: hypervisor_perfctr[], zeroed
		 * by Xen at domain creation whether or not `perfctr` is on. */
		m->d[d].vs = map_memfd(&m->d[d].memfd, XP_KSTATE_SIZE - XP_PAGE);
		if (!m->d[d].vs)
			goto fail;
		for (int v = 0; v < XM_MAX_VCPU; v++)
			m->d[d].v[v] = (struct vcpu){ -1, -1, false, false };
	}
	for (int i = 0; i < m->nth; i++) {
		struct thread *t = &m->t[i];
		t->dom = i / cfg->n_thread;
		t->vcpu = t->last_vcpu = -1;
		t->ts = map_memfd(&t->memfd, XP_PAGE);
		if (!t->ts)
			goto fail;
	}
	/* Start with the VCPUs spread over the PCPUs, each running a thread. */
	for (int p = 0, d = 0, v = 0; p < cfg->n_pcpu; p++) {
		hv_load(m, d, v, p);
		g_switch(m, d, v, runnable_thread(m, d, -1));
		if (++d == cfg->n_dom) {
			d = 0;
			if (++v == cfg->n_vcpu)
				break;
		}
	}
	m->sys = (struct pcx_sys){ s_open, s_ioctl, s_mmap, s_munmap, s_close,
				   s_rdpmc, s_rdtsc, m };
	return m;
fail:
	xm_free(m);
	return NULL;
}

void xm_free(struct xm *m)
{
	if (!m)
		return;
	for (int d = 0; d < XM_MAX_DOM; d++)
		if (m->d[d].vs) {
			munmap(m->d[d].vs, XP_KSTATE_SIZE - XP_PAGE);
			close(m->d[d].memfd);
		}
	for (int i = 0; i < XM_MAX_DOM * XM_MAX_THREAD; i++)
		if (m->t[i].ts) {
			munmap(m->t[i].ts, XP_PAGE);
			close(m->t[i].memfd);
		}
	free(m);
}

const struct pcx_sys *xm_sys(struct xm *m) { return &m->sys; }
unsigned xm_width(const struct xm *m) { return m->width; }
int xm_nthreads(const struct xm *m) { return m->nth; }
int xm_thread_dom(const struct xm *m, int tid) { return m->t[tid].dom; }
int xm_thread_vcpu(const struct xm *m, int tid) { return m->t[tid].vcpu; }
bool xm_thread_pending(const struct xm *m, int tid) { return m->t[tid].ts->pending_interrupt; }

bool xm_thread_running(const struct xm *m, int tid)
{
	const struct thread *t = &m->t[tid];
	return t->vcpu >= 0 && m->d[t->dom].v[t->vcpu].pcpu >= 0;
}

int xm_pick_running(struct xm *m)
{
	int cand[XM_MAX_DOM * XM_MAX_THREAD], n = 0;

	for (int i = 0; i < m->nth; i++)
		if (xm_thread_running(m, i))
			cand[n++] = i;
	return n ? cand[rnd_below(m, n)] : -1;
}

void xm_set_current(struct xm *m, int tid)
{
	struct thread *t = &m->t[tid];

	m->cur = tid;
	t->snap_tsc_ok = false;
	memset(t->snap_ok, 0, sizeof(t->snap_ok));
}

void xm_run_thread(struct xm *m, int tid, unsigned ticks)
{
	if (!xm_thread_running(m, tid))
		die("xm_run_thread: thread %d is not running", tid);
	work(m, vcpu_of(m, m->t[tid].dom, m->t[tid].vcpu)->pcpu, ticks);
}

void xm_run_pcpu(struct xm *m, int p, unsigned ticks)
{
	work(m, p, ticks);
}

void xm_step(struct xm *m)
{
	unsigned r = rnd_below(m, 100);
	int d, vi, p = rnd_below(m, m->cfg.n_pcpu), q;

	if (r < 45) {
		work(m, p, 1 + rnd_below(m, 3000));
	} else if (r < 65) {
		if (running_vcpu(m, &d, &vi) == 0) {
			int next = rnd_below(m, 10) ? runnable_thread(m, d, -1) : -1;
			if (next >= 0 || vcpu_of(m, d, vi)->cur >= 0)
				g_switch(m, d, vi, next);
		}
	} else if (r < 80) {
		if (m->pc[p].dom >= 0) {
			hv_save(m, m->pc[p].dom, m->pc[p].vcpu);
		} else {
			int cand[XM_MAX_DOM * XM_MAX_VCPU][2], n = 0;
			for (int i = 0; i < m->cfg.n_dom; i++)
				for (int j = 0; j < m->cfg.n_vcpu; j++)
					if (vcpu_of(m, i, j)->pcpu < 0) {
						cand[n][0] = i;
						cand[n++][1] = j;
					}
			if (n) {
				n = rnd_below(m, n);
				hv_load(m, cand[n][0], cand[n][1], p);
			}
		}
	} else if (r < 95) {
		for (int i = 0; i < m->cfg.n_dom; i++)
			for (int j = 0; j < m->cfg.n_vcpu; j++)
				if (vcpu_of(m, i, j)->virq && vcpu_of(m, i, j)->pcpu >= 0 &&
				    rnd_below(m, 2)) {
					g_virq(m, i, j);
					return;
				}
	} else if (running_vcpu(m, &d, &vi) == 0 && (q = free_pcpu(m, -1)) >= 0) {
		/* Xen moves a VCPU to another PCPU. */
		hv_save(m, d, vi);
		hv_load(m, d, vi, q);
	}
}

int xm_quiesce(struct xm *m)
{
	for (int round = 0; round < 100; round++) {
		bool busy = false;

		for (int d = 0; d < m->cfg.n_dom; d++)
			for (int v = 0; v < m->cfg.n_vcpu; v++)
				if (vcpu_of(m, d, v)->virq) {
					ensure_loaded(m, d, v, -1, -1);
					g_virq(m, d, v);
					busy = true;
				}
		for (int i = 0; i < m->nth; i++) {
			struct thread *t = &m->t[i];
			if (!t->has_vperfctr || !t->ts->pending_interrupt || t->vcpu >= 0)
				continue;
			int v = rnd_below(m, m->cfg.n_vcpu);
			ensure_loaded(m, t->dom, v, -1, -1);
			g_switch(m, t->dom, v, i);
			busy = true;
		}
		if (!busy)
			return round;
	}
	return -1;
}

void xm_make_running(struct xm *m, int tid)
{
	struct thread *t = &m->t[tid];
	int v;

	if (t->vcpu >= 0) {
		ensure_loaded(m, t->dom, t->vcpu, -1, -1);
		return;
	}
	v = rnd_below(m, m->cfg.n_vcpu);
	ensure_loaded(m, t->dom, v, -1, -1);
	g_switch(m, t->dom, v, tid);
}

int xm_guest_switch(struct xm *m, int dom, int vcpu, int next_tid)
{
	if (vcpu_of(m, dom, vcpu)->pcpu < 0 ||
	    (next_tid >= 0 && (m->t[next_tid].vcpu >= 0 || m->t[next_tid].dom != dom)))
		return -EINVAL;
	g_switch(m, dom, vcpu, next_tid);
	return 0;
}

int xm_vcpu_deschedule(struct xm *m, int dom, int vcpu)
{
	if (vcpu_of(m, dom, vcpu)->pcpu < 0)
		return -EINVAL;
	hv_save(m, dom, vcpu);
	return 0;
}

int xm_vcpu_schedule(struct xm *m, int dom, int vcpu, int pcpu)
{
	if (vcpu_of(m, dom, vcpu)->pcpu >= 0 || m->pc[pcpu].dom >= 0)
		return -EINVAL;
	hv_load(m, dom, vcpu, pcpu);
	return 0;
}

int xm_virq(struct xm *m, int dom, int vcpu)
{
	if (vcpu_of(m, dom, vcpu)->pcpu < 0 || !vcpu_of(m, dom, vcpu)->virq)
		return -EINVAL;
	g_virq(m, dom, vcpu);
	return 0;
}

bool xm_virq_pending(const struct xm *m, int dom, int vcpu)
{
	return m->d[dom].v[vcpu].virq;
}

void xm_inject(struct xm *m, enum xm_inject kind, int at_call)
{
	m->inj = kind;
	m->inj_at = at_call;
	m->inj_done = false;
}

bool xm_inject_done(const struct xm *m) { return m->inj_done; }
uint64_t xm_truth_tsc(const struct xm *m, int tid) { return m->t[tid].truth_tsc; }
uint64_t xm_truth_slot(const struct xm *m, int tid, int s) { return m->t[tid].truth[s]; }

uint64_t xm_expect_tsc(const struct xm *m, int tid)
{
	const struct thread *t = &m->t[tid];
	return t->snap_tsc_ok ? t->snap_tsc : t->truth_tsc;
}

uint64_t xm_expect_slot(const struct xm *m, int tid, int s)
{
	const struct thread *t = &m->t[tid];
	uint64_t span = UINT64_C(1) << m->width;

	if (t->snap_ok[s])
		return t->snap[s] - t->snap_cross[s] * span;
	return t->truth[s] - t->cross[s] * span;
}

uint64_t xm_crossings(const struct xm *m, int tid, int s) { return m->t[tid].cross[s]; }
uint32_t xm_thread_cstatus(const struct xm *m, int tid) { return m->t[tid].ts->cstatus; }
uint32_t xm_vcpu_cstatus(const struct xm *m, int d, int v) { return m->d[d].vs[v].cstatus; }
const struct xp_cpu_state *xm_thread_state(const struct xm *m, int tid) { return m->t[tid].ts; }
const struct xp_cpu_state *xm_vcpu_state(const struct xm *m, int d, int v) { return &m->d[d].vs[v]; }

int xm_info_words(const struct xm *m, uint32_t *buf, unsigned cap)
{
	struct xp_struct_buf *b = malloc(sizeof(*b) + cap * 4);
	int ret;

	if (!b)
		return -ENOMEM;
	b->wrsize = cap;
	ret = do_info((struct xm *)m, b);
	if (ret == 0) {
		memcpy(buf, b->buffer, b->rdsize * 4);
		ret = b->rdsize;
	}
	free(b);
	return ret;
}

uint64_t xm_hypercall_tail_tsc(const struct xm *m, int tid) { return m->t[tid].tail_tsc; }
uint64_t xm_hypercall_tail_slot(const struct xm *m, int tid, int s) { return m->t[tid].tail[s]; }

bool xm_notification_pop(struct xm *m, int tid, uint32_t *mask)
{
	struct thread *t = &m->t[tid];

	if (!t->qn)
		return false;
	*mask = t->q[t->qh];
	t->qh = (t->qh + 1) % QMAX;
	t->qn--;
	return true;
}

int xm_notifications_queued(const struct xm *m, int tid) { return m->t[tid].qn; }
uint64_t xm_overflows(const struct xm *m, int tid) { return m->t[tid].overflows; }
uint64_t xm_delivered(const struct xm *m, int tid) { return m->t[tid].delivered; }
uint64_t xm_misdelivered(const struct xm *m, int tid) { return m->t[tid].misdelivered; }
uint64_t xm_discarded(const struct xm *m, int tid) { return m->t[tid].discarded; }

int xm_outstanding(const struct xm *m, int tid)
{
	const struct thread *t = &m->t[tid];
	const struct xp_cpu_state *ts = t->ts;
	uint32_t cs = ts->cstatus;
	int n = 0;

	for (unsigned j = xp_nractrs(cs); j < xp_nrctrs(cs); j++) {
		uint64_t v;
		if (t->vcpu >= 0 && m->d[t->dom].v[t->vcpu].pcpu >= 0)
			v = sext(m, m->pc[m->d[t->dom].v[t->vcpu].pcpu].reg[j]);
		else if (t->vcpu >= 0)
			v = m->d[t->dom].vs[t->vcpu].pmc[j].start;
		else
			v = ts->pmc[j].start;
		n += (int64_t)v >= 0;
	}
	return n;
}

void xm_get_stats(const struct xm *m, struct xm_stats *st)
{
	*st = m->st;
}
