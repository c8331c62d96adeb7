/* A function's instructions with the samples each one took, as perf
 * annotate shows them: disassembled by capstone from the module's bytes,
 * each instruction with its source line and the function inlined there
 * (libdw), its samples from the per-address counts the set kept at
 * aggregation (ana_opts.addr_samples: the leaf frame of a sample is the
 * sampled instruction itself, docs/profile-format.md).  Built on the
 * set's public tables (access.c: functions, mappings, addresses and their
 * samples), as the other exporters are. */
#include "config.h"

#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "analyzer/util.h"

/* An annotation and the strings of its instructions (text, source file,
 * inlined function), which it owns. */
struct annotation {
	struct ana_annotation pub;
	struct strpool pool;
};

/* The physical function holding f's code: f, or for an inlined f the
 * function it was inlined into (out to the first that was not). */
static uint32_t physical(const struct ana_set *s, uint32_t f)
{
	struct ana_function fn = { .sz = sizeof(fn) };
	for (unsigned hops = 0; hops < 64 && !ana_set_function(s, f, &fn) &&
	     fn.inlined_into != UINT32_MAX; hops++)
		f = fn.inlined_into;
	return f;
}

/* Whether address a is code of function pf (physical) in mapping pm; its
 * ELF address into *pc. */
static bool addr_in(const struct ana_set *s, size_t a, uint32_t pf, uint32_t pm, uint64_t *pc)
{
	struct ana_address ad = { .sz = sizeof(ad) };
	if (ana_set_address(s, a, &ad) || ad.func != pf || ad.mapping != pm)
		return false;
	*pc = ad.addr;
	return true;
}

/* (function, mapping) pairs and their samples; few: one per match and
 * build of its module */
struct cand {
	uint32_t f, m;
	uint64_t c;
};

/* Add address a's samples to its (function, mapping) pair in *cand (of
 * *nc), if its function is one of phys[].  0 or -ENOMEM. */
static int cand_add(const struct ana_set *s, size_t a, const uint8_t *phys, unsigned run,
		    size_t ev, struct cand **cand, size_t *nc)
{
	struct ana_address ad = { .sz = sizeof(ad) };
	if (ana_set_address(s, a, &ad) || ad.func == UINT32_MAX || !phys[ad.func])
		return 0;
	size_t k = 0;
	while (k < *nc && ((*cand)[k].f != ad.func || (*cand)[k].m != ad.mapping))
		k++;
	if (k == *nc) {
		struct cand *c = realloc(*cand, (*nc + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		*cand = c;
		c[(*nc)++] = (struct cand){ ad.func, ad.mapping, 0 };
	}
	(*cand)[k].c += ana_set_address_samples(s, a, run, ev);
	return 0;
}

/* Which (physical function, mapping) FUNC names: of those matching, the
 * one with the most samples.  0, -ANA_ENOFUNC or -ENOMEM. */
static int pick(struct ana_set *s, const char *func, unsigned run, size_t ev, uint32_t *pf,
		uint32_t *pm)
{
	size_t nf = ana_set_n_functions(s);
	uint8_t *is = calloc(nf ? nf : 1, 1), *phys = calloc(nf ? nf : 1, 1);
	struct cand *cand = NULL;
	size_t nc = 0;
	int e = is && phys ? 0 : -ENOMEM;

	if (!e && ana_set_match_functions(s, func, is)) {
		for (uint32_t f = 0; f < nf; f++)
			if (is[f])
				phys[physical(s, f)] = 1;
		for (size_t a = 0; a < ana_set_n_addresses(s) && !e; a++)
			e = cand_add(s, a, phys, run, ev, &cand, &nc);
	}
	uint64_t best = 0;
	bool found = false;
	for (size_t k = 0; !e && k < nc; k++) {
		if (!found || cand[k].c > best) {
			best = cand[k].c;
			*pf = cand[k].f;
			*pm = cand[k].m;
			found = true;
		}
	}
	FREE_EACH(cand, is, phys);
	return e ? e : found ? 0 : -ANA_ENOFUNC;
}

struct dis {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* Dwfl address = ELF address + bias */
	Elf *elf;
	char *dbgpath;
	Dwfl_Callbacks cb;
};

static void dis_end(struct dis *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->dbgpath);
}

/* Open the module at path as the symbolizer does (symbols.c): its
 * separate debug info under the debug roots; its build-id must be the
 * recorded one. */
static int dis_open(struct dis *d, const struct ana_set *s, const struct ana_module *m, char *msg,
		    size_t len)
{
	const char *dirs = ana_set_opts(s)->debug_dirs;
	if (asprintf(&d->dbgpath, "%s%s:.debug:/usr/lib/debug", dirs ? dirs : "", dirs ? ":" : "") < 0) {
		d->dbgpath = NULL;
		return -ENOMEM;
	}
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	d->cb.section_address = dwfl_offline_section_address;
	d->cb.debuginfo_path = &d->dbgpath;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		snprintf(msg, len, "%s: %s (--remap OLD=NEW reads it from elsewhere)", m->path,
			 strerror(-e));
		return e;
	}
	if (!(d->dwfl = dwfl_begin(&d->cb))) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_elf(d->dwfl, m->path, m->path, fd, 0, false);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		close(fd);
		snprintf(msg, len, "%s: not an ELF file libdw can read", m->path);
		return -EIO;
	}
	if (!(d->elf = dwfl_module_getelf(d->mod, &d->bias))) {
		snprintf(msg, len, "%s: no ELF image", m->path);
		return -EIO;
	}
	const unsigned char *bid;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(d->mod, &bid, &vaddr);
	if (m->build_id_len && (n != (int)m->build_id_len || memcmp(bid, m->build_id, m->build_id_len))) {
		snprintf(msg, len, "%s is not the file that was profiled (its build-id differs): "
			 "its instructions would be another program's", m->path);
		return -ESTALE;
	}
	return 0;
}

