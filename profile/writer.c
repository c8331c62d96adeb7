/* The profile writer.  The collector calls it from thread exit and from a
 * fatal-signal handler, so it is async-signal-safe: all memory comes from
 * one mmap, zstd runs in a static context inside it, and output goes
 * through plain syscalls.  No malloc, no stdio, no locks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>		/* renameat2() prototype only */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_initStaticCCtx, ZSTD_estimate* */
#include <zstd.h>

#include "profile/format.h"
#include "profile/profile.h"

/* The writer runs at thread exit, so speed counts: on profile payloads
 * level 19 gains only ~5% over 9 at a tenth of the speed (~1 MB/s), and 9
 * gains ~5% over 3. */
static const struct {
	uint64_t max_raw;
	int level;
} level_table[] = {
	{ 256u << 10, 9 },
	{ UINT64_MAX, 3 },
};

/* An output cursor; with p == NULL it only counts, so one encoder sizes
 * the buffer and then fills it. */
struct sink {
	uint8_t *p;
	size_t n;
};

static void put_bytes(struct sink *s, const void *b, size_t n)
{
	if (s->p && n)
		memcpy(s->p + s->n, b, n);
	s->n += n;
}

static void put_varint(struct sink *s, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	put_bytes(s, b, n);
}

/* Strings are length-prefixed and NUL-terminated so the reader can hand
 * out pointers into its buffer.  NULL is written as "". */
static int put_str(struct sink *s, const char *str)
{
	size_t n = str ? strlen(str) : 0;

	put_varint(s, n);
	put_bytes(s, str ? str : "", n + 1);
	return 0;
}

/* A section's count of entries: -EINVAL if there are some but no array. */
static int put_count(struct sink *s, size_t n, const void *array)
{
	if (n && !array)
		return -EINVAL;
	put_varint(s, n);
	return 0;
}

static int enc_meta(struct sink *s, const struct prof *p)
{
	int err = put_count(s, p->n_meta, p->meta);

	for (size_t i = 0; !err && i < p->n_meta; i++) {
		put_str(s, p->meta[i].key);
		put_str(s, p->meta[i].value);
	}
	return err;
}

static int enc_events(struct sink *s, const struct prof *p)
{
	int err = put_count(s, p->n_events, p->events);

	for (size_t i = 0; !err && i < p->n_events; i++) {
		const struct prof_event *e = &p->events[i];

		put_str(s, e->name);
		put_str(s, e->requested);
		put_str(s, e->unit);
		put_varint(s, e->period);
		put_varint(s, e->freq);
		put_varint(s, e->random_mask);
		put_varint(s, e->weight);
	}
	return err;
}

static int enc_modules(struct sink *s, const struct prof *p)
{
	if (p->n_modules && !p->modules)
		return -EINVAL;
	if (p->n_modules >= PROF_NO_MODULE)
		return -E2BIG;
	put_varint(s, p->n_modules);
	for (size_t i = 0; i < p->n_modules; i++) {
		const struct prof_module *m = &p->modules[i];
		uint32_t bl = m->build_id ? m->build_id_len : 0;

		if (bl > PROF_MAX_BUILD_ID || m->end < m->start ||
		    (m->unload_seq && m->unload_seq < m->load_seq))
			return -EINVAL;
		put_str(s, m->path);
		put_varint(s, bl);
		put_bytes(s, m->build_id, bl);
		put_varint(s, m->start);
		put_varint(s, m->end - m->start);
		put_varint(s, m->bias);
		put_varint(s, m->load_seq);
		put_varint(s, m->unload_seq);
	}
	return 0;
}

/* The CCT, column by column (similar values sit together, which zstd
 * likes): parent deltas, modules, offsets, then one column per event. */
