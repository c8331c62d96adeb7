/* Symbolization with elfutils libdwfl: one Dwfl per module (modules are
 * looked up by ELF address, so they must not share an address space),
 * inlined frames from the DIE scopes around an address, and the ELF symbol
 * table when there is no DWARF.  Only the load-map modules and their debug
 * files are ever opened, and only regular files. */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/internal.h"

struct smod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr elf_bias;
	bool dwarf;
	struct symcache *cache;		/* addresses already symbolized, or NULL */
	char *lazy_path;		/* open only on a cache miss */
	struct cuindex *cus;		/* per compile unit: its functions' ranges */
	size_t n_cus, cap_cus;
	struct idx cu_idx;
	struct kallsyms *ks;		/* [kernel.kallsyms] (kallsyms.c), or NULL */
};

/* A compile unit's subprograms sorted by address, so that finding the
 * function around an address is a binary search instead of a walk over
 * the whole unit for every address. */
struct fnrange {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};
struct cuindex {
	Dwarf_Off off;
	struct fnrange *r;
	size_t n;
};

struct symtab {
	struct strpool *pool;
	char *debug_dirs;		/* user's, colon-separated, or NULL */
	char *debuginfo_path;		/* for dwfl_standard_find_debuginfo */
	char *cache_dir;
	Dwfl_Callbacks cb;
	struct smod *mod;
	size_t n, cap;
};

/* "a:b" with relative entries made absolute (against the cwd). */
static char *absolute_dirs(const char *dirs)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	size_t cap = 2 * strlen(dirs) + 1, n = 0;
	char *out = malloc(cap), *copy = strdup(dirs);
	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	out[0] = 0;
	for (char *save, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		size_t need = n + strlen(cwd) + strlen(d) + 3;
		if (need > cap) {
			char *o2 = realloc(out, cap = 2 * need);
			if (!o2) {
				free(out);
				free(copy);
				return NULL;
			}
			out = o2;
		}
		n += (size_t)sprintf(out + n, "%s%s%s%s", n ? ":" : "", d[0] == '/' ? "" : cwd,
				     d[0] == '/' ? "" : "/", d);
	}
	free(copy);
	return out;
}

struct symtab *symtab_new(const struct symtab_opts *o)
{
	struct symtab *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	elf_version(EV_CURRENT);	/* before our own elf_begin (build-id notes) */
	st->pool = o->pool;
	/* libdwfl looks up build-ids only under absolute roots */
	if (o->debug_dirs && *o->debug_dirs && !(st->debug_dirs = absolute_dirs(o->debug_dirs))) {
		free(st);
		return NULL;
	}
	if (o->cache_dir && *o->cache_dir && !(st->cache_dir = strdup(o->cache_dir))) {
		free(st->debug_dirs);
		free(st);
		return NULL;
	}
	const char *dirs = st->debug_dirs;
	/* user dirs first, then libdwfl's default ":.debug:/usr/lib/debug" */
	if (asprintf(&st->debuginfo_path, "%s%s:.debug:/usr/lib/debug", dirs ? dirs : "",
		     dirs ? ":" : "") < 0) {
		free(st->debug_dirs);
		free(st->cache_dir);
		free(st);
		return NULL;
	}
	st->cb.find_elf = dwfl_build_id_find_elf;
	st->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	st->cb.section_address = dwfl_offline_section_address;
	st->cb.debuginfo_path = &st->debuginfo_path;
	return st;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		struct smod *m = &st->mod[i];
		if (m->cache && st->cache_dir)
			symcache_save(m->cache, st->cache_dir);	/* best effort */
		symcache_free(m->cache);
		free(m->lazy_path);
		kallsyms_free(m->ks);	/* kallsyms hook */
		for (size_t k = 0; k < m->n_cus; k++)
			free(m->cus[k].r);
		free(m->cus);
		idx_free(&m->cu_idx);
		if (m->dwfl)
			dwfl_end(m->dwfl);
	}
	free(st->cache_dir);
	free(st->mod);
	free(st->debug_dirs);
	free(st->debuginfo_path);
	free(st);
}

static void hex(char *out, size_t outlen, const uint8_t *b, size_t n)
{
	size_t k = 0;
	out[0] = 0;
	for (size_t i = 0; i < n && k + 3 <= outlen; i++)
		k += (size_t)snprintf(out + k, outlen - k, "%02x", b[i]);
}

/* Open path read-only if it is a regular file: never block on a FIFO or
 * read a device named in an untrusted profile. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat sb;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Report path into a fresh Dwfl; fills m.  Returns 0, or -errno / -EIO. */