/* The function's bytes [lo, lo + size) from the section holding them. */
static int dis_bytes(struct dis *d, uint64_t lo, uint64_t size, const uint8_t **out)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(d->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (lo < sh.sh_addr || lo + size > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || lo - sh.sh_addr + size > data->d_size)
			return -EIO;
		*out = (const uint8_t *)data->d_buf + (lo - sh.sh_addr);
		return 0;
	}
	return -ENOENT;
}

/* Source line and innermost inlined function at ELF address pc. */
static void dis_source(struct dis *d, struct strpool *pool, uint64_t pc, struct ana_insn *in)
{
	Dwarf_Addr a = pc + d->bias, cubias;
	Dwfl_Line *l = dwfl_module_getsrc(d->mod, a);
	int lineno = 0;
	const char *file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
	Dwarf_Die *cu = dwfl_module_addrdie(d->mod, a, &cubias), *scopes = NULL;
	if (file && lineno > 0) {
		/* A relative name (a VPATH build's "../../src/f.c") is
		 * relative to the compilation directory, not to ours. */
		Dwarf_Attribute at;
		const char *dir = file[0] != '/' && cu ?
			dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at)) : NULL;
		char joined[4096];

		if (dir && (size_t)snprintf(joined, sizeof(joined), "%s/%s", dir, file) < sizeof(joined))
			file = joined;
		in->file = strpool_str(pool, file);
		in->line = (unsigned)lineno;
	}
	int n = cu ? dwarf_getscopes(cu, a - cubias, &scopes) : 0;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute at;
		const char *name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &at));
		in->inlined = name ? strpool_str(pool, name) : "?";
		break;
	}
	free(scopes);
}

static int dis_arch(Elf *elf, cs_arch *arch, cs_mode *mode)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return -EIO;
	switch (eh.e_machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_64;
		return 0;
	case EM_386:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_32;
		return 0;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM;
		return 0;
	default:
		return -ENOTSUP;
	}
}

