/* kvm_vpmu: CPUID decoding against raw leaves of real machines, the
 * probe's verdicts, event checks, trial validation, and the real probe on
 * this machine through the core's loader. */
#include "config.h"

#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "backend/pmc.h"
#include "plugins/kvm_vpmu/vpmu.h"
#include "tests/harness.h"
#include "tests/unit/plugin_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Vendor and hypervisor signatures as the registers hold them. */
#define INTEL { 0x16, 0x756e6547, 0x6c65746e, 0x49656e69 }
#define AMD { 0x10, 0x68747541, 0x444d4163, 0x69746e65 }
#define SIG_KVM { 0x40000001, 0x4b4d564b, 0x564b4d56, 0x0000004d }
#define SIG_XEN { 0x40000005, 0x566e6558, 0x65584d4d, 0x4d4d566e }
#define SIG_VMW { 0x40000010, 0x61774d56, 0x4d566572, 0x65726177 }
#define SIG_HYV { 0x4000000b, 0x7263694d, 0x666f736f, 0x76482074 }
/* CPUID.1 of a Xeon guest (ECX[31] hypervisor; EDX[21] DS clear) and of
 * one whose host passes PEBS through (DS set). */
#define L1_GUEST { 0x00050657, 0x01020800, 0xfffa3203, 0x1f8bfbff }
#define L1_GUEST_DS { 0x000806f8, 0x01020800, 0xfffa3203, 0x1fabfbff }
#define L1_METAL { 0x00050657, 0x01020800, 0x7ffefbff, 0xbfebfbff }
#define L1_AMD_GUEST { 0x00a10f11, 0x00020800, 0xfef83203, 0x178bfbff }

static const char NO_VPMU[] =
	"KVM guest: the host exposes no virtual PMU (CPUID 0AH version 0 / no core counters); "
	"ask for a vPMU (e.g. QEMU -cpu host,pmu=on) or use cpu-clock/CPUTIME";

