/* perfctr_xen: per-thread counters in a Xen guest through the perfctr-xen
 * driver (VEE'11 paper, sections 4.1-4.2).
 *
 * a-mode: the logical count of a slot is read in user mode from the mapped
 * pages without a system call (paper eq. 2-3):
 *   Log_thread(t) = Sum_thread + (Phys*(t) - Start*_thread)
 *   Phys*(t)      = Sum_vcpu + (Phys(t) - Start_vcpu)
 * with Phys from rdpmc/rdtsc, and Sum/Start of the VCPU the thread was last
 * resumed on (smp_id).  The guest kernel stores Start*_thread per eq. 4, so
 * the resume hypercall's events are already excluded.  A read that raced a
 * VCPU switch or a thread migration is detected and retried.
 * i-mode: on overflow the driver pauses all of a thread's counters but the
 * TSC (vperfctr_handle_overflow: cstatus TSC-only, a-mode slots read from
 * their sums meanwhile) and sends si_signo with si_code SI_PMC_OVF and the
 * slot mask; the plugin takes the notification only if one of those
 * counters really reached zero from -period, and VPERFCTR_IRESUME restarts
 * them.  Arithmetic, widths and the checks for a Xen booted without
 * `perfctr` follow perfctr-xen's 2013 patches (perfctr 2.6.42.2,
 * Xen 4.2.0, Linux 3.2.30): docs/virtualization.md.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/perfctr_xen/pcx.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define barrier() __asm__ __volatile__("" ::: "memory")
/* A read racing with switches retries; this many in a row means a broken
 * driver, not bad luck. */
#define MAX_READ_PASSES 1000

static const struct pcx_sys *cur_sys = &pcx_sys_real;

void pcx_sys_set(const struct pcx_sys *s)
{
	cur_sys = s ? s : &pcx_sys_real;
}

/* ---- pure helpers ---- */

uint64_t pcx_sign_extend(uint64_t v, unsigned width)
{
	unsigned sh;

	if (width == 0 || width >= 64)
		return v;
	sh = 64 - width;
	return (uint64_t)((int64_t)(v << sh) >> sh);
}

uint64_t pcx_delta(uint64_t now, uint64_t start)
{
	return now - start;
}

/* Counter width by perfctr cpu_type: the pmc_shift perfctr-xen's kernel
 * and Xen sign-extend their stored starts with (x86.c: 48 bits for
 * Nehalem, Westmere, Sandy Bridge model 42 and AMD, 32 for P4, else 40).
 * The plugin must extend rdpmc the same way.  (perfctr's own library
 * takes 40 for Sandy Bridge, which disagrees with its kernel.) */
static const struct {
	uint32_t cpu_type;
	unsigned width;
	bool amd;
} cpu_types[] = {
	{ PCX_X86_INTEL_P6, 40, false },    { PCX_X86_INTEL_PII, 40, false },
	{ PCX_X86_INTEL_PIII, 40, false },  { PCX_X86_INTEL_PENTM, 40, false },
	{ PCX_X86_INTEL_CORE, 40, false },  { PCX_X86_INTEL_CORE2, 40, false },
	{ PCX_X86_INTEL_ATOM, 40, false },  { PCX_X86_INTEL_P4, 32, false },
	{ PCX_X86_INTEL_P4M2, 32, false },  { PCX_X86_INTEL_P4M3, 32, false },
	{ PCX_X86_INTEL_NHLM, 48, false },  { PCX_X86_INTEL_WSTMR, 48, false },
	{ PCX_X86_INTEL_SNB, 48, false },   { PCX_X86_AMD_K7, 48, true },
	{ PCX_X86_AMD_K8, 48, true },       { PCX_X86_AMD_K8C, 48, true },
	{ PCX_X86_AMD_FAM10H, 48, true },
};

unsigned pcx_width_for_cpu_type(uint32_t cpu_type)
{
	for (size_t i = 0; i < N(cpu_types); i++)
		if (cpu_types[i].cpu_type == cpu_type)
			return cpu_types[i].width;
	return 0;
}

/* Pentium 4: its counters take an ESCR and a CCCR, not a PerfEvtSel. */
static bool is_p4(uint32_t cpu_type)
{
	return cpu_type == PCX_X86_INTEL_P4 || cpu_type == PCX_X86_INTEL_P4M2 ||
	       cpu_type == PCX_X86_INTEL_P4M3;
}

