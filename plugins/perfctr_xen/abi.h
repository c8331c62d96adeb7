/* The perfctr 2.6 user ABI with the perfctr-xen extension (x86-64).
 *
 * Our own definitions, laid out as in the public perfctr 2.6.42 headers
 * (linux/include/linux/perfctr.h, linux/arch/x86/include/asm/perfctr.h and
 * usr.lib/marshal.{c,h}, Mikael Pettersson) as changed by the perfctr-xen
 * patch (perfctr-beta/perfctr_r2b.patch in github.com/rusnikola/perfctr-xen,
 * Ruslan Nikolaev; VEE'11 paper sections 4.2.1-4.2.3):
 *  - CONFIG_PERFCTR_WIDECTR: start values are 64-bit, sign-extended from
 *    the counter width, so perfctr_cpu_state grows an smp_id word and each
 *    pmc[] entry a p4_escr_map word that keep the old padding;
 *  - smp_id: the VCPU the thread was last resumed on;
 *  - the whole perfctr_cpu_state (800 bytes) is visible to user space, and
 *    the mmap'd area is 8 pages: the thread's page, then Xen's per-VCPU
 *    states (hypervisor_perfctr[32], from the 7 pages added to shared_info).
 * The ABI number was not changed by the patch; only the 8-page mmap tells
 * a perfctr-xen driver from a native one (which maps exactly one page).
 * That release pairs perfctr 2.6.42.2 with Xen 4.2.0 (xen_r2b.patch) and a
 * Linux 3.2.30 guest.  tests/xenmodel/perfctr_abi.h is an independent copy
 * the model uses; the golden tests hold the two against each other.
 */
#ifndef PCX_ABI_H
#define PCX_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#define PCX_NR_SLOTS 18		/* pmc[] entries in the ABI */
#define PCX_NR_VCPUS 32		/* hypervisor_perfctr[] entries */
#define PCX_PAGE 4096
#define PCX_MAP_SIZE (8 * PCX_PAGE)	/* thread page + 7 shared_info pages */

/* abi_version: API 5.2 in the high half, CPU data layout 5.1 in the low. */
#define PCX_API_VERSION 0x0502u
#define PCX_CPU_VERSION 0x0501u
#define PCX_ABI_VERSION ((PCX_API_VERSION << 16) | PCX_CPU_VERSION)

/* perfctr_info.cpu_features */
#define PCX_FEATURE_RDPMC 0x01u
#define PCX_FEATURE_RDTSC 0x02u
#define PCX_FEATURE_PCINT 0x04u	/* overflow interrupts (i-mode) */

/* perfctr_info.cpu_type values used in our width table. */
enum pcx_cpu_type {
	PCX_X86_GENERIC = 0,
	PCX_X86_INTEL_P6 = 3,
	PCX_X86_INTEL_PII = 4,
	PCX_X86_INTEL_PIII = 5,
	PCX_X86_AMD_K7 = 9,
	PCX_X86_INTEL_P4 = 11,
	PCX_X86_INTEL_P4M2 = 12,
	PCX_X86_AMD_K8 = 13,
	PCX_X86_INTEL_PENTM = 14,
	PCX_X86_AMD_K8C = 15,
	PCX_X86_INTEL_P4M3 = 16,
	PCX_X86_INTEL_CORE = 17,
	PCX_X86_INTEL_CORE2 = 18,
	PCX_X86_AMD_FAM10H = 19,
	PCX_X86_INTEL_ATOM = 20,
	PCX_X86_INTEL_NHLM = 21,
	PCX_X86_INTEL_WSTMR = 22,
	PCX_X86_INTEL_SNB = 23,
};

struct pcx_info {
	uint32_t abi_version;
	char driver_version[32];
	uint32_t cpu_type;
	uint32_t cpu_features;
	uint32_t cpu_khz;
	uint32_t tsc_to_cpu_mult;
	uint32_t _reserved2, _reserved3, _reserved4;
};

struct pcx_cpu_control {
	uint32_t tsc_on;
	uint32_t nractrs;		/* a-mode counters: slots [0, nractrs) */
	uint32_t nrictrs;		/* i-mode counters: the next nrictrs slots */
	uint32_t pmc_map[PCX_NR_SLOTS];	/* slot -> rdpmc counter number */
	uint32_t evntsel[PCX_NR_SLOTS];	/* PerfEvtSel value per slot */
	union {
		struct {
			uint32_t escr[PCX_NR_SLOTS];
			uint32_t pebs_enable, pebs_matrix_vert;
		} p4;
		uint32_t evntsel_high[PCX_NR_SLOTS];
	} u;
	int32_t ireset[PCX_NR_SLOTS];	/* < 0: i-mode start value (-period) */
	uint32_t _reserved1, _reserved2, _reserved3, _reserved4;
};

