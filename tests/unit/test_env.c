/* The environment probe's PMU decode (backend/env.c), against the raw
 * CPUID leaves of real machines and whether perf_event has a core PMU
 * (/sys/bus/event_source/devices/cpu).  Then the real probe on this
 * machine must agree with its own sysfs. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/internal.h"
#include "tests/harness.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Leaf 0 of each vendor: max basic leaf, then EBX, ECX, EDX as stored. */
#define INTEL(max) { max, 0x756e6547, 0x6c65746e, 0x49656e69 }
#define AMD(max) { max, 0x68747541, 0x444d4163, 0x69746e65 }
#define HYGON { 0xd, 0x6f677948, 0x656e6975, 0x6e65476e }

static const struct {
	int line;
	const char *what;
	struct env_cpuid in;
	bool cpu_pmu;		/* /sys/bus/event_source/devices/cpu exists */
	/* expected */
	enum pmc_cpu_vendor vendor;
	int version, n_gp, gp_width, n_fixed;
	const char *desc;	/* a substring of pmu_desc */
} cases[] = {
	{ __LINE__, "this machine: Intel Xeon KVM guest without vPMU (0AH all zero)",
	  { .l0 = INTEL(0x24), .emax = 0x80000008, .e1 = { 0, 0, 0x121, 0x2c100800 },
	    /* beyond emax: Intel answers with the highest basic leaf's data */
	    .e22 = { 0, 0x00070001, 0, 0 } },
	  false, PMC_CPU_INTEL, 0, 0, 0, 0, "no core counters (CPUID 0AH version 0)" },
	{ __LINE__, "Intel Skylake-SP bare metal: v4, 4 x 48 (8 with HT off), 3 fixed",
	  { .l0 = INTEL(0x16), .la = { 0x07300404, 0, 0, 0x00000603 }, .emax = 0x80000008 },
	  true, PMC_CPU_INTEL, 4, 4, 48, 3, "Intel architectural PMU version 4" },
	{ __LINE__, "Intel KVM guest, QEMU -cpu host,pmu=on: v2",
	  { .l0 = INTEL(0xd), .la = { 0x07300402, 0, 0, 0x00000603 }, .emax = 0x80000008 },
	  true, PMC_CPU_INTEL, 2, 4, 48, 3, "4 general counters x 48 bits, 3 fixed x 48 bits" },
	{ __LINE__, "Intel CPUID claims v2, but the kernel drives no core PMU",
	  { .l0 = INTEL(0xd), .la = { 0x07300402, 0, 0, 0x00000603 } },
	  false, PMC_CPU_INTEL, 0, 0, 0, 0,
	  "no core counters: perf_event has no CPU PMU (/sys/bus/event_source/devices/cpu "
	  "missing), though CPUID describes Intel architectural PMU version 2" },
	{ __LINE__, "AMD EPYC 9654 (Zen 4) bare metal: PerfMonV2, 6 counters",
	  { .l0 = AMD(0x10), .emax = 0x80000028, .e1 = { 0x00a10f11, 0, 0x75c237ff, 0x2fd3fbff },
	    .e22 = { 0x7, 0x00001106, 0, 0 } },
	  true, PMC_CPU_AMD, 2, 6, 48, 0, "AMD PerfMonV2 (CPUID 0x80000022): 6 core counters" },
	{ __LINE__, "AMD EPYC 7763 (Zen 3) bare metal: PerfCtrExtCore, no PerfMonV2",
	  { .l0 = AMD(0x10), .emax = 0x80000023, .e1 = { 0x00a00f11, 0, 0x75c237ff, 0x2fd3fbff } },
	  true, PMC_CPU_AMD, 1, 6, 48, 0, "AMD PerfCtrExtCore (CPUID 0x80000001 ECX[23]): 6 core" },
	{ __LINE__, "AMD KVM guest, vPMU with PerfCtrExtCore",
	  { .l0 = AMD(0x10), .emax = 0x80000008, .e1 = { 0, 0, 0x00c001f3, 0 } },
	  true, PMC_CPU_AMD, 1, 6, 48, 0, "PerfCtrExtCore" },
	{ __LINE__, "AMD KVM guest, enable_pmu=0: no ext leaves, no CPU PMU (the bug: "
		    "'version 1, 4 general counters')",
	  { .l0 = AMD(0x10), .emax = 0x80000028, .e1 = { 0, 0, 0x004001f3, 0 } },
	  false, PMC_CPU_AMD, 0, 0, 0, 0,
	  "no core counters: AMD CPU without PerfCtrExtCore or PerfMonV2 in CPUID, and "
	  "perf_event has no CPU PMU" },
	{ __LINE__, "QEMU 7.2 TCG -cpu max (AuthenticAMD), read in `pmcprof vm`'s guest",
	  { .l0 = AMD(0xd), .emax = 0x8000000a, .e1 = { 0x00060fb1, 0, 0x00000077, 0xedd3fbfd },
	    /* beyond emax, and its bit 0 is set: must not read as PerfMonV2 */
	    .e22 = { 0x0000021f, 0x00000a88, 0x00000a88, 0 } },
	  false, PMC_CPU_AMD, 0, 0, 0, 0, "AMD CPU without PerfCtrExtCore or PerfMonV2" },
	{ __LINE__, "AMD K10 (Opteron 6174) bare metal: the 4 legacy counters",
	  { .l0 = AMD(0x5), .emax = 0x8000001b, .e1 = { 0x00100f91, 0, 0x000837ff, 0xefd3fbff } },
	  true, PMC_CPU_AMD, 1, 4, 48, 0, "AMD legacy PMU: 4 core counters x 48 bits" },
	{ __LINE__, "AMD guest claiming PerfMonV2, no CPU PMU in the kernel",
	  { .l0 = AMD(0x10), .emax = 0x80000028, .e1 = { 0, 0, 0x00c001f3, 0 },
	    .e22 = { 0x1, 0x6, 0, 0 } },
	  false, PMC_CPU_AMD, 0, 0, 0, 0, "though CPUID describes AMD PerfMonV2" },
	{ __LINE__, "Hygon Dhyana: AMD's leaves, PerfCtrExtCore",
	  { .l0 = HYGON, .emax = 0x8000001f, .e1 = { 0, 0, 0x35c233ff, 0 } },
	  true, PMC_CPU_AMD, 1, 6, 48, 0, "PerfCtrExtCore" },
	{ __LINE__, "unknown vendor",
	  { .l0 = { 0x1, 0x746e6543, 0x736c7561, 0x48727561 } },
	  false, PMC_CPU_OTHER, 0, 0, 0, 0, "no core counters known (CPU vendor \"CentaurHauls\")" },
};