static int report(struct symtab *st, struct smod *m, const char *path, int fd)
{
	Dwfl *d = dwfl_begin(&st->cb);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(d);
	Dwfl_Module *mod = dwfl_report_elf(d, path, path, fd, 0, false);
	dwfl_report_end(d, NULL, NULL);
	if (!mod) {
		close(fd);	/* libdwfl consumes fd only on success */
		dwfl_end(d);
		return -EIO;
	}
	m->dwfl = d;
	m->mod = mod;
	if (!dwfl_module_getelf(mod, &m->elf_bias)) {
		dwfl_end(d);
		m->dwfl = NULL;
		m->mod = NULL;
		return -EIO;
	}
	Dwarf_Addr b;
	m->dwarf = dwfl_module_getdwarf(mod, &b) != NULL;
	return 0;
}

static size_t file_build_id(int fd, uint8_t out[64]);

/* A debug file for this build-id under a debug root: ROOT/.build-id/xx/rest.debug. */
static int find_by_build_id(struct symtab *st, const uint8_t *bid, size_t n, char *out, size_t len)
{
	if (!bid || n < 2)
		return -ENOENT;
	char h[130];
	hex(h, sizeof(h), bid, n);
	char roots[4096];
	snprintf(roots, sizeof(roots), "%s%s/usr/lib/debug", st->debug_dirs ? st->debug_dirs : "",
		 st->debug_dirs ? ":" : "");
	for (char *save, *r = strtok_r(roots, ":", &save); r; r = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/.build-id/%.2s/%s.debug", r, h, h + 2);
		int fd = open_regular(out);
		if (fd >= 0)
			return fd;
	}
	return -ENOENT;
}

static bool same_build_id(Dwfl_Module *mod, const uint8_t *bid, size_t n, char *have, size_t len)
{
	const unsigned char *bits;
	GElf_Addr va;
	int k = dwfl_module_build_id(mod, &bits, &va);
	if (k <= 0) {
		snprintf(have, len, "none");
		return false;
	}
	hex(have, len, bits, (size_t)k);
	return (size_t)k == n && memcmp(bits, bid, n) == 0;
}

int symtab_load(struct symtab *st, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev)
{
	msg[0] = 0;
	*sev = ANA_NOTE_INFO;
	if (vec_reserve(&st->mod, &st->cap, st->n + 1, sizeof(*st->mod)))
		return -ENOMEM;
	int h = (int)st->n++;
	struct smod *m = &st->mod[h];
	/* kallsyms hook: kernel frames from /proc/kallsyms (kallsyms.c). */
	if (kallsyms_is_kernel(path))
		return (m->ks = kallsyms_load(NULL, NULL, bid, bid ? bid_len : 0, st->pool, msg, len,
					      sev)) ? h : -ENOMEM;
	if (path[0] != '/')
		return h;	/* [vdso], anonymous code: nothing to open */

	char want[130], have[130], dbg[4200];
	hex(want, sizeof(want), bid, bid ? bid_len : 0);
	const char *base = strrchr(path, '/') + 1;
	int fd = open_regular(path);
	/* A cached module is opened for real only on a cache miss.  The key is
	 * the file's own build-id (equal to the recorded one, if any). */
	uint8_t fbid[64];
	size_t fbid_len = 0;
	if (fd >= 0 && st->cache_dir && (fbid_len = file_build_id(fd, fbid)) &&
	    (!bid || !bid_len || (bid_len == fbid_len && !memcmp(bid, fbid, fbid_len))) &&
	    (m->cache = symcache_open(st->cache_dir, fbid, fbid_len, st->pool))) {
		close(fd);
		if (!(m->lazy_path = strdup(path)))
			return -ENOMEM;
		return h;
	}
	if (fd >= 0) {
		int e = report(st, m, path, fd);
		if (e == 0 && bid && bid_len && !same_build_id(m->mod, bid, bid_len, have, sizeof(have))) {
			dwfl_end(m->dwfl);
			memset(m, 0, sizeof(*m));
			int dfd = find_by_build_id(st, bid, bid_len, dbg, sizeof(dbg));
			if (dfd >= 0 && report(st, m, dbg, dfd) == 0) {
				snprintf(msg, len, "%s: binary changed since the run (build-id %s, recorded %s); "
					 "symbolized from %s", path, have, want, dbg);
				*sev = ANA_NOTE_WARN;
				return h;
			}
			snprintf(msg, len, "%s: binary changed since the run (build-id %s, recorded %s); "
				 "not symbolized, shown as [%s+0xOFF]", path, have, want, base);
			*sev = ANA_NOTE_WARN;
			return h;
		}
		if (e) {
			snprintf(msg, len, "%s: not a readable ELF file; shown as [%s+0xOFF]", path, base);
			*sev = ANA_NOTE_WARN;
			return h;
		}
	} else {
		int dfd = find_by_build_id(st, bid, bid_len, dbg, sizeof(dbg));
		if (dfd >= 0 && report(st, m, dbg, dfd) == 0) {
			snprintf(msg, len, "%s: %s; symbolized from %s", path,
				 fd == -EINVAL ? "not a regular file" : strerror(-fd), dbg);
			return h;
		}
		snprintf(msg, len, "%s: %s; shown as [%s+0xOFF]", path,
			 fd == -EINVAL ? "not a regular file" : strerror(-fd), base);
		*sev = ANA_NOTE_WARN;
		return h;
	}
	if (!m->dwarf) {
		snprintf(msg, len, "%s: no debug info (stripped?); functions from its ELF symbol "
			 "table, no source lines", path);
		*sev = ANA_NOTE_WARN;
	} else if (st->cache_dir && fbid_len) {
		m->cache = symcache_new(fbid, fbid_len);	/* only full (DWARF) answers are kept */
	}
	return h;
}

