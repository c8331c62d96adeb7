/* profile/: writer and reader.  Round trips of random profiles, the writer's
 * file-system guarantees (O_EXCL, symlinks, file-size limit, no malloc), and
 * the reader against truncation, bit flips and hand-made hostile payloads.
 *
 * `test-profile --write-corpus DIR` writes the fuzzer's seed files. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "profile/format.h"
#include "profile/profile.h"
#include "tests/fuzz/fuzz_wrap.h"
#include "tests/harness.h"
#include "tests/rng.h"

/* ---- counting allocator: prof_write must not allocate ---- */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define COUNT_MALLOC 0
#endif
#endif
#ifndef COUNT_MALLOC
#define COUNT_MALLOC 1
#endif

static volatile int n_allocs;

#if COUNT_MALLOC
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *malloc(size_t n);
void *calloc(size_t n, size_t s);
void *realloc(void *p, size_t n);

void *malloc(size_t n)
{
	n_allocs++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t s)
{
	n_allocs++;
	return __libc_calloc(n, s);
}

void *realloc(void *p, size_t n)
{
	n_allocs++;
	return __libc_realloc(p, n);
}
#endif

/* ---- random profiles ---- */

/* Values of every varint length, with the extremes. */
static uint64_t rnd_value(void)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return rnd() % 128;
	case 2: return UINT64_MAX - rnd() % 3;
	default: return rnd() >> (rnd() % 64);
	}
}

struct gen {
	struct prof p;
	struct prof_kv meta[32];
	struct prof_event events[8];
	struct prof_module modules[300];
	struct prof_counter counters[16];
	uint8_t build_ids[300][PROF_MAX_BUILD_ID];
	char strings[1024][24];
	int n_strings;
	uint32_t *parent, *module;
	uint64_t *offset, *counts;
};

static const char *rnd_str(struct gen *g)
{
	char *s = g->strings[g->n_strings++ % 1024];
	size_t n = rnd() % 23;

	for (size_t i = 0; i < n; i++)
		s[i] = (char)(' ' + rnd() % 95);
	s[n] = '\0';
	return s;
}

struct shape {
	int line;
	uint32_t nodes, events, modules, meta, counters;
	bool partial;
};

static void gen_make(struct gen *g, const struct shape *s)
{
	memset(g, 0, sizeof(*g));
	g->p.version = PROF_VERSION;
	g->p.partial = s->partial;
	for (uint32_t i = 0; i < s->meta; i++)
		g->meta[i] = (struct prof_kv){ rnd_str(g), rnd_str(g) };
	for (uint32_t i = 0; i < s->events; i++)
		g->events[i] = (struct prof_event){ rnd_str(g), rnd_str(g), rnd_str(g),
			rnd_value(), rnd_value(), rnd_value(), rnd_value() };
	for (uint32_t i = 0; i < s->modules; i++) {
		struct prof_module *m = &g->modules[i];
		uint32_t up;

		m->path = rnd_str(g);
		m->build_id_len = (uint32_t)(rnd() % (PROF_MAX_BUILD_ID + 1));
		for (uint32_t b = 0; b < m->build_id_len; b++)
			g->build_ids[i][b] = (uint8_t)rnd();
		m->build_id = m->build_id_len ? g->build_ids[i] : NULL;
		m->start = rnd_value();
		m->end = m->start + (rnd_value() & (UINT64_MAX - m->start));
		m->bias = rnd_value();
		m->load_seq = (uint32_t)rnd();
		up = (uint32_t)(rnd() % 5);
		m->unload_seq = rnd() % 2 ? 0 : m->load_seq + (up < UINT32_MAX - m->load_seq ? up : 0);
	}
	for (uint32_t i = 0; i < s->counters; i++)
		g->counters[i] = (struct prof_counter){ rnd_str(g), rnd_value() };

	g->parent = calloc(s->nodes + 1, sizeof(uint32_t));
	g->module = calloc(s->nodes + 1, sizeof(uint32_t));
	g->offset = calloc(s->nodes + 1, sizeof(uint64_t));
	g->counts = calloc((size_t)(s->nodes + 1) * (s->events + 1), sizeof(uint64_t));
	for (uint32_t i = 0; i < s->nodes; i++) {
		/* Mostly deep chains, sometimes a jump back to any ancestor. */
		g->parent[i] = i == 0 ? 0 : rnd() % 4 ? i - 1 - (uint32_t)(rnd() % (i < 4 ? i : 4))
						      : (uint32_t)(rnd() % i);
		g->module[i] = s->modules && rnd() % 8 ? (uint32_t)(rnd() % s->modules)
						      : PROF_NO_MODULE;
		g->offset[i] = rnd() % 3 ? rnd() % 100000 : rnd_value();
		for (uint32_t e = 0; e < s->events; e++)
			g->counts[(size_t)i * s->events + e] = rnd() % 3 ? 0 : rnd_value();
	}
	g->p.n_meta = s->meta;
	g->p.meta = g->meta;
	g->p.n_events = s->events;
	g->p.events = g->events;
	g->p.n_modules = s->modules;
	g->p.modules = g->modules;
	g->p.n_counters = s->counters;
	g->p.counters = g->counters;
	g->p.cct = (struct prof_cct){ s->nodes, s->events, g->parent, g->module,
				      g->offset, g->counts };
}

