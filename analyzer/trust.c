/* Trust flags: what a run's own numbers say about how far its samples can
 * be trusted.  Per thread, time-based samples x period should add up to
 * the thread's CPU time as the kernel counted it (the collector records
 * thread_cpu_ns at thread end); an emulator's timer interrupts arrive at
 * translation-block boundaries, so its per-line attribution is unreliable;
 * the collector's handler time is part of the CPU time the samples show.
 * docs/analyzer.md ("Trust flags") documents the thresholds. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyzer/read.h"
#include "analyzer/set.h"

/* Hypervisor names (the profile's "hypervisor" key, from CPUID) that are
 * emulators rather than hardware virtualization. */
static const struct {
	const char *hypervisor, *name;
} emulators[] = {
	{ "qemu-tcg", "QEMU-TCG" },
	{ "bochs", "Bochs" },
};

static const char *const trust_names[ANA_TRUST_N] = {
	"samples-lost", "samples-excess", "emulated", "collector-time", "steal", "virtualized",
};

const char *ana_trust_name(unsigned bit)
{
	for (unsigned i = 0; i < ANA_TRUST_N; i++)
		if (bit == 1u << i)
			return trust_names[i];
	return NULL;
}

const char *ana_trust_str(unsigned flags, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (unsigned i = 0; i < ANA_TRUST_N && n < len; i++)
		if (flags & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ";" : "", trust_names[i]);
	return buf;
}

const char *trust_emulator(const char *hv)
{
	for (size_t i = 0; hv && i < sizeof(emulators) / sizeof(*emulators); i++)
		if (!strcasecmp(hv, emulators[i].hypervisor))
			return emulators[i].name;
	return NULL;
}

/* A profile's "virtualization" (layers outermost first, "NAME[ VERSION]
 * (KIND[; vPMU ...]): EVIDENCE" joined by " | ") as "Xen 4.17.7 (PV dom0)
 * on QEMU-TCG (emulation)", innermost first; *emu: the first layer that
 * is an emulator.  false for "none" or nothing. */
static bool virt_summary(const char *layers, char *buf, size_t len, const char **emu)
{
	const char *heads[8];
	size_t nh = 0, n = 0;

	buf[0] = 0;
	if (!layers || !*layers || !strcmp(layers, "none"))
		return false;
	for (const char *p = layers; p && nh < 8; p = strstr(p, " | ")) {
		if (p != layers)
			p += 3;
		heads[nh++] = p;
	}
	for (size_t i = nh; i-- > 0 && n < len;) {
		const char *h = heads[i], *open = strstr(h, " (");
		const char *end = h + strcspn(h, "|");
		size_t name = open && open < end ? (size_t)(open - h) : strcspn(h, ":|");
		size_t kind = open && open < end ? strcspn(open + 2, ";)") : 0;
		char nm[64];
		snprintf(nm, sizeof(nm), "%.*s", (int)name, h);
		if (emu && !*emu)
			for (size_t e = 0; e < sizeof(emulators) / sizeof(*emulators); e++)
				if (!strncasecmp(nm, emulators[e].name, strlen(emulators[e].name)))
					*emu = emulators[e].name;
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%.*s%s", n ? " on " : "", nm,
				      kind ? " (" : "", (int)kind, kind ? open + 2 : "", kind ? ")" : "");
	}
	return n > 0;
}

static bool counter(const struct prof *p, const char *name, uint64_t *v)
{
	for (size_t i = 0; i < p->n_counters; i++)
		if (p->counters[i].name && !strcmp(p->counters[i].name, name)) {
			*v = p->counters[i].value;
			return true;
		}
	return false;
}

/* What event e's samples should add up to (enum ana_basis).  Its name
 * carries libpfm4's privilege-level modifiers as the user gave them
 * ("perf::CPU-CLOCK:u", also ":u=1"; ':u=0' turns one off): only ':u', the
 * user's time; only ':k', the kernel's; both or neither, all of it.
 * PMCPROF_KERNEL=off sets exclude_kernel without renaming the event: then
 * the profile's kernel_frames is "excluded" (no event counts the kernel). */
static unsigned event_basis(const struct prof *p, const struct prof_event *e)
{
	const char *n = e->name ? e->name : "", *pmu = strstr(n, "::");
	const char *m = strchr(pmu ? pmu + 2 : n, ':');
	const char *kf = prof_meta_get(p, "kernel_frames");
	bool u = false, k = false;

	while (m) {
		const char *tok = m + 1;
		size_t len;

		m = strchr(tok, ':');
		len = m ? (size_t)(m - tok) : strlen(tok);
		bool on = len == 1 || (len > 2 && tok[1] == '=' && strncmp(tok + 2, "0", len - 2) != 0);
		if (on && (tok[0] == 'u' || tok[0] == 'U'))
			u = true;
		else if (on && (tok[0] == 'k' || tok[0] == 'K'))
			k = true;
	}
	if (k && !u)
		return ANA_BASIS_SYSTEM;
	if ((u && !k) || (!k && kf && !strcmp(kf, "excluded")))
		return ANA_BASIS_USER;
	return ANA_BASIS_CPU;
}

