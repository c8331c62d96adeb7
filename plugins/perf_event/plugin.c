/* pmc-perf_event.so: Linux perf_event counters, hardware and software. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plugins/perf_event/pe.h"

/* "EOPNOTSUPP" rather than the prose, so the reason names what failed. */
static const char *errno_name(int err)
{
	const char *s = strerrorname_np(err);
	return s ? s : "unknown error";
}

/* Why a guest has no PMU, from what the core's probe found; "" on bare
 * metal. */
static const char *guest_why(const struct pmc_env *env, char *buf, size_t len)
{
	const char *hv = env->hv_name && env->hv_name[0] ? env->hv_name : "virtual machine";

	if (!env->hv_present)
		return "";
	if (env->n_gp == 0 && env->cpu_vendor == PMC_CPU_INTEL)
		snprintf(buf, len, " (%s guest: the host exposes no vPMU, CPUID 0AH version %d)", hv,
			 env->pmu_version);
	else if (env->n_gp == 0)
		snprintf(buf, len, " (%s guest: the host exposes no vPMU)", hv);
	else
		snprintf(buf, len, " (%s guest)", hv);
	return buf;
}

static int probe(const struct pmc_env *env, struct pmc_probe *out)
{
	char why[96];

	memset(out, 0, sizeof(*out));
	if (!env->perf_event_syscall) {
		if (env->perf_event_errno == EACCES || env->perf_event_errno == EPERM)
			snprintf(out->reason, sizeof(out->reason),
				 "perf_event_open refused (%s): perf_event_paranoid is %d",
				 errno_name(env->perf_event_errno), env->paranoid);
		else
			snprintf(out->reason, sizeof(out->reason),
				 "perf_event_open failed with %s (seccomp, or a kernel without perf events)",
				 errno_name(env->perf_event_errno));
		return 0;
	}
	out->usable = true;
	out->sampling = true;
	out->hardware = env->hw_events;
	if (!env->hw_events) {
		if (env->hw_errno == EACCES || env->hw_errno == EPERM)
			snprintf(out->reason, sizeof(out->reason),
				 "hardware events refused (%s): perf_event_paranoid is %d",
				 errno_name(env->hw_errno), env->paranoid);
		else
			snprintf(out->reason, sizeof(out->reason),
				 "no hardware PMU events: perf_event_open(cycles) failed with %s%s",
				 errno_name(env->hw_errno), guest_why(env, why, sizeof(why)));
	}
	if (env->n_gp > 0)
		snprintf(out->detail, sizeof(out->detail),
			 "paranoid %d, rdpmc sysfs %d, %d gp x %d bits, %d fixed x %d bits",
			 env->paranoid, env->rdpmc_sysfs, env->n_gp, env->gp_width, env->n_fixed,
			 env->fixed_width);
	else
		snprintf(out->detail, sizeof(out->detail), "paranoid %d, software events only",
			 env->paranoid);
	return 0;
}

PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
	.abi = PMC_PLUGIN_ABI,
	.size = sizeof(struct pmc_plugin),
	.name = "perf_event",
	.description = "Linux perf_event: hardware PMU and software events (rdpmc reads when allowed)",
	.version = "1.0",
	.flags = PMC_PLUGIN_PERF_ATTR | PMC_PLUGIN_SILENT_KERNEL,
	.events = NULL,
	.n_events = 0,
	.ops = {
		.probe = probe,
		.open = pe_open,
		.start = pe_start,
		.stop = pe_stop,
		.read = pe_read,
		.arm = pe_arm,
		.overflow = pe_overflow,
		.rearm = pe_rearm,
		.stats = pe_stats,
		.close = pe_close,
		.kernel_chain = pe_kernel_chain,
		.record = pe_record,
	},
};
