/* pmc-perf_event.so: Linux perf_event counters, hardware and software: the
 * probe, over libpe (libpe.h), which does the counting and sampling. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plugins/perf_event/libpe.h"

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

/* Why `what` does not open, into out->reason: perf_event_paranoid's
 * refusal, or "FAILED ERRNO_NAME TAIL". */
static void why_not(struct pmc_probe *out, const char *what, int err, int paranoid,
		    const char *failed, const char *tail)
{
	if (err == EACCES || err == EPERM)
		snprintf(out->reason, sizeof(out->reason),
			 "%s refused (%s): perf_event_paranoid is %d", what, errno_name(err),
			 paranoid);
	else
		snprintf(out->reason, sizeof(out->reason), "%s %s%s", failed, errno_name(err),
			 tail);
}

static int probe(const struct pmc_env *env, struct pmc_probe *out)
{
	char why[96];

	memset(out, 0, sizeof(*out));
	if (!env->perf_event_syscall) {
		why_not(out, "perf_event_open", env->perf_event_errno, env->paranoid,
			"perf_event_open failed with",
			" (seccomp, or a kernel without perf events)");
		return 0;
	}
	out->usable = true;
	out->sampling = true;
	out->hardware = env->hw_events;
	if (!env->hw_events)
		why_not(out, "hardware events", env->hw_errno, env->paranoid,
			"no hardware PMU events: perf_event_open(cycles) failed with",
			guest_why(env, why, sizeof(why)));
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
	PMC_PLUGIN_HEAD("perf_event",
			"Linux perf_event: hardware PMU and software events "
			"(rdpmc reads when allowed)",
			"1.0"),
	.flags = PMC_PLUGIN_PERF_ATTR | PMC_PLUGIN_SILENT_KERNEL,
	.ops = PE_PLUGIN_OPS(probe, pe_open, pe_read),
};