static int enc_cct(struct sink *s, const struct prof *p)
{
	const struct prof_cct *c = &p->cct;
	uint32_t n = c->n_nodes;

	if (n && (!c->parent || !c->module || !c->offset ||
		  c->n_events != p->n_events || (p->n_events && !c->counts)))
		return -EINVAL;
	if (n && c->parent[0] != 0)
		return -EINVAL;
	put_varint(s, n);
	/* Parents precede children, so i - parent >= 1: usually 1 byte. */
	for (uint32_t i = 1; i < n; i++) {
		if (c->parent[i] >= i)
			return -EINVAL;
		put_varint(s, i - c->parent[i]);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = c->module[i];

		if (m != PROF_NO_MODULE && m >= p->n_modules)
			return -EINVAL;
		put_varint(s, m == PROF_NO_MODULE ? 0 : (uint64_t)m + 1);
	}
	/* A callee usually lives in its caller's module, often nearby. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t par = c->parent[i];

		if (i && c->module[i] == c->module[par] && c->module[i] != PROF_NO_MODULE)
			put_varint(s, prof_zigzag(c->offset[i] - c->offset[par]));
		else
			put_varint(s, c->offset[i]);
	}
	for (size_t e = 0; e < p->n_events; e++)
		for (uint32_t i = 0; i < n; i++)
			put_varint(s, c->counts[(size_t)i * p->n_events + e]);
	return 0;
}

static int enc_counters(struct sink *s, const struct prof *p)
{
	int err = put_count(s, p->n_counters, p->counters);

	for (size_t i = 0; !err && i < p->n_counters; i++) {
		put_str(s, p->counters[i].name);
		put_varint(s, p->counters[i].value);
	}
	return err;
}

static int enc_images(struct sink *s, const struct prof *p)
{
	int err = p->n_images > PROF_MAX_IMAGES ? -EINVAL : put_count(s, p->n_images, p->images);

	if (err)
		return err;
	for (size_t i = 0; i < p->n_images; i++) {
		const struct prof_image *im = &p->images[i];

		if (im->module >= p->n_modules || im->len > PROF_MAX_IMAGE || (im->len && !im->data))
			return -EINVAL;
		put_varint(s, im->module);
		put_varint(s, im->len);
		put_bytes(s, im->data, im->len);
	}
	return 0;
}

/* One varint of the record stream at *pos (bounded by end); false if it
 * runs past the end or past 64 bits. */
static bool next_varint(const uint8_t **pos, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
		uint8_t b = *(*pos)++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* Column k (0: time deltas, 1: keys) of the record stream; -EINVAL unless
 * it holds exactly tl->n records whose keys name a node and an event. */
static int enc_timeline_column(struct sink *s, const struct prof *p, int k)
{
	const struct prof_timeline *tl = &p->timeline;
	const uint8_t *pos = tl->records, *end = tl->records + tl->records_len;
	uint64_t ne = p->n_events ? p->n_events : 1, t = tl->start;

	for (uint64_t i = 0; i < tl->n; i++) {
		uint64_t dt, key;

		if (!next_varint(&pos, end, &dt) || !next_varint(&pos, end, &key) ||
		    key / ne >= p->cct.n_nodes || !p->n_events || dt > tl->end - t)
			return -EINVAL;
		t += dt;
		put_varint(s, k ? key : dt);
	}
	return pos == end ? 0 : -EINVAL;
}

/* The samples in time order: a few scalars, then the time deltas and the
 * keys, column by column (the deltas are alike, and so are the keys). */
static int enc_timeline(struct sink *s, const struct prof *p)
{
	const struct prof_timeline *tl = &p->timeline;
	int err;

	if (!tl->unit_ns || tl->unit_ns > PROF_TIMELINE_MAX_UNIT || tl->end < tl->start ||
	    (tl->records_len && !tl->records))
		return -EINVAL;
	put_varint(s, PROF_TIMELINE_FORMAT);
	put_varint(s, tl->unit_ns);
	put_varint(s, tl->origin_ns);
	put_varint(s, tl->start);
	put_varint(s, tl->end - tl->start);
	put_varint(s, tl->lost);
	put_varint(s, tl->n);
	if ((err = enc_timeline_column(s, p, 0)))
		return err;
	return enc_timeline_column(s, p, 1);
}

static const struct {
	enum prof_section tag;
	int (*enc)(struct sink *, const struct prof *);
} sections[] = {
	{ PROF_SEC_META, enc_meta },
	{ PROF_SEC_EVENTS, enc_events },
	{ PROF_SEC_MODULES, enc_modules },
	{ PROF_SEC_CCT, enc_cct },
	{ PROF_SEC_COUNTERS, enc_counters },
	{ PROF_SEC_IMAGES, enc_images },	/* only when there are images */
	{ PROF_SEC_TIMELINE, enc_timeline },	/* only when there is a timeline */
};

/* Each section: tag byte, varint body length, body. */
static int enc_payload(struct sink *s, const struct prof *p)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		struct sink count = { NULL, 0 };
		uint8_t tag = (uint8_t)sections[i].tag;
		int err;

		if ((sections[i].tag == PROF_SEC_IMAGES && !p->n_images) ||
		    (sections[i].tag == PROF_SEC_TIMELINE && !p->timeline.unit_ns))
			continue;
		err = sections[i].enc(&count, p);
		if (err)
			return err;
		put_bytes(s, &tag, 1);
		put_varint(s, count.n);
		sections[i].enc(s, p);
	}
	return 0;
}

