/* The environment probe: hypervisor, architectural PMU, kernel settings. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backend/internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* CPUID 0x40000000 vendor signatures (EBX:ECX:EDX). */
static const struct {
	const char *signature;
	const char *name;
} hypervisors[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Linux KVM Hv", "KVM" },	/* KVM's Hyper-V enlightenments */
	{ "XenVMMXenVMM", "Xen" },
	{ "VMwareVMware", "VMware" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "TCGTCGTCGTCG", "QEMU-TCG" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ " lrpepyh  vr", "Parallels" },
	{ "bhyve bhyve ", "bhyve" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "QNXQVMBSQG", "QNX" },
	{ "EVMMEVMMEVMM", "Intel-EVMM" },
};

static void cpuid(unsigned leaf, unsigned sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static const char *hv_lookup(const char *sig)
{
	for (size_t i = 0; i < sizeof(hypervisors) / sizeof(hypervisors[0]); i++)
		if (strcmp(sig, hypervisors[i].signature) == 0)
			return hypervisors[i].name;
	return NULL;
}

static void sig_of(const uint32_t r[4], char sig[13])
{
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = '\0';
	/* a signature is printable; anything else is no signature */
	for (int i = 0; i < 12 && sig[i]; i++)
		if (sig[i] < ' ' || sig[i] > '~')
			sig[0] = '\0';
}

/* Xen's forced-emulation prefix: a PV guest's plain CPUID is not seen by
 * Xen (it reaches the CPU, or the emulator below Xen), but "ud2; 'xen';
 * cpuid" traps to Xen, which answers with its own leaves.  Anywhere but
 * a Xen PV guest it is an invalid opcode (SIGILL): callers must know. */
static void xen_cpuid(unsigned leaf, uint32_t r[4])
{
	__asm__ volatile("ud2; .ascii \"xen\"; cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "0"(leaf), "2"(0));
}

/* One line of a small file into buf; 0 or -errno (then buf is ""). */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int e = 0;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		e = ferror(f) ? -(errno ? errno : EIO) : 0;
		buf[0] = '\0';	/* indeterminate after an error */
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return e;
}


static bool has_word(const char *list, const char *word);

/* The kernel's own "hypervisor" flag (the first "flags" line). */
static void cpuinfo_flag(struct env_virt *v)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			line[strcspn(line, "\n")] = '\0';
			const char *colon = strchr(line, ':');
			v->cpuinfo_hv = colon && has_word(colon + 1, "hypervisor");
			break;
		}
	fclose(f);
}

