/* The launcher's look at the program: PATH search, #! and the ELF
 * program headers (no PT_INTERP: static; static-pie included). */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/exe.h"

int exe_resolve(const char *cmd, char *path, size_t len)
{
	const char *p = getenv("PATH");
	int err = -ENOENT;

	if (strchr(cmd, '/')) {
		if (strlen(cmd) >= len)
			return -ENAMETOOLONG;
		strcpy(path, cmd);
		return access(path, X_OK) == 0 ? 0 : -errno;
	}
	if (!*cmd)
		return -ENOENT;
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *e = strchr(p, ':');
		size_t dl = e ? (size_t)(e - p) : strlen(p);
		struct stat st;

		/* An empty element means the current directory. */
		if (snprintf(path, len, "%.*s%s%s", (int)dl, dl ? p : ".", "/", cmd) < (int)len &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return 0;
			err = -EACCES;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return err;
}

/* The interpreter named by a "#!" line, or "" if path is no script. */
static int script_interp(int fd, char *interp, size_t len)
{
	char line[256];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	char *s, *e;

	interp[0] = '\0';
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	for (s = line + 2; *s == ' ' || *s == '\t'; s++)
		;
	for (e = s; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
		;
	if (e == s || (size_t)(e - s) >= len)
		return -ENOEXEC;
	memcpy(interp, s, (size_t)(e - s));
	interp[e - s] = '\0';
	return 0;
}

static int check_elf(int fd, const char *path, char *why, size_t len)
{
	Elf64_Ehdr eh;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return 0;	/* not ELF: the shell runs it, and is profiled */
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		snprintf(why, len, "%s is not a 64-bit ELF program like the collector", path);
		return -ENOEXEC;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	snprintf(why, len,
		 "%s is statically linked (no PT_INTERP): no dynamic loader will preload the "
		 "collector into it; link it dynamically to profile it",
		 path);
	return -ENOEXEC;
}

static int check_one(const char *path, char *why, size_t len, int depth)
{
	char interp[PATH_MAX];
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID))) {
		snprintf(why, len,
			 "%s is set-%s-ID: the dynamic loader ignores LD_PRELOAD for it, so it "
			 "cannot be profiled",
			 path, st.st_mode & S_ISUID ? "user" : "group");
		close(fd);
		return -EPERM;
	}
	ret = script_interp(fd, interp, sizeof(interp));
	if (ret == 0 && interp[0]) {
		close(fd);
		/* The kernel follows one level of #!; so do we. */
		return depth ? 0 : check_one(interp, why, len, depth + 1);
	}
	ret = check_elf(fd, path, why, len);
	close(fd);
	return ret;
}

int exe_check(const char *path, char *why, size_t len)
{
	why[0] = '\0';
	return check_one(path, why, len, 0);
}

/* The file offset of virtual address va, from the PT_LOAD holding it. */
static off_t va_to_off(const Elf64_Phdr *ph, unsigned n, uint64_t va)
{
	for (unsigned i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
		    va < ph[i].p_vaddr + ph[i].p_filesz)
			return (off_t)(va - ph[i].p_vaddr + ph[i].p_offset);
	return -1;
}

static bool is_asan_name(const char *n)
{
	return strncmp(n, "libasan.so", 10) == 0 || strncmp(n, "libclang_rt.asan", 16) == 0;
}

int exe_asan_runtime(const char *path, char *soname, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	Elf64_Dyn dyn[512];
	uint64_t strtab = 0;
	ssize_t nd = 0;
	off_t str;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	soname[0] = '\0';
	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phnum > 64 ||
	    pread(fd, ph, eh.e_phnum * sizeof(ph[0]), (off_t)eh.e_phoff) !=
		    (ssize_t)(eh.e_phnum * sizeof(ph[0])))
		goto out;	/* not an ELF program we read: nothing to add */
	for (unsigned i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			nd = pread(fd, dyn, ph[i].p_filesz < sizeof(dyn) ? ph[i].p_filesz : sizeof(dyn),
				   (off_t)ph[i].p_offset) / (ssize_t)sizeof(dyn[0]);
	for (ssize_t i = 0; i < nd && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
	str = va_to_off(ph, eh.e_phnum, strtab);
	for (ssize_t i = 0; str >= 0 && i < nd && dyn[i].d_tag != DT_NULL; i++) {
		char name[128];
		ssize_t n;

		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		n = pread(fd, name, sizeof(name) - 1, str + (off_t)dyn[i].d_un.d_val);
		if (n <= 0)
			continue;
		name[n] = '\0';
		if (is_asan_name(name) && strlen(name) < len) {
			strcpy(soname, name);
			break;
		}
	}
out:
	close(fd);
	return ret;
}