static void gen_free(struct gen *g)
{
	free(g->parent);
	free(g->module);
	free(g->offset);
	free(g->counts);
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* Returns NULL or the name of the first field that differs. */
static const char *prof_diff(const struct prof *a, const struct prof *b)
{
	if (b->version != PROF_VERSION || a->partial != b->partial)
		return "header";
	if (a->n_meta != b->n_meta || a->n_events != b->n_events ||
	    a->n_modules != b->n_modules || a->n_counters != b->n_counters)
		return "counts";
	for (size_t i = 0; i < a->n_meta; i++)
		if (strcmp(nz(a->meta[i].key), b->meta[i].key) ||
		    strcmp(nz(a->meta[i].value), b->meta[i].value))
			return "meta";
	for (size_t i = 0; i < a->n_events; i++) {
		const struct prof_event *x = &a->events[i], *y = &b->events[i];

		if (strcmp(nz(x->name), y->name) || strcmp(nz(x->requested), y->requested) ||
		    strcmp(nz(x->unit), y->unit) || x->period != y->period ||
		    x->freq != y->freq || x->random_mask != y->random_mask ||
		    x->weight != y->weight)
			return "events";
	}
	for (size_t i = 0; i < a->n_modules; i++) {
		const struct prof_module *x = &a->modules[i], *y = &b->modules[i];

		if (strcmp(nz(x->path), y->path) || x->build_id_len != y->build_id_len ||
		    (x->build_id_len && memcmp(x->build_id, y->build_id, x->build_id_len)) ||
		    (!x->build_id_len && y->build_id) || x->start != y->start ||
		    x->end != y->end || x->bias != y->bias || x->load_seq != y->load_seq ||
		    x->unload_seq != y->unload_seq)
			return "modules";
	}
	for (size_t i = 0; i < a->n_counters; i++)
		if (strcmp(nz(a->counters[i].name), b->counters[i].name) ||
		    a->counters[i].value != b->counters[i].value)
			return "counters";
	if (a->cct.n_nodes != b->cct.n_nodes || b->cct.n_events != a->n_events)
		return "cct size";
	for (uint32_t i = 0; i < a->cct.n_nodes; i++) {
		if (a->cct.parent[i] != b->cct.parent[i] || a->cct.module[i] != b->cct.module[i] ||
		    a->cct.offset[i] != b->cct.offset[i])
			return "cct nodes";
		for (size_t e = 0; e < a->n_events; e++)
			if (a->cct.counts[i * a->n_events + e] != b->cct.counts[i * a->n_events + e])
				return "cct counts";
	}
	return NULL;
}

/* What any successful parse must satisfy, whatever the input was. */
static bool prof_sane(const struct prof *p)
{
	const struct prof_cct *c = &p->cct;

	if (c->n_nodes && c->parent[0] != 0)
		return false;
	for (uint32_t i = 1; i < c->n_nodes; i++)
		if (c->parent[i] >= i)
			return false;
	for (uint32_t i = 0; i < c->n_nodes; i++)
		if (c->module[i] != PROF_NO_MODULE && c->module[i] >= p->n_modules)
			return false;
	for (size_t i = 0; i < p->n_modules; i++)
		if (p->modules[i].end < p->modules[i].start ||
		    p->modules[i].build_id_len > PROF_MAX_BUILD_ID || !p->modules[i].path)
			return false;
	for (size_t i = 0; i < p->n_meta; i++)
		if (!p->meta[i].key || !p->meta[i].value)
			return false;
	return c->n_events == p->n_events;
}

/* ---- files ---- */

static char dir[64];
static int dirfd_;

static int dir_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void dir_clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd_, e->d_name, 0);
	if (d)
		closedir(d);
}

static uint8_t *slurp(const char *name, size_t *len)
{
	static uint8_t buf[1 << 20];
	int fd = openat(dirfd_, name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	*len = n < 0 ? 0 : (size_t)n;
	return buf;
}

static int parse(const uint8_t *b, size_t len, struct prof_file **f, char *msg, size_t mlen)
{
	return prof_file_parse(b, len, f, msg, mlen);
}

/* ---- tests ---- */

static const struct shape shapes[] = {
	{ __LINE__, 0, 0, 0, 0, 0, false },
	{ __LINE__, 1, 1, 0, 1, 1, false },
	{ __LINE__, 2, 0, 1, 0, 0, true },
	{ __LINE__, 50, 1, 3, 5, 4, false },
	{ __LINE__, 1000, 2, 20, 20, 10, true },
	{ __LINE__, 20000, 3, 300, 32, 16, false },
	{ __LINE__, 5000, 8, 255, 3, 1, false },
};

static void test_round_trip(void)
{
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		const struct shape *s = &shapes[k];
		struct prof_file *f = NULL;
		struct gen g;
		char msg[256], path[128];
		int w, r;

		gen_make(&g, s);
		w = prof_write(&g.p, dirfd_, "rt.pmcp", 0644);
		snprintf(path, sizeof(path), "%s/rt.pmcp", dir);
		r = w ? w : prof_file_read(path, &f, msg, sizeof(msg));
		T_OK(w == 0 && r == 0, "line %d: write %d, read %d (%s)", s->line, w, r,
		     r ? msg : "");
		if (f) {
			const char *d = prof_diff(&g.p, prof_file_data(f));

			T_OK(!d, "line %d: %u nodes round trip (%s)", s->line, s->nodes,
			     d ? d : "identical");
		}
		T_OK(dir_entries() == 1, "line %d: only the profile in the directory", s->line);
		prof_file_free(f);
		dir_clean();
		gen_free(&g);
	}
}