const char *ana_basis_str(unsigned basis)
{
	switch (basis) {
	case ANA_BASIS_CPU:
		return "CPU time";
	case ANA_BASIS_USER:
		return "user time";
	case ANA_BASIS_SYSTEM:
		return "system time";
	default:
		return basis ? "CPU, user or system time" : "";
	}
}

/* What a thread's user (or system) time want of its CPU time cpu is worth
 * as a measure, in samples: the count whose 1/sqrt is its relative error.
 * The kernel splits CPU time between the modes in proportion to the ticks
 * that found the thread in each (cputime_adjust), at least
 * ANA_TRUST_TICK_HZ of them a second; an event that sees one mode samples
 * it the same way, once per period (expected of them), so the samples
 * vary too.  Each is a binomial share p = want / cpu of n draws, whose
 * relative variance is (1 - p) / (p n); no other mode: exact. */
static double split_worth(uint64_t cpu, double want, double expected)
{
	double other = (double)cpu - want, ticks = (double)cpu / 1e9 * ANA_TRUST_TICK_HZ;

	if (other <= 0)
		return INFINITY;
	if (want <= 0 || ticks <= 0)
		return 0;
	/* expected periods of the event's mode: cpu / want times as many in all */
	double periods = expected * (double)cpu / want;
	return want / other / (1 / ticks + 1 / periods);
}

/* A counted (not time-based) event sampled by period: its samples against
 * its final count / period, where the collector recorded the count. */
static void trust_counts(struct trust_acc *t, const struct prof *p)
{
	for (size_t k = 0; k < p->n_events && k < 8; k++) {
		const struct prof_event *e = &p->events[k];
		char name[32];
		uint64_t count, n = 0;

		if ((e->unit && (!strcmp(e->unit, "ns") || !strcmp(e->unit, "us"))) ||
		    !e->period || e->freq)
			continue;
		snprintf(name, sizeof(name), "event_count_%zu", k);
		if (!counter(p, name, &count))
			continue;
		for (uint32_t i = 0; i < p->cct.n_nodes; i++)
			n += p->cct.counts[(size_t)i * p->cct.n_events + k];
		if ((double)count / (double)e->period < ANA_TRUST_MIN_EXPECTED)
			continue;
		/* the periods its samples stood for, in periods */
		t->count_got += e->weight ? (double)e->weight / (double)e->period : (double)n;
		t->count_want += (double)count / (double)e->period;
		if (!t->n_count_judged++)
			snprintf(t->count_event, sizeof(t->count_event), "%s",
				 e->name ? e->name : "?");
	}
}

