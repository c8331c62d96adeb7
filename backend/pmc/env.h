/* libpmc environment: what the machine offers for counting (hypervisor
 * layers, CPU and PMU, the kernel's perf_event settings), and the advice
 * that turns an error code into what the user can do here.
 *
 * struct pmc_env is the caller's, filled through pmc_env_probe (which
 * passes its size, so an older and shorter struct is never overrun); the
 * string functions write into the caller's buffer.  Signal safety: none
 * (the probe reads files and opens counters); probe before sampling.
 */
#ifndef PMC_ENV_H
#define PMC_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmc_cpu_vendor { PMC_CPU_OTHER, PMC_CPU_INTEL, PMC_CPU_AMD };

struct pmc_env {
	/* hypervisor */
	bool hv_present;		/* CPUID.1:ECX[31] */
	char hv_signature[13];		/* CPUID 0x40000000 EBX:ECX:EDX */
	const char *hv_name;		/* "KVM", "Xen", "VMware", "Hyper-V", ..., "none" (static) */
	char sys_hypervisor[32];	/* /sys/hypervisor/type, "" if absent */
	/* cpu and architectural PMU */
	enum pmc_cpu_vendor cpu_vendor;
	char cpu_model[96];
	double cpu_mhz;			/* nominal, from /proc/cpuinfo; 0 if unknown */
	int pmu_version;		/* Intel CPUID 0AH EAX[7:0]; AMD: 1, 2 with
					 * PerfMonV2; 0: no counters */
	int n_gp, gp_width;		/* general-purpose counters and their width */
	int n_fixed, fixed_width;
	uint32_t arch_events;		/* bit i set: architectural event i available */
	int n_arch_events;		/* length of the CPUID 0AH EBX bit vector */
	/* kernel */
	int paranoid;			/* /proc/sys/kernel/perf_event_paranoid, -9 if unreadable */
	int rdpmc_sysfs;		/* /sys/bus/event_source/devices/cpu/rdpmc, -1 if absent */
	bool perf_event_syscall;	/* perf_event_open usable at all (software event opened) */
	int perf_event_errno;		/* errno of that attempt, 0 on success */
	bool hw_events;			/* a hardware cycles event opened */
	int hw_errno;			/* errno of that attempt, 0 on success */
	char kernel[64];		/* uname -r */
	/* added in 0.1.x, at the end */
	bool cpu_pmu;			/* perf_event has a core PMU (sysfs devices/cpu,
					 * cpu_core or cpu_atom); without one there are
					 * no counters, whatever CPUID says */
	char pmu_desc[192];		/* what the counters are, for people: "AMD
					 * PerfMonV2 (CPUID 0x80000022): 6 core ..." */
	/* added in 0.2, at the end: the stack of virtualization, outermost
	 * first, as far as this machine can see it (docs/virtualization.md) */
	unsigned n_layers;		/* 0: bare metal, as far as can be seen */
	struct pmc_env_layer {
		char name[24];		/* "Xen", "KVM", "QEMU-TCG", "bhyve", ... */
		char version[24];	/* "4.17.7", or "" if the layer does not say */
		char kind[48];		/* "PV dom0", "hardware virtualization",
					 * "emulation", "virtual machine" */
		char vpmu[96];		/* the layer's own word on its virtual PMU, or "" */
		char evidence[384];	/* what says so: "CPUID 0x40000000 \"KVMKVMKVM\";
					 * clocksource kvm-clock (available) ..." */
	} layers[4];
	char clocksource[64];		/* current clocksource, "" if unreadable */
	char dmi[96];			/* DMI sys_vendor and product_name, "" if none */
};

/* Probe the machine (cheap: CPUID, a few /proc and /sys files, two
 * perf_event_open attempts) into the first size bytes of env: a program
 * built against an older, shorter struct pmc_env passes its own size and
 * is never overrun.  Never fails; unknown facts are left zero.  Call it
 * through pmc_env_probe(env), which passes sizeof(*env). */
PMC_API void pmc_env_probe_sz(struct pmc_env *env, size_t size);
#define pmc_env_probe(env) pmc_env_probe_sz((env), sizeof(*(env)))
/* The exported pmc_env_probe(env) symbol of 0.1 stays for binaries built
 * against it: it fills the 0.1 struct only (up to n_layers). */
PMC_API void(pmc_env_probe)(struct pmc_env *env);

/* env's layers on one line, outermost first, as profiles keep them
 * ("virtualization"): "NAME[ VERSION] (KIND[; vPMU ...]): EVIDENCE", joined
 * by " | "; "none" without layers.  Returns buf. */
PMC_API const char *pmc_env_layers_str(const struct pmc_env *env, char *buf, size_t len);

/* What this runs on, innermost layer first: "Xen 4.17.7 (PV dom0; vPMU
 * off: ...) on QEMU-TCG (emulation)", or "none detected (bare metal, ...)".
 * Returns buf. */
PMC_API const char *pmc_env_summary(const struct pmc_env *env, char *buf, size_t len);

/* Advice for a failed open: turns an error code into what the user can do,
 * given the environment (e.g. "perf_event_paranoid is 3: ..."). Static or
 * buf. */
PMC_API const char *pmc_advice(int err, const struct pmc_env *env, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* PMC_ENV_H */