/* The build-id of the ELF file behind fd (its note only), or length 0. */
static size_t file_build_id(int fd, uint8_t out[64])
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *b;
	ssize_t k = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
	size_t n = k > 0 && k <= 64 ? (size_t)k : 0;
	if (n)
		memcpy(out, b, n);
	if (e)
		elf_end(e);
	return n;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));
	return s;
}

static const char *intern(struct symtab *st, const char *s)
{
	return s ? strpool_str(st->pool, s) : NULL;
}

static size_t lookup(struct smod *m, struct symtab *st, uint64_t off, struct sym_frame *fr, size_t max);

size_t symtab_lookup(struct symtab *st, int h, uint64_t off, struct sym_frame *fr, size_t max)
{
	struct smod *m = &st->mod[h];
	size_t n;
	if (m->ks)	/* kallsyms hook */
		return kallsyms_lookup(m->ks, st->pool, off, fr, max);
	if (m->cache && symcache_get(m->cache, off, fr, max, &n))
		return n;
	if (m->lazy_path) {
		char *p = m->lazy_path;
		m->lazy_path = NULL;
		int fd = open_regular(p);
		int e = fd >= 0 ? report(st, m, p, fd) : fd;
		free(p);
		if (e)
			return 0;
	}
	n = lookup(m, st, off, fr, max);
	if (m->cache && m->dwarf)
		symcache_put(m->cache, off, fr, n);
	return n;
}

