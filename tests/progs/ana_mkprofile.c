/* Writes test profiles whose frames point at real code in a real binary,
 * so that the analyzer's symbolization is exercised for real.
 *
 *   ana_mkprofile -o OUT -b BINARY [options] STACK=COUNT[,COUNT...] ...
 *
 * STACK is "f1;f2;f3", outermost frame first.  A frame is
 *   NAME        an address in function NAME outside any inlined code
 *   NAME:LINE   an address of source line LINE whose innermost function is NAME
 *   inl:NAME    an address inside an inlined instance of NAME
 *   0xOFF       that ELF address;   ?0xADDR   an address in no module
 *   FRAME*N     FRAME repeated N times (a deep recursion)
 * Options:
 *   -e NAME[@PERIOD][=REQUESTED]  an event (repeatable; default perf::CPU-CLOCK@1000000)
 *   -U UNIT          the unit of the last -e event (default events; ns for a clock)
 *   -m KEY=VALUE     metadata      -c NAME=VALUE   collector counter
 *   -B HEX|none      record this build-id instead of the file's
 *   -P PATH          record this module path instead of BINARY
 *   -p               mark the profile partial
 *   -n N -s SEED     draw N samples of event 0 from the stack counts as weights
 *   -S CTX:SAMPLES   a random tree of CTX contexts over BINARY's functions
 *   -F FILES         write FILES profiles OUT/t<i>.pmcp (tid = i, counts reseeded)
 *   -D               with -F: file i holds only the contexts j with j % FILES == i
 *                    and their callers (threads doing different work)
 *   -I               store BINARY's bytes as the module's image (as the
 *                    collector stores the vdso's)
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/profile.h"
#include "tests/rng.h"

#define MAXN 8

static Dwarf *dw;
static Elf *elf;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "ana_mkprofile: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

/* The innermost subprogram or inlined instance at addr in cu. */
static int innermost(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die *sc = NULL, *ch = NULL;
	int found = 0;
	if (dwarf_getscopes(cu, addr, &sc) > 0) {
		int n = dwarf_getscopes_die(&sc[0], &ch);
		for (int i = 0; i < n && !found; i++) {
			int t = dwarf_tag(&ch[i]);
			if (t == DW_TAG_subprogram || t == DW_TAG_inlined_subroutine) {
				*out = ch[i];
				found = 1;
			}
		}
	}
	free(sc);
	free(ch);
	return found;
}

static int sym_addr(const char *name, uint64_t *out)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
			    !strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name)) {
				*out = s.st_value;
				return 1;
			}
		}
	}
	return 0;
}

/* Scan the line tables for an address matching the frame spec. */
static uint64_t resolve(const char *spec)
{
	char name[256];
	int line = 0, inl = 0;
	if (!strncmp(spec, "0x", 2))
		return strtoull(spec, NULL, 16);
	if (!strncmp(spec, "inl:", 4)) {
		inl = 1;
		spec += 4;
	}
	snprintf(name, sizeof(name), "%s", spec);
	char *colon = strchr(name, ':');
	if (colon) {
		*colon = 0;
		line = atoi(colon + 1);
	}
	Dwarf_Off off = 0, next;
	size_t hsz;
	while (dw && dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;
		if (dwarf_offdie(dw, off + hsz, &cu) && dwarf_getsrclines(&cu, &lines, &nl) == 0) {
			for (size_t i = 0; i < nl; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int ln;
				Dwarf_Die fn;
				if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || (line && ln != line) ||
				    !innermost(&cu, a, &fn))
					continue;
				const char *n = die_name(&fn);
				int t = dwarf_tag(&fn);
				if (!n || strcmp(n, name))
					continue;
				if (line || (inl && t == DW_TAG_inlined_subroutine) ||
				    (!inl && t == DW_TAG_subprogram))
					return a;
			}
		}
		off = next;
	}
	uint64_t a;
	if (!inl && !line && sym_addr(name, &a))
		return a;
	die("cannot resolve frame '%s'", spec);
	return 0;
}

struct node {
	uint32_t parent, module;
	uint64_t offset;
	uint64_t count[MAXN];
};

static struct node *nodes;
static size_t n_nodes, cap_nodes;