/* NULL strings are written as "", and an empty build-id reads as NULL. */
static void test_null_strings(void)
{
	struct prof_event ev = { .name = "x" };
	struct prof_kv kv = { "k", NULL };
	struct prof_module mod = { .path = NULL, .build_id = (const uint8_t *)"ab", .build_id_len = 0 };
	struct prof p = { .n_meta = 1, .meta = &kv, .n_events = 1, .events = &ev,
			  .n_modules = 1, .modules = &mod };
	struct prof_file *f = NULL;
	const struct prof *q;
	char msg[256], path[128];
	int w = prof_write(&p, dirfd_, "null.pmcp", 0600);
	struct stat st;

	snprintf(path, sizeof(path), "%s/null.pmcp", dir);
	T_OK(w == 0 && prof_file_read(path, &f, msg, sizeof(msg)) == 0, "NULL strings written");
	q = prof_file_data(f);
	T_OK(q && !strcmp(q->events[0].requested, "") && !strcmp(q->meta[0].value, "") &&
	     !strcmp(q->modules[0].path, "") && q->modules[0].build_id == NULL,
	     "NULL strings read back as \"\", no build-id as NULL");
	T_OK(q && prof_meta_get(q, "k") && !prof_meta_get(q, "missing") &&
	     !prof_meta_get(NULL, "k") && !prof_meta_get(q, NULL), "prof_meta_get");
	T_OK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600 kept");
	prof_file_free(f);
	dir_clean();
}

/* Format 1.1: module images round-trip; a file without them reads with
 * none; the writer refuses a bad module index or size; the reader refuses
 * an image of a module that does not exist. */
static void test_images(void)
{
	static const uint8_t bytes[] = "\177ELF image bytes";
	struct prof_event ev = { .name = "e" };
	struct prof_module mods[2] = { { .path = "a" }, { .path = "linux-vdso.so.1" } };
	struct prof_image im = { 1, sizeof(bytes), bytes };
	struct prof p = { .n_events = 1, .events = &ev, .n_modules = 2, .modules = mods,
			  .n_images = 1, .images = &im };
	struct prof_file *f = NULL;
	const struct prof *q;
	char msg[256], path[128];

	snprintf(path, sizeof(path), "%s/img.pmcp", dir);
	T_OK(prof_write(&p, dirfd_, "img.pmcp", 0644) == 0 &&
	     prof_file_read(path, &f, msg, sizeof(msg)) == 0, "images: written and read");
	q = prof_file_data(f);
	T_OK(q && q->n_images == 1 && q->images[0].module == 1 &&
	     q->images[0].len == sizeof(bytes) && !memcmp(q->images[0].data, bytes, sizeof(bytes)),
	     "images: the bytes come back");
	prof_file_free(f);
	f = NULL;
	dir_clean();
	p.n_images = 0;
	T_OK(prof_write(&p, dirfd_, "img.pmcp", 0644) == 0 &&
	     prof_file_read(path, &f, msg, sizeof(msg)) == 0 && prof_file_data(f)->n_images == 0,
	     "images: optional (a 1.0 file has none)");
	prof_file_free(f);
	dir_clean();
	im.module = 2;
	p.n_images = 1;
	T_OK(prof_write(&p, dirfd_, "img.pmcp", 0644) == -EINVAL && dir_entries() == 0,
	     "images: writer refuses a module index out of range");
	im.module = 1;
	im.len = PROF_MAX_IMAGE + 1;
	T_OK(prof_write(&p, dirfd_, "img.pmcp", 0644) == -EINVAL && dir_entries() == 0,
	     "images: writer refuses an image over PROF_MAX_IMAGE");
	dir_clean();
}