bool pcx_cpu_type_is_amd(uint32_t cpu_type)
{
	for (size_t i = 0; i < N(cpu_types); i++)
		if (cpu_types[i].cpu_type == cpu_type)
			return cpu_types[i].amd;
	return false;
}

/* Generic hardware events as event/umask: Intel's architectural events
 * (SDM vol. 3 table "UMask and Event Select Encodings for Pre-Defined
 * Architectural Performance Events"); AMD's as in Linux's
 * amd_perfmon_event_map. */
static const struct {
	uint64_t config;		/* PERF_COUNT_HW_* */
	uint16_t intel, amd;		/* umask << 8 | event; 0 = none */
} generic_events[] = {
	{ PERF_COUNT_HW_CPU_CYCLES, 0x003c, 0x0076 },
	{ PERF_COUNT_HW_INSTRUCTIONS, 0x00c0, 0x00c0 },
	{ PERF_COUNT_HW_REF_CPU_CYCLES, 0x013c, 0 },
	{ PERF_COUNT_HW_CACHE_REFERENCES, 0x4f2e, 0x077d },
	{ PERF_COUNT_HW_CACHE_MISSES, 0x412e, 0x077e },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0x00c4, 0x00c2 },
	{ PERF_COUNT_HW_BRANCH_MISSES, 0x00c5, 0x00c3 },
};

int pcx_evntsel_encode(const struct pmc_event *ev, bool amd, uint32_t *evntsel)
{
	uint32_t sel = 0;

	if (ev->kind != PMC_KIND_PERF)
		return -PMC_EBACKEND;
	if (ev->config1 || ev->config2)
		return -PMC_ENOTSUP;	/* offcore/extra registers */
	if (ev->type == PERF_TYPE_HARDWARE) {
		size_t i;
		for (i = 0; i < N(generic_events); i++)
			if (generic_events[i].config == ev->config)
				break;
		if (i == N(generic_events))
			return -PMC_ENOTSUP;
		sel = amd ? generic_events[i].amd : generic_events[i].intel;
		if (!sel)
			return -PMC_ENOTSUP;
	} else if (ev->type == PERF_TYPE_RAW) {
		const uint64_t ok = 0xffff | PCX_EVNTSEL_USR | PCX_EVNTSEL_OS | PCX_EVNTSEL_EDGE |
				    PCX_EVNTSEL_INT | PCX_EVNTSEL_EN | PCX_EVNTSEL_INV |
				    PCX_EVNTSEL_CMASK;
		if (ev->config & ~ok)
			return -PMC_ENOTSUP;	/* PC, ANY, or AMD's high event bits */
		/* Privilege and enable bits are ours to set. */
		sel = (uint32_t)ev->config & ~(PCX_EVNTSEL_USR | PCX_EVNTSEL_OS | PCX_EVNTSEL_INT |
					       PCX_EVNTSEL_EN);
	} else {
		return -PMC_ENOTSUP;	/* cache, tracepoint, breakpoint, software */
	}
	if (ev->exclude_user && ev->exclude_kernel)
		return -EINVAL;
	if (!ev->exclude_user)
		sel |= PCX_EVNTSEL_USR;
	if (!ev->exclude_kernel)
		sel |= PCX_EVNTSEL_OS;
	*evntsel = sel;
	return 0;
}

bool pcx_env_is_xen(const struct pmc_env *env)
{
	/* Xen with Viridian moves its signature to 0x40000100; the core
	 * follows it, and /sys/hypervisor/type says "xen" in PV guests that
	 * hide the CPUID hypervisor bit. */
	return strcmp(env->hv_signature, "XenVMMXenVMM") == 0 ||
	       (env->hv_name && strcmp(env->hv_name, "Xen") == 0) ||
	       strcmp(env->sys_hypervisor, "xen") == 0;
}

/* ---- talking to /dev/perfctr ---- */