static int add_ranges(struct cuindex *ci, size_t *cap, Dwarf_Die *d)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t o = 0;
	while ((o = dwarf_ranges(d, o, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (vec_reserve(&ci->r, cap, ci->n + 1, sizeof(*ci->r)))
			return -ENOMEM;
		ci->r[ci->n++] = (struct fnrange){ lo, hi, dwarf_dieoffset(d) };
	}
	return 0;
}

/* Subprograms of a unit, also inside namespaces (C++). */
static int index_dies(struct cuindex *ci, size_t *cap, Dwarf_Die *parent, int depth)
{
	Dwarf_Die d;
	if (depth > 16 || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		int t = dwarf_tag(&d);
		if (t == DW_TAG_subprogram) {
			if (add_ranges(ci, cap, &d))
				return -ENOMEM;
		} else if (t == DW_TAG_namespace || t == DW_TAG_module) {
			if (index_dies(ci, cap, &d, depth + 1))
				return -ENOMEM;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fnrange *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool cu_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct smod *m = ctx;
	return m->cus[id].off == *(const Dwarf_Off *)key;
}

static struct cuindex *cu_index(struct smod *m, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	uint64_t h = hash_u64(off, 17);
	uint32_t id = idx_find(&m->cu_idx, h, cu_eq, m, &off);
	if (id != NONE)
		return &m->cus[id];
	if (vec_reserve(&m->cus, &m->cap_cus, m->n_cus + 1, sizeof(*m->cus)))
		return NULL;
	struct cuindex *ci = &m->cus[m->n_cus];
	*ci = (struct cuindex){ .off = off };
	size_t cap = 0;
	if (index_dies(ci, &cap, cu, 0) || idx_put(&m->cu_idx, h, (uint32_t)m->n_cus)) {
		free(ci->r);
		return NULL;
	}
	qsort(ci->r, ci->n, sizeof(*ci->r), range_cmp);
	return &m->cus[m->n_cus++];
}

static bool has_pc_info(Dwarf_Die *d)
{
	return dwarf_hasattr(d, DW_AT_low_pc) || dwarf_hasattr(d, DW_AT_ranges);
}

/* The child scope of d containing pc: an inlined instance or a block;
 * blocks without addresses are looked through. */
static bool child_at(Dwarf_Die *d, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;
	if (depth > 64 || dwarf_child(d, &c) != 0)
		return false;
	do {
		int t = dwarf_tag(&c);
		if (t != DW_TAG_inlined_subroutine && t != DW_TAG_lexical_block &&
		    t != DW_TAG_try_block && t != DW_TAG_catch_block)
			continue;
		if (has_pc_info(&c)) {
			if (dwarf_haspc(&c, pc) == 1) {
				*out = c;
				return true;
			}
		} else if (child_at(&c, pc, out, depth + 1)) {
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Subprogram and inlined instances around pc, innermost first, into
 * chain[max]; 0 if the unit's index has no function there. */
static int scope_chain(struct smod *m, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain, int max)
{
	struct cuindex *ci = cu_index(m, cu);
	if (!ci || !ci->n)
		return 0;
	size_t lo = 0, hi = ci->n;	/* first range with lo > pc */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ci->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct fnrange *f = NULL;
	for (size_t k = lo; k > 0 && k + 8 > lo; k--)
		if (ci->r[k - 1].hi > pc) {
			f = &ci->r[k - 1];
			break;
		}
	Dwarf_Die sub, outer[64];
	Dwarf *dw = dwarf_cu_getdwarf(cu->cu);
	if (!f || !dw || !dwarf_offdie(dw, f->die, &sub))
		return 0;
	int n = 0;
	outer[n++] = sub;
	Dwarf_Die cur = sub, next;
	while (n < 64 && n < max && child_at(&cur, pc, &next, 0)) {
		if (dwarf_tag(&next) == DW_TAG_inlined_subroutine)
			outer[n++] = next;
		cur = next;
	}
	for (int i = 0; i < n; i++)
		chain[i] = outer[n - 1 - i];
	return n;
}

static size_t lookup(struct smod *m, struct symtab *st, uint64_t off, struct sym_frame *fr, size_t max)
{
	if (!m->mod || max == 0)
		return 0;
	Dwarf_Addr addr = off + m->elf_bias;
	const char *file = NULL;
	int line = 0;
	Dwfl_Line *l = dwfl_module_getsrc(m->mod, addr);
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);

	size_t n = 0;
	Dwarf_Addr dbias;
	Dwarf_Die *cu = m->dwarf ? dwfl_module_addrdie(m->mod, addr, &dbias) : NULL;
	Dwarf_Die *scopes = NULL, *chain = NULL, found[64];
	int nc = 0;
	if (cu && (nc = scope_chain(m, cu, addr - dbias, found, 64)) > 0) {
		chain = found;
	} else if (cu && dwarf_getscopes(cu, addr - dbias, &scopes) > 0) {
		/* not in the index (e.g. a nested function): dwarf_getscopes
		 * follows abstract origins past an inlined instance, so the
		 * physical nesting comes from dwarf_getscopes_die. */
		nc = dwarf_getscopes_die(&scopes[0], &chain);
	}
	if (nc > 0) {
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;
		if (dwarf_getsrcfiles(cu, &files, &nfiles))
			files = NULL;
		for (int i = 0; i < nc && n < max; i++) {
			Dwarf_Die *d = &chain[i];
			int tag = dwarf_tag(d);
			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			const char *name = die_name(d);
			int dl = 0;
			if (dwarf_decl_line(d, &dl))
				dl = 0;
			fr[n++] = (struct sym_frame){
				.func = intern(st, name ? name : "[anonymous]"),
				.file = intern(st, file),
				.line = line > 0 ? (unsigned)line : 0,
				.decl_file = intern(st, dwarf_decl_file(d)),
				.decl_line = dl > 0 ? (unsigned)dl : 0,
			};
			if (tag == DW_TAG_subprogram)
				break;
			/* the caller's line is this inlined call's site */
			Dwarf_Attribute a;
			Dwarf_Word cf = 0, cl = 0;
			dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &cf);
			dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &cl);
			file = files && cf < nfiles ? dwarf_filesrc(files, cf, NULL, NULL) : NULL;
			line = (int)cl;
		}
	}
	if (chain != found)
		free(chain);
	free(scopes);
	if (n == 0) {
		GElf_Off so;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(m->mod, addr, &so, &sym, NULL, NULL, NULL);
		if (name)
			fr[n++] = (struct sym_frame){
				.func = intern(st, name),
				.file = intern(st, file),
				.line = line > 0 ? (unsigned)line : 0,
			};
	}
	return n;
}
