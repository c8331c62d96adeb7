/* kvm_vpmu: decoding what a guest's vPMU offers, and judging events
 * against it.  Pure functions over raw CPUID leaves (Intel SDM vol. 2
 * "CPUID—Architectural Performance Monitoring Leaf"; AMD APM vol. 3
 * CPUID Fn8000_0001 and Fn8000_0022) and firmware strings. */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/kvm_vpmu/vpmu.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(v, b) (((v) >> (b)) & 1u)

const char *const vpmu_arch_event_names[VPMU_ARCH_N] = {
	"cycles", "instructions", "ref-cycles", "cache-references",
	"cache-misses", "branches", "branch-misses", "topdown-slots",
};

/* CPUID 0x40000000 signatures (EBX:ECX:EDX). */
static const struct {
	const char *signature;
	const char *name;
} hypervisors[] = {
	{ "KVMKVMKVM", "KVM" },	      { "Linux KVM Hv", "KVM" },   { "XenVMMXenVMM", "Xen" },
	{ "VMwareVMware", "VMware" }, { "Microsoft Hv", "Hyper-V" }, { "TCGTCGTCGTCG", "QEMU-TCG" },
	{ "VBoxVBoxVBox", "VirtualBox" }, { "bhyve bhyve ", "bhyve" }, { "ACRNACRNACRN", "ACRN" },
};

/* Which VMM runs a KVM guest, from its firmware: the ACPI OEM ID its
 * tables carry, SMBIOS system strings, or no SMBIOS at all. */
enum fw_field { FW_ACPI_OEM, FW_DMI_VENDOR, FW_DMI_PRODUCT, FW_NO_DMI };
static const struct {
	enum fw_field field;
	const char *prefix;
	const char *vmm;
} vmms[] = {
	{ FW_ACPI_OEM, "FIRECK", "Firecracker" },
	{ FW_ACPI_OEM, "CLOUDH", "cloud-hypervisor" },
	{ FW_DMI_VENDOR, "Cloud Hypervisor", "cloud-hypervisor" },
	{ FW_DMI_VENDOR, "QEMU", "QEMU" },
	{ FW_ACPI_OEM, "BOCHS", "QEMU" },
	{ FW_DMI_VENDOR, "Amazon EC2", "Amazon EC2 (Nitro)" },
	{ FW_DMI_PRODUCT, "Google Compute Engine", "Google Compute Engine" },
	{ FW_DMI_VENDOR, "Alibaba Cloud", "Alibaba Cloud" },
	{ FW_NO_DMI, "", "a microVM without SMBIOS (Firecracker-like)" },
};

static void signature(const uint32_t r[4], char sig[13])
{
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = '\0';
}

static const char *hv_lookup(const char *sig)
{
	for (size_t i = 0; i < N(hypervisors); i++)
		if (strcmp(sig, hypervisors[i].signature) == 0)
			return hypervisors[i].name;
	return NULL;
}

static const char *vmm_lookup(const struct vpmu_cpuid *in)
{
	for (size_t i = 0; i < N(vmms); i++) {
		const char *s = vmms[i].field == FW_ACPI_OEM	  ? in->acpi_oem
				: vmms[i].field == FW_DMI_VENDOR  ? in->dmi_vendor
				: vmms[i].field == FW_DMI_PRODUCT ? in->dmi_product
								  : NULL;
		if (!s) {
			if (!in->dmi_vendor[0] && !in->dmi_product[0])
				return vmms[i].vmm;
		} else if (s[0] && strncmp(s, vmms[i].prefix, strlen(vmms[i].prefix)) == 0) {
			return vmms[i].vmm;
		}
	}
	return NULL;
}

