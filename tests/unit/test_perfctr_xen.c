/* perfctr_xen: the pure parts (sign extension, the patch's deltas, widths,
 * PerfEvtSel encoding, perfctr's marshalling, cstatus), the probe's
 * decisions against a fake /dev/perfctr, and the real probe here. */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "backend/pmc.h"
#include "plugins/perfctr_xen/pcx.h"
#include "tests/harness.h"
#include "tests/unit/plugin_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_sign_extend(void)
{
	check_sign_extend(pcx_sign_extend);
}

/* The driver's arithmetic (perfctr_r2b.patch): sign-extended samples,
 * plain 64-bit subtraction.  Exact across zero; 2^width short across the
 * sign bit, as the kernel's and Xen's own sums are. */
static void test_delta(void)
{
	static const struct {
		int line;
		uint64_t now_raw, start_raw;
		unsigned width;
		uint64_t want;
	} cases[] = {
		{ __LINE__, 1000, 10, 48, 990 },
		/* Across the sign bit: 15 events, the patch's delta 15 - 2^w. */
		{ __LINE__, 0x800000000005ULL, 0x7ffffffffff6ULL, 48, 15 - (1ULL << 48) },
		{ __LINE__, 0x8000000005ULL, 0x7ffffffff6ULL, 40, 15 - (1ULL << 40) },
		/* Across zero (an i-mode counter reaching its overflow): exact. */
		{ __LINE__, 5, 0xffffffffffffULL, 48, 6 },
		{ __LINE__, 0x10, 0xfffffffff0ULL, 40, 0x20 },
		{ __LINE__, 7, ~0ULL - 2, 64, 10 },
	};
	for (size_t i = 0; i < N(cases); i++) {
		unsigned w = cases[i].width;
		uint64_t now = pcx_sign_extend(cases[i].now_raw, w);
		uint64_t start = pcx_sign_extend(cases[i].start_raw, w);
		T_OK(pcx_delta(now, start) == cases[i].want, "delta case at line %d",
		     cases[i].line);
	}
}

static void test_widths(void)
{
	static const struct {
		int line;
		uint32_t cpu_type;
		unsigned width;
		bool amd;
	} cases[] = {
		{ __LINE__, PCX_X86_INTEL_NHLM, 48, false }, { __LINE__, PCX_X86_INTEL_SNB, 48, false },
		{ __LINE__, PCX_X86_INTEL_CORE2, 40, false }, { __LINE__, PCX_X86_INTEL_P4M3, 32, false },
		{ __LINE__, PCX_X86_AMD_FAM10H, 48, true },  { __LINE__, PCX_X86_AMD_K8, 48, true },
		{ __LINE__, 99, 0, false },
	};
	for (size_t i = 0; i < N(cases); i++)
		T_OK(pcx_width_for_cpu_type(cases[i].cpu_type) == cases[i].width &&
			     pcx_cpu_type_is_amd(cases[i].cpu_type) == cases[i].amd,
		     "cpu_type width case at line %d", cases[i].line);
}

static struct pmc_event perf_event(uint32_t type, uint64_t config, bool xu, bool xk)
{
	struct pmc_event ev = hw_perf_event(type, config);

	ev.exclude_user = xu;
	ev.exclude_kernel = xk;
	return ev;
}

