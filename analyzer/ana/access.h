/* The set's symbolized tables: its functions, calling-context tree,
 * modules and mappings, sampled addresses and line contexts, as the
 * exporters (export.c, flame.c, pprof.c, speedscope.c, annotate.c) and
 * front ends read them, so the set's layout can change under them.  The
 * records are sized (sz set by the caller) and filled into the caller's
 * struct; their strings are the set's.
 */
#ifndef ANALYZER_ANA_ACCESS_H
#define ANALYZER_ANA_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"
#include "analyzer/ana/query.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the set's tables, for exporters and front ends (access.c) ----
 * Valid after finish; what export.c's collapsed stacks, flame.c, pprof.c,
 * speedscope.c and annotate.c stand on. */
/* A function of the set: what rows of it show, and its module. */
struct ana_function {
	size_t sz;			/* sizeof(struct ana_function), set by the caller */
	const char *name;		/* as rows show it ("[module+0xOFF]" if unresolved) */
	const char *module;		/* module path, or NULL */
	const char *module_base;	/* its basename */
	const char *file;		/* the declaration's source file, or NULL */
	unsigned line;			/* and its line; 0 unknown */
	uint32_t module_id;		/* ana_set_module's index */
	uint32_t inlined_into;		/* the function it was inlined into (rows of
					 * an inlined function are one per caller), or
					 * UINT32_MAX */
};
ANA_API size_t ana_set_n_functions(const struct ana_set *s);
/* Function f (< ana_set_n_functions; an ana_frame's key / 2) into *out.
 * 0, or -EINVAL. */
ANA_API int ana_set_function(const struct ana_set *s, uint32_t f, struct ana_function *out);
/* Set is[f] (the caller's ana_set_n_functions bytes) for each function
 * FUNC names, as ana_query.func does ("name" or "module:name"; the shown
 * or the linkage name).  Returns how many. */
ANA_API size_t ana_set_match_functions(const struct ana_set *s, const char *func, uint8_t *is);
/* The function of an ANA_VIEW_TOPDOWN row's node, or UINT32_MAX (the root,
 * past the end). */
ANA_API uint32_t ana_set_node_function(const struct ana_set *s, uint32_t node);

/* The symbolized calling-context tree, whose nodes ANA_VIEW_TOPDOWN rows
 * are: node 0 is the root, every other node a function called from its
 * parent's (or inlined into it), children in the set's order. */
struct ana_node {
	size_t sz;			/* sizeof(struct ana_node), set by the caller */
	uint32_t parent;		/* 0: the root */
	uint32_t child;			/* its first child, or UINT32_MAX: none */
	uint32_t next;			/* its parent's next child, or UINT32_MAX */
	uint32_t func;			/* ana_set_function's index; UINT32_MAX: the root */
	bool inlined;			/* inlined into the parent's function */
};
/* Nodes of the tree, the root included; 0 before finish. */
ANA_API size_t ana_set_n_nodes(const struct ana_set *s);
/* Node node (< ana_set_n_nodes) into *out.  0, or -EINVAL. */
ANA_API int ana_set_node(const struct ana_set *s, uint32_t node, struct ana_node *out);
/* Node node's self or inclusive (k) samples of run on event column ev,
 * and their shown value (samples, or weights with opts.weighted), as
 * ANA_VIEW_TOPDOWN rows count them (--dsos and --symbols apply); either
 * pointer may be NULL.  0, or -EINVAL (a metric column, no such run or
 * node, not finished). */
ANA_API int ana_set_node_total(const struct ana_set *s, uint32_t node, unsigned run, size_t ev,
			       enum ana_kind k, uint64_t *samples, double *value);

/* A module the rows name (one per path: the processes that mapped it
 * share it), with where it was mapped. */