/* Argument of VPERFCTR_CONTROL (marshalled). */
struct pcx_vcontrol {
	int32_t si_signo;
	struct pcx_cpu_control cpu_control;
	uint32_t preserve;		/* bit i: keep slot i's sum */
	uint32_t flags;
	uint32_t _reserved2, _reserved3, _reserved4;
};

/* Result of VPERFCTR_READ_SUM (marshalled). */
struct pcx_sum_ctrs {
	uint64_t tsc;
	uint64_t pmc[PCX_NR_SLOTS];
};

/* perfctr_cpu_state with CONFIG_PERFCTR_WIDECTR: both the thread's page and
 * each per-VCPU state.  For a thread, tsc/pmc start = Start*_thread and
 * sum = Sum_thread; for a VCPU, Start_vcpu and Sum_vcpu (paper eq. 2-3). */
struct pcx_cpu_state {
	uint32_t cstatus;
	uint32_t smp_id;
	struct {
		uint32_t id;
		int32_t isuspend_cpu;
	} k1;
	uint64_t tsc_start;
	uint64_t tsc_sum;
	struct {
		uint32_t p4_escr_map;
		uint32_t map;
		uint64_t start;
		uint64_t sum;
	} pmc[PCX_NR_SLOTS];
	struct pcx_cpu_control control;
	uint32_t core2_fixed_ctr_ctrl;
	uint32_t pending_interrupt;
	uint32_t _pad;
};

/* The mmap'd area: struct vperfctr_state of perfctr-xen. */
struct pcx_vstate {
	union {
		struct pcx_cpu_state cpu_state;
		char pad[PCX_PAGE];
	} t;
	struct pcx_cpu_state vcpu[PCX_NR_VCPUS];
};

_Static_assert(sizeof(struct pcx_cpu_control) == 324, "perfctr_cpu_control layout");
_Static_assert(offsetof(struct pcx_cpu_state, tsc_start) == 16, "perfctr_cpu_state layout");
_Static_assert(offsetof(struct pcx_cpu_state, pmc) == 32, "perfctr_cpu_state layout");
_Static_assert(sizeof(struct pcx_cpu_state) == 800, "perfctr_cpu_state layout");
_Static_assert(sizeof(struct pcx_vstate) <= PCX_MAP_SIZE, "vperfctr_state fits 8 pages");

/* cstatus: (tsc_on << 31) | (nrictrs << 16) | (nrctrs << 8) | nractrs. */
static inline uint32_t pcx_cstatus_make(unsigned tsc_on, unsigned nractrs, unsigned nrictrs)
{
	return ((uint32_t)(tsc_on != 0) << 31) | (nrictrs << 16) | ((nractrs + nrictrs) << 8) |
	       nractrs;
}
static inline int pcx_cstatus_has_tsc(uint32_t cs) { return (int32_t)cs < 0; }
static inline unsigned pcx_cstatus_nractrs(uint32_t cs) { return cs & 0x7f; }
static inline unsigned pcx_cstatus_nrctrs(uint32_t cs) { return (cs >> 8) & 0x7f; }
static inline unsigned pcx_cstatus_nrictrs(uint32_t cs) { return (cs >> 16) & 0x7f; }

/* Marshalled-struct buffer, and the ioctl commands. */
struct pcx_struct_buf {
	uint32_t rdsize;		/* words the reader may consume */
	uint32_t wrsize;		/* room for the writer, in words */
	uint32_t buffer[1];		/* actually max(rdsize, wrsize) */
};

#define PCX_IOC 0xD0
#define PCX_IOC_ABI _IOR(PCX_IOC, 0, unsigned int)
#define PCX_IOC_INFO _IOR(PCX_IOC, 1, struct pcx_struct_buf)
#define PCX_IOC_CREAT _IO(PCX_IOC, 6)		/* arg: tid, 0 = self; returns an fd */
#define PCX_IOC_OPEN _IO(PCX_IOC, 7)
#define PCX_IOC_READ_SUM _IOR(PCX_IOC, 8, struct pcx_struct_buf)
#define PCX_IOC_UNLINK _IO(PCX_IOC, 9)
#define PCX_IOC_CONTROL _IOW(PCX_IOC, 10, struct pcx_struct_buf)
#define PCX_IOC_IRESUME _IO(PCX_IOC, 11)

/* Overflow signal: si_code and the overflowed-slot mask in _sifields._pad[0]. */
#define PCX_SI_PMC_OVF ('P')

/* PerfEvtSel bits (x86-pmc-study section 2.1). */
#define PCX_EVNTSEL_USR (1u << 16)
#define PCX_EVNTSEL_OS (1u << 17)
#define PCX_EVNTSEL_EDGE (1u << 18)
#define PCX_EVNTSEL_INT (1u << 20)
#define PCX_EVNTSEL_EN (1u << 22)
#define PCX_EVNTSEL_INV (1u << 23)
#define PCX_EVNTSEL_CMASK (0xffu << 24)

#endif /* PCX_ABI_H */
