/* A persistent cache of symbolized addresses, one file per build-id
 * (CACHE/<build-id>.sym, or .elfsym for a module without debug info to be
 * found), so that reports of the same binaries need not
 * open their DWARF again (decompressing a -dbg package's debug info costs
 * more than the whole rest of a report).  Build-ids name immutable
 * contents, so entries never go stale.  Every answer is kept, those from
 * an ELF symbol table alone and "nothing here" (0 frames) too, so a warm
 * report opens no module at all.  The file is read as untrusted text:
 * anything malformed discards the whole cache (and so does another
 * version: version 2 added the linkage name each row is keyed by).
 *
 *   pmcprof-symbols 2
 *   A <hex address> <frames>
 *   F <line> <decl line> <key>\t<function>\t<file>\t<decl file>     (innermost first)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "analyzer/internal.h"

#define MAX_CACHE_BYTES (256u << 20)
#define MAX_FRAMES 64

struct centry {
	uint64_t off;
	uint32_t first, n;
};

struct symcache {
	char name[160];			/* <build-id hex>.sym */
	struct centry *e;
	size_t n, cap;
	struct sym_frame *fr;
	size_t n_fr, cap_fr;
	struct idx idx;
	bool dirty;
};

static bool ent_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct symcache *c = ctx;
	return c->e[id].off == *(const uint64_t *)key;
}

struct symcache *symcache_new(const uint8_t *bid, size_t n, const char *kind)
{
	if (!bid || !n || n > 64)
		return NULL;
	struct symcache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++)
		sprintf(c->name + 2 * i, "%02x", bid[i]);
	strcat(c->name, ".");
	strncat(c->name, kind, 8);
	return c;
}

void symcache_free(struct symcache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->fr);
	idx_free(&c->idx);
	free(c);
}

int symcache_put(struct symcache *c, uint64_t off, const struct sym_frame *fr, size_t n)
{
	uint64_t h = hash_u64(off, 13);
	if (idx_find(&c->idx, h, ent_eq, c, &off) != NONE)
		return 0;
	/* a name with a tab or newline cannot be stored: do not cache it */
	for (size_t i = 0; i < n; i++) {
		const char *s[4] = { fr[i].key, fr[i].func, fr[i].file, fr[i].decl_file };
		for (int k = 0; k < 4; k++)
			if (s[k] && s[k][strcspn(s[k], "\t\n")])
				return 0;
		if (!fr[i].func || !fr[i].func[0] || !fr[i].key || !fr[i].key[0])
			return 0;
	}
	if (vec_reserve(&c->e, &c->cap, c->n + 1, sizeof(*c->e)) ||
	    vec_reserve(&c->fr, &c->cap_fr, c->n_fr + n, sizeof(*c->fr)) ||
	    idx_put(&c->idx, h, (uint32_t)c->n))
		return -ENOMEM;
	c->e[c->n++] = (struct centry){ off, (uint32_t)c->n_fr, (uint32_t)n };
	memcpy(&c->fr[c->n_fr], fr, n * sizeof(*fr));
	c->n_fr += n;
	c->dirty = true;
	return 0;
}

bool symcache_get(const struct symcache *c, uint64_t off, struct sym_frame *fr, size_t max, size_t *n)
{
	uint32_t id = idx_find(&c->idx, hash_u64(off, 13), ent_eq, c, &off);
	if (id == NONE)
		return false;
	*n = c->e[id].n < max ? c->e[id].n : max;
	memcpy(fr, &c->fr[c->e[id].first], *n * sizeof(*fr));
	return true;
}

static const char *field(struct strpool *pool, char *s)
{
	return *s ? strpool_str(pool, s) : NULL;
}

/* An unsigned number at *p in base 16 or 10, then one space or the end
 * (end: the number must end the line); advances *p past the space.  No
 * sscanf: the cache of a big binary has a hundred thousand lines. */
static bool num(char **p, int base, bool end, unsigned long long max, unsigned long long *v)
{
	char *s = *p, *e;
	if (!((*s >= '0' && *s <= '9') || (base == 16 && ((*s >= 'a' && *s <= 'f') ||
							   (*s >= 'A' && *s <= 'F')))))
		return false;
	errno = 0;
	*v = strtoull(s, &e, base);
	if (errno || *v > max || (end ? *e != 0 : *e != ' '))
		return false;
	*p = end ? e : e + 1;
	return true;
}

