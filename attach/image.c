/* The code side of another process for the unwinder (unwinder/unwind.h's
 * struct uw_image): its modules' files, mapped read-only here as the
 * process sees them (/proc/PID/root/PATH, else /proc/PID/map_files/, else
 * PATH), each target address translated through the file's PT_LOAD
 * segments and the module's load bias.  The target's memory is never
 * read: .eh_frame_hdr and .eh_frame come from the file, the stack from the
 * kernel's copy.  Files are shared between processes by path and
 * build-id (every process of a -a run maps the same libc). */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach/internal.h"
#include "collector/kernel.h"
#include "unwinder/unwind.h"

#define MAX_LOADS 16
#define MAX_FILE (1ull << 32)

struct att_file {
	char *path;
	uint8_t build_id[64];
	uint32_t build_id_len;
	const uint8_t *base;		/* the whole file, or NULL when it could not be read */
	size_t size;
	bool own_map;			/* base is our mmap (not the vdso copy) */
	struct { uint64_t vaddr, memsz, off, filesz; } load[MAX_LOADS];
	int n_loads;
	uint64_t eh_hdr;		/* PT_GNU_EH_FRAME's vaddr, 0 if none */
	struct att_file *next;
};

static int open_as_seen(const struct att_proc *p, const struct att_mod *m)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->pid, m->path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)p->pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	return open(m->path, O_RDONLY | O_CLOEXEC);
}

/* The segments and .eh_frame_hdr of an ELF image in memory. */
static void parse(struct att_file *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->base;

	if (f->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > f->size || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > f->size - eh->e_phoff)
		return;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(f->base + eh->e_phoff) + i;

		if (ph->p_type == PT_GNU_EH_FRAME)
			f->eh_hdr = ph->p_vaddr;
		if (ph->p_type != PT_LOAD || f->n_loads == MAX_LOADS || ph->p_offset > f->size)
			continue;
		f->load[f->n_loads].vaddr = ph->p_vaddr;
		f->load[f->n_loads].memsz = ph->p_memsz;
		f->load[f->n_loads].off = ph->p_offset;
		f->load[f->n_loads].filesz = ph->p_filesz < f->size - ph->p_offset
						     ? ph->p_filesz : f->size - ph->p_offset;
		f->n_loads++;
	}
}

static struct att_file *file_of(struct att_session *s, const struct att_proc *p, struct att_mod *m)
{
	struct att_file *f;
	struct stat st;
	int fd;

	if (m->file || m->file_tried)
		return m->file;
	m->file_tried = true;
	for (f = s->files; f; f = f->next)
		if (!strcmp(f->path, m->path) && f->build_id_len == m->build_id_len &&
		    !memcmp(f->build_id, m->build_id, m->build_id_len) && m->build_id_len)
			return m->file = f;
	if (!(f = calloc(1, sizeof(*f))) || !(f->path = strdup(m->path))) {
		free(f);
		return NULL;
	}
	memcpy(f->build_id, m->build_id, m->build_id_len);
	f->build_id_len = m->build_id_len;
	if (!strcmp(m->path, "linux-vdso.so.1")) {
		f->base = procmap_vdso_image(&f->size);
	} else if ((fd = open_as_seen(p, m)) >= 0) {
		if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size < MAX_FILE) {
			void *b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (b != MAP_FAILED) {
				f->base = b;
				f->size = (size_t)st.st_size;
				f->own_map = true;
			}
		}
		close(fd);
	}
	if (f->base)
		parse(f);
	f->next = s->files;
	s->files = f;
	return m->file = f;
}

struct img_arg {
	struct att_session *s;
	struct att_proc *p;
	struct att_mod *last;		/* the module of the last map() hit */
};

static int img_find(void *arg, uint64_t pc, uint64_t *eh_hdr, uint64_t *lo, uint64_t *hi)
{
	struct img_arg *a = arg;
	uint32_t i;
	uint64_t off;
	struct att_file *f;

	if (!procmap_lookup(a->p, pc, &i, &off) || a->p->mods[i].bias == KERN_START)
		return -1;
	f = file_of(a->s, a->p, &a->p->mods[i]);
	*eh_hdr = f && f->eh_hdr ? a->p->mods[i].bias + f->eh_hdr : 0;
	*lo = a->p->mods[i].start;
	*hi = a->p->mods[i].end;
	return 0;
}

/* addr in module m's file, as a pointer here. */
static const void *in_module(struct att_session *s, struct att_proc *p, struct att_mod *m,
			     uint64_t addr, size_t *len)
{
	struct att_file *f = file_of(s, p, m);
	uint64_t va = addr - m->bias;

	if (!f || !f->base)
		return NULL;
	for (int k = 0; k < f->n_loads; k++) {
		if (va < f->load[k].vaddr || va - f->load[k].vaddr >= f->load[k].filesz)
			continue;
		*len = (size_t)(f->load[k].filesz - (va - f->load[k].vaddr));
		return f->base + f->load[k].off + (va - f->load[k].vaddr);
	}
	return NULL;
}

static const void *img_map(void *arg, uint64_t addr, size_t *len)
{
	struct img_arg *a = arg;
	const void *r;

	if (a->last && (r = in_module(a->s, a->p, a->last, addr, len)))
		return r;
	for (size_t i = 0; i < a->p->n_mods; i++) {
		struct att_mod *m = &a->p->mods[i];

		if (m->unload_seq || m->bias == KERN_START || m == a->last)
			continue;
		if ((r = in_module(a->s, a->p, m, addr, len))) {
			a->last = m;
			return r;
		}
	}
	return NULL;
}

static const struct uw_image_ops ops = { .find = img_find, .map = img_map };

int stack_unwind(struct att_session *s, struct att_proc *p, const uint64_t *regs,
		 uint64_t regs_mask, const uint8_t *stack, uint64_t stack_len, uint64_t *pcs,
		 int max, unsigned *flags)
{
	struct img_arg a = { s, p, NULL };
	struct uw_image img = { &ops, &a };
	struct uw_regs r;
	struct uw_stack_copy c;
	uintptr_t out[ATT_MAX_DEPTH];
	int n;

	uw_regs_from_perf(&r, regs, regs_mask);
	c = (struct uw_stack_copy){ .start = r.r[UW_REG_RSP], .data = stack, .size = stack_len };
	n = uw_unwind_copy(&r, &c, &img, out, max < ATT_MAX_DEPTH ? max : ATT_MAX_DEPTH, flags);
	for (int i = 0; i < n; i++)
		pcs[i] = out[i];
	return n;
}

void image_free_all(struct att_session *s)
{
	for (struct att_file *f = s->files, *n; f; f = n) {
		n = f->next;
		if (f->own_map)
			munmap((void *)f->base, f->size);
		free(f->path);
		free(f);
	}
	s->files = NULL;
}
