/* A persistent cache of symbolized addresses, one file per build-id
 * (CACHE/<build-id>.sym, or .elfsym for a module without debug info to be
 * found), so that reports of the same binaries need not open their DWARF
 * again (decompressing a -dbg package's debug info costs more than the
 * whole rest of a report).  Build-ids name immutable contents, so entries
 * never go stale.  Every answer is kept, those from an ELF symbol table
 * alone and "nothing here" (0 frames) too, so a warm report opens no
 * module at all.
 *
 * The file is mapped, not parsed: a sorted table searched in place, each
 * distinct string stored once and interned only when an answer that
 * names it is asked for.  Its layout, native byte order:
 *
 *   char magic[16]   "pmcprof-symbols\0"
 *   u32 endian       0x01020304
 *   u32 version      3 (2 was text; 1 had no linkage names)
 *   u64 n_addr, n_frame, n_str, str_len
 *   { u64 off; u32 first, n; }   addr[n_addr]     off strictly increasing
 *   { u32 key, func, file, decl_file, line, decl_line; } frame[n_frame]
 *                    strings as index + 1 (0: none), innermost frame first
 *   u32 str[n_str]   offsets into the strings
 *   char strings[str_len]   NUL-terminated
 *
 * The file is untrusted: any size, order, index or offset out of place
 * discards it whole (and it is rewritten). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "analyzer/symbolize.h"

#define MAX_CACHE_BYTES (256u << 20)
#define MAX_FRAMES 64
#define MAGIC "pmcprof-symbols"	/* and its NUL: 16 bytes */
#define FORMAT 3

struct fhdr {
	char magic[16];
	uint32_t endian, version;
	uint64_t n_addr, n_frame, n_str, str_len;
};
struct faddr {
	uint64_t off;
	uint32_t first, n;
};
struct fframe {
	uint32_t key, func, file, decl_file, line, decl_line;
};

struct centry {
	uint64_t off;
	uint32_t first, n;
};

struct symcache {
	char name[160];			/* <build-id hex>.sym */
	/* the file read: mapped, checked */
	void *map;
	size_t map_len;
	const struct faddr *fa;
	const struct fframe *ff;
	const uint32_t *fs;
	const char *strings;
	size_t n_fa, n_ff, n_fs, str_len;
	const char **interned;		/* [n_fs], filled on first use */
	/* answers added since */
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
	if (c->map)
		munmap(c->map, c->map_len);
	idx_free(&c->idx);
	FREE_EACH(c->interned, c->e, c->fr, c);
}

/* The file's entry for off, or NULL. */
static const struct faddr *file_find(const struct symcache *c, uint64_t off)
{
	size_t lo = 0, hi = c->n_fa;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->fa[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n_fa && c->fa[lo].off == off ? &c->fa[lo] : NULL;
}

int symcache_put(struct symcache *c, uint64_t off, const struct sym_frame *fr, size_t n)
{
	uint64_t h = hash_u64(off, 13);
	if (file_find(c, off) || idx_find(&c->idx, h, ent_eq, c, &off) != NONE)
		return 0;
	if (n > MAX_FRAMES)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!fr[i].func || !fr[i].func[0] || !fr[i].key || !fr[i].key[0])
			return 0;
	if (vec_reserve(&c->e, &c->cap, c->n + 1, sizeof(*c->e)) ||
	    vec_reserve(&c->fr, &c->cap_fr, c->n_fr + n, sizeof(*c->fr)) ||
	    idx_put(&c->idx, h, (uint32_t)c->n))
		return -ENOMEM;
	c->e[c->n++] = (struct centry){ off, (uint32_t)c->n_fr, (uint32_t)n };
	if (n)	/* "nothing here" has no frames, and fr may be NULL */
		memcpy(&c->fr[c->n_fr], fr, n * sizeof(*fr));
	c->n_fr += n;
	c->dirty = true;
	return 0;
}

/* String i + 1 of the file, interned (NULL for 0, or on ENOMEM). */
static const char *file_str(struct symcache *c, struct strpool *pool, uint32_t i)
{
	if (!i--)
		return NULL;
	if (!c->interned[i])
		c->interned[i] = strpool_str(pool, c->strings + c->fs[i]);
	return c->interned[i];
}

static bool file_get(struct symcache *c, struct strpool *pool, const struct faddr *a,
		     struct sym_frame *fr, size_t max, size_t *n)
{
	*n = a->n < max ? a->n : max;
	for (size_t i = 0; i < *n; i++) {
		const struct fframe *f = &c->ff[a->first + i];
		fr[i] = (struct sym_frame){ file_str(c, pool, f->key), file_str(c, pool, f->func),
					    file_str(c, pool, f->file), f->line,
					    file_str(c, pool, f->decl_file), f->decl_line };
		if (!fr[i].key || !fr[i].func)
			return false;
	}
	return true;
}