static uint32_t child(uint32_t parent, uint32_t module, uint64_t off)
{
	/* hand-written stacks share prefixes; big synthetic trees need no search */
	for (size_t i = 1; i < n_nodes && n_nodes < 4096; i++)
		if (nodes[i].parent == parent && nodes[i].module == module && nodes[i].offset == off)
			return (uint32_t)i;
	if (n_nodes == cap_nodes) {
		cap_nodes = cap_nodes ? cap_nodes * 2 : 256;
		nodes = realloc(nodes, cap_nodes * sizeof(*nodes));
		if (!nodes)
			die("%s", "out of memory");
	}
	nodes[n_nodes] = (struct node){ parent, module, off, { 0 } };
	return (uint32_t)n_nodes++;
}

/* The tree of nodes as the profile's cct arrays (n_ev counts a node). */
static void tree_arrays(uint32_t *parent, uint32_t *module, uint64_t *offset, uint64_t *counts,
			size_t n_ev)
{
	for (size_t i = 0; i < n_nodes; i++) {
		parent[i] = nodes[i].parent;
		module[i] = nodes[i].module;
		offset[i] = nodes[i].offset;
		for (size_t e = 0; e < n_ev; e++)
			counts[i * n_ev + e] = nodes[i].count[e];
	}
}

struct fsym {
	uint64_t value, size;
};

static size_t func_syms(struct fsym **out)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_size < 8 || !s.st_value)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				*out = realloc(*out, cap * sizeof(**out));
			}
			(*out)[n++] = (struct fsym){ s.st_value, s.st_size };
		}
	}
	return n;
}

/* A random calling-context tree: mostly shallow fan-out, depth <= 40,
 * four distinct addresses per function. */