/* Parse buf (NUL-terminated) into c; false if anything is off. */
static bool parse(struct symcache *c, char *buf, struct strpool *pool)
{
	char *save, *line = strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, "pmcprof-symbols 2"))
		return false;
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned long long off, n;
		char *q = line + 2;
		if (line[0] != 'A' || line[1] != ' ' || !num(&q, 16, false, UINT64_MAX, &off) ||
		    !num(&q, 10, true, MAX_FRAMES, &n))
			return false;
		struct sym_frame fr[MAX_FRAMES];
		for (unsigned i = 0; i < n; i++) {
			unsigned long long ln, dl;
			char *k;
			if (!(line = strtok_r(NULL, "\n", &save)) || line[0] != 'F' || line[1] != ' ' ||
			    !(k = line + 2, num(&k, 10, false, UINT32_MAX, &ln)) ||
			    !num(&k, 10, false, UINT32_MAX, &dl))
				return false;
			char *t0 = strchr(k, '\t');
			char *f = t0 ? t0 + 1 : NULL, *t1 = f ? strchr(f, '\t') : NULL;
			char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
			if (!t2 || strchr(t2 + 1, '\t') || t0 == k || t1 == f)
				return false;
			*t0 = *t1 = *t2 = 0;
			fr[i] = (struct sym_frame){ field(pool, k), field(pool, f), field(pool, t1 + 1),
						    (unsigned)ln, field(pool, t2 + 1), (unsigned)dl };
			if (!fr[i].func || !fr[i].key)
				return false;
		}
		if (symcache_put(c, off, fr, n))
			return false;
	}
	c->dirty = false;
	return true;
}

struct symcache *symcache_open(const char *dir, const uint8_t *bid, size_t n, const char *kind,
			       struct strpool *pool)
{
	struct symcache *c = symcache_new(bid, n, kind);
	if (!c)
		return NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, c->name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat sb;
	char *buf = NULL;
	bool ok = fd >= 0 && !fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
		  (size_t)sb.st_size < MAX_CACHE_BYTES && (buf = malloc((size_t)sb.st_size + 1));
	if (ok) {
		size_t got = 0;
		while (got < (size_t)sb.st_size) {
			ssize_t k = read(fd, buf + got, (size_t)sb.st_size - got);
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		buf[got] = 0;
		ok = got == (size_t)sb.st_size && !memchr(buf, 0, got) && parse(c, buf, pool);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	if (!ok) {
		symcache_free(c);
		return NULL;
	}
	return c;
}

int symcache_mkdirs(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0700) && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	return mkdir(p, 0700) && errno != EEXIST ? -errno : 0;
}

int symcache_write(const char *dir, const char *name, const struct iovec *iov, int n)
{
	int e = symcache_mkdirs(dir);
	if (e)
		return e;
	char tmp[4200], path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (int i = 0; i < n && !e; i++)
		for (size_t done = 0; done < iov[i].iov_len && !e;) {
			ssize_t w = write(fd, (const char *)iov[i].iov_base + done, iov[i].iov_len - done);
			if (w <= 0)
				e = w < 0 ? -errno : -EIO;
			else
				done += (size_t)w;
		}
	/* whole file or nothing: a temp name, then rename over */
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
	return e;
}

int symcache_save(struct symcache *c, const char *dir)
{
	if (!c->dirty)
		return 0;
	int e = symcache_mkdirs(dir);
	if (e)
		return e;
	char tmp[4200], path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, c->name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, c->name, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	fputs("pmcprof-symbols 2\n", f);
	for (size_t i = 0; i < c->n; i++) {
		fprintf(f, "A %llx %u\n", (unsigned long long)c->e[i].off, c->e[i].n);
		for (uint32_t j = 0; j < c->e[i].n; j++) {
			const struct sym_frame *x = &c->fr[c->e[i].first + j];
			fprintf(f, "F %u %u %s\t%s\t%s\t%s\n", x->line, x->decl_line, x->key, x->func,
				x->file ? x->file : "", x->decl_file ? x->decl_file : "");
		}
	}
	/* whole file or nothing: write to a temp name, then rename over */
	bool bad = fflush(f) || ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		e = -errno;
		unlink(tmp);
		return e ? e : -EIO;
	}
	c->dirty = false;
	return 0;
}