void vpmu_decode(const struct vpmu_cpuid *in, struct vpmu_caps *out)
{
	char vendor[13];

	memset(out, 0, sizeof(*out));
	memcpy(vendor, &in->l0[1], 4);
	memcpy(vendor + 4, &in->l0[3], 4);
	memcpy(vendor + 8, &in->l0[2], 4);
	vendor[12] = '\0';
	if (strcmp(vendor, "GenuineIntel") == 0)
		out->vendor = PMC_CPU_INTEL;
	else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0)
		out->vendor = PMC_CPU_AMD;

	out->hv_present = BIT(in->l1[2], 31);
	out->hv_name = "none";
	if (out->hv_present) {
		const char *name;
		signature(in->hv, out->hv_signature);
		name = hv_lookup(out->hv_signature);
		/* With Hyper-V enlightenments KVM moves to 0x40000100. */
		if (!name || strcmp(name, "Hyper-V") == 0) {
			char sig2[13];
			const char *name2;
			signature(in->hv100, sig2);
			name2 = hv_lookup(sig2);
			if (name2 && strcmp(name2, "Hyper-V") != 0) {
				name = name2;
				memcpy(out->hv_signature, sig2, sizeof(sig2));
			}
		}
		out->hv_name = name ? name : "other";
		if (strcmp(out->hv_name, "KVM") == 0)	/* the table knows KVM's VMMs */
			out->vmm = vmm_lookup(in);
	}

	if (out->vendor == PMC_CPU_INTEL && in->l0[0] >= 0xa) {
		const uint32_t *a = in->la;
		out->version = a[0] & 0xff;
		if (out->version > 0) {
			out->n_gp = (a[0] >> 8) & 0xff;
			out->gp_width = (a[0] >> 16) & 0xff;
			out->n_arch_events = a[0] >> 24;
			/* EBX: a set bit means the event is NOT available. */
			out->arch_events = ~a[1] & (out->n_arch_events >= 32
							    ? ~0u
							    : (1u << out->n_arch_events) - 1);
			if (out->version > 1) {
				out->n_fixed = a[3] & 0x1f;
				out->fixed_width = (a[3] >> 5) & 0xff;
			}
			out->pebs = BIT(in->l1[3], 21);		/* DS */
		}
		out->lbr = in->l0[0] >= 7 && BIT(in->l7[3], 19);
	} else if (out->vendor == PMC_CPU_AMD && in->emax >= 0x80000001) {
		out->amd_core_ext = BIT(in->e1[2], 23);
		out->ibs = BIT(in->e1[2], 10);
		out->gp_width = 48;
		out->version = 1;
		if (in->emax >= 0x80000022 && BIT(in->e22[0], 0)) {
			out->version = 2;
			out->n_gp = in->e22[1] & 0xf;
			out->lbr = BIT(in->e22[0], 1);
		} else if (out->amd_core_ext) {
			out->n_gp = 6;
		} else {
			/* K7-style counters exist architecturally; only
			 * perf_event_open can tell whether KVM backs them. */
			out->n_gp = 4;
			out->amd_legacy_implied = true;
		}
	}
}

bool vpmu_has_counters(const struct vpmu_caps *c)
{
	if (c->vendor == PMC_CPU_INTEL)
		return c->version > 0 && (c->n_gp > 0 || c->n_fixed > 0);
	if (c->vendor == PMC_CPU_AMD)
		return c->n_gp > 0;
	return false;
}

static void describe(const struct vpmu_caps *c, char *buf, size_t len)
{
	size_t off;

	off = snprintf(buf, len, "VMM %s; ", c->vmm ? c->vmm : "unknown");
	if (off >= len)
		return;
	if (c->vendor == PMC_CPU_INTEL) {
		off += snprintf(buf + off, len - off,
				"CPUID 0AH: version %d, %d general x %d bits, %d fixed x %d bits",
				c->version, c->n_gp, c->gp_width, c->n_fixed, c->fixed_width);
		if (c->version > 0 && off < len) {
			off += snprintf(buf + off, len - off, "; events:");
			for (int i = 0; i < VPMU_ARCH_N && off < len; i++)
				if (c->arch_events & (1u << i))
					off += snprintf(buf + off, len - off, " %s",
							vpmu_arch_event_names[i]);
		}
	} else if (c->vendor == PMC_CPU_AMD) {
		off += snprintf(buf + off, len - off, "AMD %s: %d core counters x 48 bits",
				c->version == 2	   ? "PerfMonV2"
				: c->amd_core_ext ? "PerfCtrExtCore"
						  : "legacy (implied)",
				c->n_gp);
	} else {
		off += snprintf(buf + off, len - off, "unknown CPU vendor");
	}
	if (off < len)
		snprintf(buf + off, len - off, "; precise: %s; LBR: %s",
			 c->vendor == PMC_CPU_AMD ? (c->ibs ? "IBS" : "no") : (c->pebs ? "PEBS" : "no"),
			 c->lbr ? "yes" : "no");
}

