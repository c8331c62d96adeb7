/* From what the user asked to what will be used: pick the backend, try each
 * event for real, and follow the documented fallback chain
 *     EVENT -> EVENT:u where perf_event_paranoid refuses this user the kernel
 *     hardware event (perf_event) -> cpu-clock (perf_event) -> CPUTIME (cputimer)
 * saying why at each step.  Nothing changes silently: pmc_plan_why() is
 * meant for one stderr line, and callers record requested vs used. */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/internal.h"

/* The fallback chain, as data: an event that cannot be opened on `from`
 * is replaced by `to` (period converted by `convert`). */
enum convert { CONV_CYCLES_TO_NS, CONV_NS_TO_US, CONV_DEFAULT };
static const struct {
	bool from_hardware;		/* any hardware event ... */
	const char *from_unit;		/* ... or a software event in this unit */
	const char *to;
	const char *to_backend;
	enum convert convert;
} fallback_chain[] = {
	{ true, NULL, "cpu-clock", "perf_event", CONV_CYCLES_TO_NS },
	{ false, "ns", "CPUTIME", "cputimer", CONV_NS_TO_US },
	{ false, "events", "CPUTIME", "cputimer", CONV_DEFAULT },
};

static const char *backend_for(const struct pmc_event *ev)
{
	return ev->kind == PMC_KIND_PLUGIN ? ev->plugin : "perf_event";
}

/* Trial-open the events on be, as they will be used; 0 or the error. */
static int trial(struct pmc_backend *be, const struct pmc_event *evs, size_t n, unsigned flags)
{
	PMC_GROUP_OPTS(opts, .sample = (flags & PMC_PLAN_SAMPLING) != 0);
	struct pmc_group *g;
	const struct pmc_probe *p = pmc_backend_probe(be);
	int ret;

	if (!p->usable)
		return -PMC_EDISABLED;
	ret = pmc_group_open(be, evs, n, &opts, &g);
	if (ret == 0)
		pmc_group_close(g);
	return ret;
}

static void set_period(struct pmc_event *ev, unsigned flags)
{
	if ((flags & PMC_PLAN_SAMPLING) && !ev->period && !ev->freq)
		ev->period = pmc_event_default_period(ev);
}

/* Why an event failed, for the user. */
static void failure_reason(int err, const struct pmc_backend *be, const struct pmc_env *env,
			   char *buf, size_t len)
{
	char advice[256];
	const char *a;

	if (err == -PMC_EDISABLED) {
		pmc_fmt(buf, len, "%s", ((struct pmc_backend *)be)->probe.reason);
		return;
	}
	a = pmc_advice(err, env, advice, sizeof(advice));
	pmc_fmt(buf, len, "%s", a ? a : pmc_strerror(err));
}

/* Replace ev by the next link of the chain; false at the end.  Only a
 * period the user gave (explicit) is converted: a defaulted one becomes the
 * next event's own default, so that default runs use the same round period
 * (1 ms of cpu-clock) on every machine instead of a clock-dependent one. */
static bool fall_back(struct pmc_event *ev, const struct pmc_env *env, unsigned flags,
		      bool explicit)
{
	for (size_t i = 0; i < sizeof(fallback_chain) / sizeof(fallback_chain[0]); i++) {
		const typeof(fallback_chain[0]) *f = &fallback_chain[i];
		struct pmc_event next;
		char msg[256];

		if (ev->kind != PMC_KIND_PERF)
			continue;
		if (f->from_hardware ? !ev->hardware
				     : (ev->hardware || strcmp(ev->unit, f->from_unit) != 0))
			continue;
		/* ':u' and ':k' must survive a fallback: a perf_event link
		 * keeps them, and the cputimer backend, which cannot tell
		 * user from kernel time, is no fallback for them. */
		char to[PMC_NAME_MAX];
		const char *mods = ev->exclude_kernel ? ":u" : ev->exclude_user ? ":k" : "";
		if (mods[0] && strcmp(f->to_backend, "perf_event") != 0)
			return false;
		pmc_fmt(to, sizeof(to), "%s%s", f->to, mods);
		if (pmc_event_parse(to, &next, msg, sizeof(msg)) < 0)
			return false;
		if (ev->freq) {
			next.freq = ev->freq;
		} else if (ev->period && explicit) {
			switch (f->convert) {
			case CONV_CYCLES_TO_NS:
				/* Keep the sampling rate: P cycles at the nominal clock. */
				if (ev->type == PERF_TYPE_HARDWARE &&
				    ev->config == PERF_COUNT_HW_CPU_CYCLES && env->cpu_mhz > 0)
					next.period = (uint64_t)(ev->period * 1000.0 / env->cpu_mhz);
				break;
			case CONV_NS_TO_US:
				next.period = ev->period / 1000;
				break;
			case CONV_DEFAULT:
				break;
			}
		}
		set_period(&next, flags);
		if (!(flags & PMC_PLAN_SAMPLING))
			next.period = 0;
		pmc_fmt(next.spec, sizeof(next.spec), "%s", to);
		*ev = next;
		return true;
	}
	return false;
}

