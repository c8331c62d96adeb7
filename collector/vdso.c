/* The vdso's bytes for a profile: it exists only in the process's memory
 * and differs between kernels, so the analyzer (perhaps on another
 * machine) gets it from the profile.  A copy is taken once at startup,
 * outside any handler, while the vdso is certainly mapped (a program may
 * unmap or protect it later, and a flush from a fatal-signal handler must
 * not fault on it); flushes only point the profile at the copy.  Kept
 * apart from the flush code: nothing here runs in the sampling path. */
#include "config.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>

#include "collector/loadmap.h"

/* A vdso is about 8 KiB; a larger one is not copied (its samples stay
 * unresolved). */
static uint8_t copy[64 << 10];
static size_t copy_len;
static uintptr_t copy_at;

void loadmap_vdso_save(void)
{
	uintptr_t at = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)at;
	const ElfW(Phdr) *ph;
	size_t mapped = 0, len, page = 4096;

	if (!at || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_phentsize != sizeof(*ph))
		return;
	/* The kernel maps the whole image, in pages; the section headers
	 * (the analyzer reads the symbols through them) come last, past the
	 * loaded segment's end. */
	ph = (const ElfW(Phdr) *)(at + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > mapped)
			mapped = ph[i].p_offset + ph[i].p_filesz;
	mapped = (mapped + page - 1) & ~(page - 1);
	len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (len > mapped || len > sizeof(copy))
		return;
	memcpy(copy, eh, len);
	copy_len = len;
	copy_at = at;
}

size_t loadmap_vdso_image(const struct prof_module *mods, size_t n, struct prof_image *out)
{
	for (size_t i = 0; copy_len && i < n; i++) {
		if (mods[i].start != copy_at || mods[i].unload_seq)
			continue;
		*out = (struct prof_image){ .module = (uint32_t)i, .len = (uint32_t)copy_len,
					    .data = copy };
		return 1;
	}
	return 0;
}
