/* Annotate: a function's instructions, disassembled, with the samples of
 * each (needs opts.addr_samples).  The caller owns the annotation (free
 * with ana_annotation_free).
 */
#ifndef ANALYZER_ANA_ANNOTATE_H
#define ANALYZER_ANA_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a function's instructions (annotate.c) ---- */

struct ana_insn {
	uint64_t addr;			/* ELF address in the module */
	unsigned size;			/* bytes */
	const char *text;		/* "mnemonic operands" (capstone, Intel syntax) */
	const char *file;		/* its source line (the innermost, as the line
					 * table says), or NULL */
	unsigned line;
	const char *inlined;		/* the innermost function inlined here, or NULL:
					 * the function's own code */
	uint64_t samples;		/* samples whose sampled instruction is this one */
	double pct;			/* of the function's samples */
};
struct ana_annotation {
	const char *func;		/* the function disassembled: FUNC, or the one
					 * it was inlined into */
	const char *module;		/* its module's path */
	uint64_t lo, hi;		/* its ELF symbol's range [lo, hi) */
	uint64_t samples;		/* its samples in the run, on the event */
	uint64_t outside;		/* of them, at no instruction start of the range */
	size_t n;
	const struct ana_insn *insn;	/* in address order */
};
/* Disassemble FUNC ("name" or "module:name"; an inlined function: the
 * function it was inlined into) with each instruction's samples of run on
 * event column ev.  Needs ana_opts.addr_samples and a finished set; reads
 * the module from its file (--remap applies; its build-id must be the
 * recorded one) and debug info as symbolization does.  Where several
 * functions match, the one with the most samples.  0 and *out (free with
 * ana_annotation_free; func and module are the set's strings, the
 * instructions' strings the annotation's); -ANA_ENOFUNC; -ANA_ESTATE;
 * -ENOTSUP (kernel, vdso, JIT code, another architecture), -ENOENT, -ESTALE
 * (rebuilt), -EFBIG (over 1 MiB), -EIO, -ENOMEM, with a line in msg. */
ANA_API int ana_set_annotate(struct ana_set *s, const char *func, unsigned run, size_t ev,
			     struct ana_annotation **out, char *msg, size_t len);
ANA_API void ana_annotation_free(struct ana_annotation *a);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_ANNOTATE_H */