/* Whether err is perf_event_paranoid refusing this user the kernel: at 2
 * an unprivileged perf_event_open() that counts kernel mode gets EACCES
 * (at 3 and above perf_event is closed to it, and the probe says so). */
static bool kernel_refused(int err, const struct pmc_env *env)
{
	return (err == -EACCES || err == -EPERM) && env->paranoid == 2;
}

/* The chain's first link, what perf does for a user who may not sample the
 * kernel: every perf_event event that asked for neither ':u' nor ':k'
 * becomes EVENT:u (exclude_kernel), period kept; an explicit ':k' stays and
 * is refused later.  The events changed are listed in changed ("cpu-clock
 * -> cpu-clock:u").  Returns how many changed. */
static size_t exclude_kernel(struct pmc_plan *plan, char *changed, size_t len)
{
	size_t n = 0, off = 0;

	changed[0] = '\0';
	for (size_t i = 0; i < plan->n; i++) {
		struct pmc_event *ev = &plan->ev[i], next;
		char name[PMC_NAME_MAX + 2], msg[256];
		const char *at = strchr(ev->spec, '@');
		int w = at ? (int)(at - ev->spec) : (int)strlen(ev->spec);

		if (ev->kind != PMC_KIND_PERF || ev->exclude_kernel || ev->exclude_user)
			continue;
		if (snprintf(name, sizeof(name), "%s:u", ev->name) >= PMC_NAME_MAX ||
		    pmc_event_parse(name, &next, msg, sizeof(msg)) < 0 || !next.exclude_kernel ||
		    next.exclude_user)
			continue;
		next.period = ev->period;
		next.freq = ev->freq;
		/* The element as written, with the ':u' it now has. */
		if (snprintf(next.spec, sizeof(next.spec), "%.*s:u%s", w, ev->spec, at ? at : "") >=
		    (int)sizeof(next.spec))
			pmc_fmt(next.spec, sizeof(next.spec), "%s", next.name);
		pmc_fmt(changed + off, len - off, "%s%.*s -> %.*s:u", n ? ", " : "", w, ev->spec, w,
			ev->spec);
		off = strlen(changed);
		*ev = next;
		n++;
	}
	return n;
}

static void describe(struct pmc_plan *plan)
{
	char list[384] = "";
	size_t off = 0;

	for (size_t i = 0; i < plan->n; i++) {
		const struct pmc_event *ev = &plan->ev[i];
		char one[200];

		if (ev->freq)
			pmc_fmt(one, sizeof(one), "%s@f%llu", ev->name, (unsigned long long)ev->freq);
		else if (ev->period)
			pmc_fmt(one, sizeof(one), "%s@%llu", ev->name,
				(unsigned long long)ev->period);
		else
			pmc_fmt(one, sizeof(one), "%s", ev->name);
		pmc_fmt(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", one);
		off = strlen(list);
	}
	size_t w = strlen(plan->why);
	pmc_fmt(plan->why + w, sizeof(plan->why) - w, "%susing %s on the %s backend",
		w ? "; " : "", list, pmc_backend_name(plan->be));
}

/* Drop duplicates created by fallback (cycles and instructions both -> cpu-clock);
 * period_given[] follows its event. */
static void dedupe(struct pmc_plan *plan)
{
	size_t k = 0;

	for (size_t i = 0; i < plan->n; i++) {
		bool dup = false;
		for (size_t j = 0; j < k; j++)
			dup |= strcmp(plan->ev[j].name, plan->ev[i].name) == 0;
		if (!dup) {
			plan->period_given[k] = plan->period_given[i];
			plan->ev[k++] = plan->ev[i];
		}
	}
	plan->n = k;
}

/* Parse the request (the machine's default when n is 0) into plan->req
 * and plan->ev, with the periods sampling needs. */
static int plan_parse(struct pmc_plan *plan, const char *const *specs, size_t n, unsigned flags,
		      struct pmc_diag *diag, char *err_msg, size_t len)
{
	static const char *const defaults[] = { "cycles" };
	int ret;

	if (n == 0) {
		specs = defaults;
		n = 1;
		plan->defaulted = true;
	}
	ret = pmc_event_parse_list(specs, n, plan->req, diag);
	if (ret < 0) {
		pmc_fmt(err_msg, len, "bad event list");
		return ret;
	}
	plan->n = plan->n_req = n;
	memcpy(plan->ev, plan->req, n * sizeof(plan->ev[0]));
	for (size_t i = 0; i < n; i++) {
		plan->period_given[i] = plan->ev[i].period || plan->ev[i].freq;
		set_period(&plan->ev[i], flags);
	}
	return 0;
}

/* One group, one backend: the one named, else the first event's, which
 * every event must share and the backend must accept. */
static int plan_load(struct pmc_plan *plan, const char *backend, char *err_msg, size_t len)
{
	const char *want = backend ? backend : backend_for(&plan->ev[0]);
	int ret;

	for (size_t i = 1; !backend && i < plan->n; i++) {
		if (strcmp(backend_for(&plan->ev[i]), want) != 0) {
			pmc_fmt(err_msg, len,
				"events from different backends cannot be sampled together: "
				"'%s' (%s) and '%s' (%s)",
				plan->ev[0].spec, want, plan->ev[i].spec,
				backend_for(&plan->ev[i]));
			return -PMC_EBACKEND;
		}
	}
	ret = pmc_backend_load(want, &plan->be, err_msg, len);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < plan->n; i++) {
		if (!pmc_backend_accepts(plan->be, &plan->ev[i])) {
			pmc_fmt(err_msg, len, "the %s backend cannot count '%s'", want,
				plan->ev[i].spec);
			return -PMC_EBACKEND;
		}
	}
	return 0;
}