static void probe_virt(struct env_virt *v)
{
	uint32_t r[4];
	char major[8], minor[8], extra[16];

	memset(v, 0, sizeof(*v));
	cpuid(1, 0, r);
	v->hv_bit = r[2] & (1u << 31);
	if (v->hv_bit) {
		char first[13];
		const char *name;

		v->sig_leaf = 0x40000000;
		cpuid(v->sig_leaf, 0, r);
		sig_of(r, v->sig);
		name = hv_lookup(v->sig);
		/* With Hyper-V enlightenments, KVM and Xen move to 0x40000100. */
		if (!name || !strcmp(name, "Hyper-V")) {
			memcpy(first, v->sig, sizeof(first));
			cpuid(0x40000100, 0, r);
			sig_of(r, v->sig);
			name = hv_lookup(v->sig);
			if (name && strcmp(name, "Hyper-V"))
				v->sig_leaf = 0x40000100;
			else
				memcpy(v->sig, first, sizeof(first));
		}
		cpuid(v->sig_leaf + 1, 0, v->sig_info);
	}
	read_line("/sys/hypervisor/type", v->sys_type, sizeof(v->sys_type));
	read_line("/sys/hypervisor/guest_type", v->sys_guest, sizeof(v->sys_guest));
	if (read_line("/sys/hypervisor/version/major", major, sizeof(major)) == 0 &&
	    read_line("/sys/hypervisor/version/minor", minor, sizeof(minor)) == 0) {
		read_line("/sys/hypervisor/version/extra", extra, sizeof(extra));
		pmc_fmt(v->sys_version, sizeof(v->sys_version), "%s.%s%s", major, minor, extra);
	}
	if (env_is_dir("/sys/hypervisor/pmu")) {
		int e = read_line("/sys/hypervisor/pmu/pmu_mode", v->sys_pmu, sizeof(v->sys_pmu));
		if (e)
			pmc_fmt(v->sys_pmu, sizeof(v->sys_pmu), "error: %s", strerror(-e));
	}
	read_line("/sys/hypervisor/properties/features", v->xen_features, sizeof(v->xen_features));
	v->proc_xen = env_is_dir("/proc/xen");
	read_line("/proc/xen/capabilities", v->xen_caps, sizeof(v->xen_caps));
	/* Only a Xen PV guest may use the forced-emulation CPUID (anywhere
	 * else it faults, and this runs inside the profiled program). */
	if (!strcmp(v->sys_type, "xen") &&
	    (!strcmp(v->sys_guest, "PV") || (!v->sys_guest[0] && strcmp(v->sig, "XenVMMXenVMM")))) {
		for (unsigned leaf = 0x40000000; leaf <= 0x40000200; leaf += 0x100) {
			xen_cpuid(leaf, r);
			sig_of(r, v->xen_sig);
			if (!strcmp(v->xen_sig, "XenVMMXenVMM")) {
				xen_cpuid(leaf + 1, r);
				v->xen_version = r[0];
				break;
			}
		}
	}
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  v->cs_current, sizeof(v->cs_current));
	read_line("/sys/devices/system/clocksource/clocksource0/available_clocksource",
		  v->cs_available, sizeof(v->cs_available));
	cpuinfo_flag(v);
	read_line("/sys/class/dmi/id/sys_vendor", v->dmi_vendor, sizeof(v->dmi_vendor));
	read_line("/sys/class/dmi/id/product_name", v->dmi_product, sizeof(v->dmi_product));
}

/* A fact as this machine shows it (a clocksource, a DMI vendor) and the
 * virtualization it names. */
struct sign {
	const char *fact;
	const char *name;
};

/* Clocksources that are a hypervisor's paravirtual interface: a kernel
 * that offers one was told by that hypervisor's own protocol (MSRs,
 * shared pages) that it is there. */
static const struct sign pv_clocks[] = {
	{ "kvm-clock", "KVM" },
	{ "xen", "Xen" },
	{ "hyperv_clocksource_tsc_page", "Hyper-V" },
	{ "hyperv_clocksource_msr", "Hyper-V" },
};

/* DMI vendors of virtual machines, for a guest whose CPUID hides the
 * hypervisor bit. */
