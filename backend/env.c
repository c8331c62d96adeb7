/* The environment probe: hypervisor, architectural PMU, kernel settings. */
#include "config.h"

#include <errno.h>
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

static void read_signature(unsigned leaf, char sig[13])
{
	unsigned r[4];

	cpuid(leaf, 0, r);
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = '\0';
}

static void probe_hypervisor(struct pmc_env *env)
{
	unsigned r[4];
	FILE *f;

	cpuid(1, 0, r);
	env->hv_present = r[2] & (1u << 31);
	env->hv_name = "none";
	if (env->hv_present) {
		const char *name;
		char sig2[13];

		read_signature(0x40000000, env->hv_signature);
		name = hv_lookup(env->hv_signature);
		/* With Hyper-V enlightenments, KVM and Xen move to 0x40000100. */
		if (!name || strcmp(name, "Hyper-V") == 0) {
			read_signature(0x40000100, sig2);
			const char *name2 = hv_lookup(sig2);
			if (name2 && strcmp(name2, "Hyper-V") != 0) {
				name = name2;
				memcpy(env->hv_signature, sig2, sizeof(sig2));
			}
		}
		env->hv_name = name ? name : "other";
	}
	f = fopen("/sys/hypervisor/type", "re");
	if (f) {
		if (fgets(env->sys_hypervisor, sizeof(env->sys_hypervisor), f))
			env->sys_hypervisor[strcspn(env->sys_hypervisor, "\n")] = '\0';
		fclose(f);
		if (strcmp(env->sys_hypervisor, "xen") == 0 && !env->hv_present) {
			env->hv_present = true;	/* PV guests may hide the CPUID bit */
			env->hv_name = "Xen";
		}
	}
}

#endif

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

	if (env->cpu_vendor == PMC_CPU_INTEL && in->l0[0] >= 0xa && (in->la[0] & 0xff)) {
		const uint32_t *r = in->la;
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
		pmc_fmt(env->pmu_desc, len,
			"Intel architectural PMU version %d (CPUID 0AH): %d general counters x %d "
			"bits, %d fixed x %d bits",
			env->pmu_version, env->n_gp, env->gp_width, env->n_fixed, env->fixed_width);
	} else if (env->cpu_vendor == PMC_CPU_INTEL) {
		pmc_fmt(env->pmu_desc, len, "no core counters (CPUID 0AH version 0)");
	} else if (env->cpu_vendor == PMC_CPU_AMD) {
		/* AMD has no leaf 0AH: PerfMonV2 (0x80000022) counts its counters,
		 * PerfCtrExtCore (0x80000001 ECX[23]) means 6, and without either
		 * only the 4 legacy K7 counters can exist, which a guest without a
		 * vPMU does not have: then only perf_event can tell. */
		bool v2 = in->emax >= 0x80000022 && (in->e22[0] & 1);
		bool ext = in->emax >= 0x80000001 && (in->e1[2] & (1u << 23));
		env->gp_width = 48;
		if (v2) {
			env->pmu_version = 2;
			env->n_gp = in->e22[1] & 0xf;
			pmc_fmt(env->pmu_desc, len,
				"AMD PerfMonV2 (CPUID 0x80000022): %d core counters x 48 bits",
				env->n_gp);
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
	} else {
		pmc_fmt(env->pmu_desc, len, "no core counters known (CPU vendor \"%s\")", vendor);
	}
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

void pmc_env_probe(struct pmc_env *env)
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
}
