/* pmc-cputimer.so: POSIX clocks and timers, for machines where perf_event
 * is unavailable or has no PMU.  Counts are in the event's unit (us);
 * i-mode uses one periodic timer per event, signalling the opening thread
 * (SIGEV_THREAD_ID) and tagged with sival_ptr so overflow() knows it. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/pmc_plugin.h"

/* glibc 2.36 names the field only in its private union. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

enum { CT_CPUTIME = 1, CT_REALTIME = 2 };	/* pmc_plugin_event.config */

static const struct pmc_plugin_event events[] = {
	{ .name = "CPUTIME", .desc = "CPU time of the thread (of the process for pid > 0)",
	  .unit = "us", .config = CT_CPUTIME, .default_period = 1000 },
	{ .name = "REALTIME", .desc = "wall-clock time (CLOCK_MONOTONIC)",
	  .unit = "us", .config = CT_REALTIME, .default_period = 1000 },
};

struct ct_ev {
	clockid_t clock;
	bool sampled;
	uint64_t period_us;
	bool has_timer;
	timer_t timer;
	uint64_t acc_ns, t0_ns;		/* counted while stopped, clock at start */
	uint64_t ena_ns, ena_t0_ns;	/* CLOCK_MONOTONIC: time enabled */
};

struct ct_ctx {
	size_t n;
	pid_t tid;			/* thread that opened (pid 0) */
	volatile bool started;
	struct pmc_sample_stats st;
	struct ct_ev ev[PMC_MAX_EVENTS];
};

/* The core names plugin events (type/config stay 0): resolve by name. */
static const struct pmc_plugin_event *event_find(const char *name)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(events[i].name, name) == 0)
			return &events[i];
	return NULL;
}

static int clock_ns(clockid_t id, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return -errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

static struct itimerspec interval_us(uint64_t us)
{
	struct itimerspec its;

	its.it_interval.tv_sec = (time_t)(us / 1000000);
	its.it_interval.tv_nsec = (long)(us % 1000000) * 1000;
	its.it_value = its.it_interval;
	return its;
}

static int probe(const struct pmc_env *env, struct pmc_probe *out)
{
	struct sigevent sev;
	timer_t t;

	(void)env;
	memset(out, 0, sizeof(*out));
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_NONE;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) < 0) {
		snprintf(out->reason, sizeof(out->reason), "timer_create failed with %s",
			 strerrorname_np(errno) ? strerrorname_np(errno) : "an unknown error");
		return 0;
	}
	timer_delete(t);
	out->usable = true;
	out->sampling = true;
	snprintf(out->reason, sizeof(out->reason), "software clocks only: no hardware events");
	snprintf(out->detail, sizeof(out->detail),
		 "CPU-time timers fire at the scheduler tick: periods shorter than a tick arrive "
		 "as one signal whose si_overrun says how many periods it stands for");
	return 0;
}

static int ct_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
		   void **ctx)
{
	struct ct_ctx *c;

	if (n == 0 || !evs || !opts || !ctx)
		return -EINVAL;
	if (n > PMC_MAX_EVENTS)
		return -PMC_ETOOMANY;
	/* POSIX clocks cannot follow children or wait for an exec. */
	if (opts->inherit || opts->enable_on_exec)
		return -PMC_ENOTSUP;
	/* A timer can signal only a thread of this process. */
	if (opts->sample && opts->pid != 0)
		return -PMC_ENOTSUP;
	if (opts->pid < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (evs[i].kind != PMC_KIND_PLUGIN ||
		    (evs[i].plugin[0] && strcmp(evs[i].plugin, "cputimer") != 0))
			return -PMC_EBACKEND;
		if (!event_find(evs[i].name))
			return -PMC_EEVENT;
		if (evs[i].freq)
			return -PMC_EPERIOD;	/* timers take periods only */
	}

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->n = n;
	c->tid = gettid();
	for (size_t i = 0; i < n; i++) {
		struct ct_ev *e = &c->ev[i];
		int rc = 0;

		if (event_find(evs[i].name)->config == CT_REALTIME)
			e->clock = CLOCK_MONOTONIC;
		else if (opts->pid)
			rc = clock_getcpuclockid(opts->pid, &e->clock);
		else	/* this thread's clock, readable from any thread */
			rc = pthread_getcpuclockid(pthread_self(), &e->clock);
		if (rc) {
			free(c);
			return -rc;
		}
		e->sampled = opts->sample && evs[i].period;
		e->period_us = evs[i].period;
	}
	*ctx = c;
	return 0;
}

static int ct_arm(void *ctx, int signo)
{
	struct ct_ctx *c = ctx;

	if (signo <= 0 || signo >= NSIG)
		return -EINVAL;
	if (gettid() != c->tid)
		return -EINVAL;	/* the thread that opened must arm */
	for (size_t i = 0; i < c->n; i++) {
		struct ct_ev *e = &c->ev[i];
		struct sigevent sev;

		if (!e->sampled || e->has_timer)
			continue;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_notify_thread_id = c->tid;
		sev.sigev_signo = signo;
		sev.sigev_value.sival_ptr = e;	/* overflow()'s tag */
		if (timer_create(e->clock, &sev, &e->timer) < 0)
			return -errno;
		e->has_timer = true;
	}
	return 0;
}