static int ioctl_info(const struct pcx_sys *sys, int fd, struct pcx_info *info)
{
	struct {
		uint32_t rdsize, wrsize;
		uint32_t buffer[64];
	} buf;
	int ret;

	_Static_assert(sizeof(buf.buffer) / 4 >= 16 + sizeof(struct pcx_info) / 4, "room");
	buf.rdsize = 0;
	buf.wrsize = N(buf.buffer);
	ret = sys->ioctl(fd, PCX_IOC_INFO, &buf, sys->arg);
	if (ret < 0)
		return ret;
	if (buf.rdsize > N(buf.buffer))
		return -EPROTO;
	return pcx_marshal_decode(info, &pcx_info_desc, buf.buffer, buf.rdsize);
}

static int ioctl_control(const struct pcx_sys *sys, int fd, const struct pcx_vcontrol *c)
{
	struct {
		uint32_t rdsize, wrsize;
		uint32_t buffer[176];
	} buf;
	size_t nw;
	int ret;

	_Static_assert(sizeof(buf.buffer) / 4 >= 87 + sizeof(struct pcx_vcontrol) / 4, "room");
	ret = pcx_marshal_encode(c, &pcx_vcontrol_desc, buf.buffer, N(buf.buffer), &nw);
	if (ret < 0)
		return ret;
	buf.rdsize = nw;
	buf.wrsize = 0;
	return sys->ioctl(fd, PCX_IOC_CONTROL, &buf, sys->arg);
}

/* ABI and features of an open /dev/perfctr or vperfctr fd: 0, or a
 * negative code with why in reason. */
static int check_driver(const struct pcx_sys *sys, int fd, struct pcx_info *info, char *reason,
			size_t len)
{
	unsigned int abi = 0;
	int ret;

	ret = sys->ioctl(fd, PCX_IOC_ABI, &abi, sys->arg);
	if (ret < 0) {
		snprintf(reason, len, "/dev/perfctr does not answer PERFCTR_ABI (%s)",
			 strerror(-ret));
		return ret;
	}
	if (abi != PCX_ABI_VERSION) {
		snprintf(reason, len,
			 "/dev/perfctr speaks perfctr ABI 0x%08x; this plugin reads the "
			 "perfctr 2.6 / perfctr-xen layout 0x%08x",
			 abi, PCX_ABI_VERSION);
		return -PMC_EABI;
	}
	ret = ioctl_info(sys, fd, info);
	if (ret < 0) {
		snprintf(reason, len, "PERFCTR_INFO failed (%s)", strerror(-ret));
		return ret;
	}
	if ((info->cpu_features & (PCX_FEATURE_RDPMC | PCX_FEATURE_RDTSC)) !=
	    (PCX_FEATURE_RDPMC | PCX_FEATURE_RDTSC)) {
		snprintf(reason, len,
			 "the perfctr driver does not allow user-mode rdpmc/rdtsc "
			 "(features 0x%x), which perfctr-xen reads need",
			 info->cpu_features);
		return -PMC_ENOTSUP;
	}
	if (is_p4(info->cpu_type)) {
		snprintf(reason, len,
			 "perfctr-xen on a Pentium 4 (perfctr cpu_type %u): its counters need "
			 "ESCR/CCCR controls, which this plugin does not build (perfctr's "
			 "p4_check_control refuses a P6-style control)",
			 info->cpu_type);
		return -PMC_ENOTSUP;
	}
	if (!pcx_width_for_cpu_type(info->cpu_type)) {
		snprintf(reason, len, "unknown perfctr cpu_type %u: counter width unknown",
			 info->cpu_type);
		return -PMC_ENOTSUP;
	}
	return 0;
}

/* Is Xen's side on?  Xen allocates and zeroes the 7 per-VCPU pages of
 * shared_info whether or not it was booted with `perfctr`, but only with
 * it does the resume hypercall copy a control in (pmu_perfctr_resume;
 * without it the hypercall is -ENODEV, which the guest ignores).  So after
 * a TSC-only control on a vperfctr of the calling thread, the state of the
 * VCPU it was resumed on (smp_id) has cstatus != 0 exactly when Xen's side
 * works; perfctr's own library then returns 0 for every count.  Returns 1
 * (on), 0 (off), -EEXIST (the thread has a vperfctr: not checked), -EINVAL
 * (the driver maps one page: a native perfctr), or another -errno. */