static void test_evntsel(void)
{
	const uint32_t UO = PCX_EVNTSEL_USR | PCX_EVNTSEL_OS;
	static const struct {
		int line;
		uint32_t type;
		uint64_t config, config1;
		bool xu, xk, amd;
		int ret;
		uint32_t want;
	} cases[] = {
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0, 0, 0, 0x3c },
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0, 1, 0, 0x76 },
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0, 0, 0, 0xc0 },
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0, 0, 0, 0, 0, 0x412e },
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 0, 0, 1, 0,
		  0xc2 },
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0, 0, 0, 1,
		  -PMC_ENOTSUP, 0 },
		{ __LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 0, 0, 0, 0,
		  -PMC_ENOTSUP, 0 },
		/* Raw: EDGE/INV/CMASK kept, privilege and enable bits are ours. */
		{ __LINE__, PERF_TYPE_RAW, 0x01800000 | 0x40000 | 0xc4, 0, 0, 0, 0, 0,
		  0x01800000 | 0x40000 | 0xc4 },
		{ __LINE__, PERF_TYPE_RAW, 0x530000 | 0x01b7, 0, 0, 0, 0, 0, 0x01b7 },
		{ __LINE__, PERF_TYPE_RAW, 0x200000 | 0x3c, 0, 0, 0, 0, -PMC_ENOTSUP, 0 },
		{ __LINE__, PERF_TYPE_RAW, 0x100000076ULL, 0, 0, 0, 1, -PMC_ENOTSUP, 0 },
		{ __LINE__, PERF_TYPE_RAW, 0x01b7, 0x1011, 0, 0, 0, -PMC_ENOTSUP, 0 },
		{ __LINE__, PERF_TYPE_HW_CACHE, 0, 0, 0, 0, 0, -PMC_ENOTSUP, 0 },
		{ __LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0, 0, 0, -PMC_ENOTSUP, 0 },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct pmc_event ev = perf_event(cases[i].type, cases[i].config, false, false);
		uint32_t sel = 0;
		int ret;

		ev.config1 = cases[i].config1;
		ret = pcx_evntsel_encode(&ev, cases[i].amd, &sel);
		T_OK(ret == cases[i].ret && (ret < 0 || sel == (cases[i].want | UO)),
		     "evntsel case at line %d (ret %d, sel %#x)", cases[i].line, ret, sel);
	}

	struct pmc_event ev = perf_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, true);
	uint32_t sel;
	T_OK(pcx_evntsel_encode(&ev, false, &sel) == 0 && sel == (0xc0 | PCX_EVNTSEL_USR),
	     "evntsel: exclude_kernel leaves USR only");
	ev = perf_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true, false);
	T_OK(pcx_evntsel_encode(&ev, false, &sel) == 0 && sel == (0xc0 | PCX_EVNTSEL_OS),
	     "evntsel: exclude_user leaves OS only");
	ev = perf_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true, true);
	T_OK(pcx_evntsel_encode(&ev, false, &sel) == -EINVAL, "evntsel: nothing left to count");
	ev.kind = PMC_KIND_PLUGIN;
	T_OK(pcx_evntsel_encode(&ev, false, &sel) == -PMC_EBACKEND,
	     "evntsel: plugin events are not PerfEvtSel events");
}

#define H(tag, item, u64) (((uint32_t)(tag) << 16) | ((item) << 1) | (u64))