void vpmu_decide(const struct vpmu_caps *c, bool hw_events, int hw_errno, int paranoid,
		 struct pmc_probe *out)
{
	memset(out, 0, sizeof(*out));
	if (!c->hv_present || strcmp(c->hv_name, "KVM") != 0) {
		if (c->hv_present)
			snprintf(out->reason, sizeof(out->reason),
				 "not a KVM guest (hypervisor: %s)", c->hv_name);
		else
			snprintf(out->reason, sizeof(out->reason),
				 "not a KVM guest (no hypervisor: the perf_event backend applies)");
		return;
	}
	describe(c, out->detail, sizeof(out->detail));
	if (!vpmu_has_counters(c) || (c->amd_legacy_implied && !hw_events)) {
		snprintf(out->reason, sizeof(out->reason),
			 "KVM guest: the host exposes no virtual PMU (%s); ask for a vPMU (e.g. "
			 "QEMU -cpu host,pmu=on) or use cpu-clock/CPUTIME",
			 c->vendor == PMC_CPU_AMD ? "no PerfCtrExtCore/PerfMonV2 and "
						    "perf_event_open(cycles) fails"
						  : "CPUID 0AH version 0 / no core counters");
		return;
	}
	if (!hw_events) {
		const char *name = strerrorname_np(hw_errno);
		if (hw_errno == EACCES || hw_errno == EPERM)
			snprintf(out->reason, sizeof(out->reason),
				 "KVM guest with a vPMU, but hardware events are refused (%s): "
				 "perf_event_paranoid is %d",
				 name ? name : "?", paranoid);
		else
			snprintf(out->reason, sizeof(out->reason),
				 "KVM guest with a vPMU in CPUID, but perf_event_open(cycles) fails "
				 "with %s: the guest kernel does not drive it",
				 name ? name : "an unknown error");
		return;
	}
	out->usable = true;
	out->hardware = true;
	out->sampling = true;
}

/* Encodings (umask << 8 | event) that are Intel architectural events. */
static const struct {
	uint16_t code;
	enum vpmu_arch_event ev;
} intel_raw[] = {
	{ 0x003c, VPMU_ARCH_CYCLES },	    { 0x00c0, VPMU_ARCH_INSTRUCTIONS },
	{ 0x013c, VPMU_ARCH_REF_CYCLES },   { 0x4f2e, VPMU_ARCH_LLC_REFERENCES },
	{ 0x412e, VPMU_ARCH_LLC_MISSES },   { 0x00c4, VPMU_ARCH_BRANCHES },
	{ 0x00c5, VPMU_ARCH_BRANCH_MISSES }, { 0x01a4, VPMU_ARCH_TOPDOWN_SLOTS },
};

/* The same events as AMD encodes them (only those a loop must cause). */
static const struct {
	uint16_t code;
	enum vpmu_arch_event ev;
} amd_raw[] = {
	{ 0x0076, VPMU_ARCH_CYCLES },
	{ 0x00c0, VPMU_ARCH_INSTRUCTIONS },
	{ 0x00c2, VPMU_ARCH_BRANCHES },
};

static const struct {
	uint64_t config;
	enum vpmu_arch_event ev;
} generic[] = {
	{ PERF_COUNT_HW_CPU_CYCLES, VPMU_ARCH_CYCLES },
	{ PERF_COUNT_HW_INSTRUCTIONS, VPMU_ARCH_INSTRUCTIONS },
	{ PERF_COUNT_HW_REF_CPU_CYCLES, VPMU_ARCH_REF_CYCLES },
	{ PERF_COUNT_HW_BUS_CYCLES, VPMU_ARCH_REF_CYCLES },	/* Linux: 0x013c on Intel */
	{ PERF_COUNT_HW_CACHE_REFERENCES, VPMU_ARCH_LLC_REFERENCES },
	{ PERF_COUNT_HW_CACHE_MISSES, VPMU_ARCH_LLC_MISSES },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS, VPMU_ARCH_BRANCHES },
	{ PERF_COUNT_HW_BRANCH_MISSES, VPMU_ARCH_BRANCH_MISSES },
};

