/* perfctr's structure marshalling: how VPERFCTR_CONTROL, PERFCTR_INFO and
 * VPERFCTR_READ_SUM carry their structs.  Wire format as in perfctr 2.6
 * usr.lib/marshal.h: each non-zero field item is a header word
 * (tag << 16 | item << 1 | is_u64) followed by one or two (low, high) data
 * words; the field tags are those of perfctr's descriptor tables.  The
 * tables below are ours, flattened (a sub-struct's fields follow its
 * parent's, the order perfctr's encoder emits them). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "plugins/perfctr_xen/pcx.h"

#define FIELD(type, member, tag_, n, u64)                                                   \
	{ .offset = offsetof(type, member), .tag = (tag_), .nitems = (n), .is_u64 = (u64) }
#define CTL(member, tag_, n)                                                                 \
	{ .offset = offsetof(struct pcx_vcontrol, cpu_control) +                               \
		    offsetof(struct pcx_cpu_control, member),                                  \
	  .tag = (tag_), .nitems = (n), .is_u64 = 0 }
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct pcx_field info_fields[] = {
	FIELD(struct pcx_info, abi_version, 0, 1, 0),
	FIELD(struct pcx_info, driver_version, 1, 8, 0),
	FIELD(struct pcx_info, cpu_type, 2, 1, 0),
	FIELD(struct pcx_info, cpu_features, 3, 1, 0),
	FIELD(struct pcx_info, cpu_khz, 4, 1, 0),
	FIELD(struct pcx_info, tsc_to_cpu_mult, 5, 1, 0),
	FIELD(struct pcx_info, _reserved2, 6, 1, 0),
	FIELD(struct pcx_info, _reserved3, 7, 1, 0),
	FIELD(struct pcx_info, _reserved4, 8, 1, 0),
};

static const struct pcx_field vcontrol_fields[] = {
	FIELD(struct pcx_vcontrol, si_signo, 9, 1, 0),
	FIELD(struct pcx_vcontrol, preserve, 10, 1, 0),
	FIELD(struct pcx_vcontrol, flags, 11, 1, 0),
	FIELD(struct pcx_vcontrol, _reserved2, 12, 1, 0),
	FIELD(struct pcx_vcontrol, _reserved3, 13, 1, 0),
	FIELD(struct pcx_vcontrol, _reserved4, 14, 1, 0),
	CTL(tsc_on, 32, 1),
	CTL(nractrs, 33, 1),
	CTL(nrictrs, 34, 1),
	CTL(pmc_map, 35, PCX_NR_SLOTS),
	CTL(evntsel, 36, PCX_NR_SLOTS),
	CTL(ireset, 37, PCX_NR_SLOTS),
	CTL(u.p4.escr, 38, PCX_NR_SLOTS),
	CTL(u.p4.pebs_enable, 39, 1),
	CTL(u.p4.pebs_matrix_vert, 40, 1),
	CTL(_reserved1, 41, 1),
	CTL(_reserved2, 42, 1),
	CTL(_reserved3, 43, 1),
	CTL(_reserved4, 44, 1),
};

static const struct pcx_field sum_fields[] = {
	FIELD(struct pcx_sum_ctrs, tsc, 48, 1, 1),
	FIELD(struct pcx_sum_ctrs, pmc, 49, PCX_NR_SLOTS, 1),
};

/* Room: one header per item plus the struct's words (perfctr's sdesc_bufsize). */
const struct pcx_desc pcx_info_desc = { sizeof(struct pcx_info), N(info_fields), info_fields,
					16 + sizeof(struct pcx_info) / 4 };
const struct pcx_desc pcx_vcontrol_desc = { sizeof(struct pcx_vcontrol), N(vcontrol_fields),
					    vcontrol_fields,
					    87 + sizeof(struct pcx_vcontrol) / 4 };
const struct pcx_desc pcx_sum_desc = { sizeof(struct pcx_sum_ctrs), N(sum_fields), sum_fields,
				       19 + sizeof(struct pcx_sum_ctrs) / 4 };

int pcx_marshal_encode(const void *obj, const struct pcx_desc *d, uint32_t *buf, size_t cap,
		       size_t *nwords)
{
	size_t pos = 0;

	for (size_t f = 0; f < d->nfields; f++) {
		const struct pcx_field *fd = &d->fields[f];
		const char *p = (const char *)obj + fd->offset;

		for (unsigned i = 0; i < fd->nitems; i++) {
			uint32_t hdr = ((uint32_t)fd->tag << 16) | (i << 1) | fd->is_u64;
			uint64_t v64;
			uint32_t v32;

			if (fd->is_u64) {
				memcpy(&v64, p + 8 * i, 8);
				if (!v64)
					continue;
				if (pos + 3 > cap)
					return -EOVERFLOW;
				buf[pos++] = hdr;
				buf[pos++] = (uint32_t)v64;
				buf[pos++] = (uint32_t)(v64 >> 32);
			} else {
				memcpy(&v32, p + 4 * i, 4);
				if (!v32)
					continue;
				if (pos + 2 > cap)
					return -EOVERFLOW;
				buf[pos++] = hdr;
				buf[pos++] = v32;
			}
		}
	}
	*nwords = pos;
	return 0;
}

int pcx_marshal_decode(void *obj, const struct pcx_desc *d, const uint32_t *buf, size_t nwords)
{
	size_t pos = 0;

	memset(obj, 0, d->size);
	while (pos < nwords) {
		uint32_t hdr = buf[pos++];
		unsigned tag = hdr >> 16, item = (hdr >> 1) & 0x7fff, is_u64 = hdr & 1;
		const struct pcx_field *fd = NULL;
		char *p;

		for (size_t f = 0; f < d->nfields; f++)
			if (d->fields[f].tag == tag)
				fd = &d->fields[f];
		if (!fd || item >= fd->nitems || is_u64 != fd->is_u64)
			return -EPROTO;
		p = (char *)obj + fd->offset;
		if (is_u64) {
			uint64_t v;
			if (pos + 2 > nwords)
				return -EPROTO;
			v = buf[pos] | (uint64_t)buf[pos + 1] << 32;
			pos += 2;
			memcpy(p + 8 * item, &v, 8);
		} else {
			if (pos + 1 > nwords)
				return -EPROTO;
			memcpy(p + 4 * item, &buf[pos++], 4);
		}
	}
	return 0;
}