static void synthetic(size_t ctx, uint64_t samples)
{
	struct fsym *fs;
	size_t nf = func_syms(&fs);
	if (!nf)
		die("%s", "no function symbols for -S");
	unsigned char *depth = calloc(ctx + 1, 1);
	child(0, PROF_NO_MODULE, 0);
	while (n_nodes < ctx + 1) {
		uint32_t p = (uint32_t)(rnd() % n_nodes);
		if (depth[p] >= 40)
			p = 0;
		const struct fsym *f = &fs[rnd() % nf];
		size_t before = n_nodes;
		uint32_t c = child(p, 0, f->value + (rnd() % 4) * (f->size / 4));
		if (n_nodes > before)
			depth[c] = (unsigned char)(depth[p] + 1);
	}
	for (uint64_t i = 0; i < samples; i++)
		nodes[1 + rnd() % ctx].count[0]++;
	free(depth);
	free(fs);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *bin = NULL, *modpath = NULL, *bidarg = NULL;
	struct prof_event ev[MAXN];
	size_t n_ev = 0;
	struct prof_kv meta[64];
	size_t n_meta = 0;
	struct prof_counter ctr[32];
	size_t n_ctr = 0;
	int partial = 0, disjoint = 0, image = 0, opt;
	long draw = 0, files = 0;
	size_t syn_ctx = 0;
	uint64_t syn_samples = 0;
	while ((opt = getopt(argc, argv, "o:b:e:U:m:c:B:P:pn:s:S:F:DI")) != -1) {
		char *eq, *at;
		switch (opt) {
		case 'o': out = optarg; break;
		case 'b': bin = optarg; break;
		case 'P': modpath = optarg; break;
		case 'B': bidarg = optarg; break;
		case 'p': partial = 1; break;
		case 'n': draw = atol(optarg); break;
		case 's': rng = strtoull(optarg, NULL, 0) * 2654435761ULL + 1; break;
		case 'F': files = atol(optarg); break;
		case 'D': disjoint = 1; break;
		case 'I': image = 1; break;
		case 'S':
			syn_ctx = strtoul(optarg, &at, 10);
			syn_samples = *at == ':' ? strtoull(at + 1, NULL, 10) : 0;
			break;
		case 'e':
			if (n_ev == MAXN)
				die("%s", "too many events");
			eq = strchr(optarg, '=');
			if (eq)
				*eq = 0;
			at = strchr(optarg, '@');
			if (at)
				*at = 0;
			ev[n_ev] = (struct prof_event){ .name = optarg, .requested = eq ? eq + 1 : optarg,
							.unit = "events",
							.period = at ? strtoull(at + 1, NULL, 10) : 0 };
			n_ev++;
			break;
		case 'U':
			if (!n_ev)
				die("%s", "-U before any -e");
			ev[n_ev - 1].unit = optarg;
			break;
		case 'm':
		case 'c':
			eq = strchr(optarg, '=');
			if (!eq)
				die("expected KEY=VALUE, got '%s'", optarg);
			*eq = 0;
			if (opt == 'm' && n_meta < 64)
				meta[n_meta++] = (struct prof_kv){ optarg, eq + 1 };
			else if (opt == 'c' && n_ctr < 32)
				ctr[n_ctr++] = (struct prof_counter){ optarg, strtoull(eq + 1, NULL, 10) };
			break;
		default:
			return 1;
		}
	}
	if (!out || !bin)
		die("%s", "usage: ana_mkprofile -o OUT -b BINARY [options] STACK=COUNT...");
	if (!n_ev)
		ev[n_ev++] = (struct prof_event){ .name = "perf::CPU-CLOCK", .requested = "cpu-clock",
						  .unit = "ns", .period = 1000000 };
	elf_version(EV_CURRENT);
	int fd = open(bin, O_RDONLY);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)))
		die("cannot read %s", bin);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	uint8_t bid[64];
	uint32_t bid_len = 0;
	const void *b;
	ssize_t bl = dwelf_elf_gnu_build_id(elf, &b);
	if (bl > 0 && bl <= 64) {
		memcpy(bid, b, (size_t)bl);
		bid_len = (uint32_t)bl;
	}
	if (bidarg) {
		bid_len = 0;
		for (const char *h = bidarg; strcmp(bidarg, "none") && h[0] && h[1] && bid_len < 64; h += 2) {
			unsigned v;
			sscanf(h, "%2x", &v);
			bid[bid_len++] = (uint8_t)v;
		}
	}
	char abs[PATH_MAX];
	if (!modpath)
		modpath = realpath(bin, abs) ? abs : bin;

	child(0, PROF_NO_MODULE, 0);
	if (syn_ctx)
		synthetic(syn_ctx, syn_samples);
	for (int i = optind; i < argc; i++) {
		char *eq = strrchr(argv[i], '=');
		if (!eq)
			die("expected STACK=COUNT, got '%s'", argv[i]);
		*eq = 0;
		uint32_t cur = 0;
		char *save;
		for (char *f = strtok_r(argv[i], ";", &save); f; f = strtok_r(NULL, ";", &save)) {
			char *star = strchr(f, '*');
			long reps = star ? atol(star + 1) : 1;
			if (star)
				*star = 0;
			for (long k = 0; k < reps; k++)
				cur = f[0] == '?' ? child(cur, PROF_NO_MODULE, strtoull(f + 1, NULL, 16))
						  : child(cur, 0, resolve(f));
		}
		char *c = eq + 1;
		for (size_t e = 0; e < n_ev; e++) {
			nodes[cur].count[e] += strtoull(c, &c, 10);
			if (*c == ',')
				c++;
		}
	}
	if (draw) {
		/* multinomial: each sample picks a node with probability count/total */
		uint64_t tot = 0;
		for (size_t i = 0; i < n_nodes; i++)
			tot += nodes[i].count[0];
		uint64_t *w = malloc(n_nodes * sizeof(*w));
		for (size_t i = 0; i < n_nodes; i++) {
			w[i] = nodes[i].count[0];
			nodes[i].count[0] = 0;
		}
		for (long k = 0; k < draw && tot; k++) {
			uint64_t x = rnd() % tot;
			size_t i = 0;
			while (x >= w[i])
				x -= w[i++];
			nodes[i].count[0]++;
		}
		free(w);
	}

	struct prof_module mod = { .path = modpath, .build_id = bid_len ? bid : NULL,
				   .build_id_len = bid_len, .start = 0x555555554000ULL,
				   .end = 0x555555654000ULL, .bias = 0x555555554000ULL, .load_seq = 1 };
	uint32_t *parent = malloc(n_nodes * sizeof(*parent));
	uint32_t *module = malloc(n_nodes * sizeof(*module));
	uint64_t *offset = malloc(n_nodes * sizeof(*offset));
	uint64_t *counts = malloc(n_nodes * n_ev * sizeof(*counts));
	tree_arrays(parent, module, offset, counts, n_ev);
	int has[4] = { 0 };
	static const char *const defk[] = { "command", "host", "pid", "tid" };
	for (size_t i = 0; i < n_meta; i++)
		for (int k = 0; k < 4; k++)
			has[k] |= !strcmp(meta[i].key, defk[k]);
	const char *defv[] = { bin, "testhost", "1000", "1000" };
	for (int k = 0; k < 4; k++)
		if (!has[k] && n_meta < 63)
			meta[n_meta++] = (struct prof_kv){ defk[k], defv[k] };
	struct prof p = {
		.version = PROF_VERSION, .partial = partial, .n_meta = n_meta, .meta = meta,
		.n_events = n_ev, .events = ev, .n_modules = 1, .modules = &mod,
		.cct = { (uint32_t)n_nodes, (uint32_t)n_ev, parent, module, offset, counts },
		.n_counters = n_ctr, .counters = ctr,
	};
	static uint8_t img[PROF_MAX_IMAGE];
	struct prof_image pimg = { 0, 0, img };
	if (image) {
		ssize_t k = pread(fd, img, sizeof(img), 0);
		if (k <= 0)
			die("cannot read %s", bin);
		pimg.len = (uint32_t)k;
		p.n_images = 1;
		p.images = &pimg;
	}
	int err;
	if (files) {
		mkdir(out, 0777);
		int dfd = open(out, O_RDONLY | O_DIRECTORY);
		if (dfd < 0)
			die("cannot open directory %s", out);
		char tid[32], name[64];
		for (size_t k = 0; k < n_meta; k++)
			if (!strcmp(meta[k].key, "tid"))
				meta[k].value = tid;
		uint32_t *keep = malloc(n_nodes * sizeof(*keep));
		for (long f = 0; f < files; f++) {
			snprintf(tid, sizeof(tid), "%ld", 1000 + f);
			snprintf(name, sizeof(name), "t%ld.pmcp", f);
			for (size_t i = 1; i < n_nodes; i++)	/* reseed: threads differ a little */
				counts[i * n_ev] = nodes[i].count[0] + (rnd() & 1);
			p.cct.n_nodes = (uint32_t)n_nodes;
			if (disjoint) {
				/* this file's contexts and their callers, renumbered in
				 * order (parents come before children) */
				for (size_t i = 0; i < n_nodes; i++)
					keep[i] = i == 0 || (long)(i % (size_t)files) == f ? 1 : 0;
				for (size_t i = n_nodes; i-- > 1;)
					if (keep[i])
						keep[nodes[i].parent] = 1;
				uint32_t m = 0;
				for (size_t i = 0; i < n_nodes; i++) {
					if (!keep[i])
						continue;
					keep[i] = m + 1;
					parent[m] = i ? keep[nodes[i].parent] - 1 : 0;
					module[m] = nodes[i].module;
					offset[m] = nodes[i].offset;
					for (size_t e = 0; e < n_ev; e++)
						counts[m * n_ev + e] = (long)(i % (size_t)files) == f
							? counts[i * n_ev + e] : 0;
					m++;
				}
				p.cct.n_nodes = m;
			}
			if ((err = prof_write(&p, dfd, name, 0644)))
				die("prof_write: %s", strerror(-err));
			if (disjoint)	/* restore the whole tree for the next file */
				tree_arrays(parent, module, offset, counts, n_ev);
		}
		free(keep);
		close(dfd);
	} else {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", out);
		char *sl = strrchr(dir, '/');
		const char *name = out;
		if (sl) {
			*sl = 0;
			name = sl + 1;
		}
		int dfd = open(sl ? (dir[0] ? dir : "/") : ".", O_RDONLY | O_DIRECTORY);
		if (dfd < 0 || (err = prof_write(&p, dfd, name, 0644)))
			die("cannot write %s", out);
		close(dfd);
	}
	return 0;
}