/* The range of the ELF symbol holding ELF address pc. */
static int dis_range(struct dis *d, uint64_t pc, uint64_t *lo, uint64_t *hi, const char **name)
{
	GElf_Off off;
	GElf_Sym sym;
	Elf *elf;
	Dwarf_Addr symbias;
	*name = dwfl_module_addrinfo(d->mod, pc + d->bias, &off, &sym, NULL, &elf, &symbias);
	if (!*name || !sym.st_size)
		return -ENOENT;
	*lo = pc - off;
	*hi = *lo + sym.st_size;
	return 0;
}

/* The address of function pf in mapping pm with the most samples (of
 * run on ev): where to look for its symbol; UINT64_MAX if none. */
static uint64_t hottest_pc(const struct ana_set *s, uint32_t pf, uint32_t pm, unsigned run, size_t ev)
{
	uint64_t hot = 0, hot_pc = UINT64_MAX, pc;
	for (size_t a = 0; a < ana_set_n_addresses(s); a++) {
		if (addr_in(s, a, pf, pm, &pc) &&
		    (hot_pc == UINT64_MAX || ana_set_address_samples(s, a, run, ev) > hot)) {
			hot = ana_set_address_samples(s, a, run, ev);
			hot_pc = pc;
		}
	}
	return hot_pc;
}

/* The symbol holding pc ([an->lo, an->hi)) and its bytes (*code).  0, or
 * -ENOENT / -EFBIG with a line in msg. */
static int code_range(struct dis *d, const char *path, const char *func, uint64_t pc,
		      struct ana_annotation *an, const uint8_t **code, char *msg, size_t len)
{
	const char *sym;
	if (dis_range(d, pc, &an->lo, &an->hi, &sym)) {
		snprintf(msg, len, "%s: no symbol with a size holds %s's code at 0x%llx", path, func,
			 (unsigned long long)pc);
		return -ENOENT;
	}
	if (an->hi - an->lo > (1u << 20)) {
		snprintf(msg, len, "%s: %s is %llu bytes long: not disassembled", path, sym,
			 (unsigned long long)(an->hi - an->lo));
		return -EFBIG;
	}
	if (dis_bytes(d, an->lo, an->hi - an->lo, code)) {
		snprintf(msg, len, "%s: the bytes of %s are not in the file", path, sym);
		return -ENOENT;
	}
	return 0;
}

/* The instructions of code[lo, hi) with their source lines into *out (*n
 * of them).  0, -ENOTSUP with a line in msg, -ENOMEM. */
static int disassemble(struct strpool *pool, struct dis *d, const char *path, const uint8_t *code,
		       const struct ana_annotation *an, struct ana_insn **out, size_t *n, char *msg,
		       size_t len)
{
	cs_arch arch;
	cs_mode mode;
	csh cs;
	if (dis_arch(d->elf, &arch, &mode)) {
		snprintf(msg, len, "%s: an architecture pmcprof does not disassemble", path);
		return -ENOTSUP;
	}
	if (cs_open(arch, mode, &cs) != CS_ERR_OK) {
		snprintf(msg, len, "capstone cannot open this architecture");
		return -ENOTSUP;
	}
	cs_insn *ins = NULL;
	*n = cs_disasm(cs, code, an->hi - an->lo, an->lo, 0, &ins);
	*out = calloc(*n ? *n : 1, sizeof(**out));
	int e = *out ? 0 : -ENOMEM;
	for (size_t i = 0; !e && i < *n; i++) {
		struct ana_insn *o = &(*out)[i];
		char text[256];
		snprintf(text, sizeof(text), "%s%s%s", ins[i].mnemonic, ins[i].op_str[0] ? " " : "",
			 ins[i].op_str);
		o->addr = ins[i].address;
		o->size = ins[i].size;
		if (!(o->text = strpool_str(pool, text)))
			e = -ENOMEM;
		dis_source(d, pool, ins[i].address, o);
	}
	if (*n)
		cs_free(ins, *n);
	cs_close(&cs);
	if (e) {
		free(*out);
		*out = NULL;
	}
	return e;
}

/* Each sampled address of pf to its instruction in out[n] (a sampled pc
 * is one's start; anything else, or outside the symbol, is counted apart),
 * and each instruction's share. */
