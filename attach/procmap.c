/* A process's load map from outside: its executable mappings from
 * /proc/PID/maps when it is first seen, then the kernel's MMAP2 records
 * (with build-ids) for what it maps later.  Each mapping's load bias
 * comes from the file's program headers, read through /proc/PID/root (the
 * process's own view of the file system: a container's files too), so
 * that offsets are the ELF virtual addresses the analyzer symbolizes. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "attach/internal.h"
#include "collector/kernel.h"

#define VDSO_PATH "[vdso]"
/* The name the dynamic loader gives it, which launched runs record: the
 * same module in both, so diff matches their functions. */
#define VDSO_NAME "linux-vdso.so.1"

/* Our own vdso: the kernel maps the same image into every process of
 * this ABI, so its bytes (for the profile) and build-id are the target's. */
static struct {
	bool done;
	_Alignas(8) uint8_t img[64 << 10];
	size_t len;
	uint8_t id[64];
	uint32_t id_len;
} vdso;

static uint32_t notes_build_id(const uint8_t *p, size_t n, uint8_t *out)
{
	const uint8_t *end = p + n;

	while (p + sizeof(Elf64_Nhdr) <= end) {
		Elf64_Nhdr nh;	/* copied: notes read into a byte buffer may be unaligned */
		size_t name_sz, desc_sz;
		const uint8_t *name, *desc;

		memcpy(&nh, p, sizeof(nh));
		name_sz = (nh.n_namesz + 3) & ~3u;
		desc_sz = (nh.n_descsz + 3) & ~3u;
		name = p + sizeof(nh);
		desc = name + name_sz;
		if (name_sz > (size_t)(end - name) || desc_sz > (size_t)(end - desc))
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(name, "GNU", 4) &&
		    nh.n_descsz <= 64) {
			memcpy(out, desc, nh.n_descsz);
			return nh.n_descsz;
		}
		p = desc + desc_sz;
	}
	return 0;
}

static void vdso_init(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t len;

	vdso.done = true;
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return;
	len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (len > sizeof(vdso.img) || len > 16384)
		return;
	memcpy(vdso.img, eh, len);
	vdso.len = len;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)((const uint8_t *)eh + eh->e_phoff) + i;

		if (ph->p_type == PT_NOTE && ph->p_offset + ph->p_filesz <= len)
			vdso.id_len = notes_build_id(vdso.img + ph->p_offset, ph->p_filesz, vdso.id);
	}
}

const uint8_t *procmap_vdso_image(size_t *len)
{
	if (!vdso.done)
		vdso_init();
	*len = vdso.len;
	return vdso.len ? vdso.img : NULL;
}

/* The file of a mapping as the process sees it. */
static int open_mapped(pid_t pid, const char *path)
{
	char p[4200];
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, path);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd;
}

/* An ELF file's loadable segments and build-id, read once per file: a
 * -a run sees the same libc in hundreds of processes.  Keyed by path and
 * inode (from /proc/PID/maps) or path and build-id (MMAP2 records, fork
 * copies); freed by procmap_cache_free (att_close). */
struct elf_info {
	char *path;
	uint64_t ino;
	uint8_t id[64];
	uint32_t id_len;
	int n;
	struct { uint64_t vaddr, off, filesz; } load[16];
	struct elf_info *next;
};
static struct elf_info *elf_cache;

static struct elf_info *elf_read(pid_t pid, const char *path, uint64_t ino)
{
	struct elf_info *e = calloc(1, sizeof(*e));
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	int fd = open_mapped(pid, path);
	size_t nph;

	if (!e || fd < 0 || !(e->path = strdup(path)))
		goto fail;
	e->ino = ino;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		goto fail;
	nph = eh.e_phnum < 64 ? eh.e_phnum : 64;
	if (pread(fd, ph, nph * sizeof(ph[0]), (off_t)eh.e_phoff) != (ssize_t)(nph * sizeof(ph[0])))
		goto fail;
	for (size_t i = 0; i < nph; i++) {
		uint8_t notes[1024];
		size_t n = ph[i].p_filesz < sizeof(notes) ? ph[i].p_filesz : sizeof(notes);

		if (ph[i].p_type == PT_LOAD && e->n < 16) {
			e->load[e->n].vaddr = ph[i].p_vaddr;
			e->load[e->n].off = ph[i].p_offset;
			e->load[e->n].filesz = ph[i].p_filesz;
			e->n++;
		} else if (ph[i].p_type == PT_NOTE && !e->id_len &&
			   pread(fd, notes, n, (off_t)ph[i].p_offset) == (ssize_t)n) {
			e->id_len = notes_build_id(notes, n, e->id);
		}
	}
	close(fd);
	e->next = elf_cache;
	elf_cache = e;
	return e;
fail:
	if (fd >= 0)
		close(fd);
	if (e)
		free(e->path);
	free(e);
	return NULL;
}

static struct elf_info *elf_get(pid_t pid, const char *path, uint64_t ino, const uint8_t *bid,
				uint32_t bid_len)
{
	for (struct elf_info *e = elf_cache; e; e = e->next) {
		if (strcmp(e->path, path))
			continue;
		if ((ino && e->ino == ino) ||
		    (bid_len && e->id_len == bid_len && !memcmp(e->id, bid, bid_len)))
			return e;
	}
	return elf_read(pid, path, ino);
}

/* bias and build-id of the file mapped at start from file offset pgoff:
 * the PT_LOAD that holds pgoff gives the virtual address start stands for. */