/* The writer validates what it is given; nothing is left behind. */
static void test_writer_rejects(void)
{
	static const struct {
		int line;
		uint32_t node, parent, module;
		uint32_t build_id_len;
		uint64_t start, end;
		uint32_t load, unload;
		int err;
	} cases[] = {
		{ __LINE__, 2, 2, 0, 4, 0, 1, 1, 0, -EINVAL },		/* parent == self */
		{ __LINE__, 2, 3, 0, 4, 0, 1, 1, 0, -EINVAL },		/* parent after */
		{ __LINE__, 0, 1, 0, 4, 0, 1, 1, 0, -EINVAL },		/* root's parent */
		{ __LINE__, 1, 0, 1, 4, 0, 1, 1, 0, -EINVAL },		/* module index */
		{ __LINE__, 1, 0, 0, 65, 0, 1, 1, 0, -EINVAL },		/* build-id size */
		{ __LINE__, 1, 0, 0, 4, 5, 1, 1, 0, -EINVAL },		/* end < start */
		{ __LINE__, 1, 0, 0, 4, 0, 1, 3, 2, -EINVAL },		/* unload < load */
		{ __LINE__, 1, 0, 0, 64, 0, 1, 3, 3, 0 },		/* limits are fine */
		{ __LINE__, 1, 0, PROF_NO_MODULE, 4, 0, 1, 1, 0, 0 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint32_t parent[3] = { 0, 0, 1 }, module[3] = { PROF_NO_MODULE, 0, 0 };
		uint64_t offset[3] = { 0, 1, 2 }, counts[3] = { 0, 1, 1 };
		uint8_t bid[80] = { 0 };
		struct prof_event ev = { .name = "e" };
		struct prof_module mod = { "m", bid, cases[k].build_id_len, cases[k].start,
					   cases[k].end, 0, cases[k].load, cases[k].unload };
		struct prof p = { .n_events = 1, .events = &ev, .n_modules = 1, .modules = &mod,
				  .cct = { 3, 1, parent, module, offset, counts } };
		int err;

		parent[cases[k].node] = cases[k].parent;
		module[cases[k].node] = cases[k].module;
		err = prof_write(&p, dirfd_, "bad.pmcp", 0644);
		T_OK(err == cases[k].err && dir_entries() == (err == 0),
		     "line %d: writer returns %d (got %d)", cases[k].line, cases[k].err, err);
		dir_clean();
	}
	{
		struct prof p = { .cct = { 1, 2, (uint32_t[]){ 0 }, (uint32_t[]){ 0 },
					   (uint64_t[]){ 0 }, (uint64_t[]){ 0, 0 } } };

		T_OK(prof_write(&p, dirfd_, "bad.pmcp", 0644) == -EINVAL,
		     "cct.n_events must match n_events");
		T_OK(prof_write(NULL, dirfd_, "x", 0644) == -EINVAL &&
		     prof_write(&p, dirfd_, "", 0644) == -EINVAL, "NULL profile, empty name");
	}
}

static int small_file(struct gen *g, size_t *len, uint8_t **buf)
{
	static const struct shape s = { __LINE__, 12, 2, 2, 3, 2, false };
	int err;

	gen_make(g, &s);
	err = prof_write(&g->p, dirfd_, "small.pmcp", 0644);
	*buf = slurp("small.pmcp", len);
	dir_clean();
	return err;
}

static void test_exclusive(void)
{
	struct gen g, h;
	uint8_t *b, before[4096];
	size_t len, len2;
	int err;

	T_OK(small_file(&g, &len, &b) == 0 && len < sizeof(before), "small profile written");
	memcpy(before, b, len);
	T_OK(prof_write(&g.p, dirfd_, "x.pmcp", 0644) == 0, "first write");
	gen_free(&g);
	gen_make(&h, &shapes[3]);
	err = prof_write(&h.p, dirfd_, "x.pmcp", 0644);
	T_OK(err == -EEXIST, "existing name refused (%d)", err);
	b = slurp("x.pmcp", &len2);
	T_OK(len2 == len && !memcmp(b, before, len), "existing file untouched");
	T_OK(dir_entries() == 1, "no temp file left behind");
	dir_clean();

	/* A symlink planted where the profile goes: not followed, not replaced. */
	T_OK(symlinkat("target", dirfd_, "link.pmcp") == 0, "symlink planted");
	err = prof_write(&h.p, dirfd_, "link.pmcp", 0644);
	T_OK(err == -EEXIST, "planted symlink refused (%d)", err);
	T_OK(faccessat(dirfd_, "target", F_OK, 0) != 0, "symlink target not created");
	T_OK(dir_entries() == 1, "only the symlink in the directory");
	dir_clean();

	/* The temp goes beside the final name, in a directory that must exist. */
	err = prof_write(&h.p, dirfd_, "nodir/x.pmcp", 0644);
	T_OK(err == -ENOENT, "missing directory: %d", err);
	gen_free(&h);
}

static void test_fsize_limit(void)
{
	struct rlimit old, lim;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldsa;
	struct gen g;
	int err;

	gen_make(&g, &shapes[5]);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 1000;
	sigaction(SIGXFSZ, &ign, &oldsa);
	T_OK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "RLIMIT_FSIZE set to 1000 bytes");
	err = prof_write(&g.p, dirfd_, "big.pmcp", 0644);
	setrlimit(RLIMIT_FSIZE, &old);
	sigaction(SIGXFSZ, &oldsa, NULL);
	T_OK(err == -EFBIG, "file-size limit: -EFBIG (got %d)", err);
	T_OK(dir_entries() == 0, "file-size limit: no file left behind");
	dir_clean();
	gen_free(&g);
}

static volatile int handler_err = 1;
static struct prof *handler_prof;

static void on_signal(int sig)
{
	int saved = n_allocs;

	(void)sig;
	handler_err = prof_write(handler_prof, dirfd_, "sig.pmcp", 0644);
	if (n_allocs != saved)
		handler_err = -9999;
}

static void test_signal_handler(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct gen g;

	gen_make(&g, &shapes[4]);
	handler_prof = &g.p;
	sigaction(SIGUSR1, &sa, &old);
	raise(SIGUSR1);
	sigaction(SIGUSR1, &old, NULL);
	if (COUNT_MALLOC) {
		struct prof_file *f = NULL;
		char msg[256], path[128];
		int before = n_allocs;

		T_OK(handler_err == 0, "written from a signal handler without malloc (%d)",
		     handler_err);
		snprintf(path, sizeof(path), "%s/sig.pmcp", dir);
		prof_file_read(path, &f, msg, sizeof(msg));
		T_OK(f && n_allocs > before, "the allocation counter sees the reader's mallocs");
		prof_file_free(f);
	} else
		T_OK(handler_err == 0, "written from a signal handler (%d)", handler_err);
	T_OK(dir_entries() == 1, "signal handler: the profile is there");
	dir_clean();
	gen_free(&g);
}

static void test_truncation_and_flips(void)
{
	struct gen g;
	static uint8_t file[4096], copy[4096];
	uint8_t *b;
	size_t len;
	int bad = 0, detected = 0, header_missed = 0, insane = 0;
	char msg[256];

	small_file(&g, &len, &b);
	memcpy(file, b, len);
	gen_free(&g);
	for (size_t n = 0; n < len; n++) {
		struct prof_file *f = NULL;
		int err = parse(file, n, &f, msg, sizeof(msg));

		bad += err == 0 || !msg[0] || f;
		prof_file_free(f);
	}
	T_OK(bad == 0, "every truncation of a %zu-byte file is an error with a message", len);
	T_OK(parse(file, 20, &(struct prof_file *){ 0 }, msg, sizeof(msg)) == -PROF_ETRUNC &&
	     !strncmp(msg, "truncated: ", 11), "truncated header: %s", msg);
	T_OK(parse(file, len - 1, &(struct prof_file *){ 0 }, msg, sizeof(msg)) == -PROF_ETRUNC &&
	     strstr(msg, "bytes of data but the file has"), "truncated data: %s", msg);

	for (size_t bit = 0; bit < len * 8; bit++) {
		struct prof_file *f = NULL;
		int err;

		memcpy(copy, file, len);
		copy[bit / 8] ^= (uint8_t)(1u << bit % 8);
		err = parse(copy, len, &f, msg, sizeof(msg));
		if (err) {
			detected++;
			bad += !msg[0];
		} else {
			insane += !prof_sane(prof_file_data(f));
			header_missed += bit / 8 < PROF_HEADER_SIZE;
		}
		prof_file_free(f);
	}
	T_OK(bad == 0 && insane == 0, "%zu single-bit flips: %d detected, every other parse sane",
	     len * 8, detected);
	T_OK(header_missed == 0, "every header bit flip detected");
}

