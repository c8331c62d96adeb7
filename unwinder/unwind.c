/* uw_capture's walks (frame recipes from .eh_frame in a per-thread cache;
 * libunwind, through accessors of ours, for the frames no recipe fits) and
 * the per-thread and process setup.  docs/unwinding.md says what libunwind
 * 1.6.2 would do on the handler path by itself, and why we do not let it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* The generic (remote-capable) library: the walk runs in an address space
 * of our own, whose accessors read memory without any descriptor. */
#include <libunwind.h>

#include "unwinder/arch.h"
#include "unwinder/internal.h"
#include "unwinder/unwind.h"

/* What one walk lets libunwind see: registers (libunwind's numbering,
 * arch.h), and the memory it may read. */
struct walk {
	unw_word_t reg[UW_UNW_NREG];
	uint64_t have;			/* bit per known register */
	uintptr_t lo, hi;		/* the interrupted stack, from below sp */
	uintptr_t alt_lo, alt_hi;	/* the sigaltstack the sample came from */
	uintptr_t page[4];		/* pages found readable in this walk */
	unsigned n_page, next_page;
	/* uw_unwind_copy: the stack is this copy and nothing else; code
	 * and tables come from img (NULL: this process's objects). */
	const struct uw_stack_copy *copy;
	const struct uw_image *img;
	bool past_copy;			/* a read went past the copy's end */
};

static unw_addr_space_t as;
static pid_t self_pid;

static bool inside(uintptr_t a, size_t n, uintptr_t lo, uintptr_t hi)
{
	return a >= lo && a + n >= a && a + n <= hi;
}

/* Whether [a, a + 8) can be read without a fault: the interrupted stack,
 * the sigaltstack it was on, a loaded object's readable segment, or a page
 * process_vm_readv (no descriptor) could read in this walk. */
static bool mem_ok(struct walk *w, uintptr_t a)
{
	uintptr_t pg = a & ~(uintptr_t)4095;
	unsigned char probe[8];
	struct iovec local = { probe, sizeof(probe) }, remote = { (void *)a, sizeof(probe) };

	if (inside(a, 8, w->lo, w->hi) || inside(a, 8, w->alt_lo, w->alt_hi) || uw_readable(a, 8))
		return true;
	if (a + 8 < a || ((a + 7) & ~(uintptr_t)4095) != pg)
		return false;	/* across pages: rare, refused */
	for (unsigned i = 0; i < w->n_page; i++)
		if (w->page[i] == pg)
			return true;
	if (syscall(SYS_process_vm_readv, self_pid, &local, 1, &remote, 1, 0) != sizeof(probe))
		return false;
	w->page[w->next_page++ & 3] = pg;
	if (w->n_page < 4)
		w->n_page++;
	return true;
}

/* The reads of a walk land anywhere on the stack, between other frames'
 * locals: a sanitizer's redzones there are not our business. */
#define NO_SANITIZE __attribute__((no_sanitize("address", "thread")))

/* A read of a copy walk: the copy, else the image's (or our objects')
 * mapped bytes, never the live stack. */
static bool copy_mem(struct walk *w, uintptr_t addr, unw_word_t *val)
{
	const struct uw_stack_copy *c = w->copy;

	if (addr >= c->start && addr + 8 > addr && addr + 8 <= c->start + c->size) {
		memcpy(val, (const char *)c->data + (addr - c->start), 8);
		return true;
	}
	if (addr >= c->start + c->size && addr - (c->start + c->size) < (1u << 20))
		w->past_copy = true;	/* the stack goes on past the copy */
	if (w->img) {
		size_t len = 0;
		const void *p = w->img->ops->map(w->img->arg, addr, &len);

		if (!p || len < 8)
			return false;
		memcpy(val, p, 8);
		return true;
	}
	if (!uw_readable(addr, 8))
		return false;
	memcpy(val, (const void *)addr, 8);
	return true;
}