static void test_marshal(void)
{
	struct pcx_vcontrol c, back;
	uint32_t buf[200];
	size_t nw;

	memset(&c, 0, sizeof(c));
	c.si_signo = 35;
	c.preserve = 3;
	c.cpu_control.tsc_on = 1;
	c.cpu_control.nractrs = 1;
	c.cpu_control.nrictrs = 1;
	c.cpu_control.pmc_map[1] = 1;
	c.cpu_control.evntsel[0] = 0x43003c;
	c.cpu_control.evntsel[1] = 0x5300c4;
	c.cpu_control.ireset[1] = -1000;
	/* perfctr's encoder emits the outer struct's fields, then the
	 * sub-struct's, one header per non-zero item. */
	static const uint32_t golden[] = {
		H(9, 0, 0),  35,	 H(10, 0, 0), 3,	H(32, 0, 0), 1,
		H(33, 0, 0), 1,		 H(34, 0, 0), 1,	H(35, 1, 0), 1,
		H(36, 0, 0), 0x43003c,	 H(36, 1, 0), 0x5300c4, H(37, 1, 0), (uint32_t)-1000,
	};
	T_OK(pcx_marshal_encode(&c, &pcx_vcontrol_desc, buf, N(buf), &nw) == 0 &&
		     nw == N(golden) && memcmp(buf, golden, sizeof(golden)) == 0,
	     "marshal: vperfctr_control encodes to the golden words (%zu words)", nw);
	T_OK(pcx_marshal_decode(&back, &pcx_vcontrol_desc, buf, nw) == 0 &&
		     memcmp(&back, &c, sizeof(c)) == 0,
	     "marshal: vperfctr_control round-trips");
	T_OK(pcx_marshal_encode(&c, &pcx_vcontrol_desc, buf, 5, &nw) == -EOVERFLOW,
	     "marshal: a short buffer is -EOVERFLOW");
	T_OK(pcx_vcontrol_desc.bufwords == 174 && pcx_info_desc.bufwords == 32 &&
		     pcx_sum_desc.bufwords == 57,
	     "marshal: buffer sizes are perfctr's sdesc_bufsize");

	struct pcx_sum_ctrs s, sback;
	memset(&s, 0, sizeof(s));
	s.tsc = 0x100000002ULL;
	s.pmc[17] = 7;
	static const uint32_t sgolden[] = { H(48, 0, 1), 2, 1, H(49, 17, 1), 7, 0 };
	T_OK(pcx_marshal_encode(&s, &pcx_sum_desc, buf, N(buf), &nw) == 0 && nw == N(sgolden) &&
		     memcmp(buf, sgolden, sizeof(sgolden)) == 0 &&
		     pcx_marshal_decode(&sback, &pcx_sum_desc, buf, nw) == 0 &&
		     memcmp(&s, &sback, sizeof(s)) == 0,
	     "marshal: 64-bit data go low word first and round-trip");

	static const struct {
		int line;
		uint32_t words[4];
		size_t n;
	} bad[] = {
		{ __LINE__, { H(99, 0, 0), 1 }, 2 },		/* unknown tag */
		{ __LINE__, { H(35, 18, 0), 1 }, 2 },		/* item past pmc_map[17] */
		{ __LINE__, { H(33, 0, 1), 1, 0 }, 3 },	/* 64-bit datum, 32-bit field */
		{ __LINE__, { H(33, 0, 0) }, 1 },		/* truncated */
	};
	for (size_t i = 0; i < N(bad); i++)
		T_OK(pcx_marshal_decode(&back, &pcx_vcontrol_desc, bad[i].words, bad[i].n) ==
			     -EPROTO,
		     "marshal: bad stream at line %d is -EPROTO", bad[i].line);
	static const uint32_t trunc64[] = { H(48, 0, 1), 2 };
	T_OK(pcx_marshal_decode(&sback, &pcx_sum_desc, trunc64, 2) == -EPROTO,
	     "marshal: truncated 64-bit datum is -EPROTO");
}

static void test_layout(void)
{
	uint32_t cs = pcx_cstatus_make(1, 2, 1);

	T_OK(cs == 0x80010302u && pcx_cstatus_has_tsc(cs) && pcx_cstatus_nractrs(cs) == 2 &&
		     pcx_cstatus_nrctrs(cs) == 3 && pcx_cstatus_nrictrs(cs) == 1,
	     "cstatus encodes tsc_on/nractrs/nrictrs as perfctr does (%#x)", cs);
	T_OK(!pcx_cstatus_has_tsc(pcx_cstatus_make(0, 3, 0)), "cstatus without the TSC");
	T_OK(offsetof(struct pcx_vstate, vcpu) == PCX_PAGE &&
		     offsetof(struct pcx_cpu_state, control) == 464 &&
		     offsetof(struct pcx_cpu_state, pending_interrupt) == 792,
	     "per-VCPU states start on the second page; kernel fields where the patch has them");
	T_OK(PCX_IOC_CONTROL == 0x400cd00aUL && PCX_IOC_IRESUME == 0xd00bUL &&
		     PCX_IOC_ABI == 0x8004d000UL && PCX_IOC_CREAT == 0xd006UL,
	     "ioctl numbers are perfctr's (_IOW(0xD0,10,12 bytes) = %#lx)",
	     (unsigned long)PCX_IOC_CONTROL);
}

