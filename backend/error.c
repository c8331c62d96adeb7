/* Error codes and the advice the command line gives for them. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend/internal.h"

static const char *const messages[PMC_ERR_END - PMC_ERR_BASE] = {
	[PMC_EEVENT - PMC_ERR_BASE] = "unknown event",
	[PMC_EPERIOD - PMC_ERR_BASE] = "bad sampling period or frequency",
	[PMC_ESPEC - PMC_ERR_BASE] = "malformed event specification",
	[PMC_EMODIFIER - PMC_ERR_BASE] = "unknown event modifier",
	[PMC_EPLUGIN - PMC_ERR_BASE] = "backend plugin not found or not loadable",
	[PMC_EABI - PMC_ERR_BASE] = "backend plugin built for another ABI",
	[PMC_ENOPMU - PMC_ERR_BASE] = "no hardware PMU available",
	[PMC_EDISABLED - PMC_ERR_BASE] = "backend disabled on this machine",
	[PMC_ENOTSUP - PMC_ERR_BASE] = "operation not supported by this backend",
	[PMC_ETOOMANY - PMC_ERR_BASE] = "too many events",
	[PMC_EBACKEND - PMC_ERR_BASE] = "event belongs to another backend",
};

const char *pmc_version(void)
{
	return PACKAGE_VERSION;
}

const char *pmc_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= PMC_ERR_BASE && err < PMC_ERR_END)
		return messages[err - PMC_ERR_BASE];
	if (err == 0)
		return "success";
	return strerror(err);
}

void pmc_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

const char *pmc_advice(int err, const struct pmc_env *env, char *buf, size_t len)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EACCES:
	case EPERM:
		if (env && env->paranoid >= 3) {
			pmc_fmt(buf, len,
				"perf_event_paranoid is %d: perf_event is closed to unprivileged users; "
				"run as root, grant CAP_PERFMON, or use the cputimer backend (-e CPUTIME)",
				env->paranoid);
			return buf;
		}
		if (env && env->paranoid >= 2) {
			pmc_fmt(buf, len,
				"perf_event_paranoid is %d: only user-space counting of your own "
				"processes is allowed; add ':u' to the event, lower it with "
				"'sysctl kernel.perf_event_paranoid=1' (as root), or grant CAP_PERFMON",
				env->paranoid);
			return buf;
		}
		if (env && !env->perf_event_syscall)
			return "perf_event_open is blocked here (a seccomp filter, e.g. in a "
			       "container): use the cputimer backend (-b cputimer / -e CPUTIME)";
		return "permission denied by the kernel: try CAP_PERFMON or the cputimer backend";
	case ENOSYS:
		return "perf_event_open is not available (kernel without perf events, or blocked "
		       "by seccomp): use the cputimer backend (-e CPUTIME)";
	case ENOENT:
	case EOPNOTSUPP:
	case PMC_ENOPMU:
		if (env && env->hv_present && strcmp(env->hv_name, "KVM") == 0) {
			pmc_fmt(buf, len,
				"no hardware PMU here (KVM guest without a virtual PMU): ask for "
				"a vPMU (e.g. QEMU -cpu host,pmu=on) or use cpu-clock / CPUTIME");
			return buf;
		}
		if (env && env->hv_present) {
			pmc_fmt(buf, len,
				"no hardware PMU here (%s guest without virtual counters): use "
				"cpu-clock / CPUTIME", env->hv_name);
			return buf;
		}
		return "no hardware PMU here (or this event does not exist on this CPU): "
		       "use cpu-clock / CPUTIME";
	case EMFILE:
		return "too many open files: raise 'ulimit -n'";
	case EINVAL:
		return "the kernel rejected the event settings (period, modifiers, or an "
		       "event this CPU does not have)";
	default:
		return NULL;
	}
}
