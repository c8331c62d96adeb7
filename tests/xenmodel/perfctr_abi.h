/* The model's own definition of the perfctr-xen user ABI (x86-64), written
 * from the published sources, NOT from plugins/perfctr_xen/abi.h: the model
 * must be able to catch a layout or encoding error in the plugin.
 *
 * Sources (github.com/rusnikola/perfctr-xen, perfctr-beta/):
 *  - perfctr-2.6.42.2/linux/include/linux/perfctr.h: struct perfctr_info,
 *    vperfctr_control, perfctr_sum_ctrs, perfctr_struct_buf, the ioctls;
 *  - perfctr-2.6.42.2/linux/arch/x86/include/asm/perfctr.h: struct
 *    perfctr_cpu_control, perfctr_cpu_state, cstatus;
 *  - perfctr_r2b.patch: with CONFIG_PERFCTR_WIDECTR (forced by
 *    CONFIG_PERFCTR_XEN) start values are 64-bit, the state gains smp_id
 *    after cstatus, p4_escr_map moves into pmc[] before map, and _pad ends
 *    the struct; vperfctr_state becomes a page-sized union followed by
 *    hypervisor_perfctr[32]; the mmap is 8 pages;
 *  - perfctr-2.6.42.2/linux/drivers/perfctr/marshal.{c,h}: the tags.
 * Names are the model's (xp_*); sizes and offsets are asserted from the
 * C rules (no packing), so a wrong field order fails to compile here. */
#ifndef XENMODEL_PERFCTR_ABI_H
#define XENMODEL_PERFCTR_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#define XP_NPMC 18
#define XP_NVCPU 32			/* hypervisor_perfctr[] (XXX in the patch) */
#define XP_PAGE 4096
#define XP_KSTATE_SIZE (XP_PAGE + 7 * XP_PAGE)	/* PERFCTR_KSTATE_SIZE under XEN */

#define XP_ABI_VERSION ((0x0502u << 16) | 0x0501u)	/* API 5.2, CPU 5.1 */
#define XP_FEATURE_RDPMC 0x01u
#define XP_FEATURE_RDTSC 0x02u
#define XP_FEATURE_PCINT 0x04u

/* perfctr_info.cpu_type values (asm/perfctr.h) the model reports. */
#define XP_CPU_INTEL_P4 11
#define XP_CPU_INTEL_P4M2 12
#define XP_CPU_AMD_K8 13
#define XP_CPU_INTEL_P4M3 16
#define XP_CPU_INTEL_CORE2 18
#define XP_CPU_AMD_FAM10H 19
#define XP_CPU_INTEL_NHLM 21
#define XP_CPU_INTEL_WSTMR 22
#define XP_CPU_INTEL_SNB 23

struct xp_info {
	uint32_t abi_version;
	char driver_version[32];
	uint32_t cpu_type, cpu_features, cpu_khz, tsc_to_cpu_mult;
	uint32_t rsvd2, rsvd3, rsvd4;
};

struct xp_cpu_control {
	uint32_t tsc_on, nractrs, nrictrs;
	uint32_t pmc_map[XP_NPMC];
	uint32_t evntsel[XP_NPMC];
	union {
		struct {
			uint32_t escr[XP_NPMC];
			uint32_t pebs_enable, pebs_matrix_vert;
		} p4;
		uint32_t evntsel_high[XP_NPMC];
	};
	int32_t ireset[XP_NPMC];
	uint32_t rsvd1, rsvd2, rsvd3, rsvd4;
};

struct xp_vcontrol {
	int32_t si_signo;
	struct xp_cpu_control cpu_control;
	uint32_t preserve, flags, rsvd2, rsvd3, rsvd4;
};

struct xp_sum_ctrs {
	uint64_t tsc;
	uint64_t pmc[XP_NPMC];
};

/* perfctr_cpu_state, CONFIG_PERFCTR_WIDECTR layout. */
struct xp_cpu_state {
	uint32_t cstatus;
	uint32_t smp_id;
	uint32_t k1_id;
	int32_t k1_isuspend_cpu;
	uint64_t tsc_start;
	uint64_t tsc_sum;
	struct {
		uint32_t p4_escr_map;
		uint32_t map;
		uint64_t start;		/* sign-extended from the counter width */
		uint64_t sum;
	} pmc[XP_NPMC];
	struct xp_cpu_control control;
	uint32_t core2_fixed_ctr_ctrl;
	uint32_t pending_interrupt;
	uint32_t pad;
};

struct xp_vstate {
	union {
		struct xp_cpu_state cpu_state;
		char page[XP_PAGE];
	};
	struct xp_cpu_state hypervisor_perfctr[XP_NVCPU];
};