static int hv_check(const struct pcx_sys *sys, int devfd)
{
	const volatile struct pcx_vstate *ks;
	struct pcx_vcontrol v;
	const void *p = NULL;
	int fd, ret;

	fd = sys->ioctl(devfd, PCX_IOC_CREAT, (void *)(intptr_t)0, sys->arg);
	if (fd < 0)
		return fd;
	ret = sys->mmap(fd, PCX_MAP_SIZE, &p, sys->arg);
	if (ret == 0) {
		memset(&v, 0, sizeof(v));
		v.cpu_control.tsc_on = 1;
		ret = ioctl_control(sys, fd, &v);
	}
	ks = p;
	for (int i = 0; ret == 0 && i < MAX_READ_PASSES; i++) {
		uint32_t smp = ks->t.cpu_state.smp_id, cs;

		barrier();
		if (smp >= PCX_NR_VCPUS) {
			ret = -EPROTO;
			break;
		}
		cs = ks->vcpu[smp].cstatus;
		barrier();
		if (ks->t.cpu_state.smp_id == smp) {	/* not migrated meanwhile */
			ret = cs != 0;
			break;
		}
	}
	if (p)
		sys->munmap(p, PCX_MAP_SIZE, sys->arg);
	sys->ioctl(fd, PCX_IOC_UNLINK, NULL, sys->arg);
	sys->close(fd, sys->arg);
	return ret;
}

int pcx_probe(const struct pmc_env *env, struct pmc_probe *out)
{
	const struct pcx_sys *sys = cur_sys;
	struct pcx_info info;
	const char *checked = "the per-VCPU pages are live";
	int fd, ret;

	memset(out, 0, sizeof(*out));
	if (!pcx_env_is_xen(env)) {
		if (env->hv_present)
			snprintf(out->reason, sizeof(out->reason),
				 "not a Xen guest (hypervisor: %s)",
				 env->hv_name ? env->hv_name : "unknown");
		else
			snprintf(out->reason, sizeof(out->reason),
				 "not a Xen guest (no hypervisor)");
		return 0;
	}
	fd = sys->open("/dev/perfctr", sys->arg);
	if (fd < 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "Xen guest, but no /dev/perfctr (%s): the guest kernel needs the "
			 "perfctr-xen driver (CONFIG_PERFCTR_XEN) and Xen its perfctr module",
			 strerror(-fd));
		return 0;
	}
	ret = check_driver(sys, fd, &info, out->reason, sizeof(out->reason));
	if (ret == 0) {
		ret = hv_check(sys, fd);
		if (ret == 0) {
			snprintf(out->reason, sizeof(out->reason), "%s", PCX_HV_OFF_REASON);
			ret = -1;
		} else if (ret == -EINVAL) {
			snprintf(out->reason, sizeof(out->reason),
				 "/dev/perfctr is a native perfctr (its state maps one page, "
				 "perfctr-xen's eight): the guest kernel lacks CONFIG_PERFCTR_XEN");
		} else if (ret == -EEXIST) {
			checked = "the per-VCPU pages not checked (this thread has counters)";
			ret = 0;
		} else if (ret < 0) {
			snprintf(out->reason, sizeof(out->reason),
				 "could not check the hypervisor side: a trial vperfctr failed (%s)",
				 strerror(-ret));
		} else {
			ret = 0;
		}
	}
	sys->close(fd, sys->arg);
	if (ret < 0)
		return 0;
	out->usable = true;
	out->hardware = true;
	out->sampling = info.cpu_features & PCX_FEATURE_PCINT;
	snprintf(out->detail, sizeof(out->detail),
		 "perfctr %.32s, cpu_type %u, %u-bit counters, %u kHz, i-mode %s; %s",
		 info.driver_version, info.cpu_type, pcx_width_for_cpu_type(info.cpu_type),
		 info.cpu_khz, out->sampling ? "yes" : "no (no overflow interrupts)", checked);
	return 0;
}

/* ---- groups ---- */

struct ev_state {
	int slot;			/* perfctr slot, -1 for the TSC */
	uint32_t evntsel;		/* without EN/INT */
	bool imode;
	uint64_t period;
	uint64_t base;			/* logical count when its i-mode interval began */
};

