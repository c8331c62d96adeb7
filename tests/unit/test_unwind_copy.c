/* unwinder: uw_unwind_copy, the walk from a register set and a copy of the
 * stack (what the kernel's sample records carry).  A known chain of
 * functions takes its registers and copies its stack, returns, and the
 * live stack is overwritten; the walk from the copy must still name the
 * chain in order, say when the copy was too short, read code and tables
 * only through the image it is given, and refuse unusable registers.
 * Built like test-unwind: every level keeps its frame. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "tests/harness.h"
#include "unwinder/internal.h"
#include "unwinder/unwind.h"

T_RANGE(uwc_leaf);
T_RANGE(uwc_mid);
T_RANGE(uwc_root);

static bool in(const char *lo, const char *hi, uintptr_t pc)
{
	return pc >= (uintptr_t)lo && pc < (uintptr_t)hi;
}

#define COPY_MAX (256 * 1024)
static unsigned char copy_buf[COPY_MAX];
static struct uw_regs regs;
static struct uw_stack_copy copy;

/* Memory as the kernel (or a file) gives it: every byte, a sanitizer's
 * redzones between frames and globals too. */
__attribute__((no_sanitize("address"), noinline)) static void copy_raw(unsigned char *to,
									  uintptr_t from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = ((volatile const unsigned char *)from)[i];
}

/* Take the registers and copy the stack from sp to the stack's top. */
T_IN_SECTION("uwc_leaf") T_NOINLINE static void leaf(void)
{
	ucontext_t uc;
	uintptr_t lo, hi, sp;
	static const int greg_of[UW_NREGS] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
		REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
	};

	getcontext(&uc);
	for (int i = 0; i < UW_NREGS; i++)
		regs.r[i] = (uint64_t)uc.uc_mcontext.gregs[greg_of[i]];
	regs.have = (1u << UW_NREGS) - 1;
	sp = (uintptr_t)regs.r[UW_REG_RSP];
	if (uw_stack_bounds(&lo, &hi) < 0 || sp < lo || sp >= hi)
		hi = sp + 4096;
	copy.start = sp;
	copy.size = hi - sp < COPY_MAX ? hi - sp : COPY_MAX;
	copy_raw(copy_buf, sp, copy.size);
	copy.data = copy_buf;
	__asm__ volatile("" ::: "memory");
}

T_IN_SECTION("uwc_mid") T_NOINLINE static void mid(void)
{
	leaf();
	__asm__ volatile("" ::: "memory");
}

T_IN_SECTION("uwc_root") T_NOINLINE static void root(void)
{
	mid();
	__asm__ volatile("" ::: "memory");
}

/* Overwrite the stack the chain used. */
T_NOINLINE static void scribble(void)
{
	volatile unsigned char junk[16384];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(0xa5 ^ i);
}

static bool chain_ok(const uintptr_t *pcs, int n)
{
	return n >= 3 && in(__start_uwc_leaf, __stop_uwc_leaf, pcs[0]) &&
	       in(__start_uwc_mid, __stop_uwc_mid, pcs[1] - 1) &&
	       in(__start_uwc_root, __stop_uwc_root, pcs[2] - 1);
}

/* An image of this process whose bytes are read from a private copy of
 * the segment that holds the test's own code and tables: proof that the
 * walk reads them through map, at the address the target gave. */
struct img {
	uintptr_t lo, hi;
	unsigned char *bytes;
	unsigned maps, finds;
};

static int img_find(void *arg, uint64_t pc, uint64_t *eh_hdr, uint64_t *lo, uint64_t *hi)
{
	struct img *m = arg;
	const struct uw_seg *g;

	m->finds++;
	if (!uw_guard_enter())
		return -1;
	g = uw_seg_find((uintptr_t)pc);
	if (g && g->exec) {
		*eh_hdr = g->eh_hdr;
		*lo = g->lo;
		*hi = g->hi;
	}
	uw_guard_leave();
	return g && g->exec ? 0 : -1;
}

static const void *img_map(void *arg, uint64_t addr, size_t *len)
{
	struct img *m = arg;

	m->maps++;
	if (addr >= m->lo && addr < m->hi) {
		*len = m->hi - addr;
		return m->bytes + (addr - m->lo);
	}
	return NULL;
}

static const struct uw_image_ops img_ops = { .find = img_find, .map = img_map };