static NO_SANITIZE int acc_access_mem(unw_addr_space_t a, unw_word_t addr, unw_word_t *val,
				      int write, void *arg)
{
	struct walk *w = arg;
	unw_word_t v;

	(void)a;
	if (!write && w->copy)
		return copy_mem(w, addr, val) ? 0 : -UNW_EINVAL;
	if (write || !mem_ok(arg, addr))
		return -UNW_EINVAL;
	__builtin_memcpy(&v, (const void *)addr, sizeof(v));
	*val = v;
	return 0;
}

static int acc_access_reg(unw_addr_space_t a, unw_regnum_t reg, unw_word_t *val, int write,
			  void *arg)
{
	struct walk *w = arg;

	(void)a;
	if (reg < 0 || reg >= UW_UNW_NREG)
		return -UNW_EBADREG;
	if (write) {
		w->reg[reg] = *val;
		w->have |= 1ull << reg;
		return 0;
	}
	if (!(w->have & (1ull << reg)))
		return -UNW_EBADREG;
	*val = w->reg[reg];
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t a, unw_regnum_t reg, unw_fpreg_t *val, int write,
			    void *arg)
{
	(void)a, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int acc_resume(unw_addr_space_t a, unw_cursor_t *c, void *arg)
{
	(void)a, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t a, unw_word_t ip, char *buf, size_t len,
			     unw_word_t *off, void *arg)
{
	(void)a, (void)ip, (void)buf, (void)len, (void)off, (void)arg;
	return -UNW_ENOINFO;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t a, unw_word_t *addr, void *arg)
{
	(void)a, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

static void acc_put_unwind_info(unw_addr_space_t a, unw_proc_info_t *pi, void *arg)
{
	(void)a, (void)pi, (void)arg;
}

/* libunwind's own dl_iterate_phdr callback, over our table instead: the
 * object's .eh_frame_hdr search table as a remote table. */
static int acc_find_proc_info(unw_addr_space_t a, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct walk *w = arg;
	const struct uw_seg *g = w->img ? NULL : uw_seg_find(ip);
	const unsigned char *h;
	unw_dyn_info_t di;
	uint64_t hdr = 0, lo = 0, hi = 0;
	size_t len = 0;
	int32_t count;

	if (w->img) {
		/* Another process's: its tables as the image maps them. */
		if (w->img->ops->find(w->img->arg, ip, &hdr, &lo, &hi) < 0 || !hdr)
			return -UNW_ENOINFO;
		h = w->img->ops->map(w->img->arg, hdr, &len);
		if (!h || len < 12)
			return -UNW_ENOINFO;
	} else {
		if (!g || !g->exec || !g->eh_hdr || !uw_readable(g->eh_hdr, 12))
			return -UNW_ENOINFO;
		h = (const unsigned char *)g->eh_hdr;
		hdr = g->eh_hdr, lo = g->lo, hi = g->hi, len = SIZE_MAX;
	}
	/* version 1; eh_frame_ptr sdata4 (pcrel); fde_count udata4; table
	 * datarel sdata4: what every linker writes */
	if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
		return -UNW_ENOINFO;
	memcpy(&count, h + 8, 4);
	if (count <= 0 || (g && !uw_readable(g->eh_hdr + 12, (size_t)count * 8)) ||
	    (!g && len < 12 + (size_t)count * 8))
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = lo;
	di.end_ip = hi;
	di.u.rti.segbase = hdr;
	di.u.rti.table_data = hdr + 12;
	di.u.rti.table_len = (unw_word_t)count * 8 / sizeof(unw_word_t);
	return uw_unw_search_table(a, ip, &di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find_proc_info,
	.put_unwind_info = acc_put_unwind_info,
	.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
	.access_mem = acc_access_mem,
	.access_reg = acc_access_reg,
	.access_fpreg = acc_access_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_get_proc_name,
};

/* The memory a walk from sp may read on the thread's stack; off it, the
 * sigaltstack sp is on (a sample inside a signal handler), if any. */
static void walk_bounds(struct walk *w, const struct uw_thread *t, uintptr_t sp)
{
	w->copy = NULL;
	w->img = NULL;
	w->past_copy = false;
	w->lo = w->hi = w->alt_lo = w->alt_hi = 0;
	w->n_page = w->next_page = 0;
	if (t && sp >= t->stack_lo && sp < t->stack_hi) {
		/* the red zone below sp is the interrupted function's */
		w->lo = sp - t->stack_lo >= 128 ? sp - 128 : t->stack_lo;
		w->hi = t->stack_hi;
	} else {
		stack_t ss;

		if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE) &&
		    sp >= (uintptr_t)ss.ss_sp && sp < (uintptr_t)ss.ss_sp + ss.ss_size) {
			w->alt_lo = (uintptr_t)ss.ss_sp;
			w->alt_hi = (uintptr_t)ss.ss_sp + ss.ss_size;
		}
	}
}

/* Step a cursor set on the frame whose pc is pcs[n - 1] to the end;
 * append the return addresses. */
static int step_all(unw_cursor_t *cursor, uintptr_t *pcs, int n, int max, unsigned *flags)
{
	unw_word_t ip;
	int ret;

	while ((ret = unw_step(cursor)) > 0) {
		if (unw_get_reg(cursor, UNW_REG_IP, &ip) < 0) {
			ret = -UNW_EUNSPEC;
			break;
		}
		if (ip == 0)	/* an undefined return address ends the chain */
			return n;
		if (n == max) {
			*flags |= UW_TRUNCATED;
			return n;
		}
		pcs[n++] = ip;
	}
	if (ret < 0)
		*flags |= UW_FAILED;
	return n;
}

/* libunwind from a frame whose registers w holds, pcs[n - 1] its pc. */
static int walk_from(struct walk *w, uintptr_t *pcs, int n, int max, unsigned *flags)
{
	unw_cursor_t cursor;

	if (!as || !uw_guard_enter()) {
		*flags |= UW_FAILED;
		return n;
	}
	if (unw_init_remote(&cursor, as, w) < 0)
		*flags |= UW_FAILED;
	else
		n = step_all(&cursor, pcs, n, max, flags);
	uw_guard_leave();
	return n;
}

static int walk_libunwind(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs,
			  int max, unsigned *flags)
{
	struct walk w;

	/* unw_init_remote looks up the first row at the pc itself, as for an
	 * interrupted (not called) frame: right for pcs[0]. */
	uc_unw_regs(uc, w.reg);
	w.have = (1ull << UW_UNW_NREG) - 1;
	walk_bounds(&w, t, uc_sp(uc));
	pcs[0] = uc_pc(uc);
	return walk_from(&w, pcs, 1, max, flags);
}

int uw_walk_libunwind(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs, int max,
		      unsigned *flags)
{
	*flags = 0;
	return walk_libunwind(t, uc, pcs, max, flags);
}

/* Hand over to libunwind at a caller's frame (pc, sp, fp), pcs[n - 1] = pc.
 * Only rip, rsp and rbp are known there; a rule that needs another
 * register fails (none in gcc's or glibc's code).  The first row is looked
 * up at pc - 1: pc is a return address. */
static int walk_libunwind_from(const struct uw_thread *t, uintptr_t pc, uintptr_t sp,
			       uintptr_t fp, uintptr_t *pcs, int n, int max, unsigned *flags)
{
	struct walk w;

	w.reg[UW_UNW_PC] = pc - 1;
	w.reg[UW_UNW_SP] = sp;
	w.reg[UW_UNW_FP] = fp;
	w.have = 1ull << UW_UNW_PC | 1ull << UW_UNW_SP | 1ull << UW_UNW_FP;
	walk_bounds(&w, t, sp);
	return walk_from(&w, pcs, n, max, flags);
}

/* The recipe at key, from the object's .eh_frame (cfi.c).  Without unwind
 * info there (code built without tables, JIT code), libunwind would guess
 * the frame-pointer chain (CFA = rbp + 16, return address at rbp + 8, the
 * caller's rbp at rbp), and take an rbp that does not fit (0, below the
 * frame, more than 16 KiB above it) for the end of the chain: GUESS does
 * the same.  -1 when the objects may not be read now (a dlclose or fork is
 * waiting): nothing to cache. */
static int learn(uintptr_t key, struct uw_recipe *r)
{
	int ret;

	if (!uw_guard_enter())
		return -1;
	ret = uw_cfi_recipe(key, r);
	uw_guard_leave();
	if (ret < 0) {
		r->kind = UW_RECIPE_GUESS;
		r->cfa_off = 16;
		r->rbp_off = -16;
	}
	return 0;
}

/* The cached walk.  On the thread's own stack it reads only inside
 * [sp, stack_hi) of the interrupted frame (plus the leaf's red zone).  On
 * another stack (a sample inside a signal handler on the sigaltstack, a
 * coroutine's stack) every load is checked first (mem_ok: the sigaltstack,
 * or a page process_vm_readv could read).  A frame it cannot do (SLOW, a
 * recipe that does not fit the stack) goes to libunwind from there on,
 * whose reads our accessors check. */
static NO_SANITIZE int walk_cached(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs,
				   int max, unsigned *flags)
{
	uintptr_t pc = uc_pc(uc), sp = uc_sp(uc), fp = uc_fp(uc);
	uintptr_t lo = sp, hi = t->stack_hi, key, cfa, ra, rlo;
	bool own = sp >= t->stack_lo && sp < t->stack_hi;
	struct uw_recipe r;
	struct walk w;
	int n = 0;

	if (!own) {
		walk_bounds(&w, t, sp);
		hi = w.alt_hi ? w.alt_hi : UINTPTR_MAX;
	}
	pcs[n++] = pc;
	for (;;) {
		key = n == 1 ? pc : pc - 1;
		if (!uw_cache_lookup(key, &r)) {
			if (learn(key, &r) < 0) {
				*flags |= UW_FAILED;
				return n;
			}
			uw_cache_insert(key, &r);
		}
		if (r.kind == UW_RECIPE_END)
			return n;
		if (r.kind == UW_RECIPE_GUESS && (fp < sp || fp - sp > 0x4000 || fp > hi - 16))
			return n;	/* libunwind's "end of the call chain" */
		if (r.kind != UW_RECIPE_RSP && r.kind != UW_RECIPE_RBP && r.kind != UW_RECIPE_GUESS)
			goto slow;
		cfa = (r.kind == UW_RECIPE_RSP ? sp : fp) + (uintptr_t)(intptr_t)r.cfa_off;
		/* In an epilogue, after "pop rbp", the leaf's rbp rule still
		 * names its slot, now in the red zone below sp: the kernel
		 * leaves those 128 bytes alone. */
		rlo = n == 1 && lo - (own ? t->stack_lo : 0) >= 128 ? lo - 128 : lo;
		if (cfa - 8 < lo || cfa > hi || (r.rbp_off && cfa + r.rbp_off < rlo) ||
		    cfa <= sp || (cfa & 7))
			goto slow;
		if (!own && (!mem_ok(&w, cfa - 8) || (r.rbp_off && !mem_ok(&w, cfa + r.rbp_off))))
			goto slow;
		ra = ((const uintptr_t *)cfa)[-1];
		if (ra == 0)
			return n;
		if (n == max) {
			*flags |= UW_TRUNCATED;
			return n;
		}
		if (r.rbp_off)
			fp = *(const uintptr_t *)(cfa + r.rbp_off);
		pcs[n++] = ra;
		pc = ra;
		sp = lo = cfa;
	}
slow:
	if (n == 1)
		return walk_libunwind(t, uc, pcs, max, flags);
	return walk_libunwind_from(t, pc, sp, fp, pcs, n, max, flags);
}

int uw_capture(const struct uw_thread *t, const ucontext_t *uc, uintptr_t *pcs, int max,
	       unsigned *flags)
{
	unsigned ignored;

	if (!flags)
		flags = &ignored;
	*flags = 0;
	if (!uc || !pcs) {
		*flags = UW_FAILED;
		return 0;
	}
	if (max < 1) {
		*flags = UW_TRUNCATED;
		return 0;
	}
	switch (t ? t->mode : UW_MODE_NONE) {
	case UW_MODE_UNWIND:
		if (!UW_ARCH_RECIPES || !uw_cache_ready())
			return walk_libunwind(t, uc, pcs, max, flags);
		return walk_cached(t, uc, pcs, max, flags);
	case UW_MODE_FP:
		return uw_fp_walk(t->stack_lo, t->stack_hi, uc_pc(uc), uc_sp(uc), uc_fp(uc),
				  pcs, max, flags);
	case UW_MODE_NONE:
	default:
		pcs[0] = uc_pc(uc);
		return 1;
	}
}

int uw_thread_init(struct uw_thread *t, enum uw_mode mode)
{
	int ret;

	if (!t || (mode != UW_MODE_UNWIND && mode != UW_MODE_FP && mode != UW_MODE_NONE))
		return -EINVAL;
	t->stack_lo = t->stack_hi = 0;
	t->mode = mode;
	if (mode == UW_MODE_UNWIND && (ret = uw_global_init()) < 0)
		return ret;
	ret = uw_stack_bounds(&t->stack_lo, &t->stack_hi);
	/* Only the frame-pointer walk needs the bounds; the cached walk
	 * without them leaves every frame to libunwind. */
	if (ret < 0 && mode == UW_MODE_FP)
		return ret;
	if (mode == UW_MODE_UNWIND) {
		ucontext_t uc;
		uintptr_t pcs[8];
		unsigned flags;

		ret = uw_cache_thread_init();
		if (ret < 0)
			return ret;
		/* One walk outside any handler, so that the lazy binding of
		 * the functions it calls is done before a signal needs them. */
		if (getcontext(&uc) < 0)
			return -errno;
		if (UW_ARCH_RECIPES)
			walk_cached(t, &uc, pcs, 8, &flags);
		else
			walk_libunwind(t, &uc, pcs, 8, &flags);
	}
	return 0;
}

int uw_cache_flush(void)
{
	uw_cache_invalidate();
	return 0;
}

int uw_map_changed(void)
{
	int ret = uw_modules_scan();

	uw_cache_invalidate();
	return ret;
}

void uw_unload_begin(void)
{
	uw_guard_block();
}

void uw_unload_end(void)
{
	uw_guard_unblock();
}

static void fork_child(void)
{
	uw_modules_fork_child();
	self_pid = (pid_t)syscall(SYS_getpid);
}

/* The two lowest free descriptor numbers. */
static void lowest_free(int fds[2])
{
	int n = 0;

	fds[0] = fds[1] = -1;
	for (int fd = 0; fd < 65536 && n < 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			fds[n++] = fd;
}

/* Whether fds are the two ends of a pipe as libunwind opens its own:
 * one FIFO, non-blocking and close-on-exec, read end first. */
static bool is_lib_pipe(const int fds[2])
{
	struct stat a, b;

	if (fds[1] < 0 || fstat(fds[0], &a) < 0 || fstat(fds[1], &b) < 0)
		return false;
	return S_ISFIFO(a.st_mode) && S_ISFIFO(b.st_mode) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev && fcntl(fds[0], F_GETFD) == FD_CLOEXEC &&
	       fcntl(fds[1], F_GETFD) == FD_CLOEXEC &&
	       (fcntl(fds[0], F_GETFL) & (O_ACCMODE | O_NONBLOCK)) == (O_RDONLY | O_NONBLOCK) &&
	       (fcntl(fds[1], F_GETFL) & (O_ACCMODE | O_NONBLOCK)) == (O_WRONLY | O_NONBLOCK);
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_err;

/* libunwind's one-time setup (tdep_init, run by its first call that needs
 * it) opens a pipe for the local address space's address checks, on the
 * two lowest free numbers.  We never use that address space, so the pipe
 * would only hold two of the program's numbers (its first open() would
 * return 5, not 3): close it, once sure that the two descriptors are that
 * pipe (free before, then both ends of one FIFO opened the way libunwind
 * opens it).  The collector calls this from its constructor, before the
 * program has threads that could open descriptors meanwhile. */
static void init(void)
{
	int fds[2];

	self_pid = (pid_t)syscall(SYS_getpid);
	init_err = pthread_atfork(uw_modules_fork_prepare, uw_modules_fork_parent, fork_child);
	if (init_err) {
		init_err = -init_err;
		return;
	}
	as = unw_create_addr_space(&accessors, 0);
	if (!as) {
		init_err = -ENOMEM;
		return;
	}
	lowest_free(fds);
	/* No cache: libunwind's is one lock (two sigprocmask calls) per step;
	 * ours (cache.c) is in front of it.  This runs tdep_init. */
	unw_set_caching_policy(as, UNW_CACHE_NONE);
	if (is_lib_pipe(fds)) {
		close(fds[0]);
		close(fds[1]);
	}
	init_err = uw_modules_scan();
}

int uw_global_init(void)
{
	pthread_once(&init_once, init);
	return init_err;
}

/* ---- from a register set and a stack copy ---- */

#if UW_ARCH_RECIPES
/* The walk from a register set and a stack copy knows x86-64's registers
 * (perf's PERF_REG_X86_* layout) and rules only; on AArch64 it is not
 * done, and the collector signals kernel-mode samples there
 * (collector/kernel.c). */
void uw_regs_from_perf(struct uw_regs *r, const uint64_t *vals, uint64_t mask)
{
	/* PERF_REG_X86_* (arch/x86/include/uapi/asm/perf_regs.h) to DWARF */
	static const int8_t dwarf_of[24] = {
		UW_REG_RAX, UW_REG_RBX, UW_REG_RCX, UW_REG_RDX, UW_REG_RSI, UW_REG_RDI,
		UW_REG_RBP, UW_REG_RSP, UW_REG_RIP, -1, -1, -1, -1, -1, -1, -1,
		UW_REG_R8, UW_REG_R9, UW_REG_R10, UW_REG_R11, UW_REG_R12, UW_REG_R13,
		UW_REG_R14, UW_REG_R15,
	};
	size_t k = 0;

	memset(r, 0, sizeof(*r));
	for (int bit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		if (bit < 24 && dwarf_of[bit] >= 0) {
			r->r[dwarf_of[bit]] = vals[k];
			r->have |= 1u << dwarf_of[bit];
		}
		k++;
	}
}

/* The 8 bytes at a from the copy.  false when they are not in it; *past
 * set when a lies past its end (the stack goes on beyond the copy). */
static bool copy_u64(const struct uw_stack_copy *c, uintptr_t a, uintptr_t *v, bool *past)
{
	if (a >= c->start && a + 8 > a && a + 8 <= c->start + c->size) {
		memcpy(v, (const char *)c->data + (a - c->start), 8);
		return true;
	}
	if (a >= c->start + c->size)
		*past = true;
	return false;
}

/* The recipe at key: the thread's cache and our objects' .eh_frame (img
 * NULL), else the image's tables, uncached (another process's pcs must not
 * enter this process's cache).  -1: the objects may not be read now. */
static int copy_recipe(const struct uw_image *img, uintptr_t key, struct uw_recipe *r)
{
	if (!img) {
		if (uw_cache_lookup(key, r))
			return 0;
		if (learn(key, r) < 0)
			return -1;
		uw_cache_insert(key, r);
		return 0;
	}
	if (uw_cfi_recipe_image(img, key, r) < 0) {
		r->kind = UW_RECIPE_GUESS;
		r->cfa_off = 16;
		r->rbp_off = -16;
	}
	return 0;
}

/* libunwind over the copy from a frame whose registers are known. */
static int copy_libunwind(const struct uw_regs *regs, uintptr_t pc, uintptr_t sp, uintptr_t fp,
			  bool leaf, const struct uw_stack_copy *stack, const struct uw_image *img,
			  uintptr_t *pcs, int n, int max, unsigned *flags)
{
	struct walk w;

	walk_bounds(&w, NULL, 0);
	w.copy = stack;
	w.img = img;
	if (leaf) {
		for (int i = 0; i < UW_NREGS; i++)
			w.reg[i] = regs->r[i];
		w.have = regs->have & ((1u << UW_NREGS) - 1);
	} else {
		/* a return address: look its row up at pc - 1 */
		w.reg[UW_UNW_PC] = pc - 1;
		w.reg[UW_UNW_SP] = sp;
		w.reg[UW_UNW_FP] = fp;
		w.have = 1ull << UW_UNW_PC | 1ull << UW_UNW_SP | 1ull << UW_UNW_FP;
	}
	n = walk_from(&w, pcs, n, max, flags);
	if (w.past_copy && (*flags & UW_FAILED))
		*flags = (*flags & ~(unsigned)UW_FAILED) | UW_COPY_SHORT;
	return n;
}

int uw_unwind_copy(const struct uw_regs *regs, const struct uw_stack_copy *stack,
		   const struct uw_image *image, uintptr_t *pcs, int max, unsigned *flags)
{
	uintptr_t pc, sp, fp, cfa, ra, key;
	struct uw_recipe r;
	unsigned ignored;
	bool past = false;
	int n = 0;

	if (!flags)
		flags = &ignored;
	*flags = 0;
	if (!regs || !stack || !pcs || max < 1 ||
	    (regs->have & (1u << UW_REG_RIP | 1u << UW_REG_RSP)) !=
		    (1u << UW_REG_RIP | 1u << UW_REG_RSP)) {
		*flags = UW_FAILED;
		return 0;
	}
	pc = (uintptr_t)regs->r[UW_REG_RIP];
	sp = (uintptr_t)regs->r[UW_REG_RSP];
	fp = regs->have & (1u << UW_REG_RBP) ? (uintptr_t)regs->r[UW_REG_RBP] : 0;
	pcs[n++] = pc;
	for (;;) {
		key = n == 1 ? pc : pc - 1;
		if (copy_recipe(image, key, &r) < 0) {
			*flags |= UW_FAILED;
			return n;
		}
		if (r.kind == UW_RECIPE_END)
			return n;
		if (r.kind == UW_RECIPE_GUESS && (fp < sp || fp - sp > 0x4000))
			return n;	/* libunwind's "end of the call chain" */
		if (r.kind != UW_RECIPE_RSP && r.kind != UW_RECIPE_RBP && r.kind != UW_RECIPE_GUESS)
			break;
		cfa = (r.kind == UW_RECIPE_RSP ? sp : fp) + (uintptr_t)(intptr_t)r.cfa_off;
		if (cfa <= sp || (cfa & 7))
			break;
		if (!copy_u64(stack, cfa - 8, &ra, &past) ||
		    (r.rbp_off && !copy_u64(stack, cfa + (uintptr_t)(intptr_t)r.rbp_off, &fp, &past))) {
			/* past the end: the copy is short; below the sampled sp
			 * (an epilogue's saved rbp in the red zone): not copied */
			*flags |= past ? UW_COPY_SHORT : UW_FAILED;
			return n;
		}
		if (ra == 0)
			return n;
		if (n == max) {
			*flags |= UW_TRUNCATED;
			return n;
		}
		pcs[n++] = ra;
		pc = ra;
		sp = cfa;
	}
	/* A frame no recipe fits: libunwind, reading the copy. */
	return copy_libunwind(regs, pc, sp, fp, n == 1, stack, image, pcs, n, max, flags);
}
#else
void uw_regs_from_perf(struct uw_regs *r, const uint64_t *vals, uint64_t mask)
{
	(void)vals, (void)mask;
	memset(r, 0, sizeof(*r));
}

int uw_unwind_copy(const struct uw_regs *regs, const struct uw_stack_copy *stack,
		   const struct uw_image *image, uintptr_t *pcs, int max, unsigned *flags)
{
	(void)regs, (void)stack, (void)image, (void)pcs, (void)max;
	if (flags)
		*flags = UW_FAILED;
	return 0;
}
#endif