struct pcx_ctx {
	const struct pcx_sys *sys;
	int fd;
	const volatile struct pcx_vstate *ks;
	unsigned width;
	uint32_t khz, mult;
	bool amd;
	size_t n;
	struct ev_state ev[PMC_MAX_EVENTS];
	unsigned nractrs, nrictrs;
	int slot_event[PCX_NR_SLOTS];
	int signo;
	bool armed, started;
	uint32_t ovf_slots;		/* overflowed slots awaiting rearm */
	struct pmc_sample_stats st;
	uint64_t retries;
};

static bool is_tsc_event(const struct pmc_event *ev)
{
	return ev->kind == PMC_KIND_PLUGIN && strcmp(ev->name, PCX_TSC_EVENT) == 0;
}

/* a-mode slots first, then i-mode: perfctr's order. */
static void assign_slots(struct pcx_ctx *c)
{
	unsigned s = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t e = 0; e < c->n; e++)
			if (c->ev[e].slot >= 0 && c->ev[e].imode == (pass == 1)) {
				c->ev[e].slot = s;
				c->slot_event[s++] = e;
			}
	c->nrictrs = 0;
	for (size_t e = 0; e < c->n; e++)
		c->nrictrs += c->ev[e].slot >= 0 && c->ev[e].imode;
	c->nractrs = s - c->nrictrs;
}

/* Whether this driver can take the group: the calling thread's own,
 * at most PCX_NR_SLOTS hardware events, periods an i-mode counter can
 * restart from.  0 or the error. */
static int check_events(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts)
{
	unsigned hw = 0;

	if (n == 0 || n > PMC_MAX_EVENTS)
		return -EINVAL;
	/* The mapped state and rdpmc are the calling thread's own. */
	if (opts->pid != 0 || opts->inherit || opts->enable_on_exec)
		return -PMC_ENOTSUP;
	for (size_t i = 0; i < n; i++) {
		if (is_tsc_event(&evs[i])) {
			if (opts->sample && (evs[i].period || evs[i].freq))
				return -PMC_ENOTSUP;	/* the TSC raises no interrupts */
			continue;
		}
		if (evs[i].kind != PMC_KIND_PERF)
			return -PMC_EBACKEND;
		if (opts->sample && evs[i].freq)
			return -PMC_ENOTSUP;	/* i-mode restarts from a fixed -period */
		/* The counter MSR takes 32 bits sign-extended (x86-pmc-study 2.2). */
		if (opts->sample && evs[i].period > INT32_MAX)
			return -PMC_EPERIOD;
		hw++;
	}
	return hw > PCX_NR_SLOTS ? -PMC_ETOOMANY : 0;
}

/* The calling thread's vperfctr, from a driver that passes check_driver
 * (its info in *info): the vperfctr's fd, or the error. */
static int create_vperfctr(const struct pcx_sys *sys, struct pcx_info *info)
{
	char why[256];
	int devfd = sys->open("/dev/perfctr", sys->arg), ret;

	if (devfd < 0)
		return devfd;
	ret = check_driver(sys, devfd, info, why, sizeof(why));
	if (ret == 0) {
		ret = sys->ioctl(devfd, PCX_IOC_CREAT, (void *)(intptr_t)0, sys->arg);
		if (ret == -EEXIST)
			ret = -EBUSY;	/* one vperfctr per thread: another group has it */
	}
	sys->close(devfd, sys->arg);
	return ret;
}

int pcx_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
	     void **ctxp)
{
	const struct pcx_sys *sys = cur_sys;
	struct pcx_info info;
	struct pcx_ctx *c;
	int ret;

	*ctxp = NULL;
	ret = check_events(evs, n, opts);
	if (ret < 0)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->sys = sys;
	c->fd = -1;
	c->n = n;
	ret = create_vperfctr(sys, &info);
	if (ret < 0) {
		free(c);
		return ret;
	}
	c->fd = ret;
	ret = 0;
	c->width = pcx_width_for_cpu_type(info.cpu_type);
	c->amd = pcx_cpu_type_is_amd(info.cpu_type);
	c->khz = info.cpu_khz;
	c->mult = info.tsc_to_cpu_mult ? info.tsc_to_cpu_mult : 1;
	for (size_t i = 0; i < n && ret == 0; i++) {
		c->ev[i].slot = is_tsc_event(&evs[i]) ? -1 : 0;
		c->ev[i].period = evs[i].period;
		if (c->ev[i].slot == 0)
			ret = pcx_evntsel_encode(&evs[i], c->amd, &c->ev[i].evntsel);
	}
	if (ret == 0) {
		const void *p;
		/* A native perfctr maps exactly one page; perfctr-xen maps 8. */
		ret = sys->mmap(c->fd, PCX_MAP_SIZE, &p, sys->arg);
		if (ret == -EINVAL)
			ret = -PMC_EABI;
		c->ks = p;
	}
	if (ret < 0) {
		sys->ioctl(c->fd, PCX_IOC_UNLINK, NULL, sys->arg);
		sys->close(c->fd, sys->arg);
		free(c);
		return ret;
	}
	assign_slots(c);
	*ctxp = c;
	return 0;
}