static void place_samples(const struct ana_set *s, uint32_t pf, uint32_t pm, unsigned run,
			  size_t ev, struct ana_insn *out, size_t n, struct ana_annotation *an)
{
	uint64_t pc, c;
	for (size_t a = 0; a < ana_set_n_addresses(s); a++) {
		if (!addr_in(s, a, pf, pm, &pc) || !(c = ana_set_address_samples(s, a, run, ev)))
			continue;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (out[mid].addr + out[mid].size <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && out[lo].addr == pc)
			out[lo].samples += c;
		else
			an->outside += c;
		an->samples += c;
	}
	for (size_t i = 0; i < n; i++)
		out[i].pct = an->samples ? 100.0 * (double)out[i].samples / (double)an->samples : 0;
}

/* Function pf of mapping m (pm) disassembled into *a.  0, or -errno with a
 * line in msg. */
static int annotate(struct ana_set *s, struct dis *d, uint32_t pf, uint32_t pm,
		    const struct ana_module *m, unsigned run, size_t ev, struct annotation *a,
		    char *msg, size_t len)
{
	struct ana_function fn = { .sz = sizeof(fn) };
	struct ana_annotation *an = &a->pub;
	const uint8_t *code;
	struct ana_insn *out;
	size_t n;
	int e = ana_set_function(s, pf, &fn);
	if (!e)
		e = code_range(d, m->path, fn.name, hottest_pc(s, pf, pm, run, ev), an, &code, msg,
			       len);
	if (!e)
		e = disassemble(&a->pool, d, m->path, code, an, &out, &n, msg, len);
	if (e)
		return e;
	place_samples(s, pf, pm, run, ev, out, n, an);
	an->func = fn.name;
	an->module = m->path;
	an->insn = out;
	an->n = n;
	return 0;
}

/* Why pmcprof cannot disassemble mapping m, into msg: -ENOTSUP; else 0. */
static int refuse(const struct ana_module *m, const char *func, char *msg, size_t len)
{
	if (!m->kernel && !m->jit && !m->embedded)
		return 0;
	snprintf(msg, len, "%s is in %s: pmcprof disassembles only modules it can read "
		 "from a file", func, m->jit ? "JIT code" : m->embedded ?
		 "the vdso (its bytes are in the profile but not annotated)" : "the kernel");
	return -ENOTSUP;
}

static void annotation_free(struct annotation *a)
{
	strpool_free(&a->pool);
	free((void *)a->pub.insn);
	free(a);
}

int ana_set_annotate(struct ana_set *s, const char *func, unsigned run, size_t ev,
		     struct ana_annotation **out, char *msg, size_t len)
{
	uint32_t pf = 0, pm = 0;
	struct ana_module m = { .sz = sizeof(m) };
	struct ana_function fn = { .sz = sizeof(fn) };
	int e;

	*out = NULL;
	if (len)
		msg[0] = '\0';
	if (!ana_set_finished(s) || !ana_set_opts(s)->addr_samples) {
		snprintf(msg, len, "the set was not finished with addr_samples");
		return -ANA_ESTATE;
	}
	if (run >= ana_set_n_runs(s) || ev >= ana_set_n_sampled_events(s))
		return -EINVAL;
	if ((e = pick(s, func, run, ev, &pf, &pm)) || (e = ana_set_mapping(s, pm, &m)) ||
	    (e = ana_set_function(s, pf, &fn)) || (e = refuse(&m, fn.name, msg, len)))
		return e;
	struct annotation *a = calloc(1, sizeof(*a));
	struct dis d = { 0 };
	if (!a)
		return -ENOMEM;
	if (!(e = dis_open(&d, s, &m, msg, len)))
		e = annotate(s, &d, pf, pm, &m, run, ev, a, msg, len);
	dis_end(&d);
	if (e) {
		annotation_free(a);
		return e;
	}
	*out = &a->pub;
	return 0;
}

void ana_annotation_free(struct ana_annotation *an)
{
	if (an)
		annotation_free((struct annotation *)((char *)an - offsetof(struct annotation, pub)));
}