static void run_image_case(const uintptr_t *want, int want_n)
{
	uintptr_t pcs[64];
	unsigned flags;
	struct img m = { 0 };
	const struct uw_seg *text = NULL, *hdr = NULL;
	struct uw_image image = { &img_ops, &m };
	int n;

	uw_guard_enter();
	text = uw_seg_find((uintptr_t)leaf);
	hdr = text && text->eh_hdr ? uw_seg_find(text->eh_hdr) : NULL;
	uw_guard_leave();
	if (!text || !hdr) {
		T_SKIP("image: the test's own unwind table was not found");
		return;
	}
	/* the table's segment, copied: map hands out the copy */
	m.lo = hdr->lo;
	m.hi = hdr->hi;
	m.bytes = malloc(m.hi - m.lo);
	if (!m.bytes) {
		T_SKIP("image: no memory");
		return;
	}
	copy_raw(m.bytes, m.lo, m.hi - m.lo);
	n = uw_unwind_copy(&regs, &copy, &image, pcs, 64, &flags);
	T_OK(chain_ok(pcs, n), "image: leaf, mid, root from the image's tables (n=%d)", n);
	T_OK(m.finds > 0 && m.maps > 0, "image: tables read through find and map (%u, %u)",
	     m.finds, m.maps);
	/* the chain's own frames must agree with this process's walk; past
	 * them the image holds only one object's tables */
	T_OK(n >= 3 && pcs[0] == want[0] && pcs[1] == want[1] && pcs[2] == want[2] && want_n >= 3,
	     "image: the same first three pcs as the walk over this process's objects");
	free(m.bytes);
}

int main(void)
{
	uintptr_t pcs[64], full[64];
	unsigned flags;
	struct uw_stack_copy shorty;
	struct uw_regs bad, perf;
	uint64_t vals[UW_NREGS];
	int n, nfull, k = 0;

	T_OK(uw_global_init() == 0, "uw_global_init");
	root();
	scribble();

	nfull = uw_unwind_copy(&regs, &copy, NULL, full, 64, &flags);
	T_OK(chain_ok(full, nfull), "copy: leaf, mid, root in order after the stack was overwritten (n=%d)",
	     nfull);
	T_OK(!(flags & (UW_COPY_SHORT | UW_FAILED)),
	     "copy: a copy up to the stack's top reaches the outermost frame (flags %#x, n=%d)",
	     flags, nfull);

	n = uw_unwind_copy(&regs, &copy, NULL, pcs, 2, &flags);
	T_OK(n == 2 && (flags & UW_TRUNCATED) && pcs[1] == full[1], "copy: max 2 -> 2 pcs, UW_TRUNCATED");

	shorty = copy;
	shorty.size = 8;
	n = uw_unwind_copy(&regs, &shorty, NULL, pcs, 64, &flags);
	T_OK(n >= 1 && n < nfull && pcs[0] == full[0] && (flags & UW_COPY_SHORT) &&
		     !(flags & UW_FAILED),
	     "copy: an 8-byte copy: the leaf, UW_COPY_SHORT (n=%d, flags %#x)", n, flags);

	/* copies that end inside the chain: each gives a prefix of the full
	 * walk, flagged short unless it is the whole walk */
	{
		bool prefixes = true, middle = false;

		for (size_t sz = 8; sz < copy.size; sz += 56) {
			shorty.size = sz;
			n = uw_unwind_copy(&regs, &shorty, NULL, pcs, 64, &flags);
			for (k = 0; k < n && pcs[k] == full[k]; k++)
				;
			prefixes &= k == n && (n == nfull || (flags & UW_COPY_SHORT));
			middle |= n > 2 && n < nfull;
		}
		T_OK(prefixes && middle,
		     "copy: shorter copies give prefixes of the full walk, flagged short");
	}

	bad = regs;
	bad.have &= ~(1u << UW_REG_RSP);
	n = uw_unwind_copy(&bad, &copy, NULL, pcs, 64, &flags);
	T_OK(n == 0 && flags == UW_FAILED, "copy: no rsp -> 0 pcs, UW_FAILED");
	n = uw_unwind_copy(&regs, NULL, NULL, pcs, 64, &flags);
	T_OK(n == 0 && flags == UW_FAILED, "copy: no stack -> 0 pcs, UW_FAILED");

	/* The same registers in the kernel's PERF_REG_X86 order. */
	{
		static const int dw[24] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1,
					    8, 9, 10, 11, 12, 13, 14, 15 };
		size_t j = 0;

		for (int bit = 0; bit < 24; bit++)
			if (UW_PERF_REGS_MASK & (1ull << bit))
				vals[j++] = regs.r[dw[bit]];
		uw_regs_from_perf(&perf, vals, UW_PERF_REGS_MASK);
		T_OK(perf.have == regs.have && memcmp(perf.r, regs.r, sizeof(regs.r)) == 0 &&
			     j == UW_NREGS,
		     "uw_regs_from_perf: PERF_REG_X86 order -> DWARF order, every register");
		n = uw_unwind_copy(&perf, &copy, NULL, pcs, 64, &flags);
		T_OK(n == nfull && memcmp(pcs, full, (size_t)n * sizeof(pcs[0])) == 0,
		     "copy: the walk from perf's register block is the same");
	}
	run_image_case(full, nfull);
	return T_DONE();
}
