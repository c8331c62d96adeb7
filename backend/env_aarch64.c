/* The environment probe's AArch64 part: no CPUID there, so the hypervisor
 * is judged from what a guest can read (the device tree, DMI, the MIDR the
 * kernel exports) and the PMU from perf_event's sysfs and the kernel's
 * own counter allocation. */
#include "config.h"

#if defined(__aarch64__)

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/internal.h"

#define PMU_DIR "/sys/bus/event_source/devices"
/* The ARMv8 common event CPU_CYCLES: any counter can count it. */
#define ARMV8_CPU_CYCLES 0x11

/* The first line of a file, without its newline ("" if unreadable).  The
 * device tree's strings end in NUL: the first string only. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* MIDR_EL1 of cpu0 as the kernel exports it; 0 if absent. */
static unsigned long midr(void)
{
	char buf[64];

	read_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", buf,
		  sizeof(buf));
	return strtoul(buf, NULL, 0);
}

/* The evidence, strongest first: Xen says so itself; QEMU's "virt" machine
 * ("linux,dummy-virt" in the device tree, or "QEMU" in DMI when booted
 * through UEFI) is a virtual machine, and its CPU is QEMU's own emulation
 * (TCG) when the MIDR's implementer is 0, "reserved for software use",
 * which QEMU's "max" CPU reports.  With a real part's MIDR it is the host's
 * CPU under KVM or a model of one under TCG (-cpu cortex-a57): nothing
 * at EL0 tells them apart, so it is "QEMU", not a guess.  Anything else
 * reads as bare metal: arm64 has no architected "running under a
 * hypervisor" bit visible at EL0. */
/* The one layer an arm64 guest can see, with its evidence. */
static void add_layer(struct pmc_env *env, const char *kind, const char *evidence)
{
	struct pmc_env_layer *l = &env->layers[0];

	memset(l, 0, sizeof(*l));
	pmc_fmt(l->name, sizeof(l->name), "%s", env->hv_name);
	pmc_fmt(l->kind, sizeof(l->kind), "%s", kind);
	pmc_fmt(l->evidence, sizeof(l->evidence), "%s", evidence);
	env->n_layers = 1;
}

static void probe_hypervisor(struct pmc_env *env, unsigned long m)
{
	char compat[64], vendor[64];

	env->hv_name = "none";
	read_line("/sys/hypervisor/type", env->sys_hypervisor, sizeof(env->sys_hypervisor));
	read_line("/sys/firmware/devicetree/base/hypervisor/compatible", compat, sizeof(compat));
	if (strcmp(env->sys_hypervisor, "xen") == 0 || strncmp(compat, "xen", 3) == 0) {
		env->hv_present = true;
		env->hv_name = "Xen";
		pmc_fmt(env->hv_signature, sizeof(env->hv_signature), "xen");
		add_layer(env, "virtual machine", compat[0] ? "device tree hypervisor \"xen\""
							    : "/sys/hypervisor/type xen");
		return;
	}
	read_line("/sys/firmware/devicetree/base/compatible", compat, sizeof(compat));
	read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	if (strcmp(compat, "linux,dummy-virt") == 0 || strcmp(vendor, "QEMU") == 0) {
		env->hv_present = true;
		env->hv_name = m && (m >> 24) == 0 ? "QEMU-TCG" : "QEMU";
		pmc_fmt(env->hv_signature, sizeof(env->hv_signature), "%s",
			compat[0] ? "dummy-virt" : "DMI QEMU");
		add_layer(env, m && (m >> 24) == 0 ? "emulation" : "virtual machine",
			  compat[0] ? "device tree \"linux,dummy-virt\"; MIDR implementer"
				    : "DMI sys_vendor \"QEMU\"; MIDR implementer");
		if (m && (m >> 24) == 0)
			pmc_fmt(env->layers[0].evidence + strlen(env->layers[0].evidence),
				sizeof(env->layers[0].evidence) - strlen(env->layers[0].evidence),
				" 0 (QEMU's own CPU model)");
		else
			pmc_fmt(env->layers[0].evidence + strlen(env->layers[0].evidence),
				sizeof(env->layers[0].evidence) - strlen(env->layers[0].evidence),
				" %#lx (a real core's MIDR: KVM or TCG, not told apart)", m >> 24);
	}
}

/* The core PMU's sysfs name (armv8_pmuv3, armv8_pmuv3_0, armv8_cortex_a72,
 * ...): a device there with a "cpus" list is a CPU PMU.  Returns whether
 * one was found. */
static bool find_cpu_pmu(char *name, size_t len)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[512];

		if (strncmp(e->d_name, "armv8", 5) != 0 && strncmp(e->d_name, "armv9", 5) != 0)
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/%s/cpus", e->d_name);
		if (access(path, R_OK) == 0) {
			pmc_fmt(name, len, "%s", e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* A user-mode count of cycles; a leader that is disabled but
 * enable_on_exec (never exec'd here) and enabled siblings are what the
 * driver's group check counts against the counters (validate_event skips
 * disabled events). */
static long open_cycles(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = group < 0;
	attr.enable_on_exec = group < 0;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* The general-purpose counters, counted by the kernel itself: the arm PMU
 * driver checks a group against its counters when a member is opened
 * (armpmu_event_init -> validate_group), so cycles as leader (on the
 * dedicated cycle counter) plus CPU_CYCLES siblings (on general-purpose
 * ones) open until those run out.  Nothing counts: the leader never
 * starts. */
static int count_gp(void)
{
	int fds[33], n = 0, gp;
	long fd = open_cycles(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1);

	if (fd < 0)
		return 0;
	fds[n++] = (int)fd;
	while (n < 33 && (fd = open_cycles(PERF_TYPE_RAW, ARMV8_CPU_CYCLES, fds[0])) >= 0)
		fds[n++] = (int)fd;
	gp = n - 1;
	while (n > 0)
		close(fds[--n]);
	return gp;
}

static void probe_pmu(struct pmc_env *env)
{
	char name[128];
	size_t len = sizeof(env->pmu_desc);

	env->cpu_vendor = PMC_CPU_OTHER;
	env->cpu_pmu = find_cpu_pmu(name, sizeof(name));
	if (!env->cpu_pmu) {
		pmc_fmt(env->pmu_desc, len,
			"no core counters: perf_event has no Arm PMU (no " PMU_DIR "/armv8_* device)");
		return;
	}
	env->pmu_version = 3;	/* PMUv3: the only Arm PMU Linux drives */
	env->n_gp = count_gp();
	env->gp_width = 32;	/* 64 with FEAT_PMUv3p5 and config1 bit 0 */
	env->n_fixed = 1;	/* PMCCNTR_EL0 */
	env->fixed_width = 64;
	if (env->n_gp > 0)
		pmc_fmt(env->pmu_desc, len,
			"Arm PMUv3 (%s): %d general counters x 32 bits, 1 cycle counter x 64 bits",
			name, env->n_gp);
	else
		pmc_fmt(env->pmu_desc, len,
			"Arm PMUv3 (%s): counters could not be counted (a cycles group does not open)",
			name);
}

void env_probe_arch(struct pmc_env *env)
{
	unsigned long m = midr();

	probe_hypervisor(env, m);
	probe_pmu(env);
	/* /proc/cpuinfo names no model on arm64: the MIDR says what it is. */
	if (m)
		pmc_fmt(env->cpu_model, sizeof(env->cpu_model),
			"AArch64 implementer 0x%02lx part 0x%03lx (MIDR_EL1 0x%08lx)", m >> 24,
			(m >> 4) & 0xfff, m);
}

#endif
