/* unwinder/cfi.c on crafted .eh_frame tables: one CIE (CFA = rsp + 8, return
 * address at CFA - 8), one FDE per case whose call-frame program is the
 * case's bytes, looked up through an .eh_frame_hdr search table, at a pc
 * offset into the FDE.  Each case names its line. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "tests/harness.h"
#include "unwinder/internal.h"

/* In .data: a readable segment of this program, as the reader requires. */
static unsigned char buf[1024] __attribute__((aligned(16)));

#define HDR 0
#define CIE 64
#define FDE 128
#define FUNC 0x10000	/* the FDE's pc_begin, as an offset from the header */
#define RANGE 0x100

static void put32(size_t at, uint32_t v)
{
	memcpy(buf + at, &v, 4);
}

static void put64(size_t at, uint64_t v)
{
	memcpy(buf + at, &v, 8);
}

/* Lay out header, CIE and an FDE with the given program (ops, n bytes). */
static void build(const unsigned char *ops, size_t n)
{
	static const unsigned char cie[] = {
		0, 0, 0, 0,		/* CIE id */
		1, 'z', 'R', 0,		/* version, augmentation */
		1, 0x78, 16,		/* code align 1, data align -8, ra r16 */
		1, 0x00,		/* augmentation data: FDE pointers absptr */
		0x0c, 0x07, 0x08,	/* def_cfa rsp + 8 */
		0x90, 0x01,		/* offset r16 at cfa - 8 */
		0, 0,			/* nops to 4-byte length */
	};
	uintptr_t base = (uintptr_t)buf;
	size_t len;

	memset(buf, 0, sizeof(buf));
	buf[HDR] = 1;
	buf[HDR + 1] = 0x1b;	/* eh_frame_ptr pcrel sdata4 */
	buf[HDR + 2] = 0x03;	/* fde_count udata4 */
	buf[HDR + 3] = 0x3b;	/* table datarel sdata4 */
	put32(HDR + 4, CIE - (HDR + 4));
	put32(HDR + 8, 1);
	put32(HDR + 12, FUNC);
	put32(HDR + 16, FDE);
	put32(CIE, sizeof(cie));
	memcpy(buf + CIE + 4, cie, sizeof(cie));
	len = 4 + 8 + 8 + 1 + n;
	len = (len + 7) & ~(size_t)7;
	put32(FDE, (uint32_t)len);
	put32(FDE + 4, (FDE + 4) - CIE);
	put64(FDE + 8, base + FUNC);
	put64(FDE + 16, RANGE);
	buf[FDE + 24] = 0;	/* augmentation data length */
	memcpy(buf + FDE + 25, ops, n);	/* the rest of len stays 0: nops */
}