static void test_version_and_foreign(void)
{
	struct gen g;
	static uint8_t file[4096];
	uint8_t *b;
	size_t len;
	char msg[256];
	int err;

	small_file(&g, &len, &b);
	gen_free(&g);
	memcpy(file, b, len);
	file[8] = PROF_VERSION + 1;
	err = parse(file, len, &(struct prof_file *){ 0 }, msg, sizeof(msg));
	T_OK(err == -PROF_EVERSION && strstr(msg, "written by a newer pmcprof (format 2"),
	     "future version: %s", msg);
	file[8] = 0;
	err = parse(file, len, &(struct prof_file *){ 0 }, msg, sizeof(msg));
	T_OK(err == -PROF_ECORRUPT, "version 0: %s", msg);

	static const struct {
		int line;
		const char *bytes;
		size_t len;
	} foreign[] = {
		{ __LINE__, "\x7f" "ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0", 20 },
		{ __LINE__, "\x28\xb5\x2f\xfd\x24\x00\x01\x00\x00", 9 },	/* bare zstd */
		{ __LINE__, "hello, world\n", 13 },
		{ __LINE__, "\x89PMCPRG\n", 8 },
	};
	for (size_t k = 0; k < sizeof(foreign) / sizeof(foreign[0]); k++) {
		err = parse((const uint8_t *)foreign[k].bytes, foreign[k].len,
			    &(struct prof_file *){ 0 }, msg, sizeof(msg));
		T_OK(err == -PROF_EMAGIC && !strcmp(msg, "not a pmcprof profile"),
		     "line %d: foreign file: %s", foreign[k].line, msg);
	}
	err = prof_file_read("/nonexistent/x.pmcp", &(struct prof_file *){ 0 }, msg, sizeof(msg));
	T_OK(err == -ENOENT && msg[0], "missing file: %s", msg);
	err = prof_file_read("/dev/null", &(struct prof_file *){ 0 }, msg, sizeof(msg));
	T_OK(err == -EINVAL, "not a regular file: %s", msg);
}

/* ---- hand-made payloads: the reader's checks one by one ---- */

/* Wrap raw payload bytes into a file: header + zstd frame with checksum.
 * raw_size may lie, to test the header's bounds. */
static size_t wrap(uint8_t *out, size_t cap, const void *raw, size_t len, uint64_t raw_size)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t c;

	ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
	c = ZSTD_compress2(z, out + PROF_HEADER_SIZE, cap - PROF_HEADER_SIZE, raw, len);
	ZSTD_freeCCtx(z);
	if (ZSTD_isError(c))
		return 0;
	wrap_header(out, raw_size, c);
	return PROF_HEADER_SIZE + c;
}

/* Sections for a minimal valid profile, to splice hostile ones between. */
#define META0 "\1\1\0"
#define EVENTS1 "\2\x0c\1\1e\0\0\0\0\0\x05\0\0\0"		/* one event "e", period 5 */
#define MODS1 "\3\x0a\1\1m\0\0\x10\x10\0\1\0"		/* "m" [16,32) */
#define CNT0 "\5\1\0"
#define CCT3 "\4\x0c\3\1\1\0\1\1\0\x05\x02\0\2\3"	/* root, 2 children of m */
#define TL2 "\7\x0b\1\x0a\5\1\x10\0\2\1\2\1\2"	/* 2 samples, nodes 1 and 2 */

