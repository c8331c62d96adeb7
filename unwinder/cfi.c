/* The frame recipe at a pc, read from the object's .eh_frame: binary
 * search of .eh_frame_hdr, then the CIE's and the FDE's call-frame
 * instructions run up to the pc.  No syscall, no lock, no allocation: this
 * is what a capture does on a recipe-cache miss.  Only the common shapes
 * are turned into recipes (CFA = rsp or rbp + constant, return address at
 * CFA - 8, rbp untouched or saved at CFA + k); anything else (expressions,
 * signal frames, unusual registers) is UW_RECIPE_SLOW and left to
 * libunwind.  Every byte read is checked against the object's readable
 * segments first (uw_readable), inside the caller's guard. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "unwinder/internal.h"

/* DWARF register numbers on x86-64 */
#define R_RBP 6
#define R_RSP 7
#define R_RA 16

enum rule { SAME, UNDEF, OFFSET, OTHER };

struct regs {
	uint8_t cfa_reg;
	bool cfa_expr;
	int64_t cfa_off;
	uintptr_t expr, expr_len;	/* the CFA expression, when cfa_expr */
	uint8_t rule[3];	/* rbp, rsp, ra */
	int64_t off[3];
};

/* A reader over one region of the target: p and end are target
 * addresses, the bytes live at p + delta here (0 for this process's own
 * objects; a file's mapping for another process's, through its image). */
struct rd {
	uintptr_t p, end;
	uintptr_t delta;
	const struct uw_image *img;
	bool bad;
};

static int slot(uint64_t reg)
{
	return reg == R_RBP ? 0 : reg == R_RSP ? 1 : reg == R_RA ? 2 : -1;
}

/* The segment around addr bounds every read that starts there: one of
 * this process's loaded objects (img NULL), or the region the image maps
 * there. */
static bool rd_at(struct rd *r, const struct uw_image *img, uintptr_t addr)
{
	r->p = addr;
	r->img = img;
	r->delta = 0;
	if (img) {
		size_t len = 0;
		const void *q = img->ops->map(img->arg, addr, &len);

		r->bad = !q || !len || addr + len < addr;
		r->end = r->bad ? addr : addr + len;
		r->delta = r->bad ? 0 : (uintptr_t)q - addr;
		return !r->bad;
	}
	const struct uw_seg *g = uw_seg_find(addr);

	r->end = g ? g->hi : addr;
	r->bad = !g;
	return g != NULL;
}

/* Where the bytes at target address a (inside r's region) are here. */
static const void *rd_here(const struct rd *r, uintptr_t a)
{
	return (const void *)(a + r->delta);
}

static bool rd_ok(struct rd *r, size_t n)
{
	if (r->bad || r->p + n < r->p || r->p + n > r->end) {
		r->bad = true;
		return false;
	}
	return true;
}

#define RD_FIXED(name, type)                          \
	static type name(struct rd *r)                \
	{                                             \
		type v = 0;                           \
		if (rd_ok(r, sizeof(v))) {            \
			memcpy(&v, rd_here(r, r->p), sizeof(v)); \
			r->p += sizeof(v);            \
		}                                     \
		return v;                             \
	}
RD_FIXED(rd_u8, uint8_t)
RD_FIXED(rd_u16, uint16_t)
RD_FIXED(rd_u32, uint32_t)
RD_FIXED(rd_u64, uint64_t)

/* A LEB128 number's bits; *shift and *last say where it ended, for
 * rd_sleb's sign. */
static uint64_t rd_leb(struct rd *r, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		b = rd_u8(r);
		if (*shift < 64)
			v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while ((b & 0x80) && !r->bad);
	*last = b;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	unsigned shift;
	uint8_t b;

	return rd_leb(r, &shift, &b);
}

