/* Golden table of event-spec parses and their errors; each case names its line. */
#include "config.h"

#include <linux/perf_event.h>
#include <string.h>

#include "backend/pmc.h"
#include "tests/harness.h"

static const struct {
	int line;
	const char *spec;
	int err;		/* expected return */
	const char *name;	/* expected canonical name (ok cases) */
	uint64_t period, freq;
	int hardware;		/* -1: don't care */
	bool exclude_kernel;
	const char *msg;	/* substring of the message (error cases) */
} cases[] = {
	{ __LINE__, "cycles", 0, "perf::CYCLES", 0, 0, 1, false, NULL },
	{ __LINE__, "cycles@1000003", 0, "perf::CYCLES", 1000003, 0, 1, false, NULL },
	{ __LINE__, "cycles:u@100003", 0, "perf::CYCLES:u", 100003, 0, 1, true, NULL },
	{ __LINE__, "instructions:u", 0, "perf::INSTRUCTIONS:u", 0, 0, 1, true, NULL },
	{ __LINE__, "cpu-clock@f1000", 0, "perf::CPU-CLOCK", 0, 1000, 0, false, NULL },
	{ __LINE__, "task-clock", 0, "perf::TASK-CLOCK", 0, 0, 0, false, NULL },
	{ __LINE__, "page-faults@1", 0, "perf::PAGE-FAULTS", 1, 0, 0, false, NULL },
	{ __LINE__, "perf::CYCLES@2000003", 0, "perf::CYCLES", 2000003, 0, 1, false, NULL },
	{ __LINE__, "perf::TASK-CLOCK:u", 0, "perf::TASK-CLOCK:u", 0, 0, 0, true, NULL },
	{ __LINE__, "CPU-CLOCK", 0, "perf::CPU-CLOCK", 0, 0, 0, false, NULL },
	{ __LINE__, "CPUTIME@500", 0, "CPUTIME", 500, 0, 0, false, NULL },
	{ __LINE__, "cputime", 0, "CPUTIME", 0, 0, 0, false, NULL },
	{ __LINE__, "REALTIME@f100", 0, "REALTIME", 0, 100, 0, false, NULL },
	/* errors */
	{ __LINE__, "cyclez", -PMC_EEVENT, NULL, 0, 0, -1, false,
	  "unknown event 'cyclez' \xe2\x80\x94 did you mean 'cycles'?" },
	{ __LINE__, "cpu-clok@100", -PMC_EEVENT, NULL, 0, 0, -1, false, "did you mean 'cpu-clock'?" },
	{ __LINE__, "perf::CYCLEZ", -PMC_EEVENT, NULL, 0, 0, -1, false,
	  "did you mean 'perf::CYCLES'?" },
	{ __LINE__, "nosuchthingatall", -PMC_EEVENT, NULL, 0, 0, -1, false, "pmcprof list" },
	{ __LINE__, "cycles@0", -PMC_EPERIOD, NULL, 0, 0, -1, false,
	  "period must be a positive integer: '@0'" },
	{ __LINE__, "cycles@-5", -PMC_EPERIOD, NULL, 0, 0, -1, false, "'@-5'" },
	{ __LINE__, "cycles@abc", -PMC_EPERIOD, NULL, 0, 0, -1, false, "'@abc'" },
	{ __LINE__, "cycles@", -PMC_EPERIOD, NULL, 0, 0, -1, false, "positive integer" },
	{ __LINE__, "cycles@12x", -PMC_EPERIOD, NULL, 0, 0, -1, false, "'@12x'" },
	{ __LINE__, "cycles@f0", -PMC_EPERIOD, NULL, 0, 0, -1, false, "frequency" },
	{ __LINE__, "cycles@99999999999999999999", -PMC_EPERIOD, NULL, 0, 0, -1, false, "period" },
	{ __LINE__, "@100", -PMC_ESPEC, NULL, 0, 0, -1, false, "missing event name" },
	{ __LINE__, "", -PMC_ESPEC, NULL, 0, 0, -1, false, "empty" },
	{ __LINE__, "cyc les", -PMC_ESPEC, NULL, 0, 0, -1, false, "invalid character" },
	{ __LINE__, "::", -PMC_ESPEC, NULL, 0, 0, -1, false, "malformed" },
	{ __LINE__, "perf::", -PMC_ESPEC, NULL, 0, 0, -1, false, "malformed" },
	{ __LINE__, "CPUTIME:u", -PMC_EMODIFIER, NULL, 0, 0, -1, false, "takes no modifiers" },
	{ __LINE__, "cycles:zz", -PMC_EMODIFIER, NULL, 0, 0, -1, false, "bad modifier" },
};

static void test_golden(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmc_event ev;
		char msg[256];
		int ret = pmc_event_parse(cases[i].spec, &ev, msg, sizeof(msg));
		bool ok = ret == cases[i].err;

		if (ok && ret == 0) {
			ok = strcmp(ev.name, cases[i].name) == 0 && ev.period == cases[i].period &&
			     ev.freq == cases[i].freq &&
			     (cases[i].hardware < 0 || ev.hardware == (cases[i].hardware == 1)) &&
			     ev.exclude_kernel == cases[i].exclude_kernel &&
			     strcmp(ev.spec, cases[i].spec) == 0;
		} else if (ok) {
			ok = strstr(msg, cases[i].msg) != NULL;
		}
		T_OK(ok, "event spec '%s' (line %d): ret %d name '%s' period %llu msg '%s'",
		     cases[i].spec, cases[i].line, ret, ret == 0 ? ev.name : "",
		     (unsigned long long)ev.period, ret ? msg : "");
	}
}

