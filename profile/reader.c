/* The profile reader.  The file is untrusted: every length, count, index
 * and offset is checked before use, and every allocation is bounded by the
 * (already capped) decompressed size. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader */
#include <zstd.h>

#include "profile/format.h"
#include "profile/profile.h"

struct prof_file {
	struct prof p;
	uint8_t *raw;			/* decompressed payload; strings point here */
	struct prof_kv *meta;
	struct prof_event *events;
	struct prof_module *modules;
	struct prof_counter *counters;
	struct prof_image *images;
	uint64_t *tl_time;
	uint32_t *tl_node, *tl_event;
	uint32_t *parent, *module;
	uint64_t *offset, *counts;
};

/* A bounded input cursor over one section. */
struct cur {
	const uint8_t *p, *end;
	const char *what;		/* section name, for messages */
	char *msg;
	size_t mlen;
};

static size_t left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static int get_varint(struct cur *c, uint64_t *v, const char *field)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (c->p == c->end)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: %s section ends inside %s", c->what, field);
		b = *c->p++;
		/* The 10th byte may only carry bit 63. */
		if (shift == 63 && b > 1)
			break;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
			 "corrupt: %s section: %s does not fit 64 bits", c->what, field);
}

static int get_u32(struct cur *c, uint32_t *v, const char *field)
{
	uint64_t x;
	int err = get_varint(c, &x, field);

	if (err)
		return err;
	if (x > UINT32_MAX)
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: %s section: %s %llu does not fit 32 bits",
				 c->what, field, (unsigned long long)x);
	*v = (uint32_t)x;
	return 0;
}

/* A count of items each at least min_size bytes long: bounded by what is
 * left, so a hostile count cannot make us allocate more than the file. */
static int get_count(struct cur *c, size_t *n, size_t min_size, const char *field)
{
	uint64_t x;
	int err = get_varint(c, &x, field);

	if (err)
		return err;
	if (x > left(c) / min_size)
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: %s section: %llu %s cannot fit in %zu bytes",
				 c->what, (unsigned long long)x, field, left(c));
	*n = (size_t)x;
	return 0;
}

static int get_bytes(struct cur *c, const uint8_t **b, size_t n, const char *field)
{
	if (n > left(c))
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: %s section: %s of %zu bytes exceeds the %zu left",
				 c->what, field, n, left(c));
	*b = c->p;
	c->p += n;
	return 0;
}

/* varint length, bytes, NUL: the NUL and the absence of an inner NUL make
 * the bytes a C string we can point at. */
static int get_str(struct cur *c, const char **s, const char *field)
{
	uint64_t n;
	const uint8_t *b;
	int err = get_varint(c, &n, field);

	if (err)
		return err;
	if (n >= left(c))
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: %s section: %s length %llu exceeds the %zu bytes left",
				 c->what, field, (unsigned long long)n, left(c));
	b = c->p;
	if (b[n] != 0 || memchr(b, 0, (size_t)n))
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: %s section: %s is not a terminated string", c->what,
				 field);
	c->p += n + 1;
	*s = (const char *)b;
	return 0;
}

static void *alloc_array(size_t n, size_t size)
{
	return n ? calloc(n, size) : NULL;
}

static int oom(struct cur *c)
{
	return prof_fail(c->msg, c->mlen, ENOMEM, "out of memory in %s section", c->what);
}

/* A count of entries, each at least min bytes (get_count), and a zeroed
 * array of that many el-byte elements at *arr (a pointer to a pointer). */
static int get_array(struct cur *c, size_t *n, size_t min, const char *field, void *arr,
		     size_t el)
{
	int err = get_count(c, n, min, field);
	void *a;

	if (err)
		return err;
	a = alloc_array(*n, el);
	memcpy(arr, &a, sizeof(a));
	return *n && !a ? oom(c) : 0;
}

/* Every entry is at least this many bytes: empty strings take 2. */
enum { MIN_KV = 4, MIN_EVENT = 10, MIN_MODULE = 8, MIN_COUNTER = 3 };