static int ct_start(void *ctx)
{
	struct ct_ctx *c = ctx;

	for (size_t i = 0; i < c->n; i++) {
		struct ct_ev *e = &c->ev[i];
		int rc = clock_ns(e->clock, &e->t0_ns);

		if (!rc)
			rc = clock_ns(CLOCK_MONOTONIC, &e->ena_t0_ns);
		if (rc)
			return rc;
	}
	c->started = true;
	for (size_t i = 0; i < c->n; i++) {
		struct ct_ev *e = &c->ev[i];
		struct itimerspec its = interval_us(e->period_us);

		if (e->has_timer && timer_settime(e->timer, 0, &its, NULL) < 0)
			return -errno;
	}
	return 0;
}

/* Since e's start: *ns on its clock, *ena on CLOCK_MONOTONIC (enabled).
 * Async-signal-safe. */
static int since_start(const struct ct_ev *e, uint64_t *ns, uint64_t *ena)
{
	uint64_t now = 0, mono = 0;
	int rc = clock_ns(e->clock, &now);

	if (!rc)
		rc = clock_ns(CLOCK_MONOTONIC, &mono);
	if (rc)
		return rc;
	*ns = now - e->t0_ns;
	*ena = mono - e->ena_t0_ns;
	return 0;
}

static int ct_stop(void *ctx)
{
	struct ct_ctx *c = ctx;
	struct itimerspec off;

	memset(&off, 0, sizeof(off));
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].has_timer && timer_settime(c->ev[i].timer, 0, &off, NULL) < 0)
			return -errno;
	if (!c->started)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		struct ct_ev *e = &c->ev[i];
		uint64_t ns, ena;
		int rc = since_start(e, &ns, &ena);

		if (rc)
			return rc;
		e->acc_ns += ns;
		e->ena_ns += ena;
	}
	c->started = false;
	return 0;
}

static int ct_read(void *ctx, struct pmc_count *vals, size_t n)
{
	struct ct_ctx *c = ctx;
	bool on = c->started;

	if (n > c->n)
		n = c->n;
	for (size_t i = 0; i < n; i++) {
		struct ct_ev *e = &c->ev[i];
		uint64_t ns = e->acc_ns, ena = e->ena_ns;

		if (on) {
			uint64_t run, up;
			int rc = since_start(e, &run, &up);

			if (rc)
				return rc;
			ns += run;
			ena += up;
		}
		vals[i].raw = vals[i].value = ns / 1000;
		vals[i].enabled = vals[i].running = ena;	/* never multiplexed */
		vals[i].scaled = false;
	}
	return 0;
}

static int ct_overflow(void *ctx, const siginfo_t *si)
{
	struct ct_ctx *c = ctx;

	if (si->si_code != SI_TIMER)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		if (si->si_value.sival_ptr != &c->ev[i])
			continue;
		if (!c->started) {
			c->st.spurious++;	/* queued before a stop */
			return -1;
		}
		c->st.overflows++;
		/* Expirations folded into this signal (si_overrun, what
		 * timer_getoverrun() would say) are not lost: the caller sees
		 * them in si and weights the sample by 1 + si_overrun. */
		return (int)i;
	}
	return -1;
}

static int ct_rearm(void *ctx, int idx, uint64_t period)
{
	struct ct_ctx *c = ctx;
	struct ct_ev *e;

	if (idx < 0 || (size_t)idx >= c->n)
		return -EINVAL;
	e = &c->ev[idx];
	if (!e->has_timer)
		return -EINVAL;
	/* Periodic timers re-arm themselves; only a new period needs work. */
	if (period == 0 || period == e->period_us)
		return 0;
	e->period_us = period;
	if (c->started) {
		struct itimerspec its = interval_us(period);

		if (timer_settime(e->timer, 0, &its, NULL) < 0)
			return -errno;
	}
	return 0;
}

static int ct_stats(void *ctx, struct pmc_sample_stats *st)
{
	*st = ((struct ct_ctx *)ctx)->st;
	return 0;
}

static int ct_close(void *ctx)
{
	struct ct_ctx *c = ctx;

	if (!c)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].has_timer)
			timer_delete(c->ev[i].timer);
	free(c);
	return 0;
}

PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
	PMC_PLUGIN_HEAD("cputimer",
			"POSIX CPU-time and monotonic clocks and timers (no PMU, no perf_event)",
			"1.0"),
	.flags = PMC_PLUGIN_NO_INHERIT,	/* POSIX timers are per thread or process */
	.events = events,
	.n_events = sizeof(events) / sizeof(events[0]),
	.ops = {
		.probe = probe,
		.open = ct_open,
		.start = ct_start,
		.stop = ct_stop,
		.read = ct_read,
		.arm = ct_arm,
		.overflow = ct_overflow,
		.rearm = ct_rearm,
		.stats = ct_stats,
		.close = ct_close,
	},
};