/* ---- probe against a fake device ---- */

struct fake {
	int open_err;
	unsigned abi;
	uint32_t features, cpu_type;
	enum { LIVE, HV_OFF, NATIVE, BUSY } mode;
	/* HV_OFF: Xen without `perfctr` (per-VCPU states stay zero); NATIVE: a
	 * native perfctr (one page to map); BUSY: the thread has a vperfctr. */
};

/* The pages the fake maps: after a control, the thread runs on VCPU 1. */
static struct pcx_vstate fake_pages;

static int f_open(const char *path, void *arg)
{
	struct fake *f = arg;
	return f->open_err ? f->open_err : 7;
}

static int f_ioctl(int fd, unsigned long req, void *argp, void *arg)
{
	struct fake *f = arg;
	struct pcx_info info = { .cpu_type = f->cpu_type, .cpu_features = f->features,
				 .cpu_khz = 2000000, .driver_version = "2.6.42" };
	struct pcx_struct_buf *b = argp;
	size_t nw;

	if (req == PCX_IOC_ABI) {
		*(unsigned int *)argp = f->abi;
		return 0;
	}
	if (req == PCX_IOC_INFO) {
		info.abi_version = f->abi;
		if (pcx_marshal_encode(&info, &pcx_info_desc, b->buffer, b->wrsize, &nw) < 0)
			return -EOVERFLOW;
		b->rdsize = nw;
		return 0;
	}
	if (req == PCX_IOC_CREAT)
		return f->mode == BUSY ? -EEXIST : 8;
	if (req == PCX_IOC_CONTROL) {
		memset(&fake_pages, 0, sizeof(fake_pages));
		fake_pages.t.cpu_state.cstatus = pcx_cstatus_make(1, 0, 0);
		fake_pages.t.cpu_state.smp_id = 1;
		fake_pages.vcpu[1].cstatus = f->mode == HV_OFF ? 0 : pcx_cstatus_make(1, 0, 0);
		return 0;
	}
	if (req == PCX_IOC_UNLINK)
		return 0;
	return -ENOTTY;
}

static int f_mmap(int fd, size_t len, const void **out, void *arg)
{
	struct fake *f = arg;

	if (len != (f->mode == NATIVE ? (size_t)PCX_PAGE : (size_t)PCX_MAP_SIZE))
		return -EINVAL;
	*out = &fake_pages;
	return 0;
}

static int f_munmap(const void *addr, size_t len, void *arg) { return 0; }
static int f_close(int fd, void *arg) { return 0; }