static const struct {
	int line;
	unsigned char ops[24];
	size_t n;
	unsigned at;		/* pc offset into the function */
	int ret;		/* 0, or -1: no info */
	int kind;
	int cfa_off, rbp_off;
} cases[] = {
	{ __LINE__, { 0 }, 0, 0, 0, UW_RECIPE_RSP, 8, 0 },
	/* push rbp at +0: cfa rsp+16, rbp at cfa-16 from +1 */
	{ __LINE__, { 0x41, 0x0e, 0x10, 0x86, 0x02 }, 5, 0, 0, UW_RECIPE_RSP, 8, 0 },
	{ __LINE__, { 0x41, 0x0e, 0x10, 0x86, 0x02 }, 5, 1, 0, UW_RECIPE_RSP, 16, -16 },
	/* mov rsp, rbp at +1 (3 bytes): cfa rbp+16 from +4 */
	{ __LINE__, { 0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06 }, 8, 3, 0, UW_RECIPE_RSP, 16, -16 },
	{ __LINE__, { 0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06 }, 8, 4, 0, UW_RECIPE_RBP, 16, -16 },
	/* advance_loc1 0x40, then def_cfa_sf rsp, -3 * -8 = 24 */
	{ __LINE__, { 0x02, 0x40, 0x12, 0x07, 0x7d }, 5, 0x40, 0, UW_RECIPE_RSP, 24, 0 },
	/* remember at 16, cfa 32 at +2, restore at +3 */
	{ __LINE__, { 0x41, 0x0e, 0x10, 0x0a, 0x41, 0x0e, 0x20, 0x41, 0x0b }, 9, 2, 0, UW_RECIPE_RSP, 32, 0 },
	{ __LINE__, { 0x41, 0x0e, 0x10, 0x0a, 0x41, 0x0e, 0x20, 0x41, 0x0b }, 9, 3, 0, UW_RECIPE_RSP, 16, 0 },
	/* restore r6 (0xc6) brings rbp back to the CIE's rule: untouched */
	{ __LINE__, { 0x86, 0x02, 0x42, 0xc6 }, 4, 1, 0, UW_RECIPE_RSP, 8, -16 },
	{ __LINE__, { 0x86, 0x02, 0x42, 0xc6 }, 4, 2, 0, UW_RECIPE_RSP, 8, 0 },
	/* undefined r16: the outermost frame */
	{ __LINE__, { 0x07, 0x10 }, 2, 0, 0, UW_RECIPE_END, 0, 0 },
	/* the PLT's expression: rsp + 8 + ((rip & 15) >= 11) * 8 */
	{ __LINE__, { 0x0f, 11, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 }, 13,
	  0x20 + 10, 0, UW_RECIPE_RSP, 8, 0 },
	{ __LINE__, { 0x0f, 11, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 }, 13,
	  0x20 + 11, 0, UW_RECIPE_RSP, 16, 0 },
	/* a realigned frame: cfa = *(rbp - 8): not a recipe */
	{ __LINE__, { 0x0f, 3, 0x76, 0x78, 0x06 }, 5, 0, 0, UW_RECIPE_SLOW, 0, 0 },
	/* rbp by an expression, or in another register: not a recipe */
	{ __LINE__, { 0x16, 0x06, 0x01, 0x30 }, 4, 0, 0, UW_RECIPE_SLOW, 0, 0 },
	{ __LINE__, { 0x09, 0x06, 0x03 }, 3, 0, 0, UW_RECIPE_SLOW, 0, 0 },
	/* cfa from rbx: not a recipe */
	{ __LINE__, { 0x0c, 0x03, 0x10 }, 3, 0, 0, UW_RECIPE_SLOW, 0, 0 },
	/* an unknown opcode: not a recipe, not a crash */
	{ __LINE__, { 0x3f }, 1, 0, 0, UW_RECIPE_SLOW, 0, 0 },
	/* past the FDE's range: no unwind info */
	{ __LINE__, { 0 }, 0, RANGE, -1, UW_RECIPE_SLOW, 0, 0 },
	/* rbp saved above the CFA (offset_extended_sf -1 * -8): not a recipe */
	{ __LINE__, { 0x11, 0x06, 0x7f }, 3, 0, 0, UW_RECIPE_SLOW, 0, 0 },
	{ __LINE__, { 0x11, 0x06, 0x01 }, 3, 0, 0, UW_RECIPE_RSP, 8, -8 },
};

int main(void)
{
	T_OK(uw_global_init() == 0, "uw_global_init");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct uw_recipe r;
		int ret;

		build(cases[i].ops, cases[i].n);
		T_OK(uw_guard_enter(), "line %d: guard", cases[i].line);
		ret = uw_cfi_recipe_in((uintptr_t)buf + HDR, (uintptr_t)buf + FUNC + cases[i].at, &r);
		uw_guard_leave();
		T_OK(ret == cases[i].ret && r.kind == cases[i].kind &&
			     ((r.kind != UW_RECIPE_RSP && r.kind != UW_RECIPE_RBP) ||
			      (r.cfa_off == cases[i].cfa_off && r.rbp_off == cases[i].rbp_off)),
		     "line %d: ret %d kind %d cfa %d rbp %d (want %d %d %d %d)", cases[i].line, ret,
		     r.kind, r.cfa_off, r.rbp_off, cases[i].ret, cases[i].kind, cases[i].cfa_off,
		     cases[i].rbp_off);
	}
	/* The real thing: this function's own row, from .eh_frame. */
	{
		struct uw_recipe r;

		uw_guard_enter();
#if defined(__x86_64__)
		T_OK(uw_cfi_recipe((uintptr_t)main, &r) == 0 && r.kind == UW_RECIPE_RSP &&
			     r.cfa_off == 8,
		     "main's first instruction: cfa rsp + 8 (kind %d, %d)", r.kind, r.cfa_off);
#else
		/* AArch64: the return address is in x30, not at CFA - 8: a
		 * row the recipes leave to libunwind (docs/unwinding.md) */
		T_OK(uw_cfi_recipe((uintptr_t)main, &r) == 0 && r.kind == UW_RECIPE_SLOW,
		     "main's first instruction: left to libunwind on AArch64 (kind %d)", r.kind);
#endif
		uw_guard_leave();
	}
	return T_DONE();
}
