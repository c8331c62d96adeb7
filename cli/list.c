/* pmcprof list [PATTERN]: backends (usable, or disabled with the reason) and
 * events, grouped; PATTERN filters event names (case-insensitive substring). */
#include "config.h"

#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "backend/internal.h"
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

static void show_pfm(bool all)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	pfm_pmu_t pmu;
	int total = 0;

	if (pmc_pfm_init() < 0)
		return;
	printf("\nlibpfm4 PMUs present (events for the perf_event backend, 'pmu::event[:umask]'):\n");
	pfm_for_all_pmus(pmu) {
		int shown = 0;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		printf("  %-12s %4d events  %s\n", pinfo.name, pinfo.nevents, pinfo.desc);
		total += pinfo.nevents;
		if (!all)
			continue;
		for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			char full[256];

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
				continue;
			snprintf(full, sizeof(full), "%s::%s", pinfo.name, einfo.name);
			if (!matches(full))
				continue;
			printf("    %-40s %.70s\n", full, einfo.desc ? einfo.desc : "");
			shown++;
		}
	}
	if (!all)
		printf("  ('pmcprof list PATTERN' searches these %d events; 'pmcprof list --all' "
		       "lists them)\n", total);
}

static void print_name(const char *name, const char *desc, const char *unit, void *arg)
{
	(void)desc, (void)unit, (void)arg;
	if (matches(name))
		printf("%s\n", name);
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
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	pfm_pmu_t pmu;

	for (size_t i = 0; i < pmc_n_aliases; i++)
		print_name(pmc_aliases[i].alias, NULL, NULL, NULL);
	pmc_backend_foreach(names_of_backend, NULL);
	if (pmc_pfm_init() < 0)
		return;
	pfm_for_all_pmus(pmu) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			char full[256];

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
				continue;
			snprintf(full, sizeof(full), "%s::%s", pinfo.name, einfo.name);
			print_name(full, NULL, NULL, NULL);
		}
	}
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

	int shown = 0;
	for (size_t i = 0; i < pmc_n_aliases; i++) {
		const struct pmc_alias *a = &pmc_aliases[i];
		struct pmc_event ev;
		char msg[256];
		if (!matches(a->alias) && !matches(a->target))
			continue;
		bool hw = pmc_event_parse(a->alias, &ev, msg, sizeof(msg)) == 0 && ev.hardware;
		if (!shown++)
			printf("\nperf-style aliases (perf_event backend):\n");
		printf("  %-24s %-28s %s%s\n", a->alias, a->target, a->desc,
		       hw && !env.hw_events ? "  [no hardware PMU here]" : "");
	}
	pmc_backend_foreach(show_backend_events, NULL);
	show_pfm(all || pattern);
	printf("\nSpecs: EVENT[:u|:k][@PERIOD] or EVENT@fFREQ, e.g. cycles:u@2000003, "
	       "cpu-clock@f1000, CPUTIME@500\n");
	return 0;
}
