/* Stage 2, symbolize: addresses to frames (function, source line, inlining),
 * one module at a time, knowing nothing of the set.  symbols.c opens ELF
 * files and their debug info (elfutils), perf maps and saved images;
 * kallsyms.c names kernel addresses; symcache.c keeps the answers per
 * build-id.  aggregate.c drives it over the set's distinct addresses.
 * Not installed. */
#ifndef ANALYZER_SYMBOLIZE_H
#define ANALYZER_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "analyzer/util.h"

/* ---- symbolizer (symbols.c): one per module, each address once ---- */
struct sym_frame {
	const char *key;	/* interned: the linkage name (mangled), or the plain
				 * name of a C function; "name@0xADDR" for a local
				 * symbol whose name the module holds more than once */
	const char *func;	/* interned: what users read (demangled, qualified) */
	const char *file;	/* source file or NULL */
	unsigned line;
	const char *decl_file;	/* the function's declaration */
	unsigned decl_line;
};
struct symtab;
/* The demangled, qualified name of a linkage name (C++ Itanium ABI, Rust
 * legacy and v0) as perf shows it, interned; name itself when it is not
 * mangled.  NULL on ENOMEM. */
const char *sym_demangle(struct strpool *pool, const char *name);
/* name without its scope ("ns::Accum<double, 300>::run" -> "run"),
 * interned.  NULL on ENOMEM. */
const char *sym_short_name(struct strpool *pool, const char *name);
struct symtab_opts {
	const char *debug_dirs;		/* colon-separated, may be NULL */
	const char *cache_dir;		/* persistent symbol cache, or NULL */
	struct strpool *pool;
	/* the profiles' directories: their kept answers (DIR/symbols, one
	 * file per build-id, symcache.c's format) name what no local file
	 * with the recorded build-id can; the first is the one notes name */
	const char *const *profile_dirs;
	size_t n_profile_dirs;
	const char *keep_dir;		/* write every answer given here (the
					 * answers a profile keeps), or NULL */
};
struct symtab *symtab_new(const struct symtab_opts *o);
void symtab_free(struct symtab *st);
/* Load the module at path (already remapped) whose recorded build-id is
 * bid (may be NULL); msg gets a one-line note and *sev its severity when
 * something is worth saying (missing file, mismatch, no debug info).
 * Returns a handle >= 0 usable for symtab_lookup even when the file could
 * not be used (lookups then resolve nothing), or -ENOMEM. */
int symtab_load(struct symtab *st, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev);
/* symtab_load in two steps, so that modules can be opened in parallel: a
 * new handle (>= 0, or -ENOMEM), then the module opened into it (0 or
 * -ENOMEM).  symtab_open and symtab_open_image may run at once on several
 * threads for different handles, as long as no handle is added meanwhile;
 * they touch neither the string pool nor anything shared. */
int symtab_add(struct symtab *st);
int symtab_open(struct symtab *st, int h, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev);
/* Load a module from its bytes (the vdso, saved in the profile); like
 * symtab_load otherwise.  The bytes are copied. */
int symtab_load_image(struct symtab *st, const char *path, const uint8_t *img, size_t len,
		      const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev);
int symtab_open_image(struct symtab *st, int h, const char *path, const uint8_t *img, size_t len,
		      const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev);
/* Load a perf map file ("START SIZE name" per line, hex; the format of
 * perf's jit-interface.txt, which LuaJIT, Node's --perf-basic-prof, the
 * JVM's perf-map-agent and Python's -X perf write): lookups then take
 * absolute addresses.  Same returns as symtab_load. */
int symtab_load_perfmap(struct symtab *st, const char *path, char *msg, size_t len,
			enum ana_severity *sev);
/* Frames at ELF address off of module h, innermost first, into fr[max].
 * Returns the number of frames (0 = unresolved). */
size_t symtab_lookup(struct symtab *st, int h, uint64_t off, struct sym_frame *fr, size_t max);
/* How many addresses of module h were left unnamed because the answers
 * kept for it lack them and no file here has its build-id; hint: the
 * command that would keep them. */