static int dec_meta(struct prof_file *f, struct cur *c)
{
	int err = get_array(c, &f->p.n_meta, MIN_KV, "entries", &f->meta, sizeof(*f->meta));

	if (err)
		return err;
	for (size_t i = 0; i < f->p.n_meta; i++)
		if ((err = get_str(c, &f->meta[i].key, "key")) ||
		    (err = get_str(c, &f->meta[i].value, "value")))
			return err;
	f->p.meta = f->meta;
	return 0;
}

static int dec_events(struct prof_file *f, struct cur *c)
{
	int err = get_array(c, &f->p.n_events, MIN_EVENT, "events", &f->events,
			    sizeof(*f->events));

	if (err)
		return err;
	for (size_t i = 0; i < f->p.n_events; i++) {
		struct prof_event *e = &f->events[i];

		if ((err = get_str(c, &e->name, "event name")) ||
		    (err = get_str(c, &e->requested, "requested event")) ||
		    (err = get_str(c, &e->unit, "unit")) ||
		    (err = get_varint(c, &e->period, "period")) ||
		    (err = get_varint(c, &e->freq, "frequency")) ||
		    (err = get_varint(c, &e->random_mask, "random mask")) ||
		    (err = get_varint(c, &e->weight, "weight")))
			return err;
	}
	f->p.events = f->events;
	return 0;
}

static int dec_modules(struct prof_file *f, struct cur *c)
{
	int err = get_array(c, &f->p.n_modules, MIN_MODULE, "modules", &f->modules,
			    sizeof(*f->modules));

	if (err)
		return err;
	for (size_t i = 0; i < f->p.n_modules; i++) {
		struct prof_module *m = &f->modules[i];
		uint64_t size;

		if ((err = get_str(c, &m->path, "module path")) ||
		    (err = get_u32(c, &m->build_id_len, "build-id length")))
			return err;
		if (m->build_id_len > PROF_MAX_BUILD_ID)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: module %zu: build-id of %u bytes (limit %d)",
					 i, m->build_id_len, PROF_MAX_BUILD_ID);
		if ((err = get_bytes(c, &m->build_id, m->build_id_len, "build-id")))
			return err;
		if (!m->build_id_len)
			m->build_id = NULL;
		if ((err = get_varint(c, &m->start, "start")) ||
		    (err = get_varint(c, &size, "size")) ||
		    (err = get_varint(c, &m->bias, "bias")) ||
		    (err = get_u32(c, &m->load_seq, "load_seq")) ||
		    (err = get_u32(c, &m->unload_seq, "unload_seq")))
			return err;
		if (size > UINT64_MAX - m->start)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: module %zu: range wraps past 2^64", i);
		m->end = m->start + size;
		if (m->unload_seq && m->unload_seq < m->load_seq)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: module %zu: unloaded (%u) before loaded (%u)",
					 i, m->unload_seq, m->load_seq);
	}
	f->p.modules = f->modules;
	return 0;
}

static int dec_counters(struct prof_file *f, struct cur *c)
{
	int err = get_array(c, &f->p.n_counters, MIN_COUNTER, "counters", &f->counters,
			    sizeof(*f->counters));

	if (err)
		return err;
	for (size_t i = 0; i < f->p.n_counters; i++)
		if ((err = get_str(c, &f->counters[i].name, "counter name")) ||
		    (err = get_varint(c, &f->counters[i].value, "counter value")))
			return err;
	f->p.counters = f->counters;
	return 0;
}