static void test_long_spec(void)
{
	char spec[400];
	struct pmc_event ev;
	char msg[256];

	memset(spec, 'a', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	T_OK(pmc_event_parse(spec, &ev, msg, sizeof(msg)) == -PMC_ESPEC && strstr(msg, "too long"),
	     "a 399-character spec is refused: %s", msg);
}

static void test_list(void)
{
	const char *specs[] = { "cycles", "cyclez", "cpu-clock@0", "CPUTIME" };
	struct pmc_event evs[4];
	struct pmc_diag diag;
	int ret = pmc_event_parse_list(specs, 4, evs, &diag);

	T_OK(ret == -PMC_EEVENT, "list: first error returned (%d)", ret);
	T_OK(diag.n == 2 && diag.item[0].index == 1 && diag.item[1].index == 2 &&
		     diag.item[1].err == -PMC_EPERIOD,
	     "list: each bad element reported on its own (%d items)", diag.n);

	const char *many[PMC_MAX_EVENTS + 1];
	struct pmc_event evmany[PMC_MAX_EVENTS + 1];
	for (int i = 0; i <= PMC_MAX_EVENTS; i++)
		many[i] = "cpu-clock";
	T_OK(pmc_event_parse_list(many, PMC_MAX_EVENTS + 1, evmany, &diag) == -PMC_ETOOMANY &&
		     diag.n == 1,
	     "list: more than %d events refused", PMC_MAX_EVENTS);
}

static void test_encoding(void)
{
	struct pmc_event ev;
	char msg[256];

	T_OK(pmc_event_parse("task-clock", &ev, msg, sizeof(msg)) == 0 &&
		     ev.kind == PMC_KIND_PERF && ev.type == PERF_TYPE_SOFTWARE &&
		     ev.config == PERF_COUNT_SW_TASK_CLOCK && strcmp(ev.unit, "ns") == 0,
	     "task-clock encodes as PERF_TYPE_SOFTWARE/TASK_CLOCK in ns");
	T_OK(pmc_event_parse("instructions", &ev, msg, sizeof(msg)) == 0 &&
		     ev.type == PERF_TYPE_HARDWARE && ev.config == PERF_COUNT_HW_INSTRUCTIONS,
	     "instructions encodes as PERF_TYPE_HARDWARE/INSTRUCTIONS");
	T_OK(pmc_event_parse("CPUTIME", &ev, msg, sizeof(msg)) == 0 &&
		     ev.kind == PMC_KIND_PLUGIN && strcmp(ev.plugin, "cputimer") == 0 &&
		     pmc_event_default_period(&ev) == 1000,
	     "CPUTIME belongs to cputimer, default period 1000 us");
	T_OK(pmc_event_parse("cpu-clock", &ev, msg, sizeof(msg)) == 0 &&
		     pmc_event_default_period(&ev) == 1000000,
	     "cpu-clock default period is 1 ms");
}

static void test_strerror(void)
{
	T_OK(strcmp(pmc_strerror(-PMC_EABI), "backend plugin built for another ABI") == 0,
	     "pmc_strerror names project codes");
	T_OK(strcmp(pmc_strerror(-2), "No such file or directory") == 0,
	     "pmc_strerror names errno codes");
}

struct walk_seen {
	int aliases, pfm, pfm_cycles, alias_cycles, calls;
	int stop_after;		/* return 7 at this call (0: never) */
};

static int walk_one(const struct pmc_event_desc *ev, void *arg)
{
	struct walk_seen *w = arg;

	w->calls++;
	if (ev->pmu) {
		w->pfm++;
		w->pfm_cycles += strcmp(ev->name, "perf::CYCLES") == 0 && !ev->target;
	} else {
		w->aliases++;
		w->alias_cycles += strcmp(ev->name, "cycles") == 0 && ev->target && ev->desc;
	}
	return w->calls == w->stop_after ? 7 : 0;
}

/* The listing walk: what `pmcprof list` prints comes from here alone. */
static void test_foreach(void)
{
	struct walk_seen a = { 0 }, p = { 0 }, stop = { .stop_after = 3 };

	T_OK(pmc_event_foreach(PMC_EVENTS_ALIASES, walk_one, &a) == 0 && a.aliases > 5 &&
		     a.pfm == 0 && a.alias_cycles == 1,
	     "foreach aliases: %d aliases, 'cycles' with its target once (%d), no libpfm4 (%d)",
	     a.aliases, a.alias_cycles, a.pfm);
	T_OK(pmc_event_foreach(PMC_EVENTS_PFM, walk_one, &p) == 0 && p.aliases == 0 &&
		     p.pfm_cycles == 1,
	     "foreach libpfm4: %d events with their PMU, perf::CYCLES once (%d)", p.pfm,
	     p.pfm_cycles);
	T_OK(pmc_event_foreach(PMC_EVENTS_ALIASES | PMC_EVENTS_PFM, walk_one, &stop) == 7 &&
		     stop.calls == 3,
	     "foreach: a non-zero return stops the walk and is returned (%d calls)", stop.calls);
}

int main(void)
{
	test_golden();
	test_long_spec();
	test_list();
	test_encoding();
	test_strerror();
	test_foreach();
	return T_DONE();
}
