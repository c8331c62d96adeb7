/* pmcprof probe: what this machine offers, in a few lines, and what record
 * would use by default and why. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "backend/internal.h"

static int show_backend(const char *name, void *arg)
{
	struct pmc_backend *be;
	char err[512];

	(void)arg;
	if (pmc_backend_load(name, &be, err, sizeof(err)) < 0) {
		printf("  %-12s refused: %s\n", name, err);
		return 0;
	}
	const struct pmc_probe *p = pmc_backend_probe(be);
	if (!p->usable)
		printf("  %-12s disabled: %s\n", name, p->reason);
	else if (!p->hardware && p->reason[0])
		printf("  %-12s usable (%s)\n", name, p->reason);
	else
		printf("  %-12s usable%s\n", name, p->hardware ? " (hardware events)" : "");
	pmc_backend_unload(be);
	return 0;
}

static const char *paranoid_meaning(int p)
{
	if (p <= -1)
		return "no restrictions";
	if (p == 0)
		return "CPU-wide and kernel measurement allowed";
	if (p == 1)
		return "kernel and user measurement of own processes";
	if (p == 2)
		return "user-space measurement of own processes only";
	return "perf_event closed to unprivileged users";
}

int main(int argc, char **argv)
{
	struct pmc_env env;
	struct pmc_plan plan;
	struct pmc_diag diag;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: pmcprof probe\n\n"
			       "Describes this machine: CPU, hypervisor (CPUID 0x40000000 and\n"
			       "/sys/hypervisor), the architectural PMU (CPUID 0AH / AMD leaves),\n"
			       "perf_event_paranoid, rdpmc, which backends are usable (or why not),\n"
			       "and what 'pmcprof record' would sample by default, and why.\n");
			return 0;
		}
		fprintf(stderr, "pmcprof probe: unknown argument '%s'\n", argv[i]);
		return 1;
	}
	pmc_env_probe(&env);
	printf("CPU:         %s, kernel %s\n", env.cpu_model[0] ? env.cpu_model : "unknown",
	       env.kernel);
	if (env.hv_present)
		printf("Hypervisor:  %s (CPUID signature \"%s\"%s%s)\n", env.hv_name,
		       env.hv_signature, env.sys_hypervisor[0] ? ", /sys/hypervisor/type " : "",
		       env.sys_hypervisor);
	else
		printf("Hypervisor:  none detected (bare metal)\n");
	if (env.pmu_version == 0 || env.n_gp == 0)
		printf("PMU:         no core counters visible (CPUID 0AH version %d, %d counters)%s\n",
		       env.pmu_version, env.n_gp,
		       env.hv_present ? ": the hypervisor exposes no virtual PMU" : "");
	else
		printf("PMU:         version %d, %d general counters x %d bits, %d fixed x %d bits\n",
		       env.pmu_version, env.n_gp, env.gp_width, env.n_fixed, env.fixed_width);
	printf("perf_event:  %s; perf_event_paranoid=%d (%s)\n",
	       env.perf_event_syscall ? "available" : "NOT available", env.paranoid,
	       paranoid_meaning(env.paranoid));
	if (env.hw_events) {
		printf("             hardware events open\n");
	} else {
		char buf[256];
		const char *adv = pmc_advice(-env.hw_errno, &env, buf, sizeof(buf));
		printf("             hardware events do not open (%s)%s%s\n",
		       strerror(env.hw_errno), adv ? ": " : "", adv ? adv : "");
	}
	printf("rdpmc:       %s\n",
	       env.rdpmc_sysfs < 0 ? "no sysfs control (no core PMU driver)"
	       : env.rdpmc_sysfs == 0 ? "disabled by sysfs (rdpmc=0)"
	       : env.rdpmc_sysfs == 1 ? "allowed for tasks with an open event (rdpmc=1)"
				      : "allowed always (rdpmc=2)");
	printf("Backends:\n");
	pmc_backend_foreach(show_backend, NULL);
	if (pmc_plan_make(NULL, 0, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err)) == 0) {
		printf("Default:     %s\n", plan.why);
		pmc_plan_release(&plan);
	} else {
		printf("Default:     nothing usable: %s\n", err);
	}
	return 0;
}
