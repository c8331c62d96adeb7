/* AArch64's part of the collector: coll_call_on_stack (handler.c has
 * x86-64's).  A frame record (x29, x30) on the old stack and CFI for it,
 * so an unwinder walking out of the handler finds the interrupted frame. */
#include "config.h"

#if defined(__aarch64__)
__asm__(".text\n"
	".globl coll_call_on_stack\n"
	".hidden coll_call_on_stack\n"
	".type coll_call_on_stack, %function\n"
	".p2align 2\n"
	"coll_call_on_stack:\n"
	".cfi_startproc\n"
	"	stp x29, x30, [sp, #-16]!\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset x29, -16\n"
	".cfi_offset x30, -8\n"
	"	mov x29, sp\n"
	".cfi_def_cfa_register x29\n"
	"	and x0, x0, #-16\n"	/* top, 16-byte aligned */
	"	mov sp, x0\n"
	"	mov x9, x1\n"		/* fn */
	"	mov w0, w2\n"		/* signo */
	"	mov x1, x3\n"		/* si */
	"	mov x2, x4\n"		/* uc */
	"	blr x9\n"
	"	mov sp, x29\n"
	".cfi_def_cfa_register sp\n"
	"	ldp x29, x30, [sp], #16\n"
	".cfi_def_cfa_offset 0\n"
	".cfi_restore x29\n"
	".cfi_restore x30\n"
	"	ret\n"
	".cfi_endproc\n"
	".size coll_call_on_stack, .-coll_call_on_stack\n");
#endif
