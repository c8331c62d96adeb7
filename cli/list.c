/* pmcprof list [PATTERN]: backends (usable, or disabled with the reason) and
 * events, grouped; PATTERN filters event names (case-insensitive substring). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "backend/pmc.h"
#include "cli/options.h"

static const char *pattern;

enum { O_ALL = OPT_LONG, O_NAMES };

static const struct opt list_opts[] = {
	OPT(O_ALL, "all", no_argument, NULL, "list every libpfm4 event of the PMUs present"),
	OPT(O_NAMES, "names", no_argument, NULL, "print only event names, one per line (for scripts)"),
	OPT_END,
};

static const struct opt_cmd list_cmd = {
	.prog = "pmcprof list",
	.synopsis = "pmcprof list [--all | --names] [PATTERN]",
	.description =
		"Lists the backend plugins (usable here, or disabled with the reason)\n"
		"and the events they take: perf-style aliases, the plugins' own events,\n"
		"and libpfm4's events for the PMUs present.  PATTERN filters events\n"
		"(case-insensitive substring).\n",
	.opts = list_opts,
	.footer = "Exit status: 0 ok, 1 usage error.  See pmcprof-list(1).\n",
};

static bool matches(const char *s)
{
	return !pattern || strcasestr(s, pattern) != NULL;
}

static int show_backend(const char *name, void *arg)
{
	struct pmc_backend *be;
	char err[512];
	int ret = pmc_backend_load(name, &be, err, sizeof(err));

	(void)arg;
	if (ret < 0) {
		printf("  %-12s refused: %s\n", name, err);
		return 0;
	}
	const struct pmc_probe *p = pmc_backend_probe(be);
	printf("  %-12s %-8s %s\n", name, p->usable ? "usable" : "disabled",
	       pmc_backend_description(be));
	if (!p->usable)
		printf("  %-12s          why: %s\n", "", p->reason);
	else if (!p->hardware && p->reason[0])
		printf("  %-12s          note: %s\n", "", p->reason);
	if (p->detail[0])
		printf("  %-12s          %s\n", "", p->detail);
	pmc_backend_unload(be);
	return 0;
}

struct plugin_events {
	const char *backend;
	int shown;
};

static void show_plugin_event(const char *name, const char *desc, const char *unit, void *arg)
{
	struct plugin_events *pe = arg;

	if (!matches(name))
		return;
	if (!pe->shown++)
		printf("\n%s events (period unit):\n", pe->backend);
	printf("  %-28s %s (%s)\n", name, desc ? desc : "", unit ? unit : "");
}

static int show_backend_events(const char *name, void *arg)
{
	struct plugin_events pe = { .backend = name };
	struct pmc_backend *be;
	char err[512];

	(void)arg;
	if (pmc_backend_load(name, &be, err, sizeof(err)) < 0)
		return 0;
	pmc_backend_events(be, show_plugin_event, &pe);
	pmc_backend_unload(be);
	return 0;
}

struct pfm_listing {
	bool all;
	int total;
	const char *pmu;	/* the PMU whose events are being listed */
};

static int show_pfm_event(const struct pmc_event_desc *ev, void *arg)
{
	const struct pfm_listing *l = arg;

	if (strcmp(ev->pmu, l->pmu) == 0 && matches(ev->name))
		printf("    %-40s %.70s\n", ev->name, ev->desc ? ev->desc : "");
	return 0;
}

static int show_pmu(const struct pmc_pmu_desc *pmu, void *arg)
{
	struct pfm_listing *l = arg;

	printf("  %-12s %4d events  %s\n", pmu->name, pmu->nevents, pmu->desc);
	l->total += pmu->nevents;
	if (l->all) {
		l->pmu = pmu->name;
		pmc_event_foreach(PMC_EVENTS_PFM, show_pfm_event, l);
	}
	return 0;
}

static void show_pfm(bool all)
{
	struct pfm_listing l = { .all = all };

	printf("\nlibpfm4 PMUs present (events for the perf_event backend, 'pmu::event[:umask]'):\n");
	pmc_pmu_foreach(show_pmu, &l);
	if (!all)
		printf("  ('pmcprof list PATTERN' searches these %d events; 'pmcprof list --all' "
		       "lists them)\n", l.total);
}

static void print_name(const char *name, const char *desc, const char *unit, void *arg)
{
	(void)desc, (void)unit, (void)arg;
	if (matches(name))
		printf("%s\n", name);
}

static int print_event_name(const struct pmc_event_desc *ev, void *arg)
{
	print_name(ev->name, NULL, NULL, arg);
	return 0;
}

static int names_of_backend(const char *name, void *arg)
{
	struct pmc_backend *be;
	char err[512];

	(void)arg;
	if (pmc_backend_load(name, &be, err, sizeof(err)) == 0) {
		pmc_backend_events(be, print_name, NULL);
		pmc_backend_unload(be);
	}
	return 0;
}

/* --names: one event name per line, for shell completion and scripts. */
static void list_names(void)
{
	pmc_event_foreach(PMC_EVENTS_ALIASES, print_event_name, NULL);
	pmc_backend_foreach(names_of_backend, NULL);
	pmc_event_foreach(PMC_EVENTS_PFM, print_event_name, NULL);
}

struct alias_listing {
	const struct pmc_env *env;
	int shown;
};

static int show_alias(const struct pmc_event_desc *a, void *arg)
{
	struct alias_listing *l = arg;
	struct pmc_event ev;
	char msg[256];
	bool hw;

	if (!matches(a->name) && !matches(a->target))
		return 0;
	hw = pmc_event_parse(a->name, &ev, msg, sizeof(msg)) == 0 && ev.hardware;
	if (!l->shown++)
		printf("\nperf-style aliases (perf_event backend):\n");
	printf("  %-24s %-28s %s%s\n", a->name, a->target, a->desc,
	       hw && !l->env->hw_events ? "  [no hardware PMU here]" : "");
	return 0;
}

int main(int argc, char **argv)
{
	struct pmc_env env;
	bool all = false, names = false;

	struct opt_parser p;
	const char *v;
	int id;

	opts_begin(&p, &list_cmd, argc, argv);
	while ((id = opts_next(&p, &v)) != -1) {
		all |= id == O_ALL;
		names |= id == O_NAMES;
	}
	if (p.ind < argc)
		pattern = argv[p.ind];
	if (p.ind + 1 < argc)
		opts_die(&list_cmd, "one PATTERN only");
	if (names) {
		list_names();
		return 0;
	}
	pmc_env_probe(&env);
	char where[1024];
	printf("Running on:  %s\n", pmc_env_summary(&env, where, sizeof(where)));
	printf("Backends:\n");
	pmc_backend_foreach(show_backend, NULL);

	struct alias_listing aliases = { .env = &env };
	pmc_event_foreach(PMC_EVENTS_ALIASES, show_alias, &aliases);
	pmc_backend_foreach(show_backend_events, NULL);
	show_pfm(all || pattern);
	printf("\nSpecs: EVENT[:u|:k][@PERIOD] or EVENT@fFREQ, e.g. cycles:u@2000003, "
	       "cpu-clock@f1000, CPUTIME@500\n");
	return 0;
}