/* Needs the modules decoded first. */
static int dec_images(struct prof_file *f, struct cur *c)
{
	int err = get_count(c, &f->p.n_images, 2, "images");

	if (err)
		return err;
	if (f->p.n_images > PROF_MAX_IMAGES)
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: %zu module images (limit %d)", f->p.n_images,
				 PROF_MAX_IMAGES);
	f->images = alloc_array(f->p.n_images, sizeof(*f->images));
	if (f->p.n_images && !f->images)
		return oom(c);
	for (size_t i = 0; i < f->p.n_images; i++) {
		struct prof_image *im = &f->images[i];

		if ((err = get_u32(c, &im->module, "image module")) ||
		    (err = get_u32(c, &im->len, "image length")))
			return err;
		if (im->module >= f->p.n_modules)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: image %zu: module %u of %zu", i, im->module,
					 f->p.n_modules);
		if (im->len > PROF_MAX_IMAGE)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: image %zu: %u bytes (limit %u)", i, im->len,
					 PROF_MAX_IMAGE);
		if ((err = get_bytes(c, &im->data, im->len, "image")))
			return err;
	}
	f->p.images = f->images;
	return 0;
}

/* Needs the events and modules decoded first. */
static int dec_cct(struct prof_file *f, struct cur *c)
{
	struct prof_cct *t = &f->p.cct;
	size_t ne = f->p.n_events, n;
	uint64_t v;
	int err = get_varint(c, &v, "node count");

	if (err)
		return err;
	/* Each node takes >= 1 byte per column: parent (but the root),
	 * module, offset and one count per event. */
	if (v > UINT32_MAX || (v && (v - 1) + v * (2 + (uint64_t)ne) > left(c)))
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: cct section: %llu nodes cannot fit in %zu bytes",
				 (unsigned long long)v, left(c));
	n = (size_t)v;
	t->n_nodes = (uint32_t)n;
	t->n_events = (uint32_t)ne;
	if (!n)
		return 0;
	f->parent = calloc(n, sizeof(*f->parent));
	f->module = calloc(n, sizeof(*f->module));
	f->offset = calloc(n, sizeof(*f->offset));
	f->counts = alloc_array(n * ne, sizeof(*f->counts));
	if (!f->parent || !f->module || !f->offset || (ne && !f->counts))
		return oom(c);

	for (size_t i = 1; i < n; i++) {
		if ((err = get_varint(c, &v, "parent")))
			return err;
		if (v == 0 || v > i)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: cct node %zu: parent delta %llu (must be 1 to "
					 "%zu)", i, (unsigned long long)v, i);
		f->parent[i] = (uint32_t)(i - v);
	}
	for (size_t i = 0; i < n; i++) {
		if ((err = get_varint(c, &v, "module")))
			return err;
		if (v > f->p.n_modules)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: cct node %zu: module %llu of %zu",
					 i, (unsigned long long)v - 1, f->p.n_modules);
		f->module[i] = v ? (uint32_t)(v - 1) : PROF_NO_MODULE;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t par = f->parent[i];

		if ((err = get_varint(c, &v, "offset")))
			return err;
		if (i && f->module[i] == f->module[par] && f->module[i] != PROF_NO_MODULE)
			f->offset[i] = f->offset[par] + prof_unzigzag(v);
		else
			f->offset[i] = v;
	}
	for (size_t e = 0; e < ne; e++)
		for (size_t i = 0; i < n; i++)
			if ((err = get_varint(c, &f->counts[i * ne + e], "count")))
				return err;
	t->parent = f->parent;
	t->module = f->module;
	t->offset = f->offset;
	t->counts = f->counts;
	return 0;
}

/* The timeline's fixed fields: format, time unit, origin, start,
 * duration and lost samples. */
static int dec_timeline_head(struct prof_timeline *tl, struct cur *c)
{
	uint64_t fmt, unit, len;
	int err;

	if ((err = get_varint(c, &fmt, "timeline format")))
		return err;
	if (fmt != PROF_TIMELINE_FORMAT)
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: timeline section of format %llu (this pmcprof reads %d)",
				 (unsigned long long)fmt, PROF_TIMELINE_FORMAT);
	if ((err = get_varint(c, &unit, "time unit")) ||
	    (err = get_varint(c, &tl->origin_ns, "origin")) ||
	    (err = get_varint(c, &tl->start, "start")) ||
	    (err = get_varint(c, &len, "duration")) ||
	    (err = get_varint(c, &tl->lost, "lost samples")))
		return err;
	if (unit == 0 || unit > PROF_TIMELINE_MAX_UNIT)
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: timeline: time unit of %llu ns",
				 (unsigned long long)unit);
	if (len > UINT64_MAX - tl->start)
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: timeline: end past 2^64");
	tl->unit_ns = (uint32_t)unit;
	tl->end = tl->start + len;
	return 0;
}

