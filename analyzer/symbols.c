/* Symbolization with elfutils libdwfl: one Dwfl per module (modules are
 * looked up by ELF address, so they must not share an address space),
 * inlined frames from the DIE scopes around an address, and the ELF symbol
 * table when there is no DWARF.  Only the load-map modules and their debug
 * files are ever opened, and only regular files. */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
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
};

struct symtab {
	struct strpool *pool;
	char *debug_dirs;		/* user's, colon-separated, or NULL */
	char *debuginfo_path;		/* for dwfl_standard_find_debuginfo */
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
	st->pool = o->pool;
	/* libdwfl looks up build-ids only under absolute roots */
	if (o->debug_dirs && *o->debug_dirs && !(st->debug_dirs = absolute_dirs(o->debug_dirs))) {
		free(st);
		return NULL;
	}
	const char *dirs = st->debug_dirs;
	/* user dirs first, then libdwfl's default ":.debug:/usr/lib/debug" */
	if (asprintf(&st->debuginfo_path, "%s%s:.debug:/usr/lib/debug", dirs ? dirs : "",
		     dirs ? ":" : "") < 0) {
		free(st->debug_dirs);
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
	for (size_t i = 0; i < st->n; i++)
		if (st->mod[i].dwfl)
			dwfl_end(st->mod[i].dwfl);
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
	if (path[0] != '/')
		return h;	/* [vdso], anonymous code: nothing to open */

	char want[130], have[130], dbg[4200];
	hex(want, sizeof(want), bid, bid ? bid_len : 0);
	const char *base = strrchr(path, '/') + 1;
	int fd = open_regular(path);
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
	}
	return h;
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

size_t symtab_lookup(struct symtab *st, int h, uint64_t off, struct sym_frame *fr, size_t max)
{
	struct smod *m = &st->mod[h];
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
	Dwarf_Die *scopes = NULL, *chain = NULL;
	if (cu && dwarf_getscopes(cu, addr - dbias, &scopes) > 0) {
		/* dwarf_getscopes follows abstract origins past an inlined
		 * instance; the physical nesting (caller it was inlined into)
		 * comes from dwarf_getscopes_die on the innermost scope. */
		int nc = dwarf_getscopes_die(&scopes[0], &chain);
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