static void test_probe_cases(void)
{
	const uint32_t ALL = PCX_FEATURE_RDPMC | PCX_FEATURE_RDTSC | PCX_FEATURE_PCINT;
	static const struct {
		int line;
		const char *sig, *hv_name, *sys;
		bool hv_present;
		struct fake dev;
		bool usable, sampling;
		const char *reason;	/* substring */
	} cases[] = {
		{ __LINE__, "KVMKVMKVM", "KVM", "", true, { 0 }, false, false,
		  "not a Xen guest (hypervisor: KVM)" },
		{ __LINE__, "VMwareVMware", "VMware", "", true, { 0 }, false, false,
		  "not a Xen guest (hypervisor: VMware)" },
		{ __LINE__, "", "none", "", false, { 0 }, false, false,
		  "not a Xen guest (no hypervisor)" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true, { -ENOENT, 0, 0, 0, LIVE }, false, false,
		  "Xen guest, but no /dev/perfctr" },
		/* A PV guest that hides the CPUID bit: /sys/hypervisor/type. */
		{ __LINE__, "", "none", "xen", false, { -ENOENT, 0, 0, 0, LIVE }, false, false,
		  "no /dev/perfctr" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true, { 0, 0x05000500, ALL, 21, LIVE }, false,
		  false, "ABI 0x05000500" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true,
		  { 0, PCX_ABI_VERSION, PCX_FEATURE_RDTSC, 21, LIVE }, false, false, "rdpmc/rdtsc" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true, { 0, PCX_ABI_VERSION, ALL, 99, LIVE },
		  false, false, "unknown perfctr cpu_type 99" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true, { 0, PCX_ABI_VERSION, ALL, 21, LIVE },
		  true, true, "" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true,
		  { 0, PCX_ABI_VERSION, PCX_FEATURE_RDPMC | PCX_FEATURE_RDTSC, 18, LIVE }, true, false,
		  "" },
		/* Pentium 4 (P4M3 = 16): refused, not driven with a P6 control. */
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true, { 0, PCX_ABI_VERSION, ALL, 16, LIVE },
		  false, false, "Pentium 4 (perfctr cpu_type 16)" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true,
		  { 0, PCX_ABI_VERSION, ALL, 21, HV_OFF }, false, false, PCX_HV_OFF_REASON },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true,
		  { 0, PCX_ABI_VERSION, ALL, 21, NATIVE }, false, false,
		  "native perfctr" },
		{ __LINE__, "XenVMMXenVMM", "Xen", "xen", true,
		  { 0, PCX_ABI_VERSION, ALL, 21, BUSY }, true, true, "" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct fake dev = cases[i].dev;
		struct pcx_sys sys = { f_open, f_ioctl, f_mmap, f_munmap, f_close, NULL, NULL, &dev };
		struct pmc_env env;
		struct pmc_probe pr;

		memset(&env, 0, sizeof(env));
		strcpy(env.hv_signature, cases[i].sig);
		env.hv_name = cases[i].hv_name;
		strcpy(env.sys_hypervisor, cases[i].sys);
		env.hv_present = cases[i].hv_present;
		pcx_sys_set(&sys);
		pcx_probe(&env, &pr);
		pcx_sys_set(NULL);
		T_OK(pr.usable == cases[i].usable && pr.hardware == cases[i].usable &&
			     pr.sampling == cases[i].sampling &&
			     strstr(pr.reason, cases[i].reason) != NULL &&
			     (!pr.usable || pr.detail[0]) &&
			     (!pr.usable || strstr(pr.detail, dev.mode == BUSY ? "not checked" : "live")),
		     "probe case at line %d: usable %d, reason '%s', detail '%s'", cases[i].line,
		     pr.usable, pr.reason, pr.detail);
	}
}

/* The real probe on this machine, through the core's loader. */
static void test_real_probe(void)
{
	struct pmc_env env;
	struct pmc_backend *be;
	const struct pmc_probe *pr;
	char err[256], want[160];
	int ret;

	pmc_env_probe(&env);
	ret = pmc_backend_load("perfctr_xen", &be, err, sizeof(err));
	if (ret < 0) {
		T_SKIP("pmc-perfctr_xen.so not loadable here (%s): PMCPROF_PLUGIN_PATH unset?", err);
		return;
	}
	pr = pmc_backend_probe(be);
	if (!pcx_env_is_xen(&env)) {
		if (env.hv_present)
			snprintf(want, sizeof(want), "not a Xen guest (hypervisor: %s)", env.hv_name);
		else
			snprintf(want, sizeof(want), "not a Xen guest (no hypervisor)");
		T_OK(!pr->usable && strcmp(pr->reason, want) == 0,
		     "real probe: disabled with '%s' (got '%s')", want, pr->reason);
	} else {
		T_OK(pr->usable || strstr(pr->reason, "/dev/perfctr") || strstr(pr->reason, "ABI"),
		     "real probe in a Xen guest: usable, or says what is missing ('%s')",
		     pr->reason);
	}
	T_OK(strcmp(pmc_backend_name(be), "perfctr_xen") == 0, "the plugin loads by name");
	pmc_backend_unload(be);
}

int main(void)
{
	test_sign_extend();
	test_delta();
	test_widths();
	test_evntsel();
	test_marshal();
	test_layout();
	test_probe_cases();
	test_real_probe();
	return T_DONE();
}
