/* What differs between x86-64 and AArch64 for a walk from a signal
 * context: the interrupted pc, sp, frame pointer and link register in a
 * ucontext, and (for unwind.c, after <libunwind.h>) libunwind's register
 * numbering.  Everything here is async-signal-safe. */
#ifndef UNWINDER_ARCH_H
#define UNWINDER_ARCH_H

#include <stdint.h>
#include <ucontext.h>

#if defined(__x86_64__)

static inline uintptr_t uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]; }
static inline uintptr_t uc_sp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP]; }
static inline uintptr_t uc_fp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RBP]; }
/* x86-64 has no link register: a call pushes the return address. */
static inline uintptr_t uc_lr(const ucontext_t *uc) { (void)uc; return 0; }
/* The walk from .eh_frame recipes (cfi.c, cache.c) knows x86-64's rules. */
#define UW_ARCH_RECIPES 1

#elif defined(__aarch64__)

/* x29 is the frame pointer, x30 the link register (AAPCS64). */
static inline uintptr_t uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.pc; }
static inline uintptr_t uc_sp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.sp; }
static inline uintptr_t uc_fp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.regs[29]; }
static inline uintptr_t uc_lr(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.regs[30]; }
#define UW_ARCH_RECIPES 0

#else
#error "pmcprof's unwinder knows x86-64 and AArch64 only"
#endif

/* libunwind's view: the registers a walk hands it, in its numbering. */
#ifdef UNW_VERSION_MAJOR
#if defined(__x86_64__)
#define UW_UNW_NREG (UNW_X86_64_RIP + 1)
#define UW_UNW_PC UNW_X86_64_RIP
#define UW_UNW_SP UNW_X86_64_RSP
#define UW_UNW_FP UNW_X86_64_RBP
/* Exported by libunwind-x86_64 (libunwind-ptrace uses it) but not declared
 * by its headers: the binary search of an .eh_frame_hdr table. */
#define uw_unw_search_table _Ux86_64_dwarf_search_unwind_table

/* ucontext's gregs in libunwind's register order. */
static inline void uc_unw_regs(const ucontext_t *uc, unw_word_t *reg)
{
	static const int greg_of[UW_UNW_NREG] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
		REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
	};

	for (int i = 0; i < UW_UNW_NREG; i++)
		reg[i] = (unw_word_t)uc->uc_mcontext.gregs[greg_of[i]];
}
#elif defined(__aarch64__)
/* x0..x30, sp, pc: libunwind reads the frame's ip from UNW_AARCH64_PC. */
#define UW_UNW_NREG (UNW_AARCH64_PC + 1)
#define UW_UNW_PC UNW_AARCH64_PC
#define UW_UNW_SP UNW_AARCH64_SP
#define UW_UNW_FP UNW_AARCH64_X29
#define uw_unw_search_table _Uaarch64_dwarf_search_unwind_table

static inline void uc_unw_regs(const ucontext_t *uc, unw_word_t *reg)
{
	for (int i = 0; i < 31; i++)
		reg[UNW_AARCH64_X0 + i] = (unw_word_t)uc->uc_mcontext.regs[i];
	reg[UNW_AARCH64_SP] = (unw_word_t)uc->uc_mcontext.sp;
	reg[UNW_AARCH64_PC] = (unw_word_t)uc->uc_mcontext.pc;
}
#endif
extern int uw_unw_search_table(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
			       unw_proc_info_t *pi, int need_unwind_info, void *arg);
#endif

#endif
