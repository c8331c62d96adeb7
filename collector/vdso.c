/* The vdso's bytes for a profile: it exists only in the process's memory
 * and differs between kernels, so the analyzer (perhaps on another
 * machine) gets it from the profile.  Kept apart from the flush code: one
 * call at flush time, nothing in the sampling path. */
#include "config.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "collector/loadmap.h"

size_t loadmap_vdso_image(const struct prof_module *mods, size_t n, struct prof_image *out)
{
	uintptr_t at = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)at;
	size_t page = 4096, len;

	if (!at)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct prof_module *m = &mods[i];

		if (m->start != at || m->unload_seq || m->end <= m->start)
			continue;
		/* The kernel maps the whole image, in pages; the section
		 * headers (which the analyzer reads the symbols through)
		 * come last, past the loaded segment's end. */
		len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
		if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
		    len > ((m->end - m->start + page - 1) & ~(page - 1)) || len > PROF_MAX_IMAGE)
			return 0;
		*out = (struct prof_image){ .module = (uint32_t)i, .len = (uint32_t)len,
					    .data = (const uint8_t *)at };
		return 1;
	}
	return 0;
}
