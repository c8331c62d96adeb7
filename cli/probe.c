/* pmcprof probe: what this machine offers, in a few lines, and what record
 * would use by default and why. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "backend/pmc.h"
#include "cli/options.h"

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

static void show_layers(const struct pmc_env *env)
{
	char buf[1024];

	printf("Hypervisor:  %s\n", pmc_env_summary(env, buf, sizeof(buf)));
	if (env->n_layers)
		printf("Virtualization, outermost first:\n");
	for (unsigned i = 0; i < env->n_layers; i++) {
		const struct pmc_env_layer *l = &env->layers[i];
		printf("  %u. %s%s%s: %s%s%s\n", i + 1, l->name, l->version[0] ? " " : "", l->version,
		       l->kind, l->vpmu[0] ? "; vPMU " : "", l->vpmu);
		printf("     evidence: %s\n", l->evidence[0] ? l->evidence : "-");
	}
}

enum { O_CALIBRATE = OPT_LONG };

static const struct opt probe_opts[] = {
	OPT(O_CALIBRATE, "calibrate", no_argument, NULL,
	  "also count a loop of known work on each usual event\n"
	  "and classify the counter: valid, unverified, zero,\n"
	  "implausible or unsupported"),
	OPT_END,
};

static const struct opt_cmd probe_cmd = {
	.prog = "pmcprof probe",
	.synopsis = "pmcprof probe [--calibrate]",
	.description =
		"Describes this machine: CPU, the layers of virtualization it runs on,\n"
		"outermost first, each with its evidence (CPUID 0x40000000, Xen's\n"
		"forced-emulation CPUID in a Xen PV guest, /sys/hypervisor, /proc/xen,\n"
		"the clocksource, DMI), the architectural PMU (CPUID 0AH / AMD leaves),\n"
		"perf_event_paranoid, rdpmc, which backends are usable (or why not),\n"
		"and what 'pmcprof record' would sample by default, and why.\n",
	.opts = probe_opts,
	.footer = "Exit status: 0 ok, 1 usage error.  See pmcprof-probe(1).\n",
};

/* Calibration of the usual events on the backends that take them. */
static const struct {
	const char *event;
	const char *backend;
} calibrated[] = {
	{ "cycles", "perf_event" },
	{ "instructions", "perf_event" },
	{ "branches", "perf_event" },
	{ "task-clock", "perf_event" },
	{ "cpu-clock", "perf_event" },
	{ "cycles", "kvm_vpmu" },
	{ "instructions", "kvm_vpmu" },
	{ "CPUTIME", "cputimer" },
};

static void calibrate_all(void)
{
	printf("Calibration (a loop of 20M dec/jnz: 20M branches, 40M instructions):\n");
	for (size_t i = 0; i < sizeof(calibrated) / sizeof(calibrated[0]); i++) {
		struct pmc_backend *be;
		struct pmc_event ev;
		struct pmc_calibration cal;
		char err[512];

		if (pmc_backend_load(calibrated[i].backend, &be, err, sizeof(err)) < 0)
			continue;
		if (!pmc_backend_probe(be)->usable) {
			pmc_backend_unload(be);
			continue;
		}
		if (pmc_event_parse(calibrated[i].event, &ev, err, sizeof(err)) == 0 &&
		    pmc_backend_accepts(be, &ev) && pmc_calibrate(be, &ev, &cal) == 0)
			printf("  %-12s %-14s %-12s %s\n", calibrated[i].backend, calibrated[i].event,
			       pmc_trust_name(cal.trust), cal.why);
		pmc_backend_unload(be);
	}
}

int main(int argc, char **argv)
{
	struct pmc_env env;
	bool calibrate = false;
	struct pmc_plan *plan;
	struct pmc_diag diag;
	char err[512];

	struct opt_parser p;
	const char *v;

	opts_begin(&p, &probe_cmd, argc, argv);
	while (opts_next(&p, &v) != -1)
		calibrate = true;	/* the only option */
	if (p.ind < argc)
		opts_die(&probe_cmd, "unexpected argument '%s'", argv[p.ind]);
	pmc_env_probe(&env);
	printf("CPU:         %s, kernel %s\n", env.cpu_model[0] ? env.cpu_model : "unknown",
	       env.kernel);
	show_layers(&env);
	printf("PMU:         %s%s\n", env.pmu_desc,
	       env.n_gp == 0 && env.hv_present ? "; the hypervisor exposes no virtual PMU" : "");
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
#if defined(__aarch64__)
	printf("user read:   %s\n",
	       env.rdpmc_sysfs < 0 ? "no /proc/sys/kernel/perf_user_access (kernel before 5.17)"
	       : env.rdpmc_sysfs == 0 ? "off (perf_user_access=0): counters are read with read()"
				      : "allowed for events opened with config1 bit 1 (perf_user_access=1)");
#else
	printf("rdpmc:       %s\n",
	       env.rdpmc_sysfs < 0 ? "no sysfs control (no core PMU driver)"
	       : env.rdpmc_sysfs == 0 ? "disabled by sysfs (rdpmc=0)"
	       : env.rdpmc_sysfs == 1 ? "allowed for tasks with an open event (rdpmc=1)"
				      : "allowed always (rdpmc=2)");
#endif
	printf("Backends:\n");
	pmc_backend_foreach(show_backend, NULL);
	if (pmc_plan_new(NULL, 0, NULL, PMC_PLAN_SAMPLING, &plan, &diag, err, sizeof(err)) == 0) {
		printf("Default:     %s\n", pmc_plan_why(plan));
		pmc_plan_free(plan);
	} else {
		printf("Default:     nothing usable: %s\n", err);
	}
	if (calibrate)
		calibrate_all();
	return 0;
}