/* One pass over the pages: slot values, the thread's logical TSC, the
 * cstatus seen; *consistent says whether nothing moved meanwhile.  The
 * checks are the paper's (TSC Start_thread and Start_vcpu) plus smp_id,
 * the TSC sums and cstatus: with the skipped-hypercall optimization a
 * guest switch away and back on the same VCPU leaves Start_vcpu alone. */
static int read_pass(struct pcx_ctx *c, uint64_t *slotval, uint64_t *tsc, uint32_t *csp,
		     bool *consistent)
{
	const volatile struct pcx_cpu_state *ts = &c->ks->t.cpu_state;
	const struct pcx_sys *sys = c->sys;
	unsigned nslots = c->nractrs + c->nrictrs;
	uint32_t cs = ts->cstatus;

	barrier();
	if (!pcx_cstatus_has_tsc(cs)) {
		/* Stopped (or not started): the sums are the counts. */
		*tsc = ts->tsc_sum;
		for (unsigned s = 0; s < nslots; s++)
			slotval[s] = ts->pmc[s].sum;
		barrier();
		*consistent = ts->cstatus == cs;
	} else {
		uint32_t smp = ts->smp_id, vcs;
		const volatile struct pcx_cpu_state *vs;
		uint64_t t_start, t_sum, v_start, v_sum, now;
		unsigned nr = pcx_cstatus_nrctrs(cs);

		if (smp >= PCX_NR_VCPUS)
			return -EPROTO;
		vs = &c->ks->vcpu[smp];
		vcs = vs->cstatus;
		t_start = ts->tsc_start;
		t_sum = ts->tsc_sum;
		v_start = vs->tsc_start;
		v_sum = vs->tsc_sum;
		barrier();
		now = sys->rdtsc(sys->arg);
		*tsc = t_sum + (v_sum + (now - v_start)) - t_start;
		for (unsigned s = 0; s < nslots; s++) {
			if (s < nr) {
				/* Sign-extended and subtracted as the driver does
				 * with the starts it stores (see pcx_delta). */
				uint64_t phys = pcx_sign_extend(sys->rdpmc(ts->pmc[s].map, sys->arg),
								c->width);
				uint64_t star = vs->pmc[s].sum + pcx_delta(phys, vs->pmc[s].start);
				slotval[s] = ts->pmc[s].sum + star - ts->pmc[s].start;
			} else {
				/* Stopped: an i-mode slot after its overflow, or
				 * every slot while the driver pauses the a-mode
				 * counters too until VPERFCTR_IRESUME (its cstatus
				 * is then TSC-only). */
				slotval[s] = ts->pmc[s].sum;
			}
		}
		barrier();
		*consistent = ts->cstatus == cs && ts->smp_id == smp && ts->tsc_start == t_start &&
			      ts->tsc_sum == t_sum && vs->tsc_start == v_start &&
			      vs->tsc_sum == v_sum && vs->cstatus == vcs;
		/* A running thread's VCPU state is never idle when Xen's side
		 * works: its cstatus 0 means Xen was booted without `perfctr`
		 * (perfctr's library would return 0 for every count). */
		if (*consistent && !vcs)
			return -PMC_EDISABLED;
	}
	*csp = cs;
	return 0;
}

static int read_consistent(struct pcx_ctx *c, uint64_t *slotval, uint64_t *tsc, uint32_t *cs)
{
	for (int i = 0; i < MAX_READ_PASSES; i++) {
		bool ok;
		int ret = read_pass(c, slotval, tsc, cs, &ok);
		if (ret < 0 || ok)
			return ret;
		c->retries++;
	}
	return -EAGAIN;
}

