/* The plugin loader and the fallback plan, on this machine's real plugins. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/pmc.h"
#include "tests/harness.h"
#include "tests/unit/plugin_test.h"

static void test_refusals(void)
{
	struct pmc_backend *be;
	char err[512];
	int ret;

	ret = pmc_backend_load("badabi", &be, err, sizeof(err));
	T_OK(ret == -PMC_EABI && strstr(err, "ABI 2") && strstr(err, "rebuild"),
	     "a plugin built for another ABI is refused, never called: %s", err);
	/* A descriptor of the first ABI 1 size (before kernel_chain): loaded,
	 * and the op past its size is never called. */
	err[0] = 0;
	ret = pmc_backend_load("oldsize", &be, err, sizeof(err));
	T_OK(ret == 0, "a plugin of an older descriptor size is accepted (%d: %s)", ret, err);
	if (ret == 0) {
		struct pmc_event ev = { .kind = PMC_KIND_PERF, .hardware = true };
		struct pmc_group *g = NULL;
		uint64_t pcs[4];
		unsigned fl = 1;
		int r = pmc_group_open(be, &ev, 1, NULL, &g);
		int k = r == 0 ? pmc_group_kernel_chain(g, 0, pcs, 4, &fl) : r;
		T_OK(r == 0 && k == -PMC_ENOTSUP && fl == 0,
		     "its kernel_chain, past its size, is taken as NULL (open %d, chain %d)", r, k);
		pmc_group_close(g);
		pmc_backend_unload(be);
	}
	ret = pmc_backend_load("nosuchplugin", &be, err, sizeof(err));
	T_OK(ret == -PMC_EPLUGIN && strstr(err, "pmc-nosuchplugin.so not found"),
	     "a missing plugin is reported: %s", err);
	ret = pmc_backend_load("../../etc/x", &be, err, sizeof(err));
	T_OK(ret == -PMC_EPLUGIN && strstr(err, "invalid backend name"),
	     "a plugin name cannot be a path: %s", err);
}

static bool have(const char *name)
{
	struct pmc_backend *be;
	char err[512];

	if (pmc_backend_load(name, &be, err, sizeof(err)) < 0)
		return false;
	pmc_backend_unload(be);
	return true;
}

static void test_probes(const struct pmc_env *env)
{
	struct pmc_backend *be;
	char err[512];

	if (pmc_backend_load("perf_event", &be, err, sizeof(err)) == 0) {
		const struct pmc_probe *p = pmc_backend_probe(be);
		T_OK(p->usable == env->perf_event_syscall, "perf_event usable iff perf_event_open works");
		T_OK(p->hardware == env->hw_events, "perf_event hardware iff a cycles event opens");
		if (!env->hw_events && env->hv_present && strcmp(env->hv_name, "KVM") == 0)
			T_OK(strstr(p->reason, "KVM") != NULL,
			     "perf_event says why hardware events are missing: %s", p->reason);
		pmc_backend_unload(be);
	} else {
		T_SKIP("perf_event plugin not built: %s", err);
	}
	if (pmc_backend_load("cputimer", &be, err, sizeof(err)) == 0) {
		T_OK(pmc_backend_probe(be)->usable, "cputimer is usable everywhere");
		struct pmc_event ev;
		char msg[256];
		pmc_event_parse("CPUTIME", &ev, msg, sizeof(msg));
		T_OK(pmc_backend_accepts(be, &ev), "cputimer takes CPUTIME (core and plugin tables agree)");
		pmc_event_parse("REALTIME", &ev, msg, sizeof(msg));
		T_OK(pmc_backend_accepts(be, &ev), "cputimer takes REALTIME");
		pmc_event_parse("cycles", &ev, msg, sizeof(msg));
		T_OK(!pmc_backend_accepts(be, &ev), "cputimer refuses perf_event events");
		pmc_backend_unload(be);
	} else {
		T_SKIP("cputimer plugin not built: %s", err);
	}
}

