/* Calibration classifies counters: real software clocks are valid here,
 * missing hardware is unsupported, a lying plugin is zero or implausible. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend/pmc.h"
#include "tests/harness.h"
#include "tests/unit/plugin_test.h"

static void classify(const char *backend, const char *event, enum pmc_trust want,
		     const char *what)
{
	struct pmc_backend *be;
	struct pmc_event ev;
	struct pmc_calibration cal;
	char err[512];

	/* every plugin named here is built with the tests: one that does not
	 * load is a failure, not a reason to skip */
	if (pmc_backend_load(backend, &be, err, sizeof(err)) < 0) {
		T_OK(0, "%s: the %s plugin loads: %s", what, backend, err);
		return;
	}
	if (pmc_event_parse(event, &ev, err, sizeof(err)) < 0) {
		T_OK(0, "%s: %s", what, err);
		pmc_backend_unload(be);
		return;
	}
	int ret = pmc_calibrate(be, &ev, &cal);
	T_OK(ret == 0 && cal.trust == want, "%s: %s on %s is %s (%s)", what, event, backend,
	     pmc_trust_name(cal.trust), cal.why);
	pmc_backend_unload(be);
}

/* A caller built against a shorter struct passes its size: the verdict
 * fills that much and not a byte more. */
static void sized(void)
{
	struct pmc_backend *be;
	struct pmc_event ev;
	struct {
		struct pmc_calibration cal;
		unsigned char after[16];
	} w;
	size_t shorter = offsetof(struct pmc_calibration, why);
	char err[512];
	int ret;

	if (pmc_backend_load("cputimer", &be, err, sizeof(err)) < 0 ||
	    pmc_event_parse("CPUTIME", &ev, err, sizeof(err)) < 0) {
		T_OK(0, "sized: cputimer and CPUTIME: %s", err);
		return;
	}
	memset(&w, 0x5a, sizeof(w));
	ret = pmc_calibrate_sz(be, &ev, &w.cal, shorter);
	T_OK(ret == 0 && w.cal.trust == PMC_TRUST_VALID && w.cal.measured > 0 &&
		     (unsigned char)w.cal.why[0] == 0x5a && w.after[0] == 0x5a,
	     "pmc_calibrate_sz fills the caller's %zu bytes (trust %s, %llu), none beyond",
	     shorter, pmc_trust_name(w.cal.trust), (unsigned long long)w.cal.measured);
	memset(&w, 0x5a, sizeof(w));
	ret = pmc_calibrate(be, &ev, &w.cal);
	T_OK(ret == 0 && w.cal.why[0] != 0x5a && w.after[0] == 0x5a,
	     "pmc_calibrate fills the whole struct, none beyond: %s", w.cal.why);
	pmc_backend_unload(be);
}

int main(void)
{
	struct pmc_env env;

	plugin_path_tests_first();
	pmc_env_probe(&env);

	classify("perf_event", "task-clock", PMC_TRUST_VALID, "a real software clock");
	classify("perf_event", "cpu-clock", PMC_TRUST_VALID, "a real software clock");
	classify("cputimer", "CPUTIME", PMC_TRUST_VALID, "POSIX thread CPU time");
	if (!env.hw_events) {
		classify("perf_event", "cycles", PMC_TRUST_UNSUPPORTED, "no PMU here");
		classify("perf_event", "instructions", PMC_TRUST_UNSUPPORTED, "no PMU here");
	} else {
		classify("perf_event", "instructions", PMC_TRUST_VALID, "a real PMU");
#if defined(__aarch64__)
		/* QEMU's emulated Arm PMU counts instructions and cycles only:
		 * there, branches is rightly unsupported (the arm64 guest). */
		classify("perf_event", "cycles", PMC_TRUST_VALID, "a real PMU");
#else
		classify("perf_event", "branches", PMC_TRUST_VALID, "a real PMU");
#endif
	}
	setenv("PMC_FAKE_MODE", "zero", 1);
	classify("fakecounter", "instructions", PMC_TRUST_ZERO, "a PMU counting zeros");
	classify("fakecounter", "cycles", PMC_TRUST_ZERO, "a PMU counting zeros");
	setenv("PMC_FAKE_MODE", "garbage", 1);
	classify("fakecounter", "instructions", PMC_TRUST_IMPLAUSIBLE, "a PMU counting garbage");
	classify("fakecounter", "branches", PMC_TRUST_IMPLAUSIBLE, "a PMU counting garbage");
	classify("fakecounter", "cache-misses", PMC_TRUST_UNVERIFIED,
		 "an event with no known expectation");
	T_OK(strcmp(pmc_trust_name(PMC_TRUST_IMPLAUSIBLE), "implausible") == 0, "trust names");
	unsetenv("PMC_FAKE_MODE");
	sized();
	return T_DONE();
}