static size_t round_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

/* Decimal digits of v into b; returns the length.  (No snprintf here.) */
static size_t fmt_u64(char *b, uint64_t v)
{
	char t[20];
	size_t n = 0, i;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		b[i] = t[n - 1 - i];
	return n;
}

/* "DIR/.BASE.tmp.PID.SEQ" beside the final name, so the rename stays in one
 * directory.  Returns the length, or 0 if it would not fit. */
static size_t temp_name(char *b, size_t cap, const char *name, uint64_t seq)
{
	const char *slash = strrchr(name, '/');
	size_t dir = slash ? (size_t)(slash - name) + 1 : 0;
	size_t base = strlen(name) - dir;
	size_t n = 0;

	if (dir + 1 + base + 5 + 2 * 20 + 2 > cap)
		return 0;
	memcpy(b, name, dir);
	n = dir;
	b[n++] = '.';
	memcpy(b + n, name + dir, base);
	n += base;
	memcpy(b + n, ".tmp.", 5);
	n += 5;
	n += fmt_u64(b + n, (uint64_t)getpid());
	b[n++] = '.';
	n += fmt_u64(b + n, seq);
	b[n] = '\0';
	return n;
}

static int write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Put tmp in place as name without ever replacing an existing name.
 * renameat2(RENAME_NOREPLACE) where the filesystem has it, otherwise
 * link + unlink, which fails with EEXIST just the same. */
static int publish(int dirfd, const char *tmp, const char *name)
{
	if (renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(dirfd, tmp, dirfd, name, 0) != 0)
		return -errno;
	unlinkat(dirfd, tmp, 0);
	return 0;
}

/* Write, fsync and publish an already created temp; unlink it on failure. */
static int write_file(int fd, int dirfd, const char *tmp, const char *name,
		      const uint8_t *data, size_t len)
{
	int err = write_all(fd, data, len);

	while (!err && fsync(fd) != 0)
		if (errno != EINTR)
			err = -errno;
	/* Linux closes the fd even when close reports EINTR: never retry it. */
	if (close(fd) != 0 && errno != EINTR && !err)
		err = -errno;
	if (!err)
		err = publish(dirfd, tmp, name);
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
}

static int level_for(uint64_t raw)
{
	size_t i = 0;

	while (raw > level_table[i].max_raw)
		i++;
	return level_table[i].level;
}

