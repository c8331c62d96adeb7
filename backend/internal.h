/* libpmc internals shared by the backend sources; not installed. */
#ifndef BACKEND_INTERNAL_H
#define BACKEND_INTERNAL_H

#include "backend/pmc.h"
#include "backend/pmc_plugin.h"

struct pmc_backend {
	void *handle;			/* dlopen handle */
	const struct pmc_plugin *plugin;
	char path[512];
	bool probed;
	struct pmc_probe probe;
};

/* Raw CPUID leaves the PMU decode reads (EAX, EBX, ECX, EDX; zero when
 * beyond the maximum), so it can be tested on tables of real machines. */
struct env_cpuid {
	uint32_t l0[4];			/* max leaf, vendor */
	uint32_t la[4];			/* 0AH: Intel architectural PMU */
	uint32_t emax;			/* 0x80000000 EAX */
	uint32_t e1[4];			/* 0x80000001: ECX[23] PerfCtrExtCore */
	uint32_t e22[4];		/* 0x80000022: EAX[0] PerfMonV2, EBX[3:0] counters */
};

/* Fill env's vendor, PMU fields and pmu_desc from in; cpu_pmu says whether
 * perf_event has a core PMU (without one, there are no counters). */
void env_decode_pmu(const struct env_cpuid *in, bool cpu_pmu, struct pmc_env *env);

/* The architecture's part of pmc_env_probe: hypervisor, vendor and PMU
 * fields, pmu_desc (env.c on x86 from CPUID; env_aarch64.c from sysfs and
 * the device tree). */
void env_probe_arch(struct pmc_env *env);
bool env_is_dir(const char *path);

/* What a machine shows of the virtualization below it, read raw, so the
 * decode can be tested on tables of real machines (backend/env.c). */
struct env_virt {
	bool hv_bit;			/* CPUID.1:ECX[31] */
	char sig[13];			/* plain CPUID signature (0x40000000, or
					 * 0x40000100 behind Hyper-V enlightenments) */
	uint32_t sig_leaf;		/* where sig was found */
	uint32_t sig_info[4];		/* the next leaf (Xen: EAX version; KVM:
					 * EAX feature bits) */
	char xen_sig[13];		/* Xen's forced-emulation CPUID signature;
					 * "" when not asked (not a Xen PV guest) */
	uint32_t xen_version;		/* its leaf + 1, EAX: major << 16 | minor */
	char sys_type[16];		/* /sys/hypervisor/type */
	char sys_guest[16];		/* /sys/hypervisor/guest_type: PV, HVM, PVH */
	char sys_version[32];		/* /sys/hypervisor/version: "4.17.7" */
	char sys_pmu[64];		/* /sys/hypervisor/pmu/pmu_mode, or "error: why" */
	char xen_caps[64];		/* /proc/xen/capabilities ("control_d": dom0) */
	bool proc_xen;			/* /proc/xen exists */
	char cs_current[32];		/* /sys/devices/system/clocksource/clocksource0 */
	char cs_available[160];
	char dmi_vendor[48];		/* /sys/class/dmi/id/sys_vendor */
	char dmi_product[64];		/* /sys/class/dmi/id/product_name */
	bool cpuinfo_hv;		/* the kernel's "hypervisor" flag in /proc/cpuinfo
					 * (set by a PV kernel even where CPUID hides it) */
	char xen_features[16];		/* /sys/hypervisor/properties/features */
};

/* Fill env's n_layers, layers, clocksource, dmi (and hv_name,
 * hv_signature, hv_present) from in. */
void env_decode_layers(const struct env_virt *in, struct pmc_env *env);

/* A plan (backend/plan.c): the events requested and used, the backend. */
struct pmc_plan {
	struct pmc_backend *be;
	size_t n, n_req;
	struct pmc_event ev[PMC_MAX_EVENTS];	/* used */
	struct pmc_event req[PMC_MAX_EVENTS];	/* requested (parsed) */
	bool period_given[PMC_MAX_EVENTS];	/* ev[i]'s period is the user's */
	bool defaulted;				/* nothing requested: the default */
	bool fell_back;
	char why[512];				/* one line: what was chosen and why */
};

struct pmc_group {
	struct pmc_backend *be;
	void *ctx;
	size_t n;
};

/* An alias: a perf-style or friendly name and the libpfm4 (or plugin) name. */
struct pmc_alias {
	const char *alias;
	const char *target;
	const char *desc;
};
extern const struct pmc_alias pmc_aliases[];
extern const size_t pmc_n_aliases;

/* Make a loaded plugin's own events (its descriptor's) known to the
 * event-spec parser (event.c); pmc_backend_load calls it. */
void pmc_plugin_events_register(const struct pmc_plugin *pl);

/* libpfm4, initialized once; 0 or -PMC_E*. */
int pmc_pfm_init(void);

/* Levenshtein distance, capped; for "did you mean". */
unsigned pmc_edit_distance(const char *a, const char *b);

/* snprintf into a fixed buffer without warnings about truncation. */
void pmc_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