int pcx_read_once(void *ctx, uint64_t *vals, size_t n, bool *consistent)
{
	struct pcx_ctx *c = ctx;
	uint64_t slotval[PCX_NR_SLOTS], tsc;
	uint32_t cs;
	int ret = read_pass(c, slotval, &tsc, &cs, consistent);

	for (size_t e = 0; ret == 0 && e < n && e < c->n; e++)
		vals[e] = c->ev[e].slot < 0 ? tsc : slotval[c->ev[e].slot];
	return ret;
}

uint64_t pcx_read_retries(const void *ctx)
{
	return ((const struct pcx_ctx *)ctx)->retries;
}

static uint64_t tsc_to_ns(const struct pcx_ctx *c, uint64_t tsc)
{
	if (!c->khz)
		return 0;
	return (uint64_t)((unsigned __int128)tsc * c->mult * 1000000u / c->khz);
}

int pcx_read(void *ctx, struct pmc_count *vals, size_t n)
{
	struct pcx_ctx *c = ctx;
	uint64_t slotval[PCX_NR_SLOTS], tsc, ns;
	uint32_t cs;
	int ret = read_consistent(c, slotval, &tsc, &cs);

	if (ret < 0)
		return ret;
	ns = tsc_to_ns(c, tsc);
	for (size_t e = 0; e < n && e < c->n; e++) {
		vals[e].value = vals[e].raw = c->ev[e].slot < 0 ? tsc : slotval[c->ev[e].slot];
		vals[e].enabled = vals[e].running = ns;	/* perfctr never multiplexes */
		vals[e].scaled = false;
	}
	return 0;
}

static void control_build(const struct pcx_ctx *c, struct pcx_vcontrol *v)
{
	struct pcx_cpu_control *cc = &v->cpu_control;
	unsigned nslots = c->nractrs + c->nrictrs;

	memset(v, 0, sizeof(*v));
	v->si_signo = c->nrictrs ? c->signo : 0;
	cc->tsc_on = 1;		/* the TSC fields are the migration check */
	cc->nractrs = c->nractrs;
	cc->nrictrs = c->nrictrs;
	for (unsigned s = 0; s < nslots; s++) {
		const struct ev_state *e = &c->ev[c->slot_event[s]];
		cc->pmc_map[s] = s;
		cc->evntsel[s] = e->evntsel | PCX_EVNTSEL_EN | (e->imode ? PCX_EVNTSEL_INT : 0);
		if (e->imode)
			cc->ireset[s] = -(int32_t)e->period;
	}
	/* Keep the sums across stop/start and re-arming. */
	v->preserve = nslots >= 32 ? ~0u : (1u << nslots) - 1;
}

/* New control with every i-mode counter restarting at -period. */
static int control_apply(struct pcx_ctx *c)
{
	uint64_t slotval[PCX_NR_SLOTS], check[PCX_NR_SLOTS], tsc;
	struct pcx_vcontrol v;
	uint32_t cs;
	int ret = read_consistent(c, slotval, &tsc, &cs);

	if (ret < 0)
		return ret;
	control_build(c, &v);
	ret = ioctl_control(c->sys, c->fd, &v);
	if (ret < 0)
		return ret;
	/* The counters now run: -PMC_EDISABLED if Xen's side is off. */
	ret = read_consistent(c, check, &tsc, &cs);
	if (ret < 0)
		return ret;
	for (size_t e = 0; e < c->n; e++)
		if (c->ev[e].imode)
			c->ev[e].base = slotval[c->ev[e].slot];
	c->ovf_slots = 0;
	return 0;
}

int pcx_start(void *ctx)
{
	struct pcx_ctx *c = ctx;
	int ret;

	if (c->started)
		return 0;
	ret = control_apply(c);
	if (ret == 0)
		c->started = true;
	return ret;
}

int pcx_stop(void *ctx)
{
	struct pcx_ctx *c = ctx;
	struct pcx_vcontrol v;
	int ret;

	if (!c->started)
		return 0;
	/* An all-zero control suspends and keeps the sums. */
	memset(&v, 0, sizeof(v));
	ret = ioctl_control(c->sys, c->fd, &v);
	if (ret == 0)
		c->started = false;
	return ret;
}