static int elf_facts(pid_t pid, const char *path, uint64_t ino, uint64_t start, uint64_t pgoff,
		     uint64_t *bias, uint8_t *bid, uint32_t *bid_len)
{
	struct elf_info *e = elf_get(pid, path, ino, bid, *bid_len);

	if (!e)
		return -ENOEXEC;
	if (!*bid_len && e->id_len) {
		memcpy(bid, e->id, e->id_len);
		*bid_len = e->id_len;
	}
	for (int i = 0; i < e->n; i++) {
		uint64_t off0 = e->load[i].off & ~(uint64_t)4095;

		if (pgoff < off0 || pgoff >= e->load[i].off + e->load[i].filesz)
			continue;
		*bias = start - (e->load[i].vaddr + pgoff - e->load[i].off);
		return 0;
	}
	return -ENOEXEC;
}

static struct att_mod *mod_new(struct att_proc *p)
{
	if (prof_array_grow(&p->mods, &p->cap_mods, p->n_mods, sizeof(*p->mods)))
		return NULL;
	memset(&p->mods[p->n_mods], 0, sizeof(p->mods[0]));
	return &p->mods[p->n_mods++];
}

static void add_kernel(struct att_session *s, struct att_proc *p)
{
	struct att_mod *m;

	if (!s->kern.on || !(m = mod_new(p)))
		return;
	m->path = strdup(KERN_MODULE_PATH);
	m->start = KERN_START;
	m->end = KERN_END;
	m->bias = KERN_START;
	memcpy(m->build_id, s->kern.build_id, s->kern.build_id_len);
	m->build_id_len = s->kern.build_id_len;
	m->load_seq = 0;
}

void procmap_add(struct att_session *s, struct att_proc *p, const char *path, uint64_t start,
		 uint64_t len, uint64_t pgoff, const uint8_t *bid, uint32_t bid_len)
{
	procmap_add_ino(s, p, path, 0, start, len, pgoff, bid, bid_len);
}

void procmap_add_ino(struct att_session *s, struct att_proc *p, const char *path, uint64_t ino,
		     uint64_t start, uint64_t len, uint64_t pgoff, const uint8_t *bid,
		     uint32_t bid_len)
{
	uint64_t bias = start - pgoff;
	uint8_t id[64];
	uint32_t id_len = 0;
	struct att_mod *m;
	bool vd = !strcmp(path, VDSO_PATH) || !strcmp(path, VDSO_NAME);

	if (!p->n_mods)
		add_kernel(s, p);
	if (!vd && path[0] != '/')
		return;		/* anonymous, [stack], [vsyscall]: JIT code at most */
	if (bid && bid_len && bid_len <= 64) {
		memcpy(id, bid, bid_len);
		id_len = bid_len;
	}
	if (vd) {
		procmap_vdso_image(&(size_t){ 0 });
		bias = start;
		memcpy(id, vdso.id, vdso.id_len);
		id_len = vdso.id_len;
	} else if (elf_facts(p->pid, path, ino, start, pgoff, &bias, id, &id_len) < 0) {
		bias = start - pgoff;	/* not an ELF file we can read: raw offsets */
	}
	/* Another segment of a module we have: widen it. */
	for (size_t i = 0; i < p->n_mods; i++) {
		m = &p->mods[i];
		if (m->unload_seq || m->bias != bias || strcmp(m->path, vd ? VDSO_NAME : path))
			continue;
		if (start < m->start)
			m->start = start;
		if (start + len > m->end)
			m->end = start + len;
		return;
	}
	/* Whatever lay there before is gone. */
	for (size_t i = 0; i < p->n_mods; i++) {
		m = &p->mods[i];
		if (!m->unload_seq && m->start < start + len && start < m->end && m->bias != KERN_START)
			m->unload_seq = p->seq + 1;
	}
	if (!(m = mod_new(p)))
		return;
	m->path = strdup(vd ? VDSO_NAME : path);
	if (!m->path) {
		p->n_mods--;
		return;
	}
	m->start = start;
	m->end = start + len;
	m->bias = bias;
	m->pgoff = pgoff;
	memcpy(m->build_id, id, id_len);
	m->build_id_len = id_len;
	m->load_seq = ++p->seq;
}

int procmap_read(struct att_session *s, struct att_proc *p)
{
	char path[64], line[4352];
	FILE *f;

	p->maps_read = true;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if (!(f = fopen(path, "re"))) {
		if (!p->n_mods)
			add_kernel(s, p);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		char perms[8];
		int name = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &lo, &hi, perms, &off, &ino,
			   &name) < 5 || !name || perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* " (deleted)": the file was replaced; its build-id still tells */
		procmap_add_ino(s, p, line + name, ino, lo, hi - lo, off, NULL, 0);
	}
	fclose(f);
	if (!p->n_mods)
		add_kernel(s, p);
	return 0;
}

bool procmap_lookup(const struct att_proc *p, uint64_t pc, uint32_t *mod, uint64_t *off)
{
	/* The latest module holding pc (a later one replaced an earlier). */
	for (size_t i = p->n_mods; i-- > 0;) {
		const struct att_mod *m = &p->mods[i];

		if (m->unload_seq || pc < m->start || pc >= m->end)
			continue;
		*mod = (uint32_t)i;
		*off = pc - m->bias;
		return true;
	}
	return false;
}

void procmap_exec(struct att_proc *p)
{
	p->seq++;
	for (size_t i = 0; i < p->n_mods; i++)
		if (!p->mods[i].unload_seq && p->mods[i].bias != KERN_START)
			p->mods[i].unload_seq = p->seq;
	p->generation++;
}

void procmap_free(struct att_proc *p)
{
	for (size_t i = 0; i < p->n_mods; i++)
		free(p->mods[i].path);
	free(p->mods);
	p->mods = NULL;
	p->n_mods = p->cap_mods = 0;
}

void procmap_cache_free(void)
{
	for (struct elf_info *e = elf_cache, *n; e; e = n) {
		n = e->next;
		free(e->path);
		free(e);
	}
	elf_cache = NULL;
}