/* Hand-computed from the field list: 3*4 + 18*4*2 + 20*4 + 18*4 + 4*4. */
_Static_assert(sizeof(struct xp_cpu_control) == 12 + 144 + 80 + 72 + 16, "cpu_control");
/* 4 words, 2 u64, 18 * 24 bytes, control, 3 words. */
_Static_assert(offsetof(struct xp_cpu_state, pmc) == 16 + 16, "cpu_state head");
_Static_assert(offsetof(struct xp_cpu_state, control) == 32 + 18 * 24, "cpu_state pmc[]");
_Static_assert(sizeof(struct xp_cpu_state) == 32 + 432 + 324 + 12, "cpu_state");
_Static_assert(offsetof(struct xp_vstate, hypervisor_perfctr) == XP_PAGE, "vstate");
_Static_assert(sizeof(struct xp_vstate) <= XP_KSTATE_SIZE, "vstate fits the mmap");

/* perfctr_struct_buf and the ioctls (linux/perfctr.h). */
struct xp_struct_buf {
	uint32_t rdsize, wrsize;
	uint32_t buffer[1];
};
#define XP_IOCTL 0xD0
#define XP_PERFCTR_ABI _IOR(XP_IOCTL, 0, unsigned int)
#define XP_PERFCTR_INFO _IOR(XP_IOCTL, 1, struct xp_struct_buf)
#define XP_VPERFCTR_CREAT _IO(XP_IOCTL, 6)
#define XP_VPERFCTR_OPEN _IO(XP_IOCTL, 7)
#define XP_VPERFCTR_READ_SUM _IOR(XP_IOCTL, 8, struct xp_struct_buf)
#define XP_VPERFCTR_UNLINK _IO(XP_IOCTL, 9)
#define XP_VPERFCTR_CONTROL _IOW(XP_IOCTL, 10, struct xp_struct_buf)
#define XP_VPERFCTR_IRESUME _IO(XP_IOCTL, 11)
#define XP_SI_PMC_OVF 'P'		/* x86-64 user view */

/* cstatus as __perfctr_mk_cstatus builds it; accessors as perfctr's. */
static inline uint32_t xp_mk_cstatus(unsigned tsc_on, unsigned nractrs, unsigned nrictrs)
{
	return (uint32_t)tsc_on << 31 | nrictrs << 16 | (nractrs + nrictrs) << 8 | nractrs;
}
static inline int xp_has_tsc(uint32_t cs) { return (int32_t)cs < 0; }
static inline unsigned xp_nractrs(uint32_t cs) { return cs & 0x7f; }
static inline unsigned xp_nrctrs(uint32_t cs) { return cs >> 8 & 0x7f; }
static inline unsigned xp_has_ictrs(uint32_t cs) { return cs & 0x7f << 16; }
static inline unsigned xp_nrictrs(uint32_t cs) { return cs >> 16 & 0x7f; }

/* Marshalling tags (drivers/perfctr/marshal.c). */
enum {
	XP_TAG_INFO_ABI_VERSION = 0, XP_TAG_INFO_DRIVER_VERSION, XP_TAG_INFO_CPU_TYPE,
	XP_TAG_INFO_CPU_FEATURES, XP_TAG_INFO_CPU_KHZ, XP_TAG_INFO_TSC_TO_CPU_MULT,
	XP_TAG_INFO_RSVD2, XP_TAG_INFO_RSVD3, XP_TAG_INFO_RSVD4,
	XP_TAG_VC_SIGNO = 9, XP_TAG_VC_PRESERVE, XP_TAG_VC_FLAGS, XP_TAG_VC_RSVD2,
	XP_TAG_VC_RSVD3, XP_TAG_VC_RSVD4,
	XP_TAG_CC_TSC_ON = 32, XP_TAG_CC_NRACTRS, XP_TAG_CC_NRICTRS, XP_TAG_CC_PMC_MAP,
	XP_TAG_CC_EVNTSEL, XP_TAG_CC_IRESET, XP_TAG_CC_P4_ESCR, XP_TAG_CC_P4_PE,
	XP_TAG_CC_P4_PMV, XP_TAG_CC_RSVD1, XP_TAG_CC_RSVD2, XP_TAG_CC_RSVD3, XP_TAG_CC_RSVD4,
	XP_TAG_SUM_TSC = 48, XP_TAG_SUM_PMC,
};

/* The model's encoder and decoder (tests/xenmodel/xp_marshal.c): the kernel
 * side of VPERFCTR_CONTROL and PERFCTR_INFO.  Encode: words written, or
 * -EOVERFLOW.  Decode: 0 or -EPROTO. */
int xp_encode_info(const struct xp_info *in, uint32_t *buf, unsigned cap);
int xp_encode_vcontrol(const struct xp_vcontrol *in, uint32_t *buf, unsigned cap);
int xp_decode_vcontrol(struct xp_vcontrol *out, const uint32_t *buf, unsigned n);

/* Counter width the patched kernel and Xen sign-extend from, by the
 * cpu_type the driver reports (x86.c's pmc_shift; 0 = the model refuses). */
unsigned xp_width(uint32_t cpu_type);

#endif /* XENMODEL_PERFCTR_ABI_H */