static void test_plans(const struct pmc_env *env)
{
	struct pmc_plan *plan;
	const struct pmc_event *ev;
	size_t n_req;
	struct pmc_diag diag;
	char err[512];
	int ret;

	if (!have("perf_event") || !have("cputimer")) {
		T_SKIP("plans need the perf_event and cputimer plugins");
		return;
	}
	ret = pmc_plan_new(NULL, 0, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err));
	T_OK(ret == 0, "a default plan exists: %s", ret ? err : pmc_plan_why(plan));
	ev = pmc_plan_events(plan);
	if (ret == 0) {
		if (env->hw_events)
			T_OK(strcmp(ev[0].name, "perf::CYCLES") == 0 &&
				     !pmc_plan_fell_back(plan),
			     "default is hardware cycles where a PMU works");
		else
			T_OK(pmc_plan_fell_back(plan) && strcmp(ev[0].name, "perf::CPU-CLOCK") == 0 &&
				     strstr(pmc_plan_why(plan), "no hardware") &&
				     ev[0].period == 1000000,
			     "no PMU: default falls back to cpu-clock@1000000 (1 ms on every "
			     "machine, not the clock-converted cycles default) and says why: %s",
			     pmc_plan_why(plan));
		pmc_plan_free(plan);
	}

	const char *cyc[] = { "cycles@2500000" };
	ret = pmc_plan_new(cyc, 1, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err));
	ev = pmc_plan_events(plan);
	if (!env->hw_events && ret == 0) {
		uint64_t want = env->cpu_mhz > 0 ? (uint64_t)(2500000 * 1000.0 / env->cpu_mhz) : 1000000;
		T_OK(strcmp(ev[0].name, "perf::CPU-CLOCK") == 0 && ev[0].period == want &&
			     strcmp(pmc_plan_requested(plan, &n_req)[0].name, "perf::CYCLES") == 0,
		     "cycles@2500000 -> cpu-clock@%llu ns at the nominal clock (got %llu)",
		     (unsigned long long)want, (unsigned long long)ev[0].period);
		pmc_plan_free(plan);
		ret = pmc_plan_new(cyc, 1, NULL, PMC_PLAN_SAMPLING | PMC_PLAN_NO_FALLBACK, &plan,
				   &diag, err, sizeof(err));
		T_OK(ret < 0 && strstr(err, "cannot use cycles@2500000"),
		     "--no-fallback turns the fallback into an error: %s", err);
	} else if (ret == 0) {
		pmc_plan_free(plan);
	}

	const char *two[] = { "cycles", "instructions" };
	ret = pmc_plan_new(two, 2, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err));
	ev = pmc_plan_events(plan);
	if (!env->hw_events)
		T_OK(ret == 0 && pmc_plan_nevents(plan) == 1 &&
			     strcmp(ev[0].name, "perf::CPU-CLOCK") == 0,
		     "two hardware events fall back to one cpu-clock: %s",
		     ret ? err : pmc_plan_why(plan));
	if (ret == 0)
		pmc_plan_free(plan);

	const char *ct[] = { "CPUTIME@2000" };
	ret = pmc_plan_new(ct, 1, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err));
	ev = pmc_plan_events(plan);
	T_OK(ret == 0 && strcmp(pmc_backend_name(pmc_plan_backend(plan)), "cputimer") == 0 &&
		     !pmc_plan_fell_back(plan) && ev[0].period == 2000,
	     "CPUTIME@2000 plans on cputimer");
	if (ret == 0)
		pmc_plan_free(plan);

	const char *mixed[] = { "CPUTIME", "cpu-clock" };
	ret = pmc_plan_new(mixed, 2, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err));
	T_OK(ret == -PMC_EBACKEND && strstr(err, "different backends"),
	     "events of two backends are refused: %s", err);

	const char *bad[] = { "cpu-clock", "cyclez@0" };
	ret = pmc_plan_new(bad, 2, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err));
	T_OK(ret < 0 && diag.n == 1 && diag.item[0].index == 1,
	     "a bad element is reported before anything opens");

	T_OK(pmc_plan_nevents(NULL) == 0 && !pmc_plan_backend(NULL) && !pmc_plan_events(NULL) &&
		     !pmc_plan_requested(NULL, &n_req) && n_req == 0 && !pmc_plan_fell_back(NULL) &&
		     strcmp(pmc_plan_why(NULL), "") == 0,
	     "the accessors take NULL as the empty plan");
	pmc_plan_free(NULL);

	const char *sw[] = { "task-clock" };
	ret = pmc_plan_new(sw, 1, "cputimer", 0, &plan, &diag, err, sizeof(err));
	T_OK(ret == -PMC_EBACKEND && strstr(err, "cputimer backend cannot count"),
	     "-b cputimer with a perf_event event is refused: %s", err);
}

/* pmc_group_stats for a caller built against a shorter struct: that much
 * is filled, not a byte more. */
static void test_stats_sized(void)
{
	struct pmc_backend *be;
	struct pmc_group *g;
	struct pmc_event ev;
	struct {
		struct pmc_sample_stats st;
		unsigned char after[16];
	} w;
	PMC_GROUP_OPTS(opts, .sample = true);
	size_t shorter = offsetof(struct pmc_sample_stats, fd_lost);
	char err[512];

	if (pmc_backend_load("cputimer", &be, err, sizeof(err)) < 0 ||
	    pmc_event_parse("CPUTIME@1000", &ev, err, sizeof(err)) < 0 ||
	    pmc_group_open(be, &ev, 1, &opts, &g) < 0) {
		T_OK(0, "stats: a cputimer group opens: %s", err);
		return;
	}
	memset(&w, 0x5a, sizeof(w));
	T_OK(pmc_group_stats_sz(g, &w.st, shorter) == 0 && w.st.overflows == 0 &&
		     w.st.lost == 0 && w.st.fd_lost == 0x5a5a5a5a5a5a5a5aULL && w.after[0] == 0x5a,
	     "pmc_group_stats_sz fills the caller's %zu bytes, none beyond", shorter);
	memset(&w, 0x5a, sizeof(w));
	T_OK(pmc_group_stats(g, &w.st) == 0 && w.st.fd_lost == 0 && w.after[0] == 0x5a,
	     "pmc_group_stats fills the whole struct, none beyond");
	pmc_group_close(g);
	pmc_backend_unload(be);
}

int main(void)
{
	struct pmc_env env;

	/* The deliberately broken plugin lives beside this test. */
	plugin_path_tests_first();
	pmc_env_probe(&env);
	test_refusals();
	test_probes(&env);
	test_plans(&env);
	test_stats_sized();
	return T_DONE();
}