static const struct machine {
	int line;
	const char *what;
	struct vpmu_cpuid in;
	/* expected decode */
	enum pmc_cpu_vendor vendor;
	const char *hv_name, *vmm;
	int version, n_gp, gp_width, n_fixed, fixed_width;
	uint32_t arch_events;
	bool pebs, lbr;
	/* expected verdict with perf_event_open(cycles) succeeding / failing */
	bool hw_events;
	int hw_errno;
	bool usable;
	const char *reason;		/* exact, or NULL: "" */
} machines[] = {
	{ __LINE__, "Intel KVM guest, QEMU -cpu host,pmu=on: vPMU v2, 4x48 + 3 fixed",
	  { .l0 = INTEL, .l1 = L1_GUEST, .la = { 0x07300402, 0, 0, 0x00000603 }, .hv = SIG_KVM,
	    .emax = 0x80000008, .e1 = { 0, 0, 0x121, 0x2c100800 }, .dmi_vendor = "QEMU",
	    .dmi_product = "Standard PC (i440FX + PIIX, 1996)", .acpi_oem = "BOCHS " },
	  PMC_CPU_INTEL, "KVM", "QEMU", 2, 4, 48, 3, 48, 0x7f, false, false, true, 0, true, "" },
	{ __LINE__, "same guest, perf refused by paranoid",
	  { .l0 = INTEL, .l1 = L1_GUEST, .la = { 0x07300402, 0, 0, 0x00000603 }, .hv = SIG_KVM,
	    .dmi_vendor = "QEMU" },
	  PMC_CPU_INTEL, "KVM", "QEMU", 2, 4, 48, 3, 48, 0x7f, false, false, false, EACCES, false,
	  "KVM guest with a vPMU, but hardware events are refused (EACCES): "
	  "perf_event_paranoid is 3" },
	{ __LINE__, "Intel guest whose vPMU marks branch-misses unavailable (EBX bit 6)",
	  { .l0 = INTEL, .l1 = L1_GUEST, .la = { 0x07300402, 0x40, 0, 0x00000603 }, .hv = SIG_KVM,
	    .dmi_vendor = "QEMU" },
	  PMC_CPU_INTEL, "KVM", "QEMU", 2, 4, 48, 3, 48, 0x3f, false, false, true, 0, true, "" },
	{ __LINE__, "Sapphire Rapids KVM guest with PEBS and arch LBR: v5, 8x48 + 4 fixed",
	  { .l0 = { 0x20, 0x756e6547, 0x6c65746e, 0x49656e69 }, .l1 = L1_GUEST_DS,
	    .l7 = { 0, 0xf3bfbfbf, 0x1b417ffe, 0xbfdd4c18 },
	    .la = { 0x08300805, 0, 0xf, 0x00008604 }, .hv = SIG_KVM,
	    .dmi_vendor = "Cloud Hypervisor", .dmi_product = "cloud-hypervisor" },
	  PMC_CPU_INTEL, "KVM", "cloud-hypervisor", 5, 8, 48, 4, 48, 0xff, true, true, true, 0,
	  true, "" },
	{ __LINE__, "Firecracker guest, no vPMU (this machine)",
	  { .l0 = INTEL, .l1 = L1_GUEST, .hv = SIG_KVM, .emax = 0x80000008,
	    .e1 = { 0, 0, 0x121, 0x2c100800 }, .acpi_oem = "FIRECK" },
	  PMC_CPU_INTEL, "KVM", "Firecracker", 0, 0, 0, 0, 0, 0, false, false, false, ENOENT,
	  false, NO_VPMU },
	{ __LINE__, "KVM microVM without SMBIOS or readable ACPI, QEMU pmu=off",
	  { .l0 = INTEL, .l1 = L1_GUEST, .hv = SIG_KVM },
	  PMC_CPU_INTEL, "KVM", "a microVM without SMBIOS (Firecracker-like)", 0, 0, 0, 0, 0, 0,
	  false, false, false, ENOENT, false, NO_VPMU },
	{ __LINE__, "AMD Zen 4 KVM guest with PerfMonV2: 6 core counters",
	  { .l0 = AMD, .l1 = L1_AMD_GUEST, .hv = SIG_KVM, .emax = 0x80000028,
	    .e1 = { 0x00a10f11, 0, 0x00c001f3, 0x2fd3fbff }, .e22 = { 0x1, 0x6, 0, 0 },
	    .dmi_vendor = "QEMU" },
	  PMC_CPU_AMD, "KVM", "QEMU", 2, 6, 48, 0, 0, 0, false, false, true, 0, true, "" },
	{ __LINE__, "AMD KVM guest, PerfCtrExtCore only",
	  { .l0 = AMD, .l1 = L1_AMD_GUEST, .hv = SIG_KVM, .emax = 0x80000008,
	    .e1 = { 0, 0, 0x00c001f3, 0 }, .dmi_vendor = "QEMU" },
	  PMC_CPU_AMD, "KVM", "QEMU", 1, 6, 48, 0, 0, 0, false, false, true, 0, true, "" },
	{ __LINE__, "AMD KVM guest, enable_pmu=0 (KVM clears the leaves)",
	  { .l0 = AMD, .l1 = L1_AMD_GUEST, .hv = SIG_KVM, .emax = 0x80000028,
	    .e1 = { 0, 0, 0x004001f3, 0 }, .dmi_vendor = "QEMU" },
	  PMC_CPU_AMD, "KVM", "QEMU", 1, 4, 48, 0, 0, 0, false, false, false, ENOENT, false,
	  "KVM guest: the host exposes no virtual PMU (no PerfCtrExtCore/PerfMonV2 and "
	  "perf_event_open(cycles) fails); ask for a vPMU (e.g. QEMU -cpu host,pmu=on) or use "
	  "cpu-clock/CPUTIME" },
	{ __LINE__, "Xen HVM guest",
	  { .l0 = INTEL, .l1 = L1_GUEST, .la = { 0x07300403, 0, 0, 0x00000603 }, .hv = SIG_XEN },
	  PMC_CPU_INTEL, "Xen", NULL, 3, 4, 48, 3, 48, 0x7f, false, false, true, 0, false,
	  "not a KVM guest (hypervisor: Xen)" },
	{ __LINE__, "VMware guest with virtual PMCs",
	  { .l0 = INTEL, .l1 = L1_GUEST, .la = { 0x07300404, 0, 0, 0x00000603 }, .hv = SIG_VMW },
	  PMC_CPU_INTEL, "VMware", NULL, 4, 4, 48, 3, 48, 0x7f, false, false, true, 0, false,
	  "not a KVM guest (hypervisor: VMware)" },
	{ __LINE__, "Hyper-V guest",
	  { .l0 = INTEL, .l1 = L1_GUEST, .hv = SIG_HYV, .dmi_vendor = "Microsoft Corporation" },
	  PMC_CPU_INTEL, "Hyper-V", NULL, 0, 0, 0, 0, 0, 0, false, false, false, ENOENT, false,
	  "not a KVM guest (hypervisor: Hyper-V)" },
	{ __LINE__, "KVM with Hyper-V enlightenments: KVM's signature at 0x40000100",
	  { .l0 = INTEL, .l1 = L1_GUEST, .la = { 0x07300402, 0, 0, 0x00000603 }, .hv = SIG_HYV,
	    .hv100 = { 0x40000101, 0x4b4d564b, 0x564b4d56, 0x0000004d },
	    .dmi_vendor = "QEMU" },
	  PMC_CPU_INTEL, "KVM", "QEMU", 2, 4, 48, 3, 48, 0x7f, false, false, true, 0, true, "" },
	{ __LINE__, "bare metal",
	  { .l0 = INTEL, .l1 = L1_METAL, .la = { 0x07300404, 0, 0, 0x00000603 } },
	  PMC_CPU_INTEL, "none", NULL, 4, 4, 48, 3, 48, 0x7f, true, false, true, 0, false,
	  "not a KVM guest (no hypervisor: the perf_event backend applies)" },
};