static const struct {
	int line;
	const char *raw;
	size_t len;
	int err;
	const char *msg;
} payloads[] = {
#define P(s) s, sizeof(s) - 1
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0), 0, "" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CNT0 CCT3), 0, "" },	/* any order */
	{ __LINE__, P(META0 "\x77\2xy" EVENTS1 MODS1 CCT3 CNT0), 0, "" },	/* unknown skipped */
	{ __LINE__, P(META0 META0 EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "appears twice" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CNT0), PROF_ECORRUPT, "no cct section" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\1"), PROF_ECORRUPT, "ends inside a section length" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\1\5"), PROF_ECORRUPT, "a section of 5 bytes" },
	{ __LINE__, P("\1\2\0\0" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "meta section has 1 unexplained" },
	{ __LINE__, P("\1\5\1\1k\0\0" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "value length 0 exceeds the 0 bytes" },
	{ __LINE__, P("\1\5\1\1k\0\x80" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "meta section ends inside value" },
	{ __LINE__, P("\1\6\1\1k\1\0\0" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "key is not a terminated" },
	{ __LINE__, P("\1\6\1\2k\0\0\0" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "key is not a terminated" },
	{ __LINE__, P("\1\6\1\x09k\0\0\0" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "key length 9 exceeds" },
	{ __LINE__, P("\1\3\x7f\0\0" EVENTS1 MODS1 CCT3 CNT0), PROF_ECORRUPT, "127 entries cannot fit" },
	{ __LINE__, P("\1\x0b\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f\0" EVENTS1 MODS1 CCT3 CNT0),
	  PROF_ECORRUPT, "entries does not fit 64 bits" },
	{ __LINE__, P(META0 EVENTS1 "\3\x0a\1\1m\0\x41\x10\x10\0\1\0" CCT3 CNT0),
	  PROF_ECORRUPT, "build-id of 65 bytes" },
	{ __LINE__, P(META0 EVENTS1 "\3\x0a\1\1m\0\0\x10\x10\0\2\1" CCT3 CNT0),
	  PROF_ECORRUPT, "unloaded (1) before loaded (2)" },
	{ __LINE__, P(META0 EVENTS1 "\3\x13\1\1m\0\0\x7f\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\0\1\0" CCT3 CNT0),
	  PROF_ECORRUPT, "range wraps" },
	{ __LINE__, P(META0 EVENTS1 "\3\x0e\1\1m\0\0\x10\x10\0\x80\x80\x80\x80\x10\0" CCT3 CNT0),
	  PROF_ECORRUPT, "load_seq 4294967296 does not fit 32 bits" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x0c\3\0\1\0\1\1\0\x05\x02\0\2\3" CNT0),
	  PROF_ECORRUPT, "node 1: parent delta 0" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x0c\3\1\3\0\1\1\0\x05\x02\0\2\3" CNT0),
	  PROF_ECORRUPT, "node 2: parent delta 3" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x0c\3\1\1\0\1\2\0\x05\x02\0\2\3" CNT0),
	  PROF_ECORRUPT, "node 2: module 1 of 1" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x0c\x10\1\1\0\1\1\0\x05\x02\0\2\3" CNT0),
	  PROF_ECORRUPT, "16 nodes cannot fit" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x10\xff\xff\xff\xff\x0f\1\1\0\1\1\0\x05\x02\0\2\3" CNT0),
	  PROF_ECORRUPT, "4294967295 nodes cannot fit" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x10\x80\x80\x80\x80\x10\1\1\0\1\1\0\x05\x02\0\2\3" CNT0),
	  PROF_ECORRUPT, "4294967296 nodes cannot fit" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\x0d\3\1\1\0\1\1\0\x05\x02\0\2\3\0" CNT0),
	  PROF_ECORRUPT, "cct section has 1 unexplained" },
	{ __LINE__, P(META0 EVENTS1 MODS1 "\4\1\0" CNT0), 0, "" },	/* no nodes */
	/* format 1.1: images (module varint, length varint, bytes) */
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\6\5\1\0\2EL"), 0, "" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\6\5\1\1\2EL"), PROF_ECORRUPT,
	  "image 0: module 1 of 1" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\6\5\1\0\3EL"), PROF_ECORRUPT,
	  "image of 3 bytes exceeds the 2 left" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\6\7\1\0\x81\x80\x40" "EL"), PROF_ECORRUPT,
	  "image 0: 1048577 bytes (limit 1048576)" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\6\4\x11\0\0\0"), PROF_ECORRUPT,
	  "images cannot fit" },
	/* format 1.2: the timeline (format, unit, origin, start, duration,
	 * lost, n, n time deltas, n keys); CCT3 counts nodes 1 and 2 twice
	 * and three times */
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 TL2), 0, "" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0b\2\x0a\5\1\x10\0\2\1\2\1\2"),
	  PROF_ECORRUPT, "timeline section of format 2" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0b\1\0\5\1\x10\0\2\1\2\1\2"),
	  PROF_ECORRUPT, "time unit of 0 ns" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0b\1\x0a\5\1\x10\0\2\1\2\1\3"),
	  PROF_ECORRUPT, "sample 1: node 3 of 3" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0d\1\x0a\5\1\x10\0\3\1\1\1\1\1\1"),
	  PROF_ECORRUPT, "sample 2: more samples of node 1, event 0 than the cct counts" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0b\1\x0a\5\1\1\0\2\1\2\1\2"),
	  PROF_ECORRUPT, "timeline sample 1 after the end" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0b\1\x0a\5\1\x10\0\x09\1\2\1\2"),
	  PROF_ECORRUPT, "9 samples cannot fit" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0c\1\x0a\5\1\x10\0\2\1\2\1\2\0"),
	  PROF_ECORRUPT, "timeline section has 1 unexplained" },
	{ __LINE__, P(META0 EVENTS1 MODS1 CCT3 CNT0 "\7\x0c\1\x0a\5\0\x80\2\0\2\x80\1\0\1"),
	  PROF_ECORRUPT, "timeline section ends inside sample context" },
#undef P
};

/* Format 1.2: a timeline written from records reads back as arrays; the
 * writer refuses records that do not match n or name no node. */
static void test_timeline(void)
{
	uint32_t parent[3] = { 0, 0, 1 }, module[3] = { PROF_NO_MODULE, PROF_NO_MODULE, PROF_NO_MODULE };
	uint64_t offset[3] = { 0, 1, 2 }, counts[6] = { 0, 0, 2, 1, 1, 0 };
	struct prof_event ev[2] = { { .name = "a" }, { .name = "b" } };
	uint8_t rec[5 * PROF_TIMELINE_RECORD_MAX];
	size_t len = 0;
	/* (dt, node, event): node 1 event 0 twice, node 1 event 1, node 2 event 0 */
	static const uint64_t smp[4][3] = { { 7, 1, 0 }, { 1000, 2, 0 }, { 0, 1, 1 }, { 300, 1, 0 } };
	for (size_t i = 0; i < 4; i++)
		len += prof_timeline_record(rec + len, smp[i][0], smp[i][1] * 2 + smp[i][2]);
	struct prof p = { .n_events = 2, .events = ev,
			  .cct = { 3, 2, parent, module, offset, counts },
			  .timeline = { .unit_ns = 1000, .origin_ns = 123456789, .start = 5,
					.end = 5 + 7 + 1000 + 300, .lost = 1, .n = 4, .records = rec,
					.records_len = len } };
	struct prof_file *f = NULL;
	char msg[256], path[128];

	snprintf(path, sizeof(path), "%s/tl.pmcp", dir);
	T_OK(prof_write(&p, dirfd_, "tl.pmcp", 0644) == 0 &&
	     prof_file_read(path, &f, msg, sizeof(msg)) == 0, "timeline: written and read (%s)", msg);
	const struct prof_timeline *t = f ? &prof_file_data(f)->timeline : NULL;
	T_OK(t && t->unit_ns == 1000 && t->origin_ns == 123456789 && t->start == 5 &&
	     t->end == 1312 && t->lost == 1 && t->n == 4, "timeline: scalars come back");
	bool same = t && t->n == 4;
	for (size_t i = 0, now = 5; same && i < 4; i++) {
		now += smp[i][0];
		same = t->time[i] == now && t->node[i] == smp[i][1] && t->event[i] == smp[i][2];
	}
	T_OK(same, "timeline: times (from the deltas), nodes and events come back");
	prof_file_free(f);
	dir_clean();
	p.timeline.n = 3;
	T_OK(prof_write(&p, dirfd_, "tl.pmcp", 0644) == -EINVAL && dir_entries() == 0,
	     "timeline: writer refuses records left over");
	p.timeline.n = 5;
	T_OK(prof_write(&p, dirfd_, "tl.pmcp", 0644) == -EINVAL && dir_entries() == 0,
	     "timeline: writer refuses records missing");
	p.timeline.n = 4;
	p.timeline.end = 100;
	T_OK(prof_write(&p, dirfd_, "tl.pmcp", 0644) == -EINVAL && dir_entries() == 0,
	     "timeline: writer refuses a sample after the end");
	p.timeline.end = 1312;
	len = prof_timeline_record(rec, 1, 3 * 2);	/* node 3 of 3 */
	p.timeline.n = 1;
	p.timeline.records_len = len;
	T_OK(prof_write(&p, dirfd_, "tl.pmcp", 0644) == -EINVAL && dir_entries() == 0,
	     "timeline: writer refuses a node out of range");
	p.timeline = (struct prof_timeline){ 0 };
	T_OK(prof_write(&p, dirfd_, "tl.pmcp", 0644) == 0 &&
	     prof_file_read(path, &f, msg, sizeof(msg)) == 0 &&
	     prof_file_data(f)->timeline.unit_ns == 0, "timeline: optional (unit 0: none)");
	prof_file_free(f);
	dir_clean();
}

static void test_hostile_payloads(void)
{
	static uint8_t file[8192];
	char msg[256];

	for (size_t k = 0; k < sizeof(payloads) / sizeof(payloads[0]); k++) {
		struct prof_file *f = NULL;
		size_t len = wrap(file, sizeof(file), payloads[k].raw, payloads[k].len,
				  payloads[k].len);
		int err = parse(file, len, &f, msg, sizeof(msg));

		T_OK(err == -payloads[k].err && strstr(msg, payloads[k].msg) &&
		     (err || prof_sane(prof_file_data(f))),
		     "line %d: %d \"%s\"", payloads[k].line, err, msg);
		prof_file_free(f);
	}

	/* The offsets of CCT3: root 0, node 1 at 5 in m, node 2 = node 1 + 1. */
	{
		static const char raw[] = META0 EVENTS1 MODS1 CCT3 CNT0;
		struct prof_file *f = NULL;
		size_t len = wrap(file, sizeof(file), raw, sizeof(raw) - 1, sizeof(raw) - 1);
		const struct prof *p;

		T_OK(parse(file, len, &f, msg, sizeof(msg)) == 0, "golden payload parses");
		p = prof_file_data(f);
		T_OK(p && p->cct.n_nodes == 3 && p->cct.module[0] == PROF_NO_MODULE &&
		     p->cct.parent[2] == 1 && p->cct.offset[1] == 5 && p->cct.offset[2] == 6 &&
		     p->cct.counts[1] == 2 && p->cct.counts[2] == 3 && p->events[0].period == 5 &&
		     p->modules[0].start == 16 && p->modules[0].end == 32,
		     "golden payload decodes to the documented values");
		prof_file_free(f);
	}

	/* Header lies about sizes. */
	{
		static const char raw[] = META0 EVENTS1 MODS1 CCT3 CNT0;
		static const struct {
			int line;
			uint64_t raw_size;
			int extra;
			const char *msg;
		} lies[] = {
			{ __LINE__, sizeof(raw) - 1, 1, "1 bytes after the data" },
			{ __LINE__, sizeof(raw) - 2, 0, "frame holds" },
			{ __LINE__, 1ull << 40, 0, "payload size 1099511627776 (limit" },
			{ __LINE__, 0, 0, "payload size 0" },
		};
		for (size_t k = 0; k < sizeof(lies) / sizeof(lies[0]); k++) {
			size_t len = wrap(file, sizeof(file), raw, sizeof(raw) - 1, lies[k].raw_size);
			int err = parse(file, len + lies[k].extra, &(struct prof_file *){ 0 },
					msg, sizeof(msg));

			T_OK(err == -PROF_ECORRUPT && strstr(msg, lies[k].msg),
			     "line %d: header lie: %s", lies[k].line, msg);
		}
	}
}

static void test_strerror(void)
{
	T_OK(!strcmp(prof_strerror(-PROF_EMAGIC), "not a pmcprof profile") &&
	     !strcmp(prof_strerror(PROF_ECORRUPT), "corrupt profile") &&
	     !strcmp(prof_strerror(-PROF_EVERSION), "written by a newer pmcprof") &&
	     !strcmp(prof_strerror(-PROF_ETRUNC), "truncated profile") &&
	     !strcmp(prof_strerror(-ENOENT), strerror(ENOENT)), "prof_strerror");
}

static int write_at(int dfd, const char *name, const void *b, size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	int bad = fd < 0 || write(fd, b, len) != (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return bad;
}

/* Seeds for tests/fuzz/corpus/profile: small files (the fuzzer parses them
 * as files) and raw payloads (it wraps those in a header and frame). */
static int write_corpus(const char *out)
{
	static const struct shape seeds[] = {
		{ __LINE__, 0, 0, 0, 0, 0, false },
		{ __LINE__, 3, 1, 1, 2, 1, false },
		{ __LINE__, 12, 2, 2, 3, 2, true },
		{ __LINE__, 40, 1, 4, 6, 3, false },
	};
	static uint8_t raw[1 << 16];
	int fd = open(out, O_DIRECTORY | O_RDONLY);
	int status = fd < 0;

	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]) && fd >= 0; k++) {
		struct gen g;
		char name[32];
		int f = -1;
		ssize_t len;
		size_t rlen;
		uint8_t file[8192];

		gen_make(&g, &seeds[k]);
		snprintf(name, sizeof(name), "seed-%zu.pmcp", k);
		status |= prof_write(&g.p, fd, name, 0644) != 0;
		gen_free(&g);
		f = openat(fd, name, O_RDONLY);
		len = f < 0 ? -1 : read(f, file, sizeof(file));
		if (f >= 0)
			close(f);
		rlen = len > PROF_HEADER_SIZE ? ZSTD_decompress(raw, sizeof(raw), file + PROF_HEADER_SIZE,
							(size_t)len - PROF_HEADER_SIZE) : 0;
		snprintf(name, sizeof(name), "seed-%zu.raw", k);
		status |= ZSTD_isError(rlen) || !rlen || write_at(fd, name, raw, rlen);
	}
	for (size_t k = 0; k < 3 && fd >= 0; k++) {
		char name[32];

		snprintf(name, sizeof(name), "handmade-%zu.raw", k);
		status |= write_at(fd, name, payloads[k].raw, payloads[k].len);
	}
	if (fd >= 0) {	/* format 1.1: an images section */
		static const char img[] = META0 EVENTS1 MODS1 CCT3 CNT0 "\6\5\1\0\2EL";

		status |= write_at(fd, "handmade-images.raw", img, sizeof(img) - 1);
	}
	if (fd >= 0) {	/* format 1.2: a timeline section */
		static const char tl[] = META0 EVENTS1 MODS1 CCT3 CNT0 TL2;

		status |= write_at(fd, "handmade-timeline.raw", tl, sizeof(tl) - 1);
	}
	if (fd >= 0)
		close(fd);
	return status;
}