static const struct sign dmi_vms[] = {
	{ "QEMU", "QEMU" },
	{ "Xen", "Xen" },
	{ "VMware, Inc.", "VMware" },
	{ "innotek GmbH", "VirtualBox" },
	{ "Microsoft Corporation", "Hyper-V" },
	{ "Amazon EC2", "KVM" },
	{ "Google", "KVM" },
	{ "BHYVE", "bhyve" },
	{ "Parallels Software International Inc.", "Parallels" },
};

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* Append "; fmt" to a layer's evidence. */
static void cite(struct pmc_env_layer *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cite(struct pmc_env_layer *l, const char *fmt, ...)
{
	size_t n = strlen(l->evidence);
	va_list ap;

	if (n + 3 >= sizeof(l->evidence))
		return;
	if (n) {
		memcpy(l->evidence + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(l->evidence + n, sizeof(l->evidence) - n, fmt, ap);
	va_end(ap);
}

static struct pmc_env_layer *add_layer(struct pmc_env *env, const char *name, const char *kind)
{
	struct pmc_env_layer *l;

	if (env->n_layers >= sizeof(env->layers) / sizeof(env->layers[0]))
		return NULL;
	l = &env->layers[env->n_layers++];
	memset(l, 0, sizeof(*l));
	pmc_fmt(l->name, sizeof(l->name), "%s", name);
	pmc_fmt(l->kind, sizeof(l->kind), "%s", kind);
	return l;
}

/* The clocksource and DMI facts, cited on the layer they describe. */
static void cite_platform(const struct env_virt *in, struct pmc_env_layer *l, const char *name)
{
	for (size_t i = 0; i < sizeof(pv_clocks) / sizeof(pv_clocks[0]); i++)
		if (has_word(in->cs_available, pv_clocks[i].fact) &&
		    !strcmp(pv_clocks[i].name, name))
			cite(l, "clocksource %s (%s)", pv_clocks[i].fact,
			     strcmp(in->cs_current, pv_clocks[i].fact) ? "available" : "current");
	if (in->dmi_vendor[0])
		cite(l, "DMI \"%s\" \"%s\"", in->dmi_vendor, in->dmi_product);
	else
		cite(l, "no DMI (/sys/class/dmi/id absent)");
}

/* The kernel speaks another hypervisor's protocol than the signature
 * names (a PVM or bhyve host serving KVM's clock): say both. */
static void cite_other_clock(const struct env_virt *in, struct pmc_env_layer *l, const char *name)
{
	for (size_t i = 0; i < sizeof(pv_clocks) / sizeof(pv_clocks[0]); i++)
		if (has_word(in->cs_available, pv_clocks[i].fact) &&
		    (!name || strcmp(pv_clocks[i].name, name))) {
			cite(l, "but the kernel uses %s's paravirtual clock (clocksource "
			     "%s): the hypervisor speaks %s's interface, whatever "
			     "its CPUID signature says", pv_clocks[i].name,
			     pv_clocks[i].fact, pv_clocks[i].name);
			pmc_fmt(l->kind, sizeof(l->kind), "%s interfaces (kernel)",
				pv_clocks[i].name);
		}
}

/* The layer the plain CPUID names.  In a Xen PV guest that is not Xen but
 * what Xen itself runs on: an outer layer. */
static void layer_cpuid(const struct env_virt *in, struct pmc_env *env, bool xen)
{
	const char *name = in->sig[0] ? hv_lookup(in->sig) : NULL;
	bool tcg = name && !strcmp(name, "QEMU-TCG");
	struct pmc_env_layer *l = add_layer(env, name ? name : "unknown",
					    tcg ? "emulation" : xen ? "virtual machine below Xen"
					    : "hardware virtualization");

	if (in->sig[0])
		cite(l, "CPUID 0x%x \"%s\"%s", in->sig_leaf, in->sig,
		     xen ? " (a Xen PV guest's plain CPUID: what Xen runs on)" : "");
	else
		cite(l, "CPUID.1:ECX[31] (hypervisor bit) set, no signature at 0x40000000");
	if (name && !strcmp(name, "KVM"))
		cite(l, "CPUID 0x%x EAX 0x%x (KVM features%s)", in->sig_leaf + 1, in->sig_info[0],
		     in->sig_info[0] & (1u << 3 | 1u << 0) ? ": kvm-clock" : "");
	if (!xen) {
		cite_platform(in, l, name ? name : "");
		cite_other_clock(in, l, name);
	} else if (in->dmi_vendor[0]) {
		cite(l, "DMI \"%s\" \"%s\"", in->dmi_vendor, in->dmi_product);
	}
	env->hv_name = name ? name : "other";
	pmc_fmt(env->hv_signature, sizeof(env->hv_signature), "%s", in->sig);
}

/* What a Xen layer's own interfaces say of it, on l. */
static void cite_xen(const struct env_virt *in, struct pmc_env_layer *l, bool plain_xen,
		     const char *ver)
{
	cite(l, "/sys/hypervisor/type %s", in->sys_type[0] ? in->sys_type : "absent");
	if (in->sys_guest[0])
		cite(l, "guest_type %s", in->sys_guest);
	if (in->sys_version[0])
		cite(l, "version %s", in->sys_version);
	if (in->xen_features[0])
		cite(l, "/sys/hypervisor/properties/features %s", in->xen_features);
	if (in->xen_caps[0])
		cite(l, "/proc/xen/capabilities \"%s\"", in->xen_caps);
	else if (in->proc_xen)
		cite(l, "/proc/xen (xenfs not mounted)");
	if (in->xen_sig[0])
		cite(l, "forced-emulation CPUID 0x40000000 \"%s\"%s%s", in->xen_sig,
		     ver[0] ? ", version " : "", ver);
	else if (plain_xen)
		cite(l, "CPUID 0x%x \"%s\"%s%s", in->sig_leaf, in->sig, ver[0] ? ", version " : "",
		     ver);
	cite_platform(in, l, "Xen");
}

/* The Xen layer: version, PV or HVM, dom0 or domU, its vPMU mode. */
static void layer_xen(const struct env_virt *in, struct pmc_env *env, bool plain_xen)
{
	char ver[24] = "";
	bool dom0 = strstr(in->xen_caps, "control_d") != NULL;
	const char *guest = in->sys_guest[0] ? in->sys_guest : plain_xen ? "HVM" : "PV";
	struct pmc_env_layer *l;

	if (in->xen_version)
		pmc_fmt(ver, sizeof(ver), "%u.%u", in->xen_version >> 16, in->xen_version & 0xffff);
	else if (plain_xen && in->sig_info[0])
		pmc_fmt(ver, sizeof(ver), "%u.%u", in->sig_info[0] >> 16, in->sig_info[0] & 0xffff);
	l = add_layer(env, "Xen", "");
	if (!l)
		return;
	pmc_fmt(l->version, sizeof(l->version), "%s", in->sys_version[0] ? in->sys_version : ver);
	pmc_fmt(l->kind, sizeof(l->kind), "%s %s", guest,
		dom0 ? "dom0" : in->xen_caps[0] || in->proc_xen ? "domU" : "guest");
	cite_xen(in, l, plain_xen, ver);
	if (!strncmp(in->sys_pmu, "error: ", 7))
		pmc_fmt(l->vpmu, sizeof(l->vpmu), "off: disabled by Xen "
			"(pmu_mode: %s; Xen boots with vpmu=off)", in->sys_pmu + 7);
	else if (in->sys_pmu[0])
		pmc_fmt(l->vpmu, sizeof(l->vpmu), "%s (/sys/hypervisor/pmu/pmu_mode)", in->sys_pmu);
	env->hv_name = "Xen";
	pmc_fmt(env->hv_signature, sizeof(env->hv_signature), "%s",
		in->xen_sig[0] ? in->xen_sig : in->sig);
}

/* No hypervisor bit and no Xen: a virtual machine only the kernel's flag
 * or the firmware (DMI) gives away, if any. */
static void layer_hidden(const struct env_virt *in, struct pmc_env *env)
{
	struct pmc_env_layer *l;

	if (in->cpuinfo_hv && !in->dmi_vendor[0]) {
		l = add_layer(env, "unknown", "virtual machine (kernel flag only)");
		cite(l, "/proc/cpuinfo flag hypervisor, though CPUID.1:ECX[31] is clear and there "
		     "is no /sys/hypervisor or DMI");
		env->hv_present = true;
		env->hv_name = "other";
		return;
	}
	if (!in->dmi_vendor[0])
		return;
	for (size_t i = 0; i < sizeof(dmi_vms) / sizeof(dmi_vms[0]); i++)
		if (!strcmp(in->dmi_vendor, dmi_vms[i].fact) &&
		    (strcmp(dmi_vms[i].fact, "Microsoft Corporation") ||
		     strstr(in->dmi_product, "Virtual Machine"))) {
			l = add_layer(env, dmi_vms[i].name, "virtual machine (DMI only)");
			cite(l, "DMI \"%s\" \"%s\", though CPUID.1:ECX[31] (hypervisor bit) is clear",
			     in->dmi_vendor, in->dmi_product);
			env->hv_present = true;
			env->hv_name = dmi_vms[i].name;
			return;
		}
}

void env_decode_layers(const struct env_virt *in, struct pmc_env *env)
{
	bool xen = !strcmp(in->sys_type, "xen") || in->xen_caps[0];
	bool plain_xen = !strcmp(in->sig, "XenVMMXenVMM");

	env->n_layers = 0;
	pmc_fmt(env->clocksource, sizeof(env->clocksource), "%s", in->cs_current);
	env->dmi[0] = '\0';
	if (in->dmi_vendor[0])
		pmc_fmt(env->dmi, sizeof(env->dmi), "%s %s", in->dmi_vendor, in->dmi_product);
	pmc_fmt(env->sys_hypervisor, sizeof(env->sys_hypervisor), "%s", in->sys_type);
	env->hv_present = in->hv_bit || xen;
	env->hv_name = "none";
	env->hv_signature[0] = '\0';

	if (in->hv_bit && !(xen && plain_xen))
		layer_cpuid(in, env, xen);
	if (xen) {
		layer_xen(in, env, plain_xen);
		return;
	}
	if (env->n_layers && in->cpuinfo_hv)
		cite(&env->layers[env->n_layers - 1], "/proc/cpuinfo flag hypervisor");
	if (!env->n_layers)
		layer_hidden(in, env);
}

static void probe_hypervisor(struct pmc_env *env)
{
	struct env_virt v;

	probe_virt(&v);
	env_decode_layers(&v, env);
}

#endif

/* Intel's architectural PMU, from CPUID 0AH. */
static void decode_intel(const struct env_cpuid *in, struct pmc_env *env)
{
	const uint32_t *r = in->la;

	if (in->l0[0] < 0xa || !(r[0] & 0xff)) {
		pmc_fmt(env->pmu_desc, sizeof(env->pmu_desc),
			"no core counters (CPUID 0AH version 0)");
		return;
	}
	env->pmu_version = r[0] & 0xff;
	env->n_gp = (r[0] >> 8) & 0xff;
	env->gp_width = (r[0] >> 16) & 0xff;
	env->n_arch_events = (r[0] >> 24) & 0xff;
	/* EBX: a set bit means the event is NOT available. */
	env->arch_events = ~r[1] & (env->n_arch_events >= 32 ? ~0u
					: (1u << env->n_arch_events) - 1);
	if (env->pmu_version > 1) {
		env->n_fixed = r[3] & 0x1f;
		env->fixed_width = (r[3] >> 5) & 0xff;
	}
	pmc_fmt(env->pmu_desc, sizeof(env->pmu_desc),
		"Intel architectural PMU version %d (CPUID 0AH): %d general counters x %d "
		"bits, %d fixed x %d bits",
		env->pmu_version, env->n_gp, env->gp_width, env->n_fixed, env->fixed_width);
}

/* AMD has no leaf 0AH: PerfMonV2 (0x80000022) counts its counters,
 * PerfCtrExtCore (0x80000001 ECX[23]) means 6, and without either only
 * the 4 legacy K7 counters can exist, which a guest without a vPMU does
 * not have: then only perf_event can tell. */
static void decode_amd(const struct env_cpuid *in, bool cpu_pmu, struct pmc_env *env)
{
	bool v2 = in->emax >= 0x80000022 && (in->e22[0] & 1);
	bool ext = in->emax >= 0x80000001 && (in->e1[2] & (1u << 23));
	size_t len = sizeof(env->pmu_desc);

	env->gp_width = 48;
	if (v2) {
		env->pmu_version = 2;
		env->n_gp = in->e22[1] & 0xf;
		pmc_fmt(env->pmu_desc, len,
			"AMD PerfMonV2 (CPUID 0x80000022): %d core counters x 48 bits", env->n_gp);
	} else if (ext) {
		env->pmu_version = 1;
		env->n_gp = 6;
		pmc_fmt(env->pmu_desc, len,
			"AMD PerfCtrExtCore (CPUID 0x80000001 ECX[23]): 6 core counters x 48 bits");
	} else if (cpu_pmu) {
		env->pmu_version = 1;
		env->n_gp = 4;
		pmc_fmt(env->pmu_desc, len,
			"AMD legacy PMU: 4 core counters x 48 bits (no PerfCtrExtCore or "
			"PerfMonV2 in CPUID; perf_event has a CPU PMU)");
	} else {
		env->gp_width = 0;
		pmc_fmt(env->pmu_desc, len,
			"no core counters: AMD CPU without PerfCtrExtCore or PerfMonV2 in "
			"CPUID, and perf_event has no CPU PMU "
			"(/sys/bus/event_source/devices/cpu missing)");
	}
}

void env_decode_pmu(const struct env_cpuid *in, bool cpu_pmu, struct pmc_env *env)
{
	char vendor[13], claim[96] = "";
	size_t len = sizeof(env->pmu_desc);

	memcpy(vendor, &in->l0[1], 4);
	memcpy(vendor + 4, &in->l0[3], 4);
	memcpy(vendor + 8, &in->l0[2], 4);
	vendor[12] = '\0';
	env->cpu_vendor = PMC_CPU_OTHER;
	if (strcmp(vendor, "GenuineIntel") == 0)
		env->cpu_vendor = PMC_CPU_INTEL;
	else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0)
		env->cpu_vendor = PMC_CPU_AMD;
	env->cpu_pmu = cpu_pmu;
	env->pmu_version = env->n_gp = env->gp_width = env->n_fixed = env->fixed_width = 0;
	env->arch_events = 0;
	env->n_arch_events = 0;

	if (env->cpu_vendor == PMC_CPU_INTEL)
		decode_intel(in, env);
	else if (env->cpu_vendor == PMC_CPU_AMD)
		decode_amd(in, cpu_pmu, env);
	else
		pmc_fmt(env->pmu_desc, len, "no core counters known (CPU vendor \"%s\")", vendor);
	/* Counters CPUID describes but the kernel does not drive are not there. */
	if (env->n_gp > 0 && !cpu_pmu) {
		pmc_fmt(claim, sizeof(claim), "%s", env->pmu_desc);
		claim[strcspn(claim, ":")] = '\0';
		env->pmu_version = env->n_gp = env->gp_width = env->n_fixed = 0;
		env->fixed_width = 0;
		env->arch_events = 0;
		pmc_fmt(env->pmu_desc, len,
			"no core counters: perf_event has no CPU PMU "
			"(/sys/bus/event_source/devices/cpu missing), though CPUID describes %s",
			claim);
	}
}

bool env_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

#if defined(__x86_64__) || defined(__i386__)
static void probe_pmu(struct pmc_env *env)
{
	struct env_cpuid in;
	unsigned r[4];

	memset(&in, 0, sizeof(in));
	cpuid(0, 0, in.l0);
	if (in.l0[0] >= 0xa)
		cpuid(0xa, 0, in.la);
	cpuid(0x80000000, 0, r);
	in.emax = r[0];
	if (in.emax >= 0x80000001 && in.emax < 0x8000ffff)
		cpuid(0x80000001, 0, in.e1);
	if (in.emax >= 0x80000022 && in.emax < 0x8000ffff)
		cpuid(0x80000022, 0, in.e22);
	/* Hybrid Intel parts name their core PMUs cpu_core and cpu_atom. */
	env_decode_pmu(&in, env_is_dir("/sys/bus/event_source/devices/cpu") ||
				    env_is_dir("/sys/bus/event_source/devices/cpu_core") ||
				    env_is_dir("/sys/bus/event_source/devices/cpu_atom"),
		       env);
}

void env_probe_arch(struct pmc_env *env)
{
	probe_hypervisor(env);
	probe_pmu(env);
}
#elif !defined(__aarch64__)	/* AArch64's is env_aarch64.c */
void env_probe_arch(struct pmc_env *env)
{
	env->hv_name = "none";
	pmc_fmt(env->pmu_desc, sizeof(env->pmu_desc), "no core counters known on this architecture");
}
#endif

static int read_int_file(const char *path, int fallback)
{
	FILE *f = fopen(path, "re");
	int v;

	if (!f)
		return fallback;
	if (fscanf(f, "%d", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

static void probe_cpuinfo(struct pmc_env *env)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!env->cpu_model[0] && strncmp(line, "model name", 10) == 0) {
			pmc_fmt(env->cpu_model, sizeof(env->cpu_model), "%s", colon + 2);
			env->cpu_model[strcspn(env->cpu_model, "\n")] = '\0';
		} else if (env->cpu_mhz == 0 && strncmp(line, "cpu MHz", 7) == 0) {
			env->cpu_mhz = strtod(colon + 1, NULL);
		}
		if (env->cpu_model[0] && env->cpu_mhz)
			break;
	}
	fclose(f);
}

/* Try to open one counting event on ourselves, user space only (allowed at
 * paranoid 2).  Returns 0 or errno. */
static int try_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

/* The innermost layer's word on its virtual PMU, where it said none. */
static void layer_vpmu(struct pmc_env *env)
{
	struct pmc_env_layer *l;

	if (!env->n_layers)
		return;
	l = &env->layers[env->n_layers - 1];
	if (!l->vpmu[0])
		pmc_fmt(l->vpmu, sizeof(l->vpmu), "%s", env->n_gp ? "counters (CPUID)"
							      : "none (no core counters in CPUID)");
}

static void env_probe(struct pmc_env *env)
{
	struct utsname u;

	memset(env, 0, sizeof(*env));
	env_probe_arch(env);
	probe_cpuinfo(env);
	if (uname(&u) == 0)
		pmc_fmt(env->kernel, sizeof(env->kernel), "%s", u.release);
	env->paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid", -9);
	env->rdpmc_sysfs = read_int_file("/sys/bus/event_source/devices/cpu/rdpmc", -1);
	if (env->rdpmc_sysfs < 0)
		env->rdpmc_sysfs = read_int_file("/sys/bus/event_source/devices/cpu_core/rdpmc", -1);
	/* arm64's switch for user-space counter reads: 1 lets a task read
	 * the counters of events it opened with config1 bit 1, as rdpmc=1. */
	if (env->rdpmc_sysfs < 0)
		env->rdpmc_sysfs = read_int_file("/proc/sys/kernel/perf_user_access", -1);
	env->perf_event_errno = try_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	env->perf_event_syscall = env->perf_event_errno == 0;
	env->hw_errno = try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	env->hw_events = env->hw_errno == 0;
	layer_vpmu(env);
}

void pmc_env_probe_sz(struct pmc_env *env, size_t size)
{
	struct pmc_env full;

	env_probe(&full);
	memcpy(env, &full, size < sizeof(full) ? size : sizeof(full));
}

void(pmc_env_probe)(struct pmc_env *env)
{
	pmc_env_probe_sz(env, offsetof(struct pmc_env, n_layers));
}

const char *pmc_env_layers_str(const struct pmc_env *env, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < env->n_layers && n < len; i++) {
		const struct pmc_env_layer *l = &env->layers[i];
		int k = snprintf(buf + n, len - n, "%s%s%s%s (%s%s%s): %s", i ? " | " : "", l->name,
				 l->version[0] ? " " : "", l->version, l->kind,
				 l->vpmu[0] ? "; vPMU " : "", l->vpmu, l->evidence);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	if (!env->n_layers && len)
		snprintf(buf, len, "none");
	return buf;
}

const char *pmc_env_summary(const struct pmc_env *env, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	if (!env->n_layers && len)
		snprintf(buf, len, "none detected (bare metal, as far as CPUID, /sys/hypervisor, the "
			 "clocksource and DMI show)");
	for (unsigned i = env->n_layers; i-- > 0 && n < len;) {
		const struct pmc_env_layer *l = &env->layers[i];
		bool inner = i == env->n_layers - 1;
		int k = snprintf(buf + n, len - n, "%s%s%s%s (%s%s%s)", inner ? "" : " on ", l->name,
				 l->version[0] ? " " : "", l->version, l->kind,
				 inner && l->vpmu[0] ? "; vPMU " : "", inner ? l->vpmu : "");
		if (k < 0)
			break;
		n += (size_t)k;
	}
	return buf;
}
