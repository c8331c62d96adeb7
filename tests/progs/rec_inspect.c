/* rec_inspect: what the record tests need to know about a profile, on
 * stdout, one fact per line.  Symbols come from each module's ELF symbol
 * table (libelf), independently of the analyzer.
 *
 *   rec_inspect meta FILE KEY        the metadata value (exit 1 if absent)
 *   rec_inspect counter FILE NAME    a collector counter
 *   rec_inspect partial FILE         1 or 0
 *   rec_inspect weight FILE IDX      event IDX's period sum
 *   rec_inspect modules FILE         "path load_seq unload_seq" per module
 *   rec_inspect stacks FILE          "mod:func;...;mod:func COUNT" per node
 *                                    with samples, root first (event 0)
 *   rec_inspect funcs FILE           "COUNT mod:func" per node with samples
 *                                    (its own, exclusive count; event 0)
 *   rec_inspect drop FILE NAME OUT   write FILE again as OUT (a name in the
 *                                    current directory) without counter
 *                                    NAME: a profile from an older collector
 * Exit status 2: the file does not read. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"

struct sym {
	uint64_t lo, hi;
	const char *name;
};

struct symtab {
	bool loaded;
	struct sym *s;
	size_t n;
};

static const struct prof *p;
static struct symtab *tabs;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void load_syms(struct symtab *t, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL, *use = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	t->loaded = true;
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return;
	/* The full symbol table if there is one, else the dynamic one. */
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !use))
			use = scn;
	}
	if (!use || !gelf_getshdr(use, &sh))
		return;
	Elf_Data *d = elf_getdata(use, NULL);
	for (size_t i = 0; d && i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    !s.st_value)
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name)
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 256;
			t->s = realloc(t->s, cap * sizeof(*t->s));
		}
		t->s[t->n++] = (struct sym){ s.st_value, s.st_value + (s.st_size ? s.st_size : 1),
					     strdup(name) };
	}
	qsort(t->s, t->n, sizeof(*t->s), cmp_sym);
	/* libelf keeps e and fd for elf_strptr; the process is short-lived. */
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "module:function" or "module+0xOFF" for node n, into buf. */
static const char *frame_name(uint32_t n, char *buf, size_t len)
{
	uint32_t m = p->cct.module[n];
	uint64_t off = p->cct.offset[n];
	struct symtab *t;

	if (m == PROF_NO_MODULE || m >= p->n_modules) {
		snprintf(buf, len, "?0x%llx", (unsigned long long)off);
		return buf;
	}
	t = &tabs[m];
	if (!t->loaded)
		load_syms(t, p->modules[m].path);
	for (size_t i = 0; i < t->n; i++) {
		if (off >= t->s[i].lo && off < t->s[i].hi) {
			snprintf(buf, len, "%s:%s", base(p->modules[m].path), t->s[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "%s+0x%llx", base(p->modules[m].path), (unsigned long long)off);
	return buf;
}

static void print_stack(uint32_t n)
{
	char buf[512];

	if (n == 0)
		return;
	print_stack(p->cct.parent[n]);
	if (p->cct.parent[n] != 0)
		putchar(';');
	fputs(frame_name(n, buf, sizeof(buf)), stdout);
}

static uint64_t count0(uint32_t n)
{
	return p->cct.n_events ? p->cct.counts[(size_t)n * p->cct.n_events] : 0;
}

int main(int argc, char **argv)
{
	struct prof_file *f;
	char msg[256];

	if (argc < 3) {
		fprintf(stderr, "usage: rec_inspect "
				"meta|counter|counters|partial|weight|modules|stacks|funcs|drop FILE [ARG...]\n");
		return 2;
	}
	if (prof_file_read(argv[2], &f, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "rec_inspect: %s: %s\n", argv[2], msg);
		return 2;
	}
	p = prof_file_data(f);
	tabs = calloc(p->n_modules + 1, sizeof(*tabs));
	if (!strcmp(argv[1], "meta") && argc > 3) {
		const char *v = prof_meta_get(p, argv[3]);

		if (!v)
			return 1;
		puts(v);
	} else if (!strcmp(argv[1], "counter") && argc > 3) {
		for (size_t i = 0; i < p->n_counters; i++) {
			if (!strcmp(p->counters[i].name, argv[3])) {
				printf("%llu\n", (unsigned long long)p->counters[i].value);
				return 0;
			}
		}
		return 1;
	} else if (!strcmp(argv[1], "drop") && argc > 4) {
		struct prof q = *p;
		struct prof_counter *c = calloc(p->n_counters + 1, sizeof(*c));
		int ret;

		q.n_counters = 0;
		for (size_t i = 0; i < p->n_counters; i++)
			if (strcmp(p->counters[i].name, argv[3]))
				c[q.n_counters++] = p->counters[i];
		if (q.n_counters == p->n_counters)
			return 1;
		q.counters = c;
		/* An older collector's profile has no timeline either (and the
		 * writer takes a timeline as records, not the reader's arrays). */
		q.timeline = (struct prof_timeline){ 0 };
		ret = prof_write(&q, AT_FDCWD, argv[4], 0644);
		if (ret < 0) {
			fprintf(stderr, "rec_inspect: %s: %s\n", argv[4], strerror(-ret));
			return 2;
		}
	} else if (!strcmp(argv[1], "counters")) {
		for (size_t i = 0; i < p->n_counters; i++)
			printf("%s=%llu\n", p->counters[i].name,
			       (unsigned long long)p->counters[i].value);
	} else if (!strcmp(argv[1], "partial")) {
		printf("%d\n", p->partial ? 1 : 0);
	} else if (!strcmp(argv[1], "weight") && argc > 3) {
		size_t i = (size_t)atoi(argv[3]);

		if (i >= p->n_events)
			return 1;
		printf("%llu\n", (unsigned long long)p->events[i].weight);
	} else if (!strcmp(argv[1], "modules")) {
		for (size_t i = 0; i < p->n_modules; i++)
			printf("%s %u %u\n", p->modules[i].path, p->modules[i].load_seq,
			       p->modules[i].unload_seq);
	} else if (!strcmp(argv[1], "stacks")) {
		for (uint32_t n = 1; n < p->cct.n_nodes; n++) {
			if (!count0(n))
				continue;
			print_stack(n);
			printf(" %llu\n", (unsigned long long)count0(n));
		}
	} else if (!strcmp(argv[1], "funcs")) {
		for (uint32_t n = 1; n < p->cct.n_nodes; n++) {
			char buf[512];

			if (count0(n))
				printf("%llu %s\n", (unsigned long long)count0(n),
				       frame_name(n, buf, sizeof(buf)));
		}
	} else {
		fprintf(stderr, "rec_inspect: unknown command %s\n", argv[1]);
		return 2;
	}
	prof_file_free(f);
	return 0;
}