struct ana_module {
	size_t sz;			/* sizeof(struct ana_module), set by the caller */
	const char *path;		/* as recorded, after --remap; NULL if only a name */
	const char *base;		/* basename: what runs are matched on */
	const uint8_t *build_id;	/* recorded (a mapping of the path that has one) */
	size_t build_id_len;		/* 0: none recorded */
	uint64_t start, end;		/* where the first process that mapped it had it
					 * (0, 0: unknown) */
	uint64_t bias;			/* start - its ELF address there */
	bool file;			/* a file (an absolute path), not the kernel,
					 * the vdso or an anonymous name */
	bool main;			/* the program itself (a profile's command) */
	/* what no module file holds */
	bool kernel;			/* the kernel (kallsyms) */
	bool jit;			/* a perf map naming JIT code (/tmp/perf-PID.map) */
	bool embedded;			/* its bytes are in the profile (the vdso) */
};
ANA_API size_t ana_set_n_modules(const struct ana_set *s);
/* Module m (< ana_set_n_modules, ana_function.module_id) into *out.  0, or
 * -EINVAL. */
ANA_API int ana_set_module(const struct ana_set *s, uint32_t m, struct ana_module *out);
/* The modules as the profiles mapped them: one per path and build-id (a
 * file rebuilt between runs is two), which addresses are in. */
ANA_API size_t ana_set_n_mappings(const struct ana_set *s);
/* Mapping i (< ana_set_n_mappings, ana_address.mapping) into *out, with its
 * own path and build-id.  0, or -EINVAL. */
ANA_API int ana_set_mapping(const struct ana_set *s, uint32_t i, struct ana_module *out);

/* The distinct addresses of the calling contexts (sampled instructions
 * and call sites), as symbolized. */
struct ana_address {
	size_t sz;			/* sizeof(struct ana_address), set by the caller */
	uint32_t mapping;		/* ana_set_mapping's index */
	uint64_t addr;			/* in the module: a module file's ELF address
					 * (the kernel's, the vdso's: ana_context.addr
					 * less the mapping's bias) */
	uint32_t func;			/* the function whose code it is (its outermost
					 * frame: what code is inlined into), or
					 * UINT32_MAX: no frame */
};
ANA_API size_t ana_set_n_addresses(const struct ana_set *s);
/* Address a (< ana_set_n_addresses) into *out.  0, or -EINVAL. */
ANA_API int ana_set_address(const struct ana_set *s, size_t a, struct ana_address *out);
/* The samples of run on event column ev whose sampled instruction is
 * address a (opts.addr_samples: 0 without it, past the end, for a metric
 * column). */
ANA_API uint64_t ana_set_address_samples(const struct ana_set *s, size_t a, unsigned run,
					 size_t ev);

/* Calling contexts with the source line of each frame (opts.line_contexts):
 * a tree whose node 0 is the root and whose every other node is one frame,
 * and the self samples of each (run, context, event). */
struct ana_context {
	size_t sz;			/* sizeof(struct ana_context), set by the caller */
	uint32_t parent;		/* the next outer frame's context; 0: the root */
	uint32_t func;			/* ana_set_function's index */
	unsigned line;			/* the frame's source line (the sampled
					 * instruction's, a call's); 0 unknown */
	bool inlined;			/* inlined into the parent frame */
	uint64_t addr;			/* the instruction: its ELF address in a module
					 * file, its run-time address in the kernel or the
					 * vdso; 0 unknown */
};
/* Contexts kept (the root included); 0 without opts.line_contexts. */
ANA_API size_t ana_set_n_contexts(const struct ana_set *s);
/* Context ctx (1 .. ana_set_n_contexts - 1) into *out.  0, or -EINVAL. */
ANA_API int ana_set_context(const struct ana_set *s, uint32_t ctx, struct ana_context *out);
struct ana_context_samples {
	size_t sz;			/* sizeof(struct ana_context_samples), set by the caller */
	unsigned run;
	uint32_t context;		/* UINT32_MAX: samples with no stack */
	size_t event;			/* event column */
	uint64_t samples;		/* self samples */
	double weight;			/* and their weight */
};
/* The contexts' self samples, sorted by run then context. */
ANA_API size_t ana_set_n_context_samples(const struct ana_set *s);
/* Record i into *out.  0, or -EINVAL. */
ANA_API int ana_set_context_samples(const struct ana_set *s, size_t i,
				    struct ana_context_samples *out);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_ACCESS_H */