void trust_file(struct trust_acc *t, const struct prof *p)
{
	uint64_t cpu = 0, user = 0, h;

	trust_counts(t, p);
	bool have_cpu = counter(p, "thread_cpu_ns", &cpu);
	bool have_user = counter(p, "thread_user_ns", &user);

	/* The handler's time is wall time (two TSC reads): a run preempted
	 * mid-way counts time the thread did not run.  It is only set beside
	 * the CPU time of the same thread (a profile the watcher wrote has
	 * none), and never above it. */
	if (have_cpu && counter(p, "handler_ns", &h)) {
		t->handler_ns += (double)(h < cpu ? h : cpu);
		t->n_handler++;
	}
	if (have_cpu) {
		t->cpu_ns += (double)cpu;
		t->n_cpu++;
	}
	if (counter(p, "unsampled_thread_cpu_ns", &h))
		t->unsampled_ns += (double)h;
	if (counter(p, "unsampled_clone_cpu_ns", &h))
		t->unsampled_ns += (double)h;
	if (counter(p, "clone_children", &h))
		t->n_clones += h;
	if (have_user) {
		t->user_ns += (double)user;
		t->n_user++;
	}
	/* the first time-based event sampled by period: ns or us of CPU */
	for (size_t k = 0; k < p->n_events; k++) {
		const struct prof_event *e = &p->events[k];
		double scale = e->unit && !strcmp(e->unit, "ns") ? 1
			       : e->unit && !strcmp(e->unit, "us") ? 1000 : 0;
		if (!scale || !e->period || e->freq)
			continue;
		/* The time it could see; a profile without the counters that
		 * say it (an older collector) is not judged.  A part of the
		 * CPU time needs the whole too, to know how far it holds. */
		unsigned basis = event_basis(p, e);
		double want;
		if (basis == ANA_BASIS_USER && have_cpu && have_user)
			want = (double)user;
		else if (basis == ANA_BASIS_SYSTEM && have_cpu && have_user)
			want = cpu > user ? (double)(cpu - user) : 0;
		else if (basis == ANA_BASIS_CPU && have_cpu)
			want = (double)cpu;
		else
			return;
		uint64_t n = 0;
		for (uint32_t i = 0; i < p->cct.n_nodes; i++)
			n += p->cct.counts[(size_t)i * p->cct.n_events + k];
		double got = (e->weight ? (double)e->weight : (double)n * (double)e->period) * scale;
		double expected = want / ((double)e->period * scale);
		if (expected < ANA_TRUST_MIN_EXPECTED)
			return;
		if (basis != ANA_BASIS_CPU && split_worth(cpu, want, expected) < ANA_TRUST_MIN_SPLIT)
			return;
		double cov = got / want;
		if (counter(p, "handler_ns", &h)) {
			t->judged_handler_ns += (double)(h < cpu ? h : cpu);
			t->judged_cpu_ns += (double)cpu;
		}
		t->judged_want_ns += want;
		t->judged_got_ns += got;
		t->basis |= basis;
		if (!t->n_judged || cov < t->worst) {
			const char *tid = prof_meta_get(p, "tid"), *nm = prof_meta_get(p, "thread_name");
			t->worst = cov;
			snprintf(t->worst_who, sizeof(t->worst_who), "tid %.20s%s%.40s%s",
				 tid ? tid : "?", nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
		}
		t->n_judged++;
		t->n_short += cov < 1 - ANA_TRUST_LOST_SHARE;
		return;
	}
}

/* --by groups of one run share its notes: each said once. */
#define note(s, run, ...) set_note_once(s, ANA_NOTE_WARN, run, __VA_ARGS__)

/* The run's virtualization layers and emulator, from its metadata: any
 * of its files under an emulator (at any layer) makes the run one. */
static void trust_virt(struct ana_set *s, struct orun *o)
{
	struct ana_run *r = &o->pub;

	r->emulator = NULL;
	r->virtualization = NULL;
	for (size_t i = 0; i < o->n_meta; i++) {
		const struct meta_acc *m = &o->meta[i];
		bool layers = !strcmp(m->key, "virtualization");
		if (!layers && strcmp(m->key, "hypervisor"))
			continue;
		for (size_t k = 0; k < m->n; k++) {
			char buf[512];
			const char *emu = NULL;
			if (layers && virt_summary(m->val[k], buf, sizeof(buf), &emu))
				r->virtualization = strpool_str(&s->pool, buf);
			else if (!layers && !r->virtualization && m->val[k][0] &&
				 strcmp(m->val[k], "none"))
				r->virtualization = m->val[k];
			if (!r->emulator)
				r->emulator = layers ? emu : trust_emulator(m->val[k]);
		}
	}
}

/* The run's times, means per repeat, and its coverage. */
static void trust_times(struct orun *o)
{
	const struct trust_acc *t = &o->trust;
	struct ana_run *r = &o->pub;
	double reps = o->n_repeats ? o->n_repeats : 1;

	r->cpu_time = t->n_cpu ? t->cpu_ns / 1e9 / reps : NAN;
	r->user_time = t->n_user ? t->user_ns / 1e9 / reps : NAN;
	r->handler_time = t->n_handler ? t->handler_ns / 1e9 / reps : NAN;
	r->sampled_time = t->n_judged ? t->judged_got_ns / 1e9 / reps : NAN;
	r->expected_time = t->n_judged ? t->judged_want_ns / 1e9 / reps : NAN;
	r->coverage = t->n_judged && t->judged_want_ns > 0 ? t->judged_got_ns / t->judged_want_ns : NAN;
	r->basis = t->basis;
	r->n_judged = t->n_judged;
	r->n_short = t->n_short;
	r->trust = 0;
}

/* Samples lost or in excess: coverage, threads never sampled, counts. */
static void trust_samples(struct ana_set *s, struct orun *o, const char *who, int nr)
{
	const struct trust_acc *t = &o->trust;
	struct ana_run *r = &o->pub;
	double reps = o->n_repeats ? o->n_repeats : 1;

	/* "CPU time", or the part of it the events see, and why */
	const char *own = ana_basis_str(t->basis);
	const char *why = t->basis == ANA_BASIS_USER ? " (the events exclude the kernel)"
			  : t->basis == ANA_BASIS_SYSTEM ? " (the events count only the kernel)"
			  : t->basis != ANA_BASIS_CPU ? " (as each thread's event counts)" : "";
	if (!isnan(r->coverage) && r->coverage < 1 - ANA_TRUST_LOST_SHARE) {
		r->trust |= ANA_TRUST_SAMPLES_LOST;
		note(s, nr, "%s: lost %.0f%% of the expected samples (%.3f s sampled for %.3f s of "
			 "the threads' own %s%s; %u of %u threads short, worst %s at %.0f%%): "
			 "timer-based sampling in an emulated or overloaded guest, or a loaded host",
		     who, 100 * (1 - r->coverage), r->sampled_time, r->expected_time, own, why,
		     t->n_short, t->n_judged, t->worst_who, 100 * t->worst);
	} else if (!isnan(r->coverage) && r->coverage > 1 + ANA_TRUST_EXCESS_SHARE) {
		r->trust |= ANA_TRUST_SAMPLES_EXCESS;
		note(s, nr, "%s: %.0f%% more sample time than the threads' own %s%s (%.3f s "
			 "sampled for %.3f s): samples stand for time the threads did not run",
		     who, 100 * (r->coverage - 1), own, why, r->sampled_time, r->expected_time);
	}
	/* Never silently missing: threads without a profile of their own. */
	if (t->n_cpu && t->unsampled_ns > ANA_TRUST_UNSAMPLED_SHARE * (t->cpu_ns + t->unsampled_ns)) {
		r->trust |= ANA_TRUST_SAMPLES_LOST;
		note(s, nr, "%s: %.3f s of CPU time (%.0f%% of the process's) ran in threads the "
			 "collector did not sample: made by a raw clone/clone3 system call or by "
			 "clone() (%llu call%s), not pthread_create; it is not in the profile",
		     who, t->unsampled_ns / 1e9 / reps,
		     100 * t->unsampled_ns / (t->cpu_ns + t->unsampled_ns),
		     (unsigned long long)t->n_clones, t->n_clones == 1 ? "" : "s");
	}
	if (t->n_count_judged && t->count_got < (1 - ANA_TRUST_LOST_SHARE) * t->count_want) {
		r->trust |= ANA_TRUST_SAMPLES_LOST;
		note(s, nr, "%s: %.0f%% of the samples the counts imply are missing (%.0f taken, "
			 "%.0f implied by %s's final count / period): the PMU raised fewer overflow "
			 "interrupts than the counter overflowed (an emulated PMU's general-purpose "
			 "counters overflow only at its timer tick)",
		     who, 100 * (1 - t->count_got / t->count_want), t->count_got / reps,
		     t->count_want / reps, t->count_event);
	}
}

/* Where it ran, and what the collector cost. */
static void trust_env(struct ana_set *s, struct orun *o, const char *who, int nr)
{
	const struct trust_acc *t = &o->trust;
	struct ana_run *r = &o->pub;
	/* raw counts stand for the CPU time the run had, not the part sampled */
	r->loss_scale = !isnan(r->coverage) && r->coverage > 0 && r->coverage < 1 ? 1 / r->coverage : 1;
	if (r->virtualization)
		r->trust |= ANA_TRUST_VIRTUALIZED;
	if (r->emulator) {
		r->trust |= ANA_TRUST_EMULATED;
		note(s, nr, "%s: ran under an emulator (%s): not representative of hardware "
			 "virtualization, and its per-line and per-instruction attribution is "
			 "unreliable (an emulator takes interrupts at translation-block boundaries); "
			 "compare functions, not lines", who, r->emulator);
	}
	/* Judged on threads that ran long enough to expect
	 * ANA_TRUST_MIN_EXPECTED samples: in a process of a few milliseconds
	 * (a shell pipeline's) one handler run preempted by the scheduler is
	 * most of its "handler time", and its start-up is not the handler's. */
	if (!isnan(r->handler_time) && !isnan(r->cpu_time) && r->cpu_time > 0 &&
	    t->judged_cpu_ns > 0 &&
	    t->judged_handler_ns > ANA_TRUST_HANDLER_SHARE * t->judged_cpu_ns) {
		r->trust |= ANA_TRUST_COLLECTOR_TIME;
		note(s, nr, "%s: the collector's signal handler took %.1f%% of the threads' CPU "
			 "time (%.3f s of %.3f s): the program ran that much longer than unprofiled, "
			 "and its samples include that time", who,
		     100 * r->handler_time / r->cpu_time, r->handler_time, r->cpu_time);
	}
	if (!isnan(r->steal_share) && r->steal_share > ANA_TRUST_STEAL_SHARE)
		r->trust |= ANA_TRUST_STEAL;
}

void trust_run(struct ana_set *s, struct orun *o, const char *who, int nr)
{
	trust_virt(s, o);
	trust_times(o);
	trust_samples(s, o, who, nr);
	trust_env(s, o, who, nr);
}