bool symcache_get(struct symcache *c, struct strpool *pool, uint64_t off, struct sym_frame *fr,
		  size_t max, size_t *n)
{
	const struct faddr *a = file_find(c, off);
	if (a)
		return file_get(c, pool, a, fr, max, n);
	uint32_t id = idx_find(&c->idx, hash_u64(off, 13), ent_eq, c, &off);
	if (id == NONE)
		return false;
	*n = c->e[id].n < max ? c->e[id].n : max;
	if (*n)
		memcpy(fr, &c->fr[c->e[id].first], *n * sizeof(*fr));
	return true;
}

/* The mapped file's tables into c, if every size, order, index and offset
 * is in place. */
static bool check(struct symcache *c, const char *b, size_t len)
{
	struct fhdr h;
	if (len < sizeof(h))
		return false;
	memcpy(&h, b, sizeof(h));
	/* each count below the file's size: no product overflows */
	if (memcmp(h.magic, MAGIC, sizeof(h.magic)) || h.endian != 0x01020304 ||
	    h.version != FORMAT || h.n_addr > len || h.n_frame > len || h.n_str > len ||
	    h.str_len > len || !h.str_len ||
	    sizeof(h) + h.n_addr * sizeof(struct faddr) + h.n_frame * sizeof(struct fframe) +
			    h.n_str * 4 + h.str_len != len ||
	    b[len - 1] != 0)
		return false;
	const struct faddr *fa = (const void *)(b + sizeof(h));
	const struct fframe *ff = (const void *)(fa + h.n_addr);
	const uint32_t *fs = (const void *)(ff + h.n_frame);
	const char *strings = (const char *)(fs + h.n_str);
	for (size_t i = 0; i < h.n_str; i++)
		if (fs[i] >= h.str_len)
			return false;
	for (size_t i = 0; i < h.n_addr; i++)
		if ((i && fa[i].off <= fa[i - 1].off) || fa[i].n > MAX_FRAMES ||
		    fa[i].first > h.n_frame || fa[i].n > h.n_frame - fa[i].first)
			return false;
	for (size_t i = 0; i < h.n_frame; i++) {
		const struct fframe *f = &ff[i];
		if (!f->key || !f->func || f->key > h.n_str || f->func > h.n_str ||
		    f->file > h.n_str || f->decl_file > h.n_str || !strings[fs[f->key - 1]] ||
		    !strings[fs[f->func - 1]])
			return false;
	}
	c->fa = fa;
	c->ff = ff;
	c->fs = fs;
	c->strings = strings;
	c->n_fa = h.n_addr;
	c->n_ff = h.n_frame;
	c->n_fs = h.n_str;
	c->str_len = h.str_len;
	return true;
}

struct symcache *symcache_open(const char *dir, const uint8_t *bid, size_t n, const char *kind)
{
	struct symcache *c = symcache_new(bid, n, kind);
	if (!c)
		return NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, c->name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat sb;
	void *map = MAP_FAILED;
	if (fd >= 0 && !fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
	    (size_t)sb.st_size < MAX_CACHE_BYTES)
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (map != MAP_FAILED) {
		c->map = map;
		c->map_len = (size_t)sb.st_size;
	}
	if (map == MAP_FAILED || !check(c, map, c->map_len) ||
	    !(c->interned = calloc(c->n_fs ? c->n_fs : 1, sizeof(*c->interned)))) {
		symcache_free(c);
		return NULL;
	}
	return c;
}

int symcache_mkdirs(const char *dir)
{
	return symcache_mkdirs_mode(dir, 0700);
}

int symcache_mkdirs_mode(const char *dir, int mode)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, (mode_t)mode) && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	return mkdir(p, (mode_t)mode) && errno != EEXIST ? -errno : 0;
}

int symcache_write(const char *dir, const char *name, const struct iovec *iov, int n)
{
	return symcache_write_mode(dir, name, iov, n, 0600, 0700);
}