/* User space only where the kernel is refused: as perf does, and said.
 * Kept when the ':u' events fail for another reason (cycles:u without a
 * PMU goes on to cpu-clock:u); dropped if paranoid refuses them too.
 * Returns the new trial's result, or failed when nothing changed. */
static int plan_user_only(struct pmc_plan *plan, const struct pmc_env *env, unsigned flags,
			  int failed)
{
	struct pmc_event before[PMC_MAX_EVENTS];
	char changed[256];
	int ret;

	memcpy(before, plan->ev, sizeof(before));
	if (exclude_kernel(plan, changed, sizeof(changed)) == 0)
		return failed;
	ret = trial(plan->be, plan->ev, plan->n, flags);
	if (ret == -EACCES || ret == -EPERM) {
		memcpy(plan->ev, before, sizeof(before));
		return failed;
	}
	plan->fell_back = true;
	pmc_fmt(plan->why, sizeof(plan->why),
		"kernel excluded: perf_event_paranoid=%d lets this user "
		"measure user space only (%s; root, CAP_PERFMON or "
		"perf_event_paranoid <= 1 would include the kernel)",
		env->paranoid, changed);
	return ret;
}

/* One step down the chain after the trial failed with `failed`: the
 * events that do not open alone (all of them after the first step) take
 * their next link, and the plan moves to that link's backend.  Returns 0
 * (try again), 1 at the end of the chain, or a load error. */
static int chain_step(struct pmc_plan *plan, const struct pmc_env *env, unsigned flags, int step,
		      int failed, char *err_msg, size_t len)
{
	char reason[400], from[PMC_NAME_MAX];
	const char *next_backend = NULL;

	failure_reason(failed, plan->be, env, reason, sizeof(reason));
	pmc_fmt(from, sizeof(from), "%s", plan->n == 1 ? plan->ev[0].spec : "the events");
	for (size_t i = 0; i < plan->n; i++) {
		struct pmc_event *ev = &plan->ev[i];
		bool alone_ok = trial(plan->be, ev, 1, flags) == 0;
		/* After perf_event failed as a whole, everything moves on. */
		if (alone_ok && step == 0)
			continue;
		if (fall_back(ev, env, flags, plan->period_given[i]) && !next_backend)
			next_backend = backend_for(ev);
	}
	if (!next_backend)
		return 1;
	dedupe(plan);
	size_t w = strlen(plan->why);
	pmc_fmt(plan->why + w, sizeof(plan->why) - w, "%s%s: %s", w ? "; " : "",
		plan->defaulted && step == 0 ? "no hardware cycles event (the default)" : from,
		reason);
	for (size_t i = 0; i < plan->n; i++) {
		if (strcmp(backend_for(&plan->ev[i]), next_backend) != 0 &&
		    !fall_back(&plan->ev[i], env, flags, plan->period_given[i]))
			break;
	}
	dedupe(plan);
	plan->fell_back = true;
	if (strcmp(pmc_backend_name(plan->be), next_backend) == 0)
		return 0;
	pmc_backend_unload(plan->be);
	plan->be = NULL;
	return pmc_backend_load(next_backend, &plan->be, err_msg, len);
}

