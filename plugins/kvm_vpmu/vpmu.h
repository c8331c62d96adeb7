/* kvm_vpmu internals (not installed): what a KVM guest's virtual PMU
 * offers, decoded by pure functions from raw CPUID leaves and firmware
 * strings, so the decoding is tested against tables of real machines. */
#ifndef VPMU_H
#define VPMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/pmc_plugin.h"

/* Raw inputs: CPUID leaves as EAX, EBX, ECX, EDX (zero when the leaf is
 * beyond the maximum), and the firmware's identity strings ("" if none). */
struct vpmu_cpuid {
	uint32_t l0[4];			/* max leaf, vendor */
	uint32_t l1[4];			/* ECX[31] hypervisor, ECX[15] PDCM, EDX[21] DS */
	uint32_t l7[4];			/* subleaf 0: EDX[19] arch LBR */
	uint32_t la[4];			/* 0AH: architectural performance monitoring */
	uint32_t hv[4];			/* 0x40000000 */
	uint32_t hv100[4];		/* 0x40000100 (after Hyper-V enlightenments) */
	uint32_t e1[4];			/* 0x80000001: ECX[23] PerfCtrExtCore, ECX[10] IBS */
	uint32_t e22[4];		/* 0x80000022: AMD PerfMonV2 */
	uint32_t emax;			/* 0x80000000 EAX */
	char dmi_vendor[64];		/* /sys/class/dmi/id/sys_vendor */
	char dmi_product[64];		/* /sys/class/dmi/id/product_name */
	char acpi_oem[7];		/* OEM ID of the ACPI DSDT (6 chars) */
};

/* Intel's architectural events, by CPUID 0AH EBX bit. */
enum vpmu_arch_event {
	VPMU_ARCH_CYCLES,
	VPMU_ARCH_INSTRUCTIONS,
	VPMU_ARCH_REF_CYCLES,
	VPMU_ARCH_LLC_REFERENCES,
	VPMU_ARCH_LLC_MISSES,
	VPMU_ARCH_BRANCHES,
	VPMU_ARCH_BRANCH_MISSES,
	VPMU_ARCH_TOPDOWN_SLOTS,
	VPMU_ARCH_N
};
extern const char *const vpmu_arch_event_names[VPMU_ARCH_N];

struct vpmu_caps {
	enum pmc_cpu_vendor vendor;
	bool hv_present;
	char hv_signature[13];
	const char *hv_name;		/* "KVM", "Xen", ...; "none"; "other" (static) */
	const char *vmm;		/* "QEMU", "Firecracker", ... or NULL (static) */
	int version;			/* Intel: CPUID 0AH EAX[7:0]; AMD: 1, 2 with PerfMonV2 */
	int n_gp, gp_width;
	int n_fixed, fixed_width;
	uint32_t arch_events;		/* Intel: bit i set = event i available */
	int n_arch_events;		/* length of the EBX bit vector */
	bool amd_core_ext;		/* PerfCtrExtCore: 6 core counters */
	bool amd_legacy_implied;	/* AMD, no leaf says anything: 4 legacy counters, if any */
	bool pebs;			/* Intel DS present: PEBS possible */
	bool lbr;			/* architectural LBR (Intel) / LbrStack (AMD) */
	bool ibs;			/* AMD instruction-based sampling */
};

/* Decode raw leaves.  Never fails; missing leaves decode as "nothing". */
void vpmu_decode(const struct vpmu_cpuid *in, struct vpmu_caps *out);

/* Does the decoded vPMU expose core counters at all? */
bool vpmu_has_counters(const struct vpmu_caps *c);

/* The probe's verdict from the caps and the perf_event_open(cycles)
 * attempt (env->hw_events / hw_errno / paranoid). */
void vpmu_decide(const struct vpmu_caps *c, bool hw_events, int hw_errno, int paranoid,
		 struct pmc_probe *out);

/* Can this vPMU count ev?  0, or -PMC_EBACKEND (not a hardware perf
 * event), -PMC_ENOTSUP with why (an architectural event CPUID marks
 * unavailable, precise sampling without PEBS/IBS, extra registers). */
int vpmu_event_check(const struct vpmu_caps *c, const struct pmc_event *ev, char *why,
		     size_t len);

/* Precise level asked for in an event spec ("...:precise=2" for libpfm4,
 * perf's trailing ":p"/":pp"/":ppp"), 0 if none. */
int vpmu_spec_precise(const char *spec);

/* After a trial run of a spin loop on the calling thread: every event must
 * have run on a counter, and the ones the loop surely causes (cycles,
 * instructions, branches, ref-cycles) must have counted.  0 or
 * -PMC_ENOPMU with why. */
int vpmu_validate(const struct vpmu_caps *c, const struct pmc_event *evs,
		  const struct pmc_count *counts, size_t n, char *why, size_t len);

#endif /* VPMU_H */