/* The architectural event ev is, or -1. */
static int arch_index(const struct pmc_event *ev, enum pmc_cpu_vendor vendor)
{
	if (ev->type == PERF_TYPE_HARDWARE) {
		for (size_t i = 0; i < N(generic); i++)
			if (generic[i].config == ev->config)
				return generic[i].ev;
	} else if (ev->type == PERF_TYPE_RAW) {
		/* Only plain encodings: cmask/inv/edge make them other events. */
		if (ev->config & ~(uint64_t)0x3ffff)
			return -1;
		if (vendor == PMC_CPU_INTEL) {
			for (size_t i = 0; i < N(intel_raw); i++)
				if (intel_raw[i].code == (ev->config & 0xffff))
					return intel_raw[i].ev;
		} else if (vendor == PMC_CPU_AMD) {
			for (size_t i = 0; i < N(amd_raw); i++)
				if (amd_raw[i].code == (ev->config & 0xffff))
					return amd_raw[i].ev;
		}
	}
	return -1;
}

int vpmu_spec_precise(const char *spec)
{
	const char *p = strchr(spec, ':');
	size_t end = strcspn(spec, "@");

	while (p && (size_t)(p - spec) < end) {
		const char *tok = p + 1;
		size_t len = strcspn(tok, ":@");
		size_t np = strspn(tok, "p");

		if (len > 8 && strncmp(tok, "precise=", 8) == 0)
			return atoi(tok + 8);
		if (np == len && len >= 1 && len <= 3)
			return (int)len;
		p = strchr(tok, ':');
	}
	return 0;
}

/* Why this vPMU cannot sample precisely (the rest of the sentence), or
 * NULL when it can: PEBS on Intel, IBS on AMD. */
static const char *imprecise(const struct vpmu_caps *c)
{
	if (c->vendor == PMC_CPU_INTEL)
		return c->pebs ? NULL
			       : ", which needs PEBS: this vPMU does not expose it "
				 "(CPUID.1:EDX.DS = 0)";
	if (c->vendor == PMC_CPU_AMD)
		return c->ibs ? NULL
			      : ", which needs IBS: this guest has none "
				"(CPUID 0x80000001 ECX.IBS = 0)";
	return " on an unknown CPU";
}

int vpmu_event_check(const struct vpmu_caps *c, const struct pmc_event *ev, char *why,
		     size_t len)
{
	const char *no;
	int idx, precise;

	if (ev->kind != PMC_KIND_PERF || !ev->hardware)
		return -PMC_EBACKEND;
	if (ev->config1 || ev->config2) {
		snprintf(why, len,
			 "%s needs extra PMU registers (offcore response, load latency), which "
			 "KVM's vPMU does not virtualize",
			 ev->name);
		return -PMC_ENOTSUP;
	}
	precise = vpmu_spec_precise(ev->spec);
	if (precise > 0 && (no = imprecise(c))) {
		snprintf(why, len, "%s asks for precise sampling%s", ev->name, no);
		return -PMC_ENOTSUP;
	}
	idx = arch_index(ev, c->vendor);
	if (c->vendor == PMC_CPU_INTEL && idx >= 0 &&
	    (idx >= c->n_arch_events || !(c->arch_events & (1u << idx)))) {
		if (idx >= c->n_arch_events)
			snprintf(why, len,
				 "architectural event %s is not offered here (CPUID 0AH lists %d "
				 "events; it is number %d)",
				 vpmu_arch_event_names[idx], c->n_arch_events, idx);
		else
			snprintf(why, len,
				 "architectural event %s is marked unavailable (CPUID 0AH EBX bit %d)",
				 vpmu_arch_event_names[idx], idx);
		return -PMC_ENOTSUP;
	}
	return 0;
}

int vpmu_validate(const struct vpmu_caps *c, const struct pmc_event *evs,
		  const struct pmc_count *counts, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		int idx = arch_index(&evs[i], c->vendor);
		bool must = idx == VPMU_ARCH_CYCLES || idx == VPMU_ARCH_INSTRUCTIONS ||
			    idx == VPMU_ARCH_REF_CYCLES || idx == VPMU_ARCH_BRANCHES;

		if (counts[i].running == 0) {
			snprintf(why, len,
				 "%s never got a counter in a trial run: the vPMU accepts it but does "
				 "not count it",
				 evs[i].name);
			return -PMC_ENOPMU;
		}
		if (must && counts[i].raw == 0) {
			snprintf(why, len,
				 "%s counted nothing in a trial loop that must cause it: the vPMU "
				 "does not really count",
				 evs[i].name);
			return -PMC_ENOPMU;
		}
	}
	return 0;
}