/* The growing arrays of the collector and attach: contents kept across
 * growth, capacity doubled only when full; a mapping remapped larger. */
static void test_arrays(void)
{
	uint64_t *a = NULL;
	size_t cap = 0, n;
	bool ok = true;
	unsigned char *m;
	size_t bytes = 4096;

	for (n = 0; n < 1000 && ok; n++) {
		ok = prof_array_grow(&a, &cap, n, sizeof(*a)) == 0 && cap > n;
		if (ok)
			a[n] = n * 7;
	}
	for (size_t i = 0; i < n && ok; i++)
		ok = a[i] == i * 7;
	T_OK(ok && cap == 1024, "prof_array_grow: 1000 elements kept, capacity %zu", cap);
	T_OK(prof_array_grow(&a, &cap, 5, sizeof(*a)) == 0 && cap == 1024,
	     "prof_array_grow: room already there, nothing moves");
	T_OK(prof_array_resize(&a, 2000, sizeof(*a)) == 0 && a[999] == 999 * 7,
	     "prof_array_resize: contents kept");
	T_OK(prof_array_resize(&a, SIZE_MAX / 2, sizeof(*a)) == -ENOMEM && a[999] == 999 * 7,
	     "prof_array_resize: an impossible size fails, the array as it was");
	free(a);

	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		T_SKIP("mmap: %s", strerror(errno));
		return;
	}
	memset(m, 0x5a, bytes);
	T_OK(prof_map_resize(&m, &bytes, 4 * 4096) && bytes == 4 * 4096 && m[4095] == 0x5a &&
	     m[4 * 4096 - 1] == 0, "prof_map_resize: larger, contents kept, the rest zero");
	munmap(m, bytes);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);

	snprintf(dir, sizeof(dir), "%s/test-profile.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir) || (dirfd_ = open(dir, O_DIRECTORY | O_RDONLY)) < 0) {
		perror("test-profile: temp dir");
		return 1;
	}
	umask(022);
	test_round_trip();
	test_null_strings();
	test_writer_rejects();
	test_images();
	test_timeline();
	test_exclusive();
	test_fsize_limit();
	test_signal_handler();
	test_truncation_and_flips();
	test_version_and_foreign();
	test_hostile_payloads();
	test_strerror();
	test_arrays();
	dir_clean();
	close(dirfd_);
	rmdir(dir);
	return T_DONE();
}