/* The layers of virtualization from raw facts (env_decode_layers). */
static const struct {
	int line;
	const char *what;
	struct env_virt in;
	/* expected */
	unsigned n_layers;
	const char *hv_name;
	const char *layers;	/* "NAME VERSION [KIND]" per layer, outermost first, " / " */
	const char *evidence;	/* a substring of the innermost layer's evidence */
	const char *vpmu;	/* a prefix of the innermost layer's vpmu, or NULL */
} layer_cases[] = {
	{ __LINE__, "a Firecracker KVM guest: KVM's signature, kvm-clock, no DMI",
	  { .hv_bit = true, .sig = "KVMKVMKVM", .sig_leaf = 0x40000000,
	    .sig_info = { 0x1007efb }, .cs_current = "tsc", .cs_available = "tsc kvm-clock" },
	  1, "KVM", "KVM [hardware virtualization]", "clocksource kvm-clock (available)", NULL },
	{ __LINE__, "a PVM guest: bhyve's signature, but the kernel runs KVM's clock",
	  { .hv_bit = true, .sig = "bhyve bhyve ", .sig_leaf = 0x40000000,
	    .cs_current = "kvm-clock", .cs_available = "kvm-clock tsc" },
	  1, "bhyve", "bhyve [KVM interfaces (kernel)]",
	  "but the kernel uses KVM's paravirtual clock (clocksource kvm-clock)", NULL },
	{ __LINE__, "Xen 4.17 PV dom0 under QEMU TCG (pmcprof vm --xen)",
	  { .hv_bit = true, .sig = "TCGTCGTCGTCG", .sig_leaf = 0x40000000, .sys_type = "xen",
	    .sys_guest = "PV", .sys_version = "4.17.7", .sys_pmu = "error: Operation not supported",
	    .xen_caps = "control_d", .proc_xen = true, .xen_sig = "XenVMMXenVMM",
	    .xen_version = 0x40011, .cs_current = "xen", .cs_available = "tsc xen",
	    .dmi_vendor = "QEMU", .dmi_product = "Standard PC (i440FX + PIIX, 1996)" },
	  2, "Xen", "QEMU-TCG [emulation] / Xen 4.17.7 [PV dom0]",
	  "forced-emulation CPUID 0x40000000 \"XenVMMXenVMM\", version 4.17", "off: disabled by Xen" },
	{ __LINE__, "a Xen HVM domU on hardware: Xen's own signature and version leaf",
	  { .hv_bit = true, .sig = "XenVMMXenVMM", .sig_leaf = 0x40000000, .sig_info = { 0x4000d },
	    .sys_type = "xen", .sys_guest = "HVM", .proc_xen = true, .dmi_vendor = "Xen",
	    .dmi_product = "HVM domU" },
	  1, "Xen", "Xen 4.13 [HVM domU]", "CPUID 0x40000000 \"XenVMMXenVMM\", version 4.13", NULL },
	{ __LINE__, "bare metal: no hypervisor bit, no /sys/hypervisor, a vendor's DMI",
	  { .cs_current = "tsc", .cs_available = "tsc hpet acpi_pm", .dmi_vendor = "Dell Inc.",
	    .dmi_product = "PowerEdge R650" },
	  0, "none", "", NULL, NULL },
	{ __LINE__, "a guest whose CPUID hides the hypervisor bit: QEMU's DMI",
	  { .cs_current = "tsc", .dmi_vendor = "QEMU", .dmi_product = "Standard PC (Q35 + ICH9, 2009)" },
	  1, "QEMU", "QEMU [virtual machine (DMI only)]", "though CPUID.1:ECX[31]", NULL },
	{ __LINE__, "CPUID hides the bit, no /sys/hypervisor, no DMI: the kernel's own flag",
	  { .cpuinfo_hv = true, .cs_current = "tsc" },
	  1, "other", "unknown [virtual machine (kernel flag only)]", "/proc/cpuinfo flag hypervisor",
	  NULL },
	{ __LINE__, "QEMU TCG guest (pmcprof vm's): TCG's signature, QEMU's DMI",
	  { .hv_bit = true, .sig = "TCGTCGTCGTCG", .sig_leaf = 0x40000000, .cs_current = "tsc",
	    .cs_available = "tsc acpi_pm", .dmi_vendor = "QEMU",
	    .dmi_product = "Standard PC (i440FX + PIIX, 1996)" },
	  1, "QEMU-TCG", "QEMU-TCG [emulation]", "DMI \"QEMU\"", NULL },
};

