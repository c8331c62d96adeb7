/* The model's kernel-side marshalling (drivers/perfctr/marshal.{c,h} of
 * perfctr 2.6.42.2): a datum is a header word (tag << 16 | item << 1 |
 * is_u64) followed by one word, or two (low first) for a 64-bit field; only
 * non-zero items are emitted; a struct's own fields come first in tag
 * order, then its sub-struct's (vperfctr_control, then its cpu_control).
 * Written field by field, not table-driven like the plugin's (the
 * vperfctr_control encoder walks the decoder's own map of its fields). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "tests/xenmodel/perfctr_abi.h"

struct out {
	uint32_t *buf;
	unsigned cap, pos;
	int err;
};

static void put(struct out *o, uint32_t w)
{
	if (o->pos >= o->cap)
		o->err = -EOVERFLOW;
	else
		o->buf[o->pos] = w;
	o->pos++;
}

static void put32(struct out *o, unsigned tag, const uint32_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i]) {
			put(o, tag << 16 | i << 1);
			put(o, v[i]);
		}
}

int xp_encode_info(const struct xp_info *in, uint32_t *buf, unsigned cap)
{
	struct out o = { buf, cap, 0, 0 };
	uint32_t ver[8];

	memcpy(ver, in->driver_version, sizeof(ver));
	put32(&o, XP_TAG_INFO_ABI_VERSION, &in->abi_version, 1);
	put32(&o, XP_TAG_INFO_DRIVER_VERSION, ver, 8);
	put32(&o, XP_TAG_INFO_CPU_TYPE, &in->cpu_type, 1);
	put32(&o, XP_TAG_INFO_CPU_FEATURES, &in->cpu_features, 1);
	put32(&o, XP_TAG_INFO_CPU_KHZ, &in->cpu_khz, 1);
	put32(&o, XP_TAG_INFO_TSC_TO_CPU_MULT, &in->tsc_to_cpu_mult, 1);
	put32(&o, XP_TAG_INFO_RSVD2, &in->rsvd2, 1);
	put32(&o, XP_TAG_INFO_RSVD3, &in->rsvd3, 1);
	put32(&o, XP_TAG_INFO_RSVD4, &in->rsvd4, 1);
	return o.err ? o.err : (int)o.pos;
}

/* Where a 32-bit tag of vperfctr_control lands, and how many items. */
static uint32_t *vc_field(struct xp_vcontrol *v, unsigned tag, unsigned *n)
{
	struct xp_cpu_control *c = &v->cpu_control;

	*n = 1;
	switch (tag) {
	case XP_TAG_VC_SIGNO: return (uint32_t *)&v->si_signo;
	case XP_TAG_VC_PRESERVE: return &v->preserve;
	case XP_TAG_VC_FLAGS: return &v->flags;
	case XP_TAG_VC_RSVD2: return &v->rsvd2;
	case XP_TAG_VC_RSVD3: return &v->rsvd3;
	case XP_TAG_VC_RSVD4: return &v->rsvd4;
	case XP_TAG_CC_TSC_ON: return &c->tsc_on;
	case XP_TAG_CC_NRACTRS: return &c->nractrs;
	case XP_TAG_CC_NRICTRS: return &c->nrictrs;
	case XP_TAG_CC_P4_PE: return &c->p4.pebs_enable;
	case XP_TAG_CC_P4_PMV: return &c->p4.pebs_matrix_vert;
	case XP_TAG_CC_RSVD1: return &c->rsvd1;
	case XP_TAG_CC_RSVD2: return &c->rsvd2;
	case XP_TAG_CC_RSVD3: return &c->rsvd3;
	case XP_TAG_CC_RSVD4: return &c->rsvd4;
	}
	*n = XP_NPMC;
	switch (tag) {
	case XP_TAG_CC_PMC_MAP: return c->pmc_map;
	case XP_TAG_CC_EVNTSEL: return c->evntsel;
	case XP_TAG_CC_IRESET: return (uint32_t *)c->ireset;
	case XP_TAG_CC_P4_ESCR: return c->p4.escr;
	}
	return NULL;
}

/* In tag order: vperfctr_control's own fields, then its cpu_control's. */
int xp_encode_vcontrol(const struct xp_vcontrol *in, uint32_t *buf, unsigned cap)
{
	struct out o = { buf, cap, 0, 0 };
	struct xp_vcontrol v = *in;	/* vc_field hands out writable fields */

	for (unsigned tag = XP_TAG_VC_SIGNO; tag <= XP_TAG_CC_RSVD4; tag++) {
		unsigned n;
		const uint32_t *f = vc_field(&v, tag, &n);

		if (f)
			put32(&o, tag, f, n);
	}
	return o.err ? o.err : (int)o.pos;
}

int xp_decode_vcontrol(struct xp_vcontrol *out, const uint32_t *buf, unsigned n)
{
	memset(out, 0, sizeof(*out));
	for (unsigned pos = 0; pos < n;) {
		uint32_t h = buf[pos++];
		unsigned items, item = h >> 1 & 0x7fff;
		uint32_t *f = vc_field(out, h >> 16, &items);

		/* Every vperfctr_control field is 32-bit: a 64-bit datum is
		 * a protocol error, as in perfctr_decode_struct. */
		if (!f || (h & 1) || item >= items || pos >= n)
			return -EPROTO;
		f[item] = buf[pos++];
	}
	return 0;
}

unsigned xp_width(uint32_t cpu_type)
{
	switch (cpu_type) {
	case XP_CPU_INTEL_NHLM:
	case XP_CPU_INTEL_WSTMR:
	case XP_CPU_INTEL_SNB:	/* x86.c: model 42 gets pmc_shift 16 */
	case XP_CPU_AMD_K8:
	case XP_CPU_AMD_FAM10H:
		return 48;
	case XP_CPU_INTEL_P4:
	case XP_CPU_INTEL_P4M2:
	case XP_CPU_INTEL_P4M3:
		return 32;
	case XP_CPU_INTEL_CORE2:
		return 40;	/* pmc_shift's default 24 */
	}
	return 0;
}