size_t symtab_unnamed(struct symtab *st, int h, char *hint, size_t len);

/* ---- kernel symbols (kallsyms.c) for the [kernel.kallsyms] module ---- */
struct kallsyms;
/* Whether a load-map path is the collector's kernel pseudo-module. */
bool kallsyms_is_kernel(const char *path);
/* Kernel symbols from kallsyms_path (NULL: $PMCPROF_KALLSYMS or
 * /proc/kallsyms), used only when the build-id in notes_path (NULL:
 * $PMCPROF_KERNEL_NOTES or /sys/kernel/notes) is the recorded bid; msg and
 * *sev as symtab_load's.  With a cache_dir (may be NULL) the sorted table is
 * kept there, keyed by what identifies the running kernel's symbols, and
 * read from there while it fits.  Returns NULL only when out of memory: a
 * kernel that does not fit gives an object whose lookups name addresses. */
struct kallsyms *kallsyms_load(const char *kallsyms_path, const char *notes_path,
			       const uint8_t *bid, size_t bid_len, const char *cache_dir,
			       char *msg, size_t len, enum ana_severity *sev);
/* Whether ks names addresses (the recorded kernel's symbols, visible). */
bool kallsyms_usable(const struct kallsyms *ks);
/* One frame for offset off (kernel address - 0xffff800000000000): "[k] name",
 * "[kernel]" for offset 0, "[k] 0xADDR" when unknown.  Returns 1 (0 if max
 * is 0 or out of memory). */
size_t kallsyms_lookup(struct kallsyms *ks, struct strpool *pool, uint64_t off,
		       struct sym_frame *fr, size_t max);
void kallsyms_free(struct kallsyms *ks);
/* The report's note for a profile's kernel_frames metadata, or NULL. */
const char *kallsyms_frames_note(const char *kernel_frames);

/* ---- persistent symbol cache (symcache.c), one per build-id ---- */
struct symcache;
/* kind names the answers' source: "sym" (with DWARF) or "elfsym" (the
 * module has no debug info to be found: its ELF symbols are all there is),
 * so that debug info found later is not hidden by older answers. */
struct symcache *symcache_new(const uint8_t *bid, size_t n, const char *kind);
/* The cache file for bid under dir, mapped; NULL if absent or not valid. */
struct symcache *symcache_open(const char *dir, const uint8_t *bid, size_t n, const char *kind);
/* The frames cached for off into fr[max] (*n of them; strings interned in
 * pool), or false if off is not cached (or on ENOMEM). */
bool symcache_get(struct symcache *c, struct strpool *pool, uint64_t off, struct sym_frame *fr,
		  size_t max, size_t *n);
/* Keep off's frames (interned strings); 0, or -ENOMEM. */
int symcache_put(struct symcache *c, uint64_t off, const struct sym_frame *fr, size_t n);
/* Write it with what was added (if anything was): temp file + rename.
 * 0 or -errno. */
int symcache_save(struct symcache *c, struct strpool *pool, const char *dir);
/* The same, the file made with mode (minus umask) and dir with dir_mode:
 * the answers a profile keeps are as readable as the profile. */
int symcache_save_mode(struct symcache *c, struct strpool *pool, const char *dir, int mode,
		       int dir_mode);
/* Answers in c (read from its file or added since). */
size_t symcache_count(const struct symcache *c);
void symcache_free(struct symcache *c);
/* dir and its parents (mode 0700).  0 or -errno. */
int symcache_mkdirs(const char *dir);
int symcache_mkdirs_mode(const char *dir, int mode);
/* dir/name made of iov[n], whole or not at all (temp file + rename, mode
 * 0600), dir created.  0 or -errno. */
struct iovec;
int symcache_write(const char *dir, const char *name, const struct iovec *iov, int n);
int symcache_write_mode(const char *dir, const char *name, const struct iovec *iov, int n,
			int mode, int dir_mode);

#endif