/* The n sample times: deltas from the start, none past the end. */
static int dec_timeline_times(struct prof_file *f, struct cur *c, size_t n)
{
	const struct prof_timeline *tl = &f->p.timeline;
	uint64_t now = tl->start;
	int err;

	for (size_t i = 0; i < n; i++) {
		uint64_t dt;

		if ((err = get_varint(c, &dt, "time")))
			return err;
		if (dt > tl->end - now)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: timeline sample %zu after the end", i);
		now += dt;
		f->tl_time[i] = now;
	}
	return 0;
}

/* The n samples' contexts, node * events + event: no more samples of a
 * (node, event) than the CCT counts (seen: zeroed, one per pair). */
static int dec_timeline_contexts(struct prof_file *f, struct cur *c, size_t n, uint64_t *seen)
{
	const struct prof_cct *t = &f->p.cct;
	uint64_t ne = t->n_events;
	int err;

	for (size_t i = 0; i < n; i++) {
		uint64_t key, node;

		if ((err = get_varint(c, &key, "sample context")))
			return err;
		node = key / ne;
		if (node >= t->n_nodes)
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: timeline sample %zu: node %llu of %u", i,
					 (unsigned long long)node, t->n_nodes);
		if (++seen[key] > t->counts[key])
			return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
					 "corrupt: timeline sample %zu: more samples of node %llu, "
					 "event %llu than the cct counts", i,
					 (unsigned long long)node, (unsigned long long)(key % ne));
		f->tl_node[i] = (uint32_t)node;
		f->tl_event[i] = (uint32_t)(key % ne);
	}
	return 0;
}

/* Needs the CCT decoded first: every sample must be one of its counts. */
static int dec_timeline(struct prof_file *f, struct cur *c)
{
	struct prof_timeline *tl = &f->p.timeline;
	const struct prof_cct *t = &f->p.cct;
	uint64_t *seen;
	size_t n;
	int err;

	if ((err = dec_timeline_head(tl, c)))
		return err;
	/* two varints of at least one byte per sample */
	if ((err = get_count(c, &n, 2, "samples")))
		return err;
	tl->n = n;
	if (n && (!t->n_events || !t->n_nodes))
		return prof_fail(c->msg, c->mlen, PROF_ECORRUPT,
				 "corrupt: timeline samples without events or nodes");
	f->tl_time = alloc_array(n, sizeof(*f->tl_time));
	f->tl_node = alloc_array(n, sizeof(*f->tl_node));
	f->tl_event = alloc_array(n, sizeof(*f->tl_event));
	seen = alloc_array((size_t)t->n_nodes * t->n_events, sizeof(*seen));
	if (n && (!f->tl_time || !f->tl_node || !f->tl_event || !seen)) {
		free(seen);
		return oom(c);
	}
	err = dec_timeline_times(f, c, n);
	if (!err)
		err = dec_timeline_contexts(f, c, n, seen);
	free(seen);
	if (err)
		return err;
	tl->time = f->tl_time;
	tl->node = f->tl_node;
	tl->event = f->tl_event;
	return 0;
}