int symcache_write_mode(const char *dir, const char *name, const struct iovec *iov, int n,
			int mode, int dir_mode)
{
	int e = symcache_mkdirs_mode(dir, dir_mode);
	if (e)
		return e;
	char tmp[4200], path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
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

/* Strings by interned pointer, for writing each once. */
struct strtab {
	const char **s;
	size_t n, cap, len;
	struct idx idx;
};

static bool ptr_eq(const void *ctx, uint32_t id, const void *key)
{
	return ((const struct strtab *)ctx)->s[id] == key;
}

/* s's index + 1 in t (added if new), 0 for NULL; -1u on ENOMEM. */
static uint32_t strtab_ref(struct strtab *t, const char *s)
{
	if (!s)
		return 0;
	uint64_t h = hash_u64((uintptr_t)s, 29);
	uint32_t id = idx_find(&t->idx, h, ptr_eq, t, s);
	if (id != NONE)
		return id + 1;
	if (vec_reserve(&t->s, &t->cap, t->n + 1, sizeof(*t->s)) || idx_put(&t->idx, h, (uint32_t)t->n))
		return UINT32_MAX;
	t->s[t->n] = s;
	t->len += strlen(s) + 1;
	return (uint32_t)++t->n;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

size_t symcache_count(const struct symcache *c)
{
	return c ? c->n_fa + c->n : 0;
}

int symcache_save(struct symcache *c, struct strpool *pool, const char *dir)
{
	return symcache_save_mode(c, pool, dir, 0600, 0700);
}

int symcache_save_mode(struct symcache *c, struct strpool *pool, const char *dir, int mode,
		       int dir_mode)
{
	if (!c->dirty)
		return 0;
	/* the file's answers join the new ones: one sorted table */
	for (size_t i = 0; i < c->n_fa; i++) {
		struct sym_frame fr[MAX_FRAMES];
		size_t n;
		if (!file_get(c, pool, &c->fa[i], fr, MAX_FRAMES, &n) ||
		    vec_reserve(&c->e, &c->cap, c->n + 1, sizeof(*c->e)) ||
		    vec_reserve(&c->fr, &c->cap_fr, c->n_fr + n, sizeof(*c->fr)))
			return -ENOMEM;
		c->e[c->n++] = (struct centry){ c->fa[i].off, (uint32_t)c->n_fr, (uint32_t)n };
		if (n)
			memcpy(&c->fr[c->n_fr], fr, n * sizeof(*fr));
		c->n_fr += n;
	}
	c->n_fa = 0;
	qsort(c->e, c->n, sizeof(*c->e), ent_cmp);
	idx_free(&c->idx);	/* ids moved: index them again */
	for (size_t i = 0; i < c->n; i++)
		if (idx_put(&c->idx, hash_u64(c->e[i].off, 13), (uint32_t)i))
			return -ENOMEM;
	struct strtab t = { 0 };
	struct faddr *fa = malloc((c->n ? c->n : 1) * sizeof(*fa));
	struct fframe *ff = malloc((c->n_fr ? c->n_fr : 1) * sizeof(*ff));
	uint32_t *fs = NULL;
	char *strings = NULL;
	int e = fa && ff ? 0 : -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < c->n && !e; i++) {
		fa[i] = (struct faddr){ c->e[i].off, (uint32_t)k, c->e[i].n };
		for (uint32_t j = 0; j < c->e[i].n; j++, k++) {
			const struct sym_frame *x = &c->fr[c->e[i].first + j];
			ff[k] = (struct fframe){ strtab_ref(&t, x->key), strtab_ref(&t, x->func),
						 strtab_ref(&t, x->file), strtab_ref(&t, x->decl_file),
						 x->line, x->decl_line };
			if (ff[k].key == UINT32_MAX || ff[k].func == UINT32_MAX ||
			    ff[k].file == UINT32_MAX || ff[k].decl_file == UINT32_MAX)
				e = -ENOMEM;
		}
	}
	if (!e && (t.len >= UINT32_MAX || !(fs = malloc((t.n ? t.n : 1) * sizeof(*fs))) ||
		   !(strings = malloc(t.len ? t.len : 1))))
		e = -ENOMEM;
	size_t at = 0;
	for (size_t i = 0; !e && i < t.n; i++) {
		size_t l = strlen(t.s[i]) + 1;
		fs[i] = (uint32_t)at;
		memcpy(strings + at, t.s[i], l);
		at += l;
	}
	if (!e && !at)		/* no string at all: one empty one, the file's last byte */
		strings[at++] = 0;
	struct fhdr h = { .magic = MAGIC, .endian = 0x01020304, .version = FORMAT, .n_addr = c->n,
			  .n_frame = k, .n_str = t.n, .str_len = at };
	struct iovec iov[5] = { { &h, sizeof(h) }, { fa, c->n * sizeof(*fa) }, { ff, k * sizeof(*ff) },
				{ fs, t.n * sizeof(*fs) }, { strings, at } };
	if (!e)
		e = symcache_write_mode(dir, c->name, iov, 5, mode, dir_mode);
	if (!e)
		c->dirty = false;
	free(fa);
	free(ff);
	free(fs);
	free(strings);
	free(t.s);
	idx_free(&t.idx);
	return e;
}