/* The end of the chain and still nothing opens: say why, and what ':k'
 * or ':u' has to do with it.  Returns failed. */
static int plan_failed(const struct pmc_plan *plan, const struct pmc_env *env, int failed,
		       char *err_msg, size_t len)
{
	char reason[400];
	bool k = false, u = false;

	for (size_t i = 0; i < plan->n; i++) {
		k |= plan->ev[i].exclude_user;
		u |= plan->ev[i].exclude_kernel;
	}
	if (k && kernel_refused(failed, env)) {
		pmc_fmt(err_msg, len,
			"cannot measure the kernel: ':k' samples only the kernel, which "
			"perf_event_paranoid=%d refuses to this user (root, CAP_PERFMON or "
			"'sysctl kernel.perf_event_paranoid=1' allow it); without ':k' user "
			"space is measured", env->paranoid);
		return failed;
	}
	failure_reason(failed, plan->be, env, reason, sizeof(reason));
	pmc_fmt(err_msg, len, "no usable sample source: %s%s", reason,
		k ? " (':k' samples only the kernel, which needs root, CAP_PERFMON or "
		    "perf_event_paranoid <= 1; the cputimer fallback cannot tell kernel "
		    "from user time)"
		: u ? " (':u' needs perf_event: the cputimer fallback cannot tell kernel "
		      "from user time)"
		    : "");
	return failed;
}

static int plan_make(struct pmc_plan *plan, const char *const *specs, size_t n,
		     const char *backend, unsigned flags, struct pmc_diag *diag, char *err_msg,
		     size_t len)
{
	struct pmc_env env;
	int ret = plan_parse(plan, specs, n, flags, diag, err_msg, len);

	if (ret == 0)
		ret = plan_load(plan, backend, err_msg, len);
	if (ret < 0)
		return ret;
	pmc_env_probe(&env);
	ret = trial(plan->be, plan->ev, plan->n, flags);
	if (ret == 0) {
		if (plan->defaulted)
			pmc_fmt(plan->why, sizeof(plan->why), "default event: a hardware PMU works here");
		describe(plan);
		return 0;
	}
	if ((flags & PMC_PLAN_NO_FALLBACK) || backend) {
		char reason[400];
		failure_reason(ret, plan->be, &env, reason, sizeof(reason));
		pmc_fmt(err_msg, len, "cannot use %s on the %s backend: %s",
			plan->n == 1 ? plan->ev[0].spec : "these events",
			pmc_backend_name(plan->be), reason);
		return ret;
	}
	if (kernel_refused(ret, &env))
		ret = plan_user_only(plan, &env, flags, ret);
	/* Walk the chain until the whole list opens. */
	for (int step = 0; step < 3 && ret < 0; step++) {
		int moved = chain_step(plan, &env, flags, step, ret, err_msg, len);
		if (moved < 0)
			return moved;
		if (moved > 0)
			break;
		ret = trial(plan->be, plan->ev, plan->n, flags);
	}
	if (ret < 0)
		return plan_failed(plan, &env, ret, err_msg, len);
	describe(plan);
	return 0;
}

int pmc_plan_new(const char *const *specs, size_t n, const char *backend, unsigned flags,
		 struct pmc_plan **out, struct pmc_diag *diag, char *err_msg, size_t len)
{
	struct pmc_plan *plan;
	int ret;

	*out = NULL;
	if (diag)
		diag->n = 0;
	if (err_msg && len)
		err_msg[0] = '\0';
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	ret = plan_make(plan, specs, n, backend, flags, diag, err_msg, len);
	if (ret < 0) {
		pmc_plan_free(plan);
		return ret;
	}
	*out = plan;
	return 0;
}

void pmc_plan_free(struct pmc_plan *plan)
{
	if (!plan)
		return;
	pmc_backend_unload(plan->be);
	free(plan);
}

struct pmc_backend *pmc_plan_backend(const struct pmc_plan *plan)
{
	return plan ? plan->be : NULL;
}

size_t pmc_plan_nevents(const struct pmc_plan *plan)
{
	return plan ? plan->n : 0;
}

const struct pmc_event *pmc_plan_events(const struct pmc_plan *plan)
{
	return plan ? plan->ev : NULL;
}

const struct pmc_event *pmc_plan_requested(const struct pmc_plan *plan, size_t *n)
{
	*n = plan ? plan->n_req : 0;
	return plan ? plan->req : NULL;
}

bool pmc_plan_fell_back(const struct pmc_plan *plan)
{
	return plan && plan->fell_back;
}

const char *pmc_plan_why(const struct pmc_plan *plan)
{
	return plan ? plan->why : "";
}