/* One mapping holds, each at a 64-byte boundary: the temp file's name,
 * the raw payload, the header with the compressed payload after it, and
 * zstd's workspace. */
struct layout {
	size_t name_cap, bound, work, off_raw, off_comp, off_work, total;
};

static void lay_out(struct layout *l, const char *name, size_t raw, int level)
{
	l->bound = ZSTD_compressBound(raw);
	/* Sized for this input: far smaller than the level's worst case. */
	l->work = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, raw, 0));
	l->name_cap = strlen(name) + 64;
	l->off_raw = round_up(l->name_cap, 64);
	l->off_comp = round_up(l->off_raw + raw, 64);
	l->off_work = round_up(l->off_comp + PROF_HEADER_SIZE + l->bound, 64);
	l->total = l->off_work + l->work;
}

/* The header and the compressed payload after it (at off_comp), from raw;
 * *comp is the compressed size.  0 or -ENOMEM (zstd's workspace too small). */
static int seal(uint8_t *map, const struct layout *l, const struct sink *raw, int level,
		bool partial, size_t *comp)
{
	uint8_t *hdr = map + l->off_comp;
	ZSTD_CCtx *cctx = ZSTD_initStaticCCtx(map + l->off_work, l->work);

	if (!cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
	    /* A static context starts with every parameter zero, this one too. */
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)))
		return -ENOMEM;
	*comp = ZSTD_compress2(cctx, hdr + PROF_HEADER_SIZE, l->bound, raw->p, raw->n);
	/* Only a too-small workspace can fail here: the bound is exact. */
	if (ZSTD_isError(*comp))
		return -ENOMEM;
	memcpy(hdr, PROF_MAGIC, PROF_MAGIC_LEN);
	prof_put_le32(hdr + 8, PROF_VERSION);
	prof_put_le32(hdr + 12, partial ? PROF_FLAG_PARTIAL : 0);
	prof_put_le32(hdr + 16, PROF_HEADER_SIZE);
	prof_put_le64(hdr + 24, raw->n);
	prof_put_le64(hdr + 32, *comp);
	prof_put_le32(hdr + 20, prof_header_check(hdr, PROF_HEADER_SIZE));
	return 0;
}

/* Write data to a fresh temp beside name (its name built in tmp, cap
 * bytes) and publish it as name.  A temp left by a dead process that had
 * our pid is skipped, not reused. */
static int write_via_temp(int dirfd, const char *name, int mode, char *tmp, size_t cap,
			  const uint8_t *data, size_t len)
{
	static unsigned long seq;	/* temp-name uniqueness across threads */
	int err = -EEXIST;

	for (int tries = 0; tries < 16 && err == -EEXIST; tries++) {
		int fd;

		if (!temp_name(tmp, cap, name, __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED)))
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, mode);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		return write_file(fd, dirfd, tmp, name, data, len);
	}
	return err;
}

int prof_write(const struct prof *p, int dirfd, const char *name, int mode)
{
	struct sink count = { NULL, 0 }, out;
	struct layout l;
	uint8_t *map;
	size_t comp;
	int err, level, saved_errno = errno;

	if (!p || !name || !*name || name[strlen(name) - 1] == '/')
		return -EINVAL;
	err = enc_payload(&count, p);
	if (err)
		return err;
	if (count.n > PROF_MAX_RAW)
		return -E2BIG;
	level = level_for(count.n);
	lay_out(&l, name, count.n, level);
	map = mmap(NULL, l.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		errno = saved_errno;
		return err;
	}
	out.p = map + l.off_raw;
	out.n = 0;
	enc_payload(&out, p);
	err = seal(map, &l, &out, level, p->partial, &comp);
	if (!err)
		err = write_via_temp(dirfd, name, mode, (char *)map, l.name_cap, map + l.off_comp,
				     PROF_HEADER_SIZE + comp);
	munmap(map, l.total);
	errno = saved_errno;
	return err;
}