/* In decoding order: the CCT refers to the events and modules. */
static const struct {
	enum prof_section tag;
	const char *name;
	int (*dec)(struct prof_file *, struct cur *);
	bool optional;
} sections[] = {
	{ PROF_SEC_META, "meta", dec_meta, false },
	{ PROF_SEC_EVENTS, "events", dec_events, false },
	{ PROF_SEC_MODULES, "modules", dec_modules, false },
	{ PROF_SEC_COUNTERS, "counters", dec_counters, false },
	{ PROF_SEC_CCT, "cct", dec_cct, false },
	{ PROF_SEC_IMAGES, "images", dec_images, true },
	{ PROF_SEC_TIMELINE, "timeline", dec_timeline, true },
};

static int dec_payload(struct prof_file *f, size_t raw, char *msg, size_t mlen)
{
	struct cur all = { f->raw, f->raw + raw, "payload", msg, mlen };
	struct cur found[PROF_SEC_LAST + 1] = { { NULL, NULL, NULL, NULL, 0 } };
	int err;

	/* Find the sections; unknown ones are skipped (minor additions). */
	while (all.p < all.end) {
		uint8_t tag = *all.p++;
		uint64_t len;
		const uint8_t *body = NULL;

		if ((err = get_varint(&all, &len, "a section length")) ||
		    (err = get_bytes(&all, &body, len, "a section")))
			return err;
		if (tag == 0 || tag > PROF_SEC_LAST)
			continue;
		if (found[tag].p)
			return prof_fail(msg, mlen, PROF_ECORRUPT,
					 "corrupt: section %u appears twice", tag);
		found[tag].p = body;
		found[tag].end = body + len;
	}
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		struct cur *c = &found[sections[i].tag];

		if (!c->p && sections[i].optional)
			continue;
		if (!c->p)
			return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: no %s section",
					 sections[i].name);
		c->what = sections[i].name;
		c->msg = msg;
		c->mlen = mlen;
		if ((err = sections[i].dec(f, c)))
			return err;
		if (c->p != c->end)
			return prof_fail(msg, mlen, PROF_ECORRUPT,
					 "corrupt: %s section has %zu unexplained bytes at its end",
					 sections[i].name, left(c));
	}
	return 0;
}

int prof_file_parse(const void *buf, size_t len, struct prof_file **out,
		    char *msg, size_t mlen)
{
	struct prof_header h;
	struct prof_file *f;
	ZSTD_frameHeader fh;
	const uint8_t *z;
	size_t got;
	int err;

	if (msg && mlen)
		msg[0] = '\0';
	*out = NULL;
	if (!buf && len)
		return -EINVAL;
	err = prof_header_decode(buf, len, &h, msg, mlen);
	if (err)
		return err;
	if (len - h.header_size < h.comp_size)
		return prof_fail(msg, mlen, PROF_ETRUNC,
				 "truncated: header says %llu bytes of data but the file has %zu",
				 (unsigned long long)h.comp_size, len - h.header_size);
	if (len - h.header_size > h.comp_size)
		return prof_fail(msg, mlen, PROF_ECORRUPT,
				 "corrupt: %llu bytes after the data",
				 (unsigned long long)(len - h.header_size - h.comp_size));
	z = (const uint8_t *)buf + h.header_size;

	/* Check the frame against the header before allocating anything. */
	got = ZSTD_getFrameHeader(&fh, z, (size_t)h.comp_size);
	if (ZSTD_isError(got))
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: zstd: %s",
				 ZSTD_getErrorName(got));
	if (got != 0 || fh.frameType != ZSTD_frame)
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: bad zstd frame header");
	if (fh.frameContentSize != h.raw_size)
		return prof_fail(msg, mlen, PROF_ECORRUPT,
				 "corrupt: zstd frame holds %llu bytes but the header says %llu",
				 (unsigned long long)fh.frameContentSize,
				 (unsigned long long)h.raw_size);
	if (!fh.checksumFlag)
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: zstd frame without checksum");
	/* One frame exactly: zstd would happily decode a second one. */
	got = ZSTD_findFrameCompressedSize(z, (size_t)h.comp_size);
	if (ZSTD_isError(got) || got != h.comp_size)
		return prof_fail(msg, mlen, PROF_ECORRUPT,
				 "corrupt: zstd frame is not the %llu bytes the header says",
				 (unsigned long long)h.comp_size);

	f = calloc(1, sizeof(*f));
	if (!f || !(f->raw = malloc((size_t)h.raw_size))) {
		free(f);
		return prof_fail(msg, mlen, ENOMEM, "out of memory for %llu bytes",
				 (unsigned long long)h.raw_size);
	}
	got = ZSTD_decompress(f->raw, (size_t)h.raw_size, z, (size_t)h.comp_size);
	if (ZSTD_isError(got)) {
		err = prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: zstd: %s",
				ZSTD_getErrorName(got));
		goto bad;
	}
	if (got != h.raw_size) {
		err = prof_fail(msg, mlen, PROF_ECORRUPT,
				"corrupt: zstd frame decompressed to %zu bytes, not %llu",
				got, (unsigned long long)h.raw_size);
		goto bad;
	}
	f->p.version = h.version;
	f->p.partial = h.flags & PROF_FLAG_PARTIAL;
	err = dec_payload(f, (size_t)h.raw_size, msg, mlen);
	if (err)
		goto bad;
	*out = f;
	return 0;
