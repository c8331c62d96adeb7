/* pmc-kvm_vpmu.so: hardware counters in a KVM guest, through perf_event,
 * restricted to what the guest's virtual PMU really provides.  Built on
 * libpe (plugins/perf_event/libpe.h), the perf_event plugin's counters:
 * this plugin adds the probe, the checks before an open and the read. */
#include "config.h"

#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/kvm_vpmu/vpmu.h"
#include "plugins/perf_event/libpe.h"

static void cpuid(unsigned leaf, unsigned sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* The raw leaves and firmware strings vpmu_decode() works from. */
static void read_machine(struct vpmu_cpuid *in)
{
	uint32_t r[4];
	FILE *f;

	memset(in, 0, sizeof(*in));
	cpuid(0, 0, in->l0);
	cpuid(1, 0, in->l1);
	if (in->l0[0] >= 7)
		cpuid(7, 0, in->l7);
	if (in->l0[0] >= 0xa)
		cpuid(0xa, 0, in->la);
	if (in->l1[2] & (1u << 31)) {
		cpuid(0x40000000, 0, in->hv);
		cpuid(0x40000100, 0, in->hv100);
	}
	cpuid(0x80000000, 0, r);
	in->emax = r[0];
	if (in->emax >= 0x80000001)
		cpuid(0x80000001, 0, in->e1);
	if (in->emax >= 0x80000022)
		cpuid(0x80000022, 0, in->e22);
	read_line("/sys/class/dmi/id/sys_vendor", in->dmi_vendor, sizeof(in->dmi_vendor));
	read_line("/sys/class/dmi/id/product_name", in->dmi_product, sizeof(in->dmi_product));
	/* The OEM ID sits at offset 10 of every ACPI table header (root only). */
	f = fopen("/sys/firmware/acpi/tables/DSDT", "re");
	if (f) {
		if (fseek(f, 10, SEEK_SET) == 0 && fread(in->acpi_oem, 1, 6, f) == 6)
			in->acpi_oem[6] = '\0';
		else
			in->acpi_oem[0] = '\0';
		fclose(f);
	}
}

static int probe(const struct pmc_env *env, struct pmc_probe *out)
{
	struct vpmu_cpuid in;
	struct vpmu_caps caps;

	read_machine(&in);
	vpmu_decode(&in, &caps);
	vpmu_decide(&caps, env->hw_events, env->hw_errno, env->paranoid, out);
	return 0;
}

/* Work a trial run must see: branches, instructions and cycles. */
static void spin(void)
{
	for (volatile unsigned i = 0; i < 20000; i++)
		;
}

/* Count the events once on this thread, and check they really count. */
static int trial(const struct vpmu_caps *caps, const struct pmc_event *evs, size_t n)
{
	struct pmc_event t[PMC_MAX_EVENTS];
	struct pmc_count counts[PMC_MAX_EVENTS];
	char why[256];
	void *ctx;
	int ret;

	for (size_t i = 0; i < n; i++) {
		t[i] = evs[i];
		t[i].period = t[i].freq = 0;
	}
	PMC_GROUP_OPTS(self, .pid = 0);
	ret = pe_open(t, n, &self, &ctx);
	if (ret < 0)
		return ret;
	ret = pe_start(ctx);
	spin();
	if (ret == 0)
		ret = pe_stop(ctx);
	if (ret == 0)
		ret = pe_read(ctx, counts, n);
	pe_close(ctx);
	if (ret < 0)
		return ret;
	return vpmu_validate(caps, evs, counts, n, why, sizeof(why));
}

static int open_group(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
		      void **ctx)
{
	struct vpmu_cpuid in;
	struct vpmu_caps caps;
	char why[256];
	int ret;

	*ctx = NULL;
	read_machine(&in);
	vpmu_decode(&in, &caps);
	if (!vpmu_has_counters(&caps))
		return -PMC_ENOPMU;
	/* More events than counters would be multiplexed: scaled guesses. */
	if (n > (size_t)(caps.n_gp + caps.n_fixed))
		return -PMC_ETOOMANY;
	for (size_t i = 0; i < n; i++) {
		ret = vpmu_event_check(&caps, &evs[i], why, sizeof(why));
		if (ret < 0)
			return ret;
	}
	ret = trial(&caps, evs, n);
	if (ret < 0)
		return ret;
	return pe_open(evs, n, opts, ctx);
}

/* A counter that was enabled but never on a counter is not reported. */
static int read_counts(void *ctx, struct pmc_count *vals, size_t n)
{
	int ret = pe_read(ctx, vals, n);

	for (size_t i = 0; ret == 0 && i < n; i++)
		if (vals[i].enabled > 0 && vals[i].running == 0)
			ret = -PMC_ENOPMU;
	return ret;
}

PMC_PLUGIN_EXPORT const struct pmc_plugin pmc_plugin = {
	PMC_PLUGIN_HEAD("kvm_vpmu",
			"KVM guests: hardware counters of the virtual PMU through perf_event, "
			"limited to what CPUID says it virtualizes",
			"1.0"),
	.flags = PMC_PLUGIN_PERF_ATTR | PMC_PLUGIN_HARDWARE | PMC_PLUGIN_SILENT_KERNEL,
	.ops = PE_PLUGIN_OPS(probe, open_group, read_counts),
};