static void layers_line(const struct pmc_env *env, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < env->n_layers && n < len; i++) {
		const struct pmc_env_layer *l = &env->layers[i];
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s [%s]", i ? " / " : "", l->name,
				      l->version[0] ? " " : "", l->version, l->kind);
	}
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(void)
{
	for (size_t i = 0; i < N(cases); i++) {
		struct pmc_env env;

		memset(&env, 0x5a, sizeof(env));	/* every field must be set */
		env_decode_pmu(&cases[i].in, cases[i].cpu_pmu, &env);
		T_OK(env.cpu_vendor == cases[i].vendor && env.pmu_version == cases[i].version &&
			     env.n_gp == cases[i].n_gp && env.gp_width == cases[i].gp_width &&
			     env.n_fixed == cases[i].n_fixed && env.cpu_pmu == cases[i].cpu_pmu &&
			     strstr(env.pmu_desc, cases[i].desc) != NULL,
		     "line %d: %s: vendor %d, version %d, %d x %d bits, %d fixed: \"%s\"",
		     cases[i].line, cases[i].what, env.cpu_vendor, env.pmu_version, env.n_gp,
		     env.gp_width, env.n_fixed, env.pmu_desc);
		T_OK(!(env.n_gp > 0 && !env.cpu_pmu),
		     "line %d: no counters reported without a CPU PMU", cases[i].line);
	}

	for (size_t i = 0; i < N(layer_cases); i++) {
		struct pmc_env env;
		char got[512];
		const struct pmc_env_layer *in;

		memset(&env, 0x5a, sizeof(env));
		env_decode_layers(&layer_cases[i].in, &env);
		layers_line(&env, got, sizeof(got));
		in = env.n_layers ? &env.layers[env.n_layers - 1] : NULL;
		T_OK(env.n_layers == layer_cases[i].n_layers && !strcmp(got, layer_cases[i].layers) &&
			     !strcmp(env.hv_name, layer_cases[i].hv_name) &&
			     (!layer_cases[i].evidence || (in && strstr(in->evidence,
									layer_cases[i].evidence))) &&
			     (!layer_cases[i].vpmu || (in && !strncmp(in->vpmu, layer_cases[i].vpmu,
								      strlen(layer_cases[i].vpmu)))),
		     "line %d: %s: %u layers \"%s\", hv %s, evidence \"%s\", vpmu \"%s\"",
		     layer_cases[i].line, layer_cases[i].what, env.n_layers, got, env.hv_name,
		     in ? in->evidence : "", in ? in->vpmu : "");
	}

	/* The real probe: no counters claimed where the kernel has no core PMU. */
	struct pmc_env env;
	bool sys = is_dir("/sys/bus/event_source/devices/cpu") ||
		   is_dir("/sys/bus/event_source/devices/cpu_core");
#if defined(__aarch64__)
	/* arm64's core PMU: armv8_pmuv3 (armv8_pmuv3_0, ... with several) */
	sys = sys || is_dir("/sys/bus/event_source/devices/armv8_pmuv3") ||
	      is_dir("/sys/bus/event_source/devices/armv8_pmuv3_0");
#endif
	pmc_env_probe(&env);
	T_OK(env.cpu_pmu == sys && (sys || env.n_gp == 0) && env.pmu_desc[0],
	     "this machine: core PMU in sysfs %s, probe says \"%s\"", sys ? "yes" : "no",
	     env.pmu_desc);
	/* ... and no layer of virtualization missed: a hypervisor bit, a
	 * /sys/hypervisor or a Xen /proc makes at least one. */
	char hv[16] = "";
	FILE *f = fopen("/sys/hypervisor/type", "r");
	if (f) {
		if (!fgets(hv, sizeof(hv), f))
			hv[0] = 0;
		fclose(f);
	}
	unsigned a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "0"(1), "2"(0));
	bool virt = (c >> 31 & 1) || hv[0];
	char line[2048];
	T_OK(virt ? env.n_layers > 0 : true,
	     "this machine: %s, probe sees %u layer(s): %s", virt ? "a guest" : "no hypervisor bit",
	     env.n_layers, pmc_env_layers_str(&env, line, sizeof(line)));
	/* an older, shorter struct is filled only as far as its size */
	unsigned char buf[sizeof(struct pmc_env) + 16];
	memset(buf, 0xa5, sizeof(buf));
	pmc_env_probe_sz((struct pmc_env *)buf, offsetof(struct pmc_env, n_layers));
	bool kept = true;
	for (size_t i = offsetof(struct pmc_env, n_layers); i < sizeof(buf); i++)
		kept &= buf[i] == 0xa5;
	T_OK(kept, "pmc_env_probe_sz writes no byte beyond the size it is given");
	return T_DONE();
}