bad:
	prof_file_free(f);
	return err;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "not a plain file";
}

int prof_file_read(const char *path, struct prof_file **out, char *msg, size_t len)
{
	struct stat st;
	uint8_t *buf;
	size_t have = 0;
	int fd, err;

	*out = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is then
	 * refused below like any file that is not regular. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		/* a socket cannot be opened at all (ENXIO): say what it is */
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return prof_fail(msg, len, EINVAL, "not a regular file (%s)",
					 file_kind(st.st_mode));
		return prof_fail(msg, len, err, "%s", strerror(err));
	}
	if (fstat(fd, &st) != 0) {
		err = prof_fail(msg, len, errno, "%s", strerror(errno));
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return prof_fail(msg, len, EINVAL, "not a regular file (%s)",
				 file_kind(st.st_mode));
	}
	if ((uint64_t)st.st_size > PROF_HEADER_MAX + 2 * PROF_MAX_RAW) {
		close(fd);
		return prof_fail(msg, len, EFBIG, "too large for a profile (%lld bytes)",
				 (long long)st.st_size);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return prof_fail(msg, len, ENOMEM, "out of memory");
	}
	/* A file that shrinks while we read is reported as truncated. */
	while (have < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + have, (size_t)st.st_size - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = prof_fail(msg, len, errno, "%s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	err = prof_file_parse(buf, have, out, msg, len);
out:
	free(buf);
	close(fd);
	return err;
}

const struct prof *prof_file_data(const struct prof_file *f)
{
	return f ? &f->p : NULL;
}

void prof_file_free(struct prof_file *f)
{
	if (!f)
		return;
	free(f->raw);
	free(f->meta);
	free(f->events);
	free(f->modules);
	free(f->counters);
	free(f->images);
	free(f->tl_time);
	free(f->tl_node);
	free(f->tl_event);
	free(f->parent);
	free(f->module);
	free(f->offset);
	free(f->counts);
	free(f);
}

const char *prof_meta_get(const struct prof *p, const char *key)
{
	if (!p || !key)
		return NULL;
	for (size_t i = 0; i < p->n_meta; i++)
		if (strcmp(p->meta[i].key, key) == 0)
			return p->meta[i].value;
	return NULL;
}

static const struct {
	int err;
	const char *text;
} prof_errors[] = {
	{ PROF_EMAGIC, "not a pmcprof profile" },
	{ PROF_EVERSION, "written by a newer pmcprof" },
	{ PROF_ETRUNC, "truncated profile" },
	{ PROF_ECORRUPT, "corrupt profile" },
};

const char *prof_strerror(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(prof_errors) / sizeof(prof_errors[0]); i++)
		if (prof_errors[i].err == err)
			return prof_errors[i].text;
	return strerror(err);
}