static int64_t rd_sleb(struct rd *r)
{
	unsigned shift;
	uint8_t b;
	uint64_t v = rd_leb(r, &shift, &b);

	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* DW_EH_PE_* pointer encodings (LSB's .eh_frame). */
#define PE_OMIT 0xff
#define PE_INDIRECT 0x80

/* A pointer in encoding enc; base is the address of .eh_frame_hdr for
 * datarel.  Indirect pointers are skipped, not followed (0 returned). */
static uintptr_t rd_ptr(struct rd *r, uint8_t enc, uintptr_t datarel)
{
	uintptr_t at = r->p, v;

	if (enc == PE_OMIT)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = (uintptr_t)rd_u64(r); break;
	case 0x01: v = (uintptr_t)rd_uleb(r); break;
	case 0x02: v = rd_u16(r); break;
	case 0x03: v = rd_u32(r); break;
	case 0x04: v = (uintptr_t)rd_u64(r); break;
	case 0x09: v = (uintptr_t)rd_sleb(r); break;
	case 0x0a: v = (uintptr_t)(intptr_t)(int16_t)rd_u16(r); break;
	case 0x0b: v = (uintptr_t)(intptr_t)(int32_t)rd_u32(r); break;
	case 0x0c: v = (uintptr_t)rd_u64(r); break;
	default: r->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;		/* pcrel */
	case 0x30: v += datarel; break;		/* datarel */
	default: r->bad = true; return 0;	/* textrel, funcrel: not on x86-64 */
	}
	if (enc & PE_INDIRECT)
		v = 0;
	return v;
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	bool has_z, signal;
	uintptr_t insn, insn_end;
};

static bool cie_parse(const struct uw_image *img, uintptr_t at, struct cie *c)
{
	struct rd r;
	uint64_t len;
	uintptr_t end;
	uint8_t version;
	char aug[8];
	size_t na = 0;

	memset(c, 0, sizeof(*c));
	c->fde_enc = 0;
	if (!rd_at(&r, img, at))
		return false;
	len = rd_u32(&r);
	if (len == 0xffffffff)
		len = rd_u64(&r);
	if (r.bad || len == 0 || r.p + len < r.p || r.p + len > r.end)
		return false;
	end = r.p + len;
	if (rd_u32(&r) != 0)	/* a CIE's id in .eh_frame */
		return false;
	version = rd_u8(&r);
	if (version != 1 && version != 3)
		return false;
	for (;;) {
		char ch = (char)rd_u8(&r);

		if (r.bad || !ch)
			break;
		if (na == sizeof(aug) - 1)
			return false;
		aug[na++] = ch;
	}
	aug[na] = '\0';
	if (na && aug[0] != 'z')
		return false;	/* "eh" and other ancient forms */
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra = version == 1 ? rd_u8(&r) : rd_uleb(&r);
	if (na) {
		uint64_t alen = rd_uleb(&r);
		uintptr_t aend = r.p + alen;

		c->has_z = true;
		for (size_t i = 1; i < na && !r.bad; i++) {
			switch (aug[i]) {
			case 'R': c->fde_enc = rd_u8(&r); break;
			case 'P': { uint8_t e = rd_u8(&r); rd_ptr(&r, e, 0); break; }
			case 'L': rd_u8(&r); break;
			case 'S': c->signal = true; break;
			default: i = na; break;	/* unknown: the length skips it */
			}
		}
		r.p = aend;
	}
	if (r.bad || r.p > end)
		return false;
	c->insn = r.p;
	c->insn_end = end;
	return true;
}

#define STACK 8

struct run {
	struct regs cur, init, stack[STACK];
	int depth;
};

static void set_rule(struct regs *s, uint64_t reg, enum rule rule, int64_t off)
{
	int i = slot(reg);

	if (i >= 0) {
		s->rule[i] = (uint8_t)rule;
		s->off[i] = off;
	}
}

/* A register back to its rule from the CIE's initial instructions. */
static void restore_rule(struct run *st, uint64_t reg)
{
	if (slot(reg) >= 0)
		set_rule(&st->cur, reg, st->init.rule[slot(reg)], st->init.off[slot(reg)]);
}

/* advance_loc and set_loc: true if op is one, with *loc moved. */
static bool cfa_loc(struct rd *r, const struct cie *c, uint8_t op, uintptr_t *loc)
{
	if ((op & 0xc0) == 0x40) {	/* advance_loc */
		*loc += (op & 0x3f) * c->code_align;
		return true;
	}
	switch (op) {
	case 0x01: *loc = rd_ptr(r, c->fde_enc, 0); return true;	/* set_loc */
	case 0x02: *loc += rd_u8(r) * c->code_align; return true;
	case 0x03: *loc += rd_u16(r) * c->code_align; return true;
	case 0x04: *loc += rd_u32(r) * c->code_align; return true;
	}
	return false;
}

/* The CFA's own rule (def_cfa and its forms): true if op is one. */
static bool cfa_def(struct regs *s, const struct cie *c, struct rd *r, uint8_t op)
{
	switch (op) {
	case 0x0c:	/* def_cfa */
		s->cfa_reg = (uint8_t)rd_uleb(r);
		s->cfa_off = (int64_t)rd_uleb(r);
		s->cfa_expr = false;
		return true;
	case 0x0d:	/* def_cfa_register */
		s->cfa_reg = (uint8_t)rd_uleb(r);
		s->cfa_expr = false;
		return true;
	case 0x0e: s->cfa_off = (int64_t)rd_uleb(r); return true;
	case 0x0f:	/* def_cfa_expression */
		s->expr_len = rd_uleb(r);
		s->expr = r->p;
		r->p += s->expr_len;
		s->cfa_expr = true;
		return true;
	case 0x12:	/* def_cfa_sf */
		s->cfa_reg = (uint8_t)rd_uleb(r);
		s->cfa_off = rd_sleb(r) * c->data_align;
		s->cfa_expr = false;
		return true;
	case 0x13: s->cfa_off = rd_sleb(r) * c->data_align; return true;
	}
	return false;
}

/* Any other instruction: a register's rule, the state stack, or a nop.
 * false on a malformed or unsupported one. */
static bool cfa_rule(struct run *st, const struct cie *c, struct rd *r, uint8_t op)
{
	struct regs *s = &st->cur;
	uint64_t reg;

	switch (op & 0xc0) {
	case 0x80:	/* offset */
		set_rule(s, op & 0x3f, OFFSET, (int64_t)rd_uleb(r) * c->data_align);
		return true;
	case 0xc0:	/* restore */
		restore_rule(st, op & 0x3f);
		return true;
	}
	switch (op) {
	case 0x00:	/* nop */
		return true;
	case 0x05:	/* offset_extended */
		reg = rd_uleb(r);
		set_rule(s, reg, OFFSET, (int64_t)rd_uleb(r) * c->data_align);
		return true;
	case 0x06: restore_rule(st, rd_uleb(r)); return true;	/* restore_extended */
	case 0x07: set_rule(s, rd_uleb(r), UNDEF, 0); return true;
	case 0x08: set_rule(s, rd_uleb(r), SAME, 0); return true;
	case 0x09:	/* register */
		reg = rd_uleb(r);
		rd_uleb(r);
		set_rule(s, reg, OTHER, 0);
		return true;
	case 0x0a:	/* remember_state */
		if (st->depth == STACK)
			return false;
		st->stack[st->depth++] = *s;
		return true;
	case 0x0b:	/* restore_state */
		if (st->depth == 0)
			return false;
		*s = st->stack[--st->depth];
		return true;
	case 0x10:	/* expression */
	case 0x16:	/* val_expression */
		reg = rd_uleb(r);
		r->p += rd_uleb(r);
		set_rule(s, reg, OTHER, 0);
		return true;
	case 0x11:	/* offset_extended_sf */
		reg = rd_uleb(r);
		set_rule(s, reg, OFFSET, rd_sleb(r) * c->data_align);
		return true;
	case 0x14:	/* val_offset */
	case 0x15:	/* val_offset_sf */
		reg = rd_uleb(r);
		if (op == 0x14)
			rd_uleb(r);
		else
			rd_sleb(r);
		set_rule(s, reg, OTHER, 0);
		return true;
	case 0x2e:	/* GNU_args_size */
		rd_uleb(r);
		return true;
	case 0x2f:	/* GNU_negative_offset_extended */
		reg = rd_uleb(r);
		set_rule(s, reg, OFFSET, -(int64_t)rd_uleb(r) * c->data_align);
		return true;
	}
	return false;
}

/* Run instructions [insn, end) while the location is <= pc (loc starts at
 * the FDE's start; for the CIE's, pc = ~0 and loc never moves).  false on
 * a malformed or unsupported program. */
static bool cfa_run(struct run *st, const struct cie *c, const struct uw_image *img,
		    uintptr_t insn, uintptr_t end, uintptr_t loc, uintptr_t pc)
{
	struct rd r;

	if (!rd_at(&r, img, insn))
		return false;
	if (end > r.end)
		return false;
	r.end = end;
	while (r.p < end && !r.bad) {
		uint8_t op = rd_u8(&r);

		if (cfa_loc(&r, c, op, &loc)) {
			if (loc > pc)
				return true;
		} else if (!cfa_def(&st->cur, c, &r, op) && !cfa_rule(st, c, &r, op)) {
			return false;
		}
	}
	return !r.bad;
}

/* A value of expr_eval's stack: a * rsp + b. */
struct lin {
	int64_t a, b;
};

static bool is_binary(uint8_t op)
{
	return op == 0x22 || op == 0x1c || op == 0x1a || op == 0x21 || op == 0x24 || op == 0x25 ||
	       (op >= 0x29 && op <= 0x2e);
}

/* x op y for the binary operators: plus and minus keep a in {0, 1}; the
 * others take constants only (no arithmetic on rsp itself). */
static bool binary(uint8_t op, struct lin x, struct lin y, struct lin *out)
{
	int64_t u = x.b, v = y.b;

	if (op == 0x22 || op == 0x1c) {		/* plus, minus */
		*out = op == 0x22 ? (struct lin){ x.a + y.a, x.b + y.b }
				  : (struct lin){ x.a - y.a, x.b - y.b };
		return out->a >= 0 && out->a <= 1;
	}
	if (x.a || y.a)
		return false;
	out->a = 0;
	switch (op) {
	case 0x1a: out->b = u & v; break;
	case 0x21: out->b = u | v; break;
	case 0x24: out->b = v >= 0 && v < 64 ? (int64_t)((uint64_t)u << v) : 0; break;
	case 0x25: out->b = v >= 0 && v < 64 ? (int64_t)((uint64_t)u >> v) : 0; break;
	case 0x29: out->b = u == v; break;
	case 0x2a: out->b = u >= v; break;
	case 0x2b: out->b = u > v; break;
	case 0x2c: out->b = u <= v; break;
	case 0x2d: out->b = u < v; break;
	default: out->b = u != v; break;
	}
	return true;
}

/* An operand op pushes: true if op is one, with its value in *x. */
static bool operand(struct rd *r, uint8_t op, uintptr_t key, struct lin *x)
{
	*x = (struct lin){ 0, 0 };
	if (op >= 0x30 && op <= 0x4f) {			/* lit0..31 */
		x->b = op - 0x30;
	} else if (op == 0x77 || op == 0x80) {		/* breg7 (rsp), breg16 (rip) */
		x->b = rd_sleb(r);
		if (op == 0x77)
			x->a = 1;
		else
			x->b += (int64_t)key;
	} else if (op == 0x08 || op == 0x09) {		/* const1u, const1s */
		uint8_t v = rd_u8(r);
		x->b = op == 0x08 ? v : (int8_t)v;
	} else if (op == 0x10 || op == 0x11) {		/* constu, consts */
		x->b = op == 0x10 ? (int64_t)rd_uleb(r) : rd_sleb(r);
	} else {
		return false;
	}
	return true;
}

/* A CFA expression that comes to rsp + constant once rip is known: the
 * PLT's (rsp + 8, plus 8 past the push in a lazy-binding stub, chosen by
 * rip & 15).  Values are a * rsp + b with a in {0, 1}; rip is key, the
 * interrupted pc (PLT stubs never call, so they are only ever the leaf).
 * Anything else (a deref: realigned frames) is not a recipe. */
static bool expr_eval(const struct uw_image *img, uintptr_t at, uintptr_t len, uintptr_t key,
		      int64_t *off)
{
	struct lin st[8], x;
	int sp = 0;
	struct rd r;

	if (!len || !rd_at(&r, img, at) || at + len < at || at + len > r.end)
		return false;
	r.end = at + len;
	while (r.p < r.end && !r.bad) {
		uint8_t op = rd_u8(&r);

		if (op == 0x23) {				/* plus_uconst */
			if (sp < 1)
				return false;
			st[sp - 1].b += (int64_t)rd_uleb(&r);
			continue;
		}
		if (is_binary(op)) {
			if (sp < 2)
				return false;
			sp -= 2;
			if (!binary(op, st[sp], st[sp + 1], &x))
				return false;
		} else if (!operand(&r, op, key, &x)) {
			return false;
		}
		if (sp == 8)
			return false;
		st[sp++] = x;
	}
	if (r.bad || sp != 1 || st[0].a != 1)
		return false;
	*off = st[0].b;
	return true;
}

/* The FDE for key from the object's .eh_frame_hdr table, or 0. */
static uintptr_t fde_find(const struct uw_image *img, uintptr_t hdr, uintptr_t key)
{
	struct rd r;
	uint8_t version, ptr_enc, count_enc, table_enc;
	uintptr_t table, lo, hi, count;

	if (!rd_at(&r, img, hdr))
		return 0;
	version = rd_u8(&r);
	ptr_enc = rd_u8(&r);
	count_enc = rd_u8(&r);
	table_enc = rd_u8(&r);
	if (r.bad || version != 1 || table_enc != 0x3b)	/* datarel | sdata4 */
		return 0;
	rd_ptr(&r, ptr_enc, hdr);
	count = rd_ptr(&r, count_enc, hdr);
	if (r.bad || !count || !rd_ok(&r, count * 8))
		return 0;
	table = r.p;
	lo = 0;
	hi = count;
	while (lo < hi) {	/* the last entry with start <= key */
		uintptr_t mid = lo + (hi - lo) / 2;
		int32_t start;

		memcpy(&start, rd_here(&r, table + mid * 8), 4);
		if (hdr + (intptr_t)start <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	{
		int32_t fde;

		memcpy(&fde, rd_here(&r, table + (lo - 1) * 8 + 4), 4);
		return hdr + (intptr_t)fde;
	}
}

static int cfi_recipe_at(const struct uw_image *img, uintptr_t hdr, uintptr_t key,
			 struct uw_recipe *out);

int uw_cfi_recipe(uintptr_t key, struct uw_recipe *out)
{
	const struct uw_seg *g = uw_seg_find(key);

	if (!g || !g->exec || !g->eh_hdr) {
		memset(out, 0, sizeof(*out));
		out->kind = UW_RECIPE_SLOW;
		return -1;
	}
	return uw_cfi_recipe_in(g->eh_hdr, key, out);
}

int uw_cfi_recipe_image(const struct uw_image *img, uintptr_t key, struct uw_recipe *out)
{
	uint64_t hdr = 0, lo = 0, hi = 0;

	if (!img)
		return uw_cfi_recipe(key, out);
	memset(out, 0, sizeof(*out));
	out->kind = UW_RECIPE_SLOW;
	if (img->ops->find(img->arg, key, &hdr, &lo, &hi) < 0 || !hdr)
		return -1;
	return cfi_recipe_at(img, (uintptr_t)hdr, key, out);
}

int uw_cfi_recipe_in(uintptr_t hdr, uintptr_t key, struct uw_recipe *out)
{
	return cfi_recipe_at(NULL, hdr, key, out);
}

static int cfi_recipe_at(const struct uw_image *img, uintptr_t hdr, uintptr_t key,
			 struct uw_recipe *out)
{
	uintptr_t fde, body_end, start, range, cie_at, field;
	struct run st;
	struct cie c;
	struct rd r;
	uint64_t len;
	uint32_t id;

	memset(out, 0, sizeof(*out));
	out->kind = UW_RECIPE_SLOW;
	fde = fde_find(img, hdr, key);
	if (!fde || !rd_at(&r, img, fde))
		return -1;
	len = rd_u32(&r);
	if (len == 0xffffffff)
		len = rd_u64(&r);
	if (r.bad || !len || r.p + len < r.p || r.p + len > r.end)
		return -1;
	body_end = r.p + len;
	field = r.p;
	id = rd_u32(&r);
	if (r.bad || !id)
		return -1;
	cie_at = field - id;
	if (!cie_parse(img, cie_at, &c))
		return -1;
	start = rd_ptr(&r, c.fde_enc, 0);
	range = rd_ptr(&r, c.fde_enc & 0x0f, 0);
	if (r.bad || key < start || key - start >= range)
		return -1;	/* in a gap between FDEs: no unwind info */
	if (c.has_z)
		r.p += rd_uleb(&r);
	if (r.bad || r.p > body_end)
		return -1;
	if (c.signal || c.ra != R_RA)
		return 0;	/* SLOW */

	memset(&st, 0, sizeof(st));
	for (int i = 0; i < 3; i++)
		st.cur.rule[i] = SAME;
	if (c.insn < c.insn_end && !cfa_run(&st, &c, img, c.insn, c.insn_end, 0, ~(uintptr_t)0))
		return 0;
	st.init = st.cur;
	st.depth = 0;
	if (r.p < body_end && !cfa_run(&st, &c, img, r.p, body_end, start, key))
		return 0;

	struct regs *s = &st.cur;
	if (s->cfa_expr && expr_eval(img, s->expr, s->expr_len, key, &s->cfa_off)) {
		s->cfa_expr = false;
		s->cfa_reg = R_RSP;
	}
	if (s->rule[2] == UNDEF || s->rule[0] == UNDEF) {
		out->kind = UW_RECIPE_END;	/* _start, thread start */
		return 0;
	}
	if (s->cfa_expr || (s->cfa_reg != R_RSP && s->cfa_reg != R_RBP) ||
	    s->rule[2] != OFFSET || s->off[2] != -8 || s->rule[1] != SAME ||
	    (s->rule[0] != SAME && s->rule[0] != OFFSET) ||
	    s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX ||
	    (s->rule[0] == OFFSET && (s->off[0] >= 0 || s->off[0] < INT16_MIN)))
		return 0;
	out->kind = s->cfa_reg == R_RSP ? UW_RECIPE_RSP : UW_RECIPE_RBP;
	out->cfa_off = (int32_t)s->cfa_off;
	out->rbp_off = s->rule[0] == OFFSET ? (int16_t)s->off[0] : 0;
	return 0;
}