static void test_machines(void)
{
	for (size_t i = 0; i < N(machines); i++) {
		const struct machine *t = &machines[i];
		struct vpmu_caps c;
		struct pmc_probe pr;

		vpmu_decode(&t->in, &c);
		T_OK(c.vendor == t->vendor && strcmp(c.hv_name, t->hv_name) == 0 &&
			     ((!c.vmm && !t->vmm) || (c.vmm && t->vmm && strcmp(c.vmm, t->vmm) == 0)) &&
			     c.version == t->version && c.n_gp == t->n_gp &&
			     c.gp_width == t->gp_width && c.n_fixed == t->n_fixed &&
			     c.fixed_width == t->fixed_width && c.arch_events == t->arch_events &&
			     c.pebs == t->pebs && c.lbr == t->lbr,
		     "decode at line %d (%s): %s/%s v%d %dx%d + %dx%d events %#x", t->line,
		     t->what, c.hv_name, c.vmm ? c.vmm : "-", c.version, c.n_gp, c.gp_width,
		     c.n_fixed, c.fixed_width, c.arch_events);
		vpmu_decide(&c, t->hw_events, t->hw_errno, 3, &pr);
		T_OK(pr.usable == t->usable && pr.hardware == t->usable &&
			     strcmp(pr.reason, t->reason) == 0,
		     "verdict at line %d: usable %d, reason '%s'", t->line, pr.usable, pr.reason);
	}
}

static struct pmc_event hw_event(uint32_t type, uint64_t config, const char *spec)
{
	struct pmc_event ev = hw_perf_event(type, config);

	strcpy(ev.spec, spec);
	strcpy(ev.name, spec);
	return ev;
}