int pcx_arm(void *ctx, int signo)
{
	struct pcx_ctx *c = ctx;

	if (c->started)
		return -EBUSY;
	for (size_t e = 0; e < c->n; e++)
		c->ev[e].imode = c->ev[e].slot >= 0 && c->ev[e].period > 0;
	c->signo = signo;
	c->armed = true;
	assign_slots(c);
	return 0;
}

int pcx_overflow(void *ctx, const siginfo_t *si)
{
	struct pcx_ctx *c = ctx;
	uint64_t slotval[PCX_NR_SLOTS], tsc;
	uint32_t cs, mask, hit = 0;
	unsigned first = c->nractrs, end = c->nractrs + c->nrictrs;

	if (!c->armed || !c->nrictrs || si->si_signo != c->signo)
		return -1;
	if (si->si_code != PCX_SI_PMC_OVF) {
		c->st.spurious++;	/* our signal number, not from perfctr */
		return -1;
	}
	mask = (uint32_t)si->_sifields._pad[0];
	if (read_consistent(c, slotval, &tsc, &cs) < 0) {
		c->st.spurious++;
		return -1;
	}
	/* Ours only if perfctr stopped the counter and it really went from
	 * -period to >= 0 (a delayed VIRQ may have been meant for another
	 * thread, or the signal is stale). */
	for (unsigned s = first; s < end; s++) {
		const struct ev_state *e = &c->ev[c->slot_event[s]];
		if ((mask & (1u << s)) && s >= pcx_cstatus_nrctrs(cs) &&
		    (int64_t)(slotval[s] - e->base - e->period) >= 0)
			hit |= 1u << s;
	}
	if (!hit) {
		c->st.spurious++;
		/* If perfctr stopped our i-mode counters anyway, restart them
		 * now: nobody will rearm after a notification we refused. */
		if (pcx_cstatus_has_tsc(cs) && pcx_cstatus_nrctrs(cs) < end)
			c->sys->ioctl(c->fd, PCX_IOC_IRESUME, NULL, c->sys->arg);
		return -1;
	}
	c->ovf_slots = hit;
	c->st.overflows++;
	return c->slot_event[__builtin_ctz(hit)];
}

int pcx_rearm(void *ctx, int idx, uint64_t period)
{
	struct pcx_ctx *c = ctx;
	uint64_t slotval[PCX_NR_SLOTS], tsc;
	uint32_t cs, ovf;
	int ret;

	if (idx < 0 || (size_t)idx >= c->n || !c->ev[idx].imode ||
	    !(c->ovf_slots & (1u << c->ev[idx].slot)))
		return -EINVAL;
	ovf = c->ovf_slots;
	if (period && period != c->ev[idx].period) {
		if (period > INT32_MAX)
			return -PMC_EPERIOD;
		c->ev[idx].period = period;
		ret = control_apply(c);
	} else {
		ret = read_consistent(c, slotval, &tsc, &cs);
		if (ret == 0)
			ret = c->sys->ioctl(c->fd, PCX_IOC_IRESUME, NULL, c->sys->arg);
		for (unsigned s = 0; ret == 0 && s < PCX_NR_SLOTS; s++)
			if (ovf & (1u << s))
				c->ev[c->slot_event[s]].base = slotval[s];
	}
	if (ret < 0)
		return ret;
	/* Slots that overflowed with this one were reset too: their samples
	 * are lost. */
	c->st.lost += __builtin_popcount(ovf) - 1;
	c->ovf_slots = 0;
	return 0;
}

int pcx_stats(void *ctx, struct pmc_sample_stats *st)
{
	*st = ((struct pcx_ctx *)ctx)->st;
	return 0;
}

int pcx_close(void *ctx)
{
	struct pcx_ctx *c = ctx;
	const struct pcx_sys *sys;

	if (!c)
		return 0;
	sys = c->sys;
	sys->ioctl(c->fd, PCX_IOC_UNLINK, NULL, sys->arg);
	if (c->ks)
		sys->munmap((const void *)c->ks, PCX_MAP_SIZE, sys->arg);
	sys->close(c->fd, sys->arg);
	free(c);
	return 0;
}