static void test_event_checks(void)
{
	static const struct {
		int line;
		int machine;		/* index into machines[] */
		uint32_t type;
		uint64_t config, config1;
		const char *spec;
		int ret;
		const char *why;	/* substring */
	} cases[] = {
		{ __LINE__, 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles", 0, "" },
		{ __LINE__, 2, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, "branch-misses",
		  -PMC_ENOTSUP, "CPUID 0AH EBX bit 6" },
		{ __LINE__, 2, PERF_TYPE_RAW, 0x00c5, 0, "r00c5", -PMC_ENOTSUP, "EBX bit 6" },
		{ __LINE__, 2, PERF_TYPE_RAW, 0x100c5, 0, "r100c5:u", -PMC_ENOTSUP, "EBX bit 6" },
		/* With a counter mask it is another event, not the architectural one. */
		{ __LINE__, 2, PERF_TYPE_RAW, 0x010000c5, 0, "r010000c5", 0, "" },
		{ __LINE__, 2, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, "branches",
		  0, "" },
		{ __LINE__, 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles:pp",
		  -PMC_ENOTSUP, "PEBS" },
		{ __LINE__, 3, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles:pp", 0, "" },
		{ __LINE__, 6, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0,
		  "cycles:precise=1@100000", -PMC_ENOTSUP, "IBS" },
		{ __LINE__, 6, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, "branch-misses",
		  0, "" },
		{ __LINE__, 0, PERF_TYPE_RAW, 0x01b7, 0x3f803c0091ULL,
		  "skx::OFFCORE_RESPONSE_0:ANY_REQUEST", -PMC_ENOTSUP, "extra PMU registers" },
		{ __LINE__, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, "cpu-clock",
		  -PMC_EBACKEND, "" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct vpmu_caps c;
		struct pmc_event ev = hw_event(cases[i].type, cases[i].config, cases[i].spec);
		char why[256] = "";
		int ret;

		if (cases[i].type == PERF_TYPE_SOFTWARE)
			ev.hardware = false;
		ev.config1 = cases[i].config1;
		vpmu_decode(&machines[cases[i].machine].in, &c);
		ret = vpmu_event_check(&c, &ev, why, sizeof(why));
		T_OK(ret == cases[i].ret && strstr(why, cases[i].why),
		     "event check at line %d: %s -> %d '%s'", cases[i].line, cases[i].spec, ret, why);
	}

	/* An event past the EBX vector's length. */
	struct vpmu_cpuid short_vec = machines[0].in;
	struct vpmu_caps c;
	struct pmc_event ev = hw_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
				       "branches");
	char why[256] = "";
	short_vec.la[0] = 0x05300402;
	vpmu_decode(&short_vec, &c);
	T_OK(c.n_arch_events == 5 && vpmu_event_check(&c, &ev, why, sizeof(why)) == -PMC_ENOTSUP &&
		     strstr(why, "lists 5 events"),
	     "event check: branches beyond a 5-event EBX vector ('%s')", why);
}

static void test_spec_precise(void)
{
	static const struct {
		int line;
		const char *spec;
		int want;
	} cases[] = {
		{ __LINE__, "cycles", 0 },	     { __LINE__, "cycles:pp", 2 },
		{ __LINE__, "cycles:u:p@1000", 1 }, { __LINE__, "cycles@f999", 0 },
		{ __LINE__, "cycles:u", 0 },	     { __LINE__, "cycles:pppp", 0 },
		{ __LINE__, "INST_RETIRED:ANY_P:precise=3", 3 },
		{ __LINE__, "cycles@1000:pp", 0 },	/* after '@' is the period */
	};
	for (size_t i = 0; i < N(cases); i++)
		T_OK(vpmu_spec_precise(cases[i].spec) == cases[i].want,
		     "precise level at line %d: '%s'", cases[i].line, cases[i].spec);
}

static void test_validate(void)
{
	static const struct {
		int line;
		uint64_t config;
		uint64_t raw, running;
		int ret;
	} cases[] = {
		{ __LINE__, PERF_COUNT_HW_CPU_CYCLES, 123456, 5000, 0 },
		{ __LINE__, PERF_COUNT_HW_CPU_CYCLES, 0, 5000, -PMC_ENOPMU },
		{ __LINE__, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 5000, -PMC_ENOPMU },
		{ __LINE__, PERF_COUNT_HW_CACHE_MISSES, 0, 5000, 0 },	/* may be 0 in a loop */
		{ __LINE__, PERF_COUNT_HW_CACHE_MISSES, 7, 0, -PMC_ENOPMU },
	};
	struct vpmu_caps c;

	vpmu_decode(&machines[0].in, &c);
	for (size_t i = 0; i < N(cases); i++) {
		struct pmc_event ev = hw_event(PERF_TYPE_HARDWARE, cases[i].config, "e");
		struct pmc_count cnt = { .value = cases[i].raw, .raw = cases[i].raw,
					 .enabled = 5000, .running = cases[i].running };
		char why[256] = "";
		T_OK(vpmu_validate(&c, &ev, &cnt, 1, why, sizeof(why)) == cases[i].ret,
		     "trial validation at line %d ('%s')", cases[i].line, why);
	}
}

/* The real probe here, checked against the core's own reading of CPUID. */
static void test_real(void)
{
	struct pmc_env env;
	struct pmc_backend *be;
	const struct pmc_probe *pr;
	char err[256];

	pmc_env_probe(&env);
	if (pmc_backend_load("kvm_vpmu", &be, err, sizeof(err)) < 0) {
		T_SKIP("pmc-kvm_vpmu.so not loadable (%s): PMCPROF_PLUGIN_PATH unset?", err);
		return;
	}
	pr = pmc_backend_probe(be);
	if (strcmp(env.hv_name, "KVM") != 0) {
		T_OK(!pr->usable && strstr(pr->reason, "not a KVM guest"),
		     "real probe, not KVM (%s): '%s'", env.hv_name, pr->reason);
	} else if (env.cpu_vendor == PMC_CPU_INTEL && env.pmu_version == 0) {
		struct pmc_event ev;
		struct pmc_group *g;
		char msg[256];
		T_OK(!pr->usable && strcmp(pr->reason, NO_VPMU) == 0,
		     "real probe, KVM without vPMU: '%s' (detail: %s)", pr->reason, pr->detail);
		T_OK(pmc_event_parse("cycles", &ev, msg, sizeof(msg)) == 0 &&
			     pmc_group_open(be, &ev, 1, NULL, &g) == -PMC_ENOPMU,
		     "real open of cycles without a vPMU: -PMC_ENOPMU, nothing reported");
	} else {
		T_OK(pr->usable == env.hw_events,
		     "real probe, KVM with vPMU v%d: usable %d as perf says (%d): %s",
		     env.pmu_version, pr->usable, env.hw_events, pr->usable ? pr->detail : pr->reason);
	}
	pmc_backend_unload(be);
}

int main(void)
{
	test_machines();
	test_event_checks();
	test_spec_precise();
	test_validate();
	test_real();
	return T_DONE();
}
