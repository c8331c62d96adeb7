/* Symbolization with elfutils libdwfl: one Dwfl per module (modules are
 * looked up by ELF address, so they must not share an address space),
 * inlined frames from the DIE scopes around an address, and the function
 * around an address from the module's ELF symbol table, read once into a
 * sorted array (a binary search per address, where dwfl_module_addrinfo
 * walked the table).  The outermost function is named as perf names it, by
 * its ELF symbol; inlined ones by their DWARF linkage name.  Names are
 * demangled with libiberty (C++ and Rust).  Only the load-map modules and
 * their debug files are ever opened, and only regular files. */
#include "config.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/symbolize.h"
#include "profile/profile.h"

/* A function symbol: [lo, hi) in the Dwfl's addresses.  key points into
 * libelf's string table until it is interned on first use. */
struct esym {
	GElf_Addr lo, hi;
	const char *key;
	const char *name;		/* demangled, interned on first use */
	uint8_t bind;			/* sort rank: global 0, weak 1, local 2 */
	bool dup;			/* a local whose name the module holds twice */
	bool sized;			/* st_size was not 0 */
	bool interned;
	bool plt;			/* a PLT entry: key is its target's name */
	uint32_t seq;			/* perf maps: line number */
};

struct smod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr elf_bias;
	bool dwarf;
	bool syms_read;
	bool perfmap;			/* sym is a perf map's (absolute addresses) */
	bool dups_done;			/* esym.dup is set */
	struct esym *sym;		/* sorted by lo, no two at one address */
	size_t n_sym;
	struct symcache *cache;		/* addresses already symbolized, or NULL */
	bool cache_dwarf;		/* its answers came with DWARF */
	bool cache_ro;			/* answers of a build-id no file here has */
	bool dq_timed_out;		/* libdw's debuginfod query ran out of time */
	char *lazy_path;		/* open only on a cache miss */
	struct cuindex *cus;		/* per compile unit: its functions' ranges */
	size_t n_cus, cap_cus;
	struct idx cu_idx;
	struct kallsyms *ks;		/* [kernel.kallsyms] (kallsyms.c), or NULL */
	bool ks_lazy;			/* the kernel: kallsyms read on a kept miss */
	/* the answers the profiles kept for its recorded build-id (one per
	 * profile directory that has them), read after the cache */
	struct symcache **kept;
	size_t n_kept;
	bool kept_dwarf;		/* they came with DWARF */
	/* keep_dir: every answer given, keyed by the recorded build-id */
	struct symcache *keep;
	uint8_t kbid[64];
	size_t kbid_len;
	bool keep_elf;			/* answers from the ELF symbols alone */
	size_t unnamed;			/* addresses neither kept nor in a file here */
	char *pmap_path;		/* perf map: where it was read (keep_dir) */
	uint8_t *pmap_hit;		/* [n_sym]: asked for (keep_dir) */
};

/* A compile unit's subprograms sorted by address, so that finding the
 * function around an address is a binary search instead of a walk over
 * the whole unit for every address. */
struct fnrange {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};
struct cuindex {
	Dwarf_Off off;
	struct fnrange *r;
	size_t n;
};

struct symtab {
	struct strpool *pool;
	char *debug_dirs;		/* user's, colon-separated, or NULL */
	char *debuginfo_path;		/* for dwfl_standard_find_debuginfo */
	char *cache_dir;
	char **kept_dirs;		/* PROFILE_DIR/symbols */
	size_t n_kept_dirs;
	char *archive_dir;		/* the profile directory notes name */
	char *keep_dir;
	const char *dinfod_urls;	/* DEBUGINFOD_URLS, or NULL */
	int dinfod_secs;		/* a query's time, all told */
	int dinfod_dead;		/* a server did not answer: ask no more (atomic) */
	Dwfl_Callbacks cb;
	struct smod *mod;
	size_t n, cap;
};

/* "a:b" with relative entries made absolute (against the cwd). */
static char *absolute_dirs(const char *dirs)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	size_t cap = 2 * strlen(dirs) + 1, n = 0;
	char *out = malloc(cap), *copy = strdup(dirs);
	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	out[0] = 0;
	for (char *save, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		size_t need = n + strlen(cwd) + strlen(d) + 3;
		if (need > cap) {
			char *o2 = realloc(out, cap = 2 * need);
			if (!o2) {
				free(out);
				free(copy);
				return NULL;
			}
			out = o2;
		}
		n += (size_t)sprintf(out + n, "%s%s%s%s", n ? ":" : "", d[0] == '/' ? "" : cwd,
				     d[0] == '/' ? "" : "/", d);
	}
	free(copy);
	return out;
}

#define KEPT_SUBDIR "symbols"

/* The kept-answer directories of the profiles' directories, and keep_dir. */
static int kept_dirs_new(struct symtab *st, const struct symtab_opts *o)
{
	if (o->keep_dir && *o->keep_dir && !(st->keep_dir = strdup(o->keep_dir)))
		return -ENOMEM;
	if (o->n_profile_dirs && !(st->kept_dirs = calloc(o->n_profile_dirs, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < o->n_profile_dirs; i++) {
		if (asprintf(&st->kept_dirs[i], "%s/" KEPT_SUBDIR, o->profile_dirs[i]) < 0)
			return -ENOMEM;
		st->n_kept_dirs++;
	}
	if (o->n_profile_dirs && !(st->archive_dir = strdup(o->profile_dirs[0])))
		return -ENOMEM;
	return 0;
}

struct symtab *symtab_new(const struct symtab_opts *o)
{
	struct symtab *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	elf_version(EV_CURRENT);	/* before our own elf_begin (build-id notes) */
	st->pool = o->pool;
	/* libdwfl looks up build-ids only under absolute roots */
	if (o->debug_dirs && *o->debug_dirs && !(st->debug_dirs = absolute_dirs(o->debug_dirs))) {
		free(st);
		return NULL;
	}
	if (o->cache_dir && *o->cache_dir && !(st->cache_dir = strdup(o->cache_dir))) {
		free(st->debug_dirs);
		free(st);
		return NULL;
	}
	if (kept_dirs_new(st, o)) {
		symtab_free(st);
		return NULL;
	}
	const char *dirs = st->debug_dirs;
	/* user dirs first, then libdwfl's default ":.debug:/usr/lib/debug" */
	if (asprintf(&st->debuginfo_path, "%s%s:.debug:/usr/lib/debug", dirs ? dirs : "",
		     dirs ? ":" : "") < 0) {
		st->debuginfo_path = NULL;
		symtab_free(st);
		return NULL;
	}
	/* debuginfod through libdw's own client (and ours, for the reason
	 * when it finds nothing), each query cut at DEBUGINFOD_TIMEOUT
	 * seconds all told (default 5), and none after a server did not
	 * answer: a report stays responsive */
	const char *u = getenv("DEBUGINFOD_URLS"), *t = getenv("DEBUGINFOD_TIMEOUT");
	st->dinfod_urls = u && *u ? u : NULL;
	st->dinfod_secs = t && atoi(t) > 0 ? (atoi(t) < 300 ? atoi(t) : 300) : 5;
	st->cb.find_elf = dwfl_build_id_find_elf;
	st->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	st->cb.section_address = dwfl_offline_section_address;
	st->cb.debuginfo_path = &st->debuginfo_path;
	return st;
}

static void keep_perfmap(struct symtab *st, struct smod *m);

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		struct smod *m = &st->mod[i];
		if (m->cache && st->cache_dir)
			symcache_save(m->cache, st->pool, st->cache_dir);	/* best effort */
		symcache_free(m->cache);
		/* a profile's answers are as readable as the profile (umask) */
		if (m->keep)
			symcache_save_mode(m->keep, st->pool, st->keep_dir, 0666, 0777);
		symcache_free(m->keep);
		for (size_t k = 0; k < m->n_kept; k++)
			symcache_free(m->kept[k]);
		free(m->kept);
		if (m->pmap_hit && st->keep_dir)
			keep_perfmap(st, m);
		FREE_EACH(m->pmap_hit, m->pmap_path, m->lazy_path, m->sym);
		kallsyms_free(m->ks);
		for (size_t k = 0; k < m->n_cus; k++)
			free(m->cus[k].r);
		free(m->cus);
		idx_free(&m->cu_idx);
		if (m->dwfl)
			dwfl_end(m->dwfl);
	}
	for (size_t i = 0; i < st->n_kept_dirs; i++)
		free(st->kept_dirs[i]);
	FREE_EACH(st->kept_dirs, st->cache_dir, st->archive_dir, st->keep_dir, st->mod,
		  st->debug_dirs, st->debuginfo_path, st);
}

static void hex(char *out, size_t outlen, const uint8_t *b, size_t n)
{
	size_t k = 0;
	out[0] = 0;
	for (size_t i = 0; i < n && k + 3 <= outlen; i++)
		k += (size_t)snprintf(out + k, outlen - k, "%02x", b[i]);
}

/* Open path read-only if it is a regular file: never block on a FIFO or
 * read a device named in an untrusted profile. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat sb;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* ---- debuginfod ---- */

/* libdebuginfod is opened only when DEBUGINFOD_URLS is set (as libdw
 * does): it brings libcurl and its TLS libraries, whose loading alone
 * would cost every report a few milliseconds. */
static struct {
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*end)(debuginfod_client *);
} dfn;
static pthread_once_t dfn_once = PTHREAD_ONCE_INIT;

static void dfn_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
	*(void **)&dfn.begin = dlsym(h, "debuginfod_begin");
	*(void **)&dfn.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&dfn.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&dfn.set_user_data = dlsym(h, "debuginfod_set_user_data");
	*(void **)&dfn.get_user_data = dlsym(h, "debuginfod_get_user_data");
	*(void **)&dfn.end = dlsym(h, "debuginfod_end");
	if (!dfn.begin || !dfn.find_debuginfo || !dfn.set_progressfn || !dfn.set_user_data ||
	    !dfn.get_user_data || !dfn.end)
		dfn.begin = NULL;	/* unusable: as if absent */
}

/* Whether libdebuginfod could be loaded. */
static bool dfn_ok(void)
{
	pthread_once(&dfn_once, dfn_load);
	return dfn.begin != NULL;
}

/* A query's deadline, checked by the client's progress callback (called
 * about once a second while it waits): nonzero cancels. */
struct dquery {
	struct timespec end;
	bool timed_out;
};

static int dq_progress(debuginfod_client *c, long a, long b)
{
	struct dquery *q = dfn.get_user_data(c);
	struct timespec now;
	(void)a;
	(void)b;
	if (!q)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > q->end.tv_sec ||
	    (now.tv_sec == q->end.tv_sec && now.tv_nsec >= q->end.tv_nsec)) {
		q->timed_out = true;
		return 1;
	}
	return 0;
}

static void dq_start(struct symtab *st, debuginfod_client *c, struct dquery *q)
{
	clock_gettime(CLOCK_MONOTONIC, &q->end);
	if (!__atomic_load_n(&st->dinfod_dead, __ATOMIC_RELAXED))
		q->end.tv_sec += st->dinfod_secs;
	q->timed_out = false;
	dfn.set_progressfn(c, dq_progress);
	dfn.set_user_data(c, q);
}

/* The debug file of build-id bid from the debuginfod servers: its
 * descriptor (path into out), or -1 with why it is not there in why. */
static int dinfod_fetch(struct symtab *st, const uint8_t *bid, size_t n, char *out, size_t len,
			char *why, size_t wlen)
{
	why[0] = 0;
	if (!st->dinfod_urls || !bid || !n)
		return -1;
	if (__atomic_load_n(&st->dinfod_dead, __ATOMIC_RELAXED)) {
		snprintf(why, wlen, "debuginfod (%s) did not answer earlier: not asked again",
			 st->dinfod_urls);
		return -1;
	}
	debuginfod_client *c = dfn_ok() ? dfn.begin() : NULL;
	if (!c) {
		snprintf(why, wlen, "debuginfod: no client (libdebuginfod.so.1: %s)",
			 dfn.begin ? strerror(errno) : "not loaded");
		return -1;
	}
	struct dquery q;
	char *path = NULL;
	dq_start(st, c, &q);
	int fd = dfn.find_debuginfo(c, bid, (int)n, &path);
	dfn.end(c);
	char h[130];
	hex(h, sizeof(h), bid, n);
	if (fd >= 0) {
		snprintf(out, len, "%s", path ? path : "debuginfod");
	} else if (q.timed_out) {
		__atomic_store_n(&st->dinfod_dead, 1, __ATOMIC_RELAXED);
		snprintf(why, wlen, "debuginfod (%s) did not answer within %d s: not asked again "
			 "(DEBUGINFOD_TIMEOUT)", st->dinfod_urls, st->dinfod_secs);
	} else if (fd == -ENOENT) {
		snprintf(why, wlen, "debuginfod (%s) has no debug info for build-id %s",
			 st->dinfod_urls, h);
	} else {
		/* refused, unreachable, a bad URL: the same for every module */
		__atomic_store_n(&st->dinfod_dead, 1, __ATOMIC_RELAXED);
		snprintf(why, wlen, "debuginfod (%s) did not answer: %s; not asked again",
			 st->dinfod_urls, strerror(-fd));
	}
	free(path);
	return fd;
}

/* Report path into a fresh Dwfl; fills m.  Returns 0, or -errno / -EIO. */
static int report(struct symtab *st, struct smod *m, const char *path, int fd)
{
	Dwfl *d = dwfl_begin(&st->cb);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	/* libdw asks debuginfod itself (DEBUGINFOD_URLS) when it finds no
	 * debug info here: under our deadline */
	struct dquery q;
	debuginfod_client *dc = st->dinfod_urls && dfn_ok() ? dwfl_get_debuginfod_client(d) : NULL;
	if (dc)
		dq_start(st, dc, &q);
	dwfl_report_begin(d);
	Dwfl_Module *mod = dwfl_report_elf(d, path, path, fd, 0, false);
	dwfl_report_end(d, NULL, NULL);
	if (!mod) {
		close(fd);	/* libdwfl consumes fd only on success */
		dwfl_end(d);
		return -EIO;
	}
	m->dwfl = d;
	m->mod = mod;
	if (!dwfl_module_getelf(mod, &m->elf_bias)) {
		dwfl_end(d);
		m->dwfl = NULL;
		m->mod = NULL;
		return -EIO;
	}
	Dwarf_Addr b;
	m->dwarf = dwfl_module_getdwarf(mod, &b) != NULL;
	if (dc) {
		dfn.set_user_data(dc, NULL);	/* q goes out of scope */
		if ((m->dq_timed_out = q.timed_out))
			__atomic_store_n(&st->dinfod_dead, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Whether m's debug info, not in its own file, came from debuginfod. */
static bool from_debuginfod(struct smod *m)
{
	const char *dbg = NULL;
	if (!m->mod || !m->dwarf)
		return false;
	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, NULL, &dbg);
	/* libdwfl names no file for what debuginfod gave it */
	const char *cp = getenv("DEBUGINFOD_CACHE_PATH");
	return !dbg || strstr(dbg, "/debuginfod_client/") ||
	       (cp && *cp && !strncmp(dbg, cp, strlen(cp)));
}

/* A module opened without debug info: ask debuginfod (once more, for the
 * reason libdw's own query found nothing) and use its debug file if it
 * has one.  why: the reason there is none. */
static void dinfod_debug(struct symtab *st, struct smod *m, const uint8_t *bid, size_t n,
			 char *dbg, size_t dlen, char *why, size_t wlen)
{
	why[0] = dbg[0] = 0;
	if (m->dwarf || !st->dinfod_urls || !bid || !n)
		return;
	if (m->dq_timed_out) {
		snprintf(why, wlen, "debuginfod (%s) did not answer within %d s: not asked again "
			 "(DEBUGINFOD_TIMEOUT)", st->dinfod_urls, st->dinfod_secs);
		return;
	}
	int dfd = dinfod_fetch(st, bid, n, dbg, dlen, why, wlen);
	if (dfd < 0)
		return;
	struct smod keep = *m;
	m->dwfl = NULL;
	m->mod = NULL;
	if (report(st, m, dbg, dfd) == 0 && m->dwarf) {
		dwfl_end(keep.dwfl);
		return;
	}
	if (m->dwfl)
		dwfl_end(m->dwfl);
	m->dwfl = keep.dwfl;
	m->mod = keep.mod;
	m->elf_bias = keep.elf_bias;
	m->dwarf = keep.dwarf;
	snprintf(why, wlen, "its debug file from debuginfod (%.400s) is not usable", dbg);
	dbg[0] = 0;
}

static size_t file_build_id(int fd, uint8_t out[64], bool *debug, char *link, size_t len);

/* Whether the .gnu_debuglink file name of the module at path exists where
 * libdwfl looks for it: beside it, in .debug/ there, under each debug
 * root (the user's, then /usr/lib/debug) with the module's directory. */
static bool debuglink_exists(struct symtab *st, const char *path, const char *link)
{
	if (!path || !link[0] || strchr(link, '/'))
		return false;
	const char *sl = strrchr(path, '/');
	int dl = sl ? (int)(sl - path) : 0;
	char roots[4096], cand[8400];
	struct stat sb;
	snprintf(cand, sizeof(cand), "%.*s/%s", dl, path, link);
	if (strcmp(cand, path) && !stat(cand, &sb) && S_ISREG(sb.st_mode))
		return true;
	snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dl, path, link);
	if (!stat(cand, &sb) && S_ISREG(sb.st_mode))
		return true;
	snprintf(roots, sizeof(roots), "%s%s/usr/lib/debug", st->debug_dirs ? st->debug_dirs : "",
		 st->debug_dirs ? ":" : "");
	for (char *save, *r = strtok_r(roots, ":", &save); r; r = strtok_r(NULL, ":", &save)) {
		snprintf(cand, sizeof(cand), "%s%.*s/%s", r, dl, path, link);
		if (!stat(cand, &sb) && S_ISREG(sb.st_mode))
			return true;
		snprintf(cand, sizeof(cand), "%s/%s", r, link);
		if (!stat(cand, &sb) && S_ISREG(sb.st_mode))
			return true;
	}
	return false;
}

/* A debug file for this build-id under a debug root: ROOT/.build-id/xx/rest.debug. */
static int find_by_build_id(struct symtab *st, const uint8_t *bid, size_t n, char *out, size_t len)
{
	if (!bid || n < 2)
		return -ENOENT;
	char h[130];
	hex(h, sizeof(h), bid, n);
	char roots[4096];
	snprintf(roots, sizeof(roots), "%s%s/usr/lib/debug", st->debug_dirs ? st->debug_dirs : "",
		 st->debug_dirs ? ":" : "");
	for (char *save, *r = strtok_r(roots, ":", &save); r; r = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/.build-id/%.2s/%s.debug", r, h, h + 2);
		int fd = open_regular(out);
		if (fd >= 0)
			return fd;
	}
	return -ENOENT;
}

static bool find_by_build_id_exists(struct symtab *st, const uint8_t *bid, size_t n)
{
	char path[4200];
	int fd = find_by_build_id(st, bid, n, path, sizeof(path));
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool own_vdso_matches(const uint8_t *own, const uint8_t *bid, size_t n, size_t *len);

static bool same_build_id(Dwfl_Module *mod, const uint8_t *bid, size_t n, char *have, size_t len)
{
	const unsigned char *bits;
	GElf_Addr va;
	int k = dwfl_module_build_id(mod, &bits, &va);
	if (k <= 0) {
		snprintf(have, len, "none");
		return false;
	}
	hex(have, len, bits, (size_t)k);
	return (size_t)k == n && memcmp(bits, bid, n) == 0;
}

int symtab_add(struct symtab *st)
{
	if (st->n >= INT_MAX || vec_reserve(&st->mod, &st->cap, st->n + 1, sizeof(*st->mod)))
		return -ENOMEM;
	return (int)st->n++;
}

static int load_image(struct symtab *st, struct smod *m, const char *path, const uint8_t *img,
		      size_t len, const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev);

int symtab_load(struct symtab *st, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev)
{
	int h = symtab_add(st);
	int e = h < 0 ? h : symtab_open(st, h, path, bid, bid_len, msg, len, sev);
	return e ? e : h;
}

static int open_module(struct symtab *st, int h, const char *path, const uint8_t *bid,
		       size_t bid_len, char *msg, size_t len, enum ana_severity *sev);
static int read_syms(struct smod *m);

/* A module opened also has its symbol table read and sorted, on this
 * thread: a big binary's table takes as long as some modules' DWARF. */
static int with_syms(struct smod *m, int e)
{
	if (!e && m->mod && !m->syms_read && read_syms(m))
		return -ENOMEM;
	return e;
}

int symtab_open(struct symtab *st, int h, const char *path, const uint8_t *bid, size_t bid_len,
		char *msg, size_t len, enum ana_severity *sev)
{
	return with_syms(&st->mod[h], open_module(st, h, path, bid, bid_len, msg, len, sev));
}

/* The answers kept for bid (of kind) in each profile directory that has
 * them, added to m->kept.  Whether there are any. */
static bool kept_open(struct symtab *st, struct smod *m, const uint8_t *bid, size_t n,
		      const char *kind)
{
	if (!bid || !n)
		return false;
	for (size_t i = 0; i < st->n_kept_dirs; i++) {
		struct symcache *c = symcache_open(st->kept_dirs[i], bid, n, kind);
		struct symcache **k = c ? realloc(m->kept, (m->n_kept + 1) * sizeof(*k)) : NULL;
		if (!k) {
			symcache_free(c);
			continue;
		}
		m->kept = k;
		m->kept[m->n_kept++] = c;
		m->kept_dwarf = !strcmp(kind, "sym");
	}
	return m->n_kept > 0;
}

/* What keep_dir's answers for m are keyed by: the recorded build-id, else
 * the file's own. */
static void keep_key(struct symtab *st, struct smod *m, const uint8_t *bid, size_t n)
{
	(void)st;
	if (bid && n && n <= sizeof(m->kbid)) {
		memcpy(m->kbid, bid, n);
		m->kbid_len = n;
	}
}

/* The fix a note offers for a module nothing here can name. */
static void archive_hint(struct symtab *st, char *msg, size_t len)
{
	size_t k = strlen(msg);
	snprintf(msg + k, len - k, " (its names are not kept in the profile: `pmcprof archive %s` "
		 "on the machine that recorded it keeps them)",
		 st->archive_dir ? st->archive_dir : "PROFILE_DIR");
}

/* A module whose file is gone or changed, with no debug file of its
 * build-id: the answers kept for the recorded build-id, the profile's,
 * else the user's symbol cache (build-ids name contents: an old build's
 * answers stay right for its profiles).  Fills msg; false if none. */
static bool from_kept(struct symtab *st, struct smod *m, const char *path, const char *why,
		      bool fd_changed, const uint8_t *bid, size_t n, char *msg, size_t len,
		      enum ana_severity *sev)
{
	if (!bid || !n)
		return false;
	/* a file here that is another build is worth a warning; one that is
	 * not here (another machine) is what kept names are for */
	enum ana_severity changed = fd_changed ? ANA_NOTE_WARN : ANA_NOTE_INFO;
	if (kept_open(st, m, bid, n, "sym") || kept_open(st, m, bid, n, "elfsym")) {
		snprintf(msg, len, "%s: %s; named from the names kept in the profile directory%s",
			 path, why, m->kept_dwarf ? "" : " (no source lines: it had no debug info)");
		*sev = changed;
		return true;
	}
	if (st->cache_dir && ((m->cache = symcache_open(st->cache_dir, bid, n, "sym")) ||
			      (m->cache = symcache_open(st->cache_dir, bid, n, "elfsym")))) {
		m->cache_ro = true;	/* nothing opened: no answer to add */
		snprintf(msg, len, "%s: %s; named from the symbol cache (%s)", path, why,
			 st->cache_dir);
		*sev = changed;
		return true;
	}
	return false;
}

/* A module whose file is gone or changed, with no debug file of its
 * build-id here and no kept answers: debuginfod's debug file.  Fills msg;
 * false (dwhy: why) if none. */
static bool from_dinfod(struct symtab *st, struct smod *m, const char *path, const char *why,
			const uint8_t *bid, size_t n, char *dwhy, size_t wlen, char *msg, size_t len,
			enum ana_severity *sev)
{
	char dbg[4200];
	int dfd = dinfod_fetch(st, bid, n, dbg, sizeof(dbg), dwhy, wlen);
	if (dfd < 0)
		return false;
	if (report(st, m, dbg, dfd)) {
		snprintf(dwhy, wlen, "its debug file from debuginfod (%.400s) is not usable", dbg);
		return false;
	}
	snprintf(msg, len, "%s: %s; symbolized from debuginfod (%s)", path, why, dbg);
	*sev = ANA_NOTE_INFO;
	return true;
}

/* The kernel: this machine's kallsyms when it is the recorded kernel's,
 * else the kernel symbols kept in the profile (a guest's, another
 * machine's). */
static int open_kernel(struct symtab *st, struct smod *m, const uint8_t *bid, size_t bid_len,
		       char *msg, size_t len, enum ana_severity *sev)
{
	keep_key(st, m, bid, bid ? bid_len : 0);
	/* kept answers name the sampled addresses as this kernel's own would
	 * (same build-id) or better: kallsyms is read only on a miss */
	if (!st->keep_dir && kept_open(st, m, bid, bid ? bid_len : 0, "sym")) {
		m->ks_lazy = true;
		return 0;
	}
	if (!(m->ks = kallsyms_load(NULL, NULL, bid, bid ? bid_len : 0, st->cache_dir, msg, len, sev)))
		return -ENOMEM;
	if (kallsyms_usable(m->ks))
		return 0;
	if (kept_open(st, m, bid, bid ? bid_len : 0, "sym")) {
		snprintf(msg, len, "[kernel.kallsyms]: kernel frames named from the kernel symbols "
			 "kept in the profile directory (this machine's kallsyms is not the recorded "
			 "kernel's, or hides its addresses)");
		*sev = ANA_NOTE_INFO;
	} else if (msg[0]) {
		archive_hint(st, msg, len);
	}
	return 0;
}

/* What a module's file says of itself, before it is opened for real. */
struct probe {
	int fd;				/* open_regular's */
	uint8_t fbid[64];		/* the file's own build-id */
	size_t fbid_len;
	bool debug;			/* DWARF in it, or debug info to be found */
	bool own;			/* DWARF in the file itself */
	bool match;			/* its build-id is the recorded one (or none was) */
};

/* Open path and read its build-id, where a cache or kept answers could
 * spare opening it for real (they are keyed by the file's own build-id,
 * equal to the recorded one, if any); the module's keep key. */
static void probe_file(struct symtab *st, struct smod *m, const char *path, const uint8_t *bid,
		       size_t bid_len, struct probe *pr)
{
	char link[256] = "";
	pr->fd = open_regular(path);
	if (pr->fd >= 0 && (st->cache_dir || st->n_kept_dirs || st->keep_dir || st->dinfod_urls) &&
	    (pr->fbid_len = file_build_id(pr->fd, pr->fbid, &pr->debug, link, sizeof(link))) &&
	    !(pr->own = pr->debug) &&
	    (find_by_build_id_exists(st, pr->fbid, pr->fbid_len) || debuglink_exists(st, path, link)))
		pr->debug = true;
	/* debuginfod may have what is not here: ELF-only answers wait */
	if (st->dinfod_urls && !__atomic_load_n(&st->dinfod_dead, __ATOMIC_RELAXED))
		pr->debug = true;
	pr->match = pr->fbid_len && (!bid || !bid_len ||
				     (bid_len == pr->fbid_len && !memcmp(bid, pr->fbid, pr->fbid_len)));
	if (bid && bid_len)
		keep_key(st, m, bid, bid_len);
	else if (pr->match)
		keep_key(st, m, pr->fbid, pr->fbid_len);
}

/* The note of a module symbolized from its ELF symbols alone. */
static void note_elf_only(const char *path, const char *more, char *msg, size_t len,
			  enum ana_severity *sev)
{
	snprintf(msg, len, "%s: no debug info (stripped?); functions from its ELF symbol table, "
		 "no source lines%s%s", path, more[0] ? "; " : "", more);
	*sev = ANA_NOTE_WARN;
}

/* Answers without opening the file: DWARF answers are the best there are;
 * ELF-only ones serve only a module that has no debug info to be found.
 * The user's cache, then the profile's kept answers; the file itself on a
 * miss (lazy_path).  1 if so, 0 if the file must be opened, -ENOMEM. */
static int open_answers(struct symtab *st, struct smod *m, const char *path, struct probe *pr,
			char *msg, size_t len, enum ana_severity *sev)
{
	if (pr->match)
		(void)(kept_open(st, m, pr->fbid, pr->fbid_len, "sym") ||
		       (!pr->debug && kept_open(st, m, pr->fbid, pr->fbid_len, "elfsym")));
	bool cached = pr->match && st->cache_dir &&
		((m->cache_dwarf = true,
		  m->cache = symcache_open(st->cache_dir, pr->fbid, pr->fbid_len, "sym")) ||
		 (!pr->debug && (m->cache_dwarf = false,
				 m->cache = symcache_open(st->cache_dir, pr->fbid, pr->fbid_len, "elfsym"))));
	if (!cached && !m->n_kept)
		return 0;
	close(pr->fd);
	if (!(m->lazy_path = strdup(path)))
		return -ENOMEM;
	bool dwarf = cached ? m->cache_dwarf || (m->n_kept && m->kept_dwarf) : m->kept_dwarf;
	if (!dwarf)	/* as when it was opened */
		note_elf_only(path, "", msg, len, sev);
	/* kept answers: what opening it finds goes to the cache as usual */
	if (!cached && st->cache_dir && (m->kept_dwarf || !pr->debug)) {
		m->cache_dwarf = m->kept_dwarf;
		m->cache = symcache_new(pr->fbid, pr->fbid_len, m->kept_dwarf ? "sym" : "elfsym");
	}
	return 1;
}

/* The file here is not the recorded one (why; changed: another build of
 * it): the profile's kept answers or debuginfod's, else a note that its
 * addresses are shown as [base+0xOFF]. */
static void open_elsewhere(struct symtab *st, struct smod *m, const char *path, const char *why,
			   bool changed, const uint8_t *bid, size_t bid_len, char *msg, size_t len,
			   enum ana_severity *sev)
{
	char dwhy[700] = "";
	if (from_kept(st, m, path, why, changed, bid, bid_len, msg, len, sev) ||
	    from_dinfod(st, m, path, why, bid, bid_len, dwhy, sizeof(dwhy), msg, len, sev))
		return;
	snprintf(msg, len, "%s: %s; %sshown as [%s+0xOFF]%s%s", path, why,
		 changed ? "not symbolized, " : "", strrchr(path, '/') + 1, dwhy[0] ? "; " : "", dwhy);
	archive_hint(st, msg, len);
	*sev = ANA_NOTE_WARN;
}

/* No usable file at path (fd: open_regular's error): its debug file by
 * build-id, else elsewhere. */
static void open_missing(struct symtab *st, struct smod *m, const char *path, int fd,
			 const uint8_t *bid, size_t bid_len, char *msg, size_t len,
			 enum ana_severity *sev)
{
	char dbg[4200];
	const char *why = fd == -EINVAL ? "not a regular file" : strerror(-fd);
	int dfd = find_by_build_id(st, bid, bid_len, dbg, sizeof(dbg));
	if (dfd >= 0 && report(st, m, dbg, dfd) == 0)
		snprintf(msg, len, "%s: %s; symbolized from %s", path, why, dbg);
	else
		open_elsewhere(st, m, path, why, false, bid, bid_len, msg, len, sev);
}

/* The file was opened (dwfl) but has another build-id (have) than the
 * recorded one: its debug file by the recorded build-id, else elsewhere. */
static void open_changed(struct symtab *st, struct smod *m, const char *path, const char *have,
			 const uint8_t *bid, size_t bid_len, char *msg, size_t len,
			 enum ana_severity *sev)
{
	char want[130], dbg[4200], why[400];
	hex(want, sizeof(want), bid, bid_len);
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
	m->dwarf = false;
	int dfd = find_by_build_id(st, bid, bid_len, dbg, sizeof(dbg));
	if (dfd >= 0 && report(st, m, dbg, dfd) == 0) {
		snprintf(msg, len, "%s: binary changed since the run (build-id %s, recorded %s); "
			 "symbolized from %s", path, have, want, dbg);
		*sev = ANA_NOTE_WARN;
		return;
	}
	snprintf(why, sizeof(why), "binary changed since the run (build-id %s, recorded %s)", have,
		 want);
	open_elsewhere(st, m, path, why, true, bid, bid_len, msg, len, sev);
}

/* The file opened as it is: debug info from debuginfod where it lacks
 * it, the note of what it has, and a cache for its answers (which
 * depend on its build-id only: the next report need not open it). */
static void open_opened(struct symtab *st, struct smod *m, const char *path,
			const struct probe *pr, const uint8_t *bid, size_t bid_len, char *msg,
			size_t len, enum ana_severity *sev)
{
	char ddbg[4200], dwhy[700] = "";
	dinfod_debug(st, m, bid && bid_len ? bid : pr->fbid, bid && bid_len ? bid_len : pr->fbid_len,
		     ddbg, sizeof(ddbg), dwhy, sizeof(dwhy));
	if (ddbg[0] || (st->dinfod_urls && pr->fbid_len && !pr->own && from_debuginfod(m)))
		snprintf(msg, len, "%s: debug info from debuginfod (%s)", path,
			 ddbg[0] ? ddbg : st->dinfod_urls);
	if (!m->dwarf)
		note_elf_only(path, dwhy, msg, len, sev);
	if (st->cache_dir && pr->fbid_len && (m->dwarf || !pr->debug)) {
		m->cache_dwarf = m->dwarf;
		m->cache = symcache_new(pr->fbid, pr->fbid_len, m->dwarf ? "sym" : "elfsym");
	}
}

/* Anonymous code (no absolute path): the vdso of a profile without its
 * image is this machine's own if it is the same (same kernel build). */
static int open_anon(struct symtab *st, struct smod *m, const char *path, const uint8_t *bid,
		     size_t bid_len, char *msg, size_t len, enum ana_severity *sev)
{
	const uint8_t *own = (const uint8_t *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t olen;
	if (own && bid && bid_len && strstr(path, "vdso") && own_vdso_matches(own, bid, bid_len, &olen))
		return load_image(st, m, path, own, olen, bid, bid_len, msg, len, sev);
	return 0;	/* nothing to open */
}

static int open_module(struct symtab *st, int h, const char *path, const uint8_t *bid,
		       size_t bid_len, char *msg, size_t len, enum ana_severity *sev)
{
	msg[0] = 0;
	*sev = ANA_NOTE_INFO;
	struct smod *m = &st->mod[h];
	/* kernel frames from /proc/kallsyms (kallsyms.c) */
	if (kallsyms_is_kernel(path))
		return open_kernel(st, m, bid, bid_len, msg, len, sev);
	if (path[0] != '/')
		return open_anon(st, m, path, bid, bid_len, msg, len, sev);
	struct probe pr = { 0 };
	probe_file(st, m, path, bid, bid_len, &pr);
	int e = open_answers(st, m, path, &pr, msg, len, sev);
	if (e)
		return e < 0 ? e : 0;
	if (pr.fd < 0) {
		open_missing(st, m, path, pr.fd, bid, bid_len, msg, len, sev);
		return 0;
	}
	char have[130];
	e = report(st, m, path, pr.fd);
	if (e == 0 && bid && bid_len && !same_build_id(m->mod, bid, bid_len, have, sizeof(have)))
		open_changed(st, m, path, have, bid, bid_len, msg, len, sev);
	else if (e) {
		snprintf(msg, len, "%s: not a readable ELF file; shown as [%s+0xOFF]", path,
			 strrchr(path, '/') + 1);
		*sev = ANA_NOTE_WARN;
	} else {
		open_opened(st, m, path, &pr, bid, bid_len, msg, len, sev);
	}
	return 0;
}

/* Whether the vdso mapped at own has build-id bid; *len: its image's size. */
static bool own_vdso_matches(const uint8_t *own, const uint8_t *bid, size_t n, size_t *len)
{
	const GElf_Ehdr *eh = (const GElf_Ehdr *)own;
	if (memcmp(own, ELFMAG, SELFMAG) || own[EI_CLASS] != ELFCLASS64)
		return false;
	*len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (*len > PROF_MAX_IMAGE)
		return false;
	Elf *e = elf_memory((char *)(uintptr_t)own, *len);
	const void *b;
	ssize_t k = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
	bool same = k > 0 && (size_t)k == n && !memcmp(b, bid, n);
	if (e)
		elf_end(e);
	return same;
}

int symtab_load_image(struct symtab *st, const char *path, const uint8_t *img, size_t len,
		      const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev)
{
	int h = symtab_add(st);
	int e = h < 0 ? h : symtab_open_image(st, h, path, img, len, bid, bid_len, msg, mlen, sev);
	return e ? e : h;
}

int symtab_open_image(struct symtab *st, int h, const char *path, const uint8_t *img, size_t len,
		      const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev)
{
	return with_syms(&st->mod[h], load_image(st, &st->mod[h], path, img, len, bid, bid_len, msg,
						 mlen, sev));
}

static int load_image(struct symtab *st, struct smod *m, const char *path, const uint8_t *img,
		      size_t len, const uint8_t *bid, size_t bid_len, char *msg, size_t mlen,
		      enum ana_severity *sev)
{
	msg[0] = 0;
	*sev = ANA_NOTE_INFO;
	/* libdwfl takes a descriptor: the bytes go into an anonymous file */
	int fd = memfd_create("pmcprof-image", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, img + done, len - done);
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	char have[130];
	int e = done < len || lseek(fd, 0, SEEK_SET) != 0 ? -EIO : 0;
	if (e)
		close(fd);
	else
		e = report(st, m, path, fd);	/* consumes fd */
	if (e) {
		snprintf(msg, mlen, "%s: its image in the profile is not a readable ELF file", path);
		*sev = ANA_NOTE_WARN;
		return 0;
	}
	if (bid && bid_len && !same_build_id(m->mod, bid, bid_len, have, sizeof(have))) {
		dwfl_end(m->dwfl);
		memset(m, 0, sizeof(*m));
		snprintf(msg, mlen, "%s: its image in the profile has another build-id (%s)", path, have);
		*sev = ANA_NOTE_WARN;
	}
	return 0;
}

/* The build-id of the ELF file behind fd (its note only), or length 0;
 * *debug: whether it has DWARF; link: its .gnu_debuglink name, or "". */
static size_t file_build_id(int fd, uint8_t out[64], bool *debug, char *link, size_t len)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *b;
	ssize_t k = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
	size_t n = k > 0 && k <= 64 ? (size_t)k : 0, shstr;
	if (n)
		memcpy(out, b, n);
	*debug = false;
	if (e && elf_getshdrstrndx(e, &shstr) == 0) {
		for (Elf_Scn *sc = NULL; (sc = elf_nextscn(e, sc));) {
			GElf_Shdr sh;
			const char *nm = gelf_getshdr(sc, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
			if (nm && (!strcmp(nm, ".debug_info") || !strcmp(nm, ".zdebug_info")))
				*debug = true;
			Elf_Data *d;
			if (nm && !strcmp(nm, ".gnu_debuglink") && (d = elf_getdata(sc, NULL)) &&
			    d->d_buf && d->d_size)
				snprintf(link, len, "%.*s", (int)strnlen(d->d_buf, d->d_size),
					 (const char *)d->d_buf);
		}
	}
	if (e)
		elf_end(e);
	return n;
}

static const char *intern(struct symtab *st, const char *s)
{
	return s ? strpool_str(st->pool, s) : NULL;
}

const char *sym_demangle(struct strpool *pool, const char *name)
{
	if (!name)
		return NULL;
	/* Itanium C++ (_Z) and Rust (legacy _ZN...17h<hash>E, v0 _R); no
	 * parameter lists, as perf shows them.  cplus_demangle's automatic
	 * style tries Rust first: legacy Rust names are valid C++ ones too. */
	if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) {
		char *d = cplus_demangle(name, DMGL_ANSI);
		if (d) {
			const char *r = strpool_str(pool, d);
			free(d);
			return r;
		}
	}
	return strpool_str(pool, name);
}

const char *sym_short_name(struct strpool *pool, const char *name)
{
	size_t cut = 0;
	int depth = 0;
	for (size_t i = 0; name[i]; i++) {
		if (depth == 0 && !strncmp(name + i, "operator", 8)) {
			/* operator<, operator(), operator<<=: not brackets */
			i += 8;
			while (name[i] && strchr("<>()[]=!+-*/%^&|~,", name[i]))
				i++;
			if (!name[i])
				break;
			i--;
			continue;
		}
		char c = name[i];
		if (c == '<' || c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (c == ':' && name[i + 1] == ':' && depth == 0)
			cut = ++i + 1;
	}
	return strpool_str(pool, name + cut);
}

/* ---- the ELF symbol table, sorted once per module ---- */

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* By address; of aliases at one address the one perf's choose_best_symbol
 * picks comes first: one with a size, not weak, global, fewer leading
 * underscores, the longer name. */
static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	bool zx = !x->sized, zy = !y->sized;
	if (zx != zy)
		return zx ? 1 : -1;
	if ((x->bind == 1) != (y->bind == 1))
		return x->bind == 1 ? 1 : -1;
	if ((x->bind == 0) != (y->bind == 0))
		return x->bind == 0 ? -1 : 1;
	size_t ux = underscores(x->key), uy = underscores(y->key);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	size_t lx = strlen(x->key), ly = strlen(y->key);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->key, y->key);
}

static bool name_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct smod *m = ctx;
	return !strcmp(m->sym[id].key, key);
}

/* PLT entries as perf names them ("memcpy@plt"): entry i of .rela.plt is
 * the i-th 16-byte entry of .plt.sec when there is one, else of .plt
 * after its first (the resolver's) entry.  x86-64 only. */
static int plt_syms(struct smod *m, Elf *elf, GElf_Addr bias, size_t *cap)
{
	size_t shstr;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstr))
		return 0;
	Elf_Scn *rela = NULL;
	GElf_Shdr rsh = { 0 }, plt = { 0 }, sec = { 0 }, sh;
	for (Elf_Scn *sc = NULL; (sc = elf_nextscn(elf, sc));) {
		const char *nm = gelf_getshdr(sc, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		if (!nm)
			continue;
		if (!strcmp(nm, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = sc;
			rsh = sh;
		} else if (!strcmp(nm, ".plt")) {
			plt = sh;
		} else if (!strcmp(nm, ".plt.sec")) {
			sec = sh;
		}
	}
	Elf_Scn *dsc = rela ? elf_getscn(elf, rsh.sh_link) : NULL;
	GElf_Shdr dsh;
	Elf_Data *rd = rela ? elf_getdata(rela, NULL) : NULL, *dd = dsc ? elf_getdata(dsc, NULL) : NULL;
	if (!rd || !dd || !gelf_getshdr(dsc, &dsh) || !rsh.sh_entsize || (!plt.sh_size && !sec.sh_size))
		return 0;
	GElf_Addr base = sec.sh_size ? sec.sh_addr : plt.sh_addr + 16;
	GElf_Addr end = sec.sh_size ? sec.sh_addr + sec.sh_size : plt.sh_addr + plt.sh_size;
	size_t nr = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < nr && base + 16 * (i + 1) <= end; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) || !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		const char *nm = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (!nm || !nm[0])
			continue;
		if (vec_reserve(&m->sym, cap, m->n_sym + 1, sizeof(*m->sym)))
			return -ENOMEM;
		/* named "nm@plt" when first hit (sym_at) */
		GElf_Addr lo = base + 16 * i + bias;
		m->sym[m->n_sym++] = (struct esym){ .lo = lo, .hi = lo + 16, .key = nm, .sized = true,
						    .plt = true, .bind = 0 };
	}
	return 0;
}

/* One pass over .symtab (or .dynsym and the minidebuginfo) as libdwfl
 * finds it, functions only, and the PLT entries; aliases at one address
 * keep the one perf would; a symbol without a size ends where the next
 * one starts.  Names stay libelf's until first hit: this touches no shared
 * state, and runs on the thread that opened the module. */
static int read_syms(struct smod *m)
{
	m->syms_read = true;
	int ns = dwfl_module_getsymtab(m->mod);
	if (ns < 1)
		ns = 1;	/* none: the PLT may still be there */
	size_t cap = 0, n = 0;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	for (int i = 1; i < ns; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		GElf_Word shndx;
		const char *nm = dwfl_module_getsym_info(m->mod, i, &sym, &a, &shndx, NULL, NULL);
		int t = GELF_ST_TYPE(sym.st_info), b = GELF_ST_BIND(sym.st_info);
		if (!nm || !nm[0] || (t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		if (vec_reserve(&m->sym, &cap, n + 1, sizeof(*m->sym)))
			return -ENOMEM;
		/* a symbol without a size (assembly: _init, _start) ends at
		 * its section's end at the latest, not inside the PLT */
		GElf_Addr hi = a + sym.st_size;
		if (!sym.st_size && elf && shndx != SHN_ABS && shndx < SHN_LORESERVE) {
			GElf_Shdr sh;
			Elf_Scn *sc = elf_getscn(elf, shndx);
			if (sc && gelf_getshdr(sc, &sh) && a >= sh.sh_addr + bias &&
			    a < sh.sh_addr + bias + sh.sh_size)
				hi = sh.sh_addr + bias + sh.sh_size;
		}
		m->sym[n++] = (struct esym){ .lo = a, .hi = hi, .key = nm, .sized = sym.st_size != 0,
					     .bind = b == STB_GLOBAL ? 0 : b == STB_WEAK ? 1 : 2 };
	}
	m->n_sym = n;
	if (elf && plt_syms(m, elf, bias, &cap))
		return -ENOMEM;
	n = m->n_sym;
	qsort(m->sym, n, sizeof(*m->sym), esym_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || m->sym[i].lo != m->sym[k - 1].lo)
			m->sym[k++] = m->sym[i];
	n = k;
	for (size_t i = 0; i < n; i++) {
		GElf_Addr next = i + 1 < n ? m->sym[i + 1].lo : m->sym[i].lo + 1;
		if (!m->sym[i].sized && (m->sym[i].hi <= m->sym[i].lo || m->sym[i].hi > next))
			m->sym[i].hi = next;
	}
	m->n_sym = n;
	return 0;
}

/* Local symbols of one name in several units (static helpers) are
 * different functions: they are keyed by name and address.  Found when a
 * local symbol is first hit (C++ code hits mostly global ones). */
static int find_dups(struct smod *m)
{
	size_t n = m->n_sym;
	struct idx names = { 0 };
	m->dups_done = true;
	for (size_t i = 0; i < n; i++) {
		if (m->sym[i].plt)	/* "memcpy@plt" is not a local memcpy's twin */
			continue;
		uint64_t h = hash_bytes(m->sym[i].key, strlen(m->sym[i].key), 5);
		uint32_t id = idx_find(&names, h, name_eq, m, m->sym[i].key);
		if (id == NONE) {
			if (idx_put(&names, h, (uint32_t)i)) {
				idx_free(&names);
				return -ENOMEM;
			}
		} else {
			m->sym[i].dup = m->sym[i].bind == 2;
			m->sym[id].dup |= m->sym[id].bind == 2;
		}
	}
	idx_free(&names);
	return 0;
}

/* How many of v[n] (entries of `size` bytes that start with their lowest
 * address, sorted by it) start at or below addr: the one before is the
 * last that can hold addr. */
static size_t starting_by(const void *v, size_t n, size_t size, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t start;
		memcpy(&start, (const char *)v + mid * size, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
_Static_assert(offsetof(struct esym, lo) == 0 && offsetof(struct fnrange, lo) == 0 &&
	       sizeof(GElf_Addr) == 8 && sizeof(Dwarf_Addr) == 8,
	       "starting_by reads a leading 64-bit address");

/* e's key and name, interned: a PLT entry's with "@plt", a symbol version
 * ("f@@GLIBC_2.34") not part of the name, a local the module holds twice
 * keyed apart by its address.  0 or -ENOMEM. */
static int sym_intern(struct symtab *st, struct smod *m, struct esym *e)
{
	const char *k, *nm;

	if (e->plt) {
		char buf[1100];
		nm = sym_demangle(st->pool, e->key);
		snprintf(buf, sizeof(buf), "%.1000s@plt", e->key);
		k = intern(st, buf);
		if (nm) {
			snprintf(buf, sizeof(buf), "%.1000s@plt", nm);
			nm = intern(st, buf);
		}
	} else {
		k = intern(st, e->key);
		const char *at = strchr(e->key, '@');
		if (at && at > e->key) {
			char buf[4096];
			snprintf(buf, sizeof(buf), "%.*s", (int)(at - e->key), e->key);
			nm = sym_demangle(st->pool, buf);
		} else {
			nm = sym_demangle(st->pool, e->key);
		}
		if (e->dup && k) {
			char buf[4200];
			snprintf(buf, sizeof(buf), "%.4000s@0x%llx", e->key,
				 (unsigned long long)(e->lo - m->elf_bias));
			k = intern(st, buf);
		}
	}
	if (!k || !nm)
		return -ENOMEM;
	e->key = k;
	e->name = nm;
	e->interned = true;
	return 0;
}

/* The function symbol around addr (Dwfl address), or NULL. */
static struct esym *sym_at(struct symtab *st, struct smod *m, GElf_Addr addr)
{
	if (!m->syms_read && read_syms(m))
		return NULL;
	size_t lo = starting_by(m->sym, m->n_sym, sizeof(*m->sym), addr);
	if (!lo || m->sym[lo - 1].hi <= addr)
		return NULL;
	struct esym *e = &m->sym[lo - 1];
	if (!e->interned && e->bind == 2 && !m->dups_done && find_dups(m))
		return NULL;
	if (!e->interned && sym_intern(st, m, e) != 0)
		return NULL;
	return e;
}

/* ---- perf maps of JIT code ---- */

#define PERFMAP_MAX_BYTES (256u << 20)

/* Later lines win at one address: a JIT reuses the space of freed code. */
static int pmap_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

int symtab_load_perfmap(struct symtab *st, const char *path, char *msg, size_t len,
			enum ana_severity *sev)
{
	msg[0] = 0;
	*sev = ANA_NOTE_INFO;
	if (vec_reserve(&st->mod, &st->cap, st->n + 1, sizeof(*st->mod)))
		return -ENOMEM;
	int h = (int)st->n++;
	struct smod *m = &st->mod[h];
	m->perfmap = m->syms_read = true;
	if (st->keep_dir && !(m->pmap_path = strdup(path)))
		return -ENOMEM;
	int fd = open_regular(path);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		snprintf(msg, len, "%s: %s; JIT code not named", path, strerror(fd < 0 ? -fd : errno));
		*sev = ANA_NOTE_WARN;
		return h;
	}
	char line[4096];
	size_t cap = 0, n = 0, bad = 0, bytes = 0;
	while (fgets(line, sizeof(line), f) && (bytes += strlen(line)) < PERFMAP_MAX_BYTES) {
		unsigned long long lo, sz;
		int pos = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx %llx %n", &lo, &sz, &pos) != 2 || !pos || !line[pos] ||
		    lo + sz < lo) {
			bad++;
			continue;
		}
		/* names are shown: no control bytes */
		for (char *c = line + pos; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		const char *k = intern(st, line + pos);
		const char *nm = k ? sym_demangle(st->pool, k) : NULL;
		if (!nm || vec_reserve(&m->sym, &cap, n + 1, sizeof(*m->sym))) {
			fclose(f);
			return -ENOMEM;
		}
		m->sym[n] = (struct esym){ .lo = lo, .hi = lo + (sz ? sz : 1), .key = k, .name = nm,
					   .interned = true, .seq = (uint32_t)n };
		n++;
	}
	fclose(f);
	qsort(m->sym, n, sizeof(*m->sym), pmap_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || m->sym[i].lo != m->sym[k - 1].lo)
			m->sym[k++] = m->sym[i];
	m->n_sym = k;
	snprintf(msg, len, "JIT code named from %s (%zu symbols%s)", path, k,
		 bad ? ", some lines not understood" : "");
	return h;
}

/* A DIE's linkage name, following its abstract origin and specification. */
static const char *die_linkage(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a));
	return s;
}

/* "ns::Class::name" from the namespaces and classes around the DIE that
 * declares d (its abstract origin's specification), for C++ functions
 * without a linkage name; the plain name otherwise. */
static const char *die_qualified(struct symtab *st, Dwarf_Die *d, const char *name)
{
	Dwarf_Die decl = *d, tmp, cu;
	Dwarf_Attribute a;
	for (int i = 0; i < 4; i++) {
		if (dwarf_attr(&decl, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &tmp))
			decl = tmp;
		else if (dwarf_attr(&decl, DW_AT_specification, &a) && dwarf_formref_die(&a, &tmp))
			decl = tmp;
		else
			break;
	}
	int lang = dwarf_diecu(&decl, &cu, NULL, NULL) ? dwarf_srclang(&cu) : -1;
	if (lang != DW_LANG_C_plus_plus && lang != DW_LANG_C_plus_plus_03 &&
	    lang != DW_LANG_C_plus_plus_11 && lang != DW_LANG_C_plus_plus_14)
		return intern(st, name);
	Dwarf_Die *sc = NULL;
	int n = dwarf_getscopes_die(&decl, &sc);
	char buf[2048] = "";
	size_t k = 0;
	for (int i = n - 1; i >= 1 && k < sizeof(buf); i--) {
		int t = dwarf_tag(&sc[i]);
		if (t != DW_TAG_namespace && t != DW_TAG_class_type && t != DW_TAG_structure_type &&
		    t != DW_TAG_union_type)
			continue;
		const char *p = dwarf_diename(&sc[i]);
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s::",
				      p ? p : t == DW_TAG_namespace ? "(anonymous namespace)" : "{unnamed}");
	}
	free(sc);
	if (k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - k, "%s", name);
	return intern(st, buf);
}

/* The key and shown name of a subprogram or inlined instance. */
static void die_names(struct symtab *st, Dwarf_Die *d, const char **key, const char **name)
{
	const char *l = die_linkage(d);
	if (l) {
		*key = intern(st, l);
		*name = sym_demangle(st->pool, l);
		return;
	}
	Dwarf_Attribute a;
	const char *nm = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
	if (!nm) {
		*key = *name = intern(st, "[anonymous]");
		return;
	}
	*key = intern(st, nm);
	*name = die_qualified(st, d, nm);
}

static size_t lookup(struct smod *m, struct symtab *st, uint64_t off, struct sym_frame *fr, size_t max);
static struct esym *sym_at(struct symtab *st, struct smod *m, GElf_Addr addr);

/* off's answer from the kept answers, if one has it. */
static bool kept_get(struct symtab *st, struct smod *m, uint64_t off, struct sym_frame *fr,
		     size_t max, size_t *n)
{
	for (size_t i = 0; i < m->n_kept; i++)
		if (symcache_get(m->kept[i], st->pool, off, fr, max, n))
			return true;
	return false;
}

/* Keep off's answer in keep_dir (elf: from the ELF symbols alone).
 * "Nothing here" (n 0) only as the module itself said it (real: from the
 * file or the cache of its answers), not for want of the file: a later
 * archive with the binaries at hand does better. */
static void keep_put(struct symtab *st, struct smod *m, uint64_t off, const struct sym_frame *fr,
		     size_t n, bool elf, bool real)
{
	if (!st->keep_dir || !m->kbid_len || (!n && !real))
		return;
	if (!m->keep) {
		const char *kind = elf ? "elfsym" : "sym";
		if (!(m->keep = symcache_open(st->keep_dir, m->kbid, m->kbid_len, kind)) &&
		    !(m->keep = symcache_new(m->kbid, m->kbid_len, kind)))
			return;
		m->keep_elf = elf;
	}
	symcache_put(m->keep, off, fr, n);	/* best effort */
}

size_t symtab_lookup(struct symtab *st, int h, uint64_t off, struct sym_frame *fr, size_t max)
{
	struct smod *m = &st->mod[h];
	size_t n;
	if (m->ks_lazy && !m->ks) {
		if (kept_get(st, m, off, fr, max, &n))
			return n;
		char msg[512];
		enum ana_severity sev;
		if (!(m->ks = kallsyms_load(NULL, NULL, m->kbid, m->kbid_len, st->cache_dir, msg,
					    sizeof(msg), &sev)))
			return 0;
	}
	if (m->ks) {	/* kallsyms hook: this kernel's, else the kept ones */
		if (!kallsyms_usable(m->ks) && kept_get(st, m, off, fr, max, &n))
			return n;
		if (!kallsyms_usable(m->ks) && m->n_kept && off)
			m->unnamed++;
		n = kallsyms_lookup(m->ks, st->pool, off, fr, max);
		if (kallsyms_usable(m->ks) && off)
			keep_put(st, m, off, fr, n, false, false);
		return n;
	}
	if (m->perfmap) {
		struct esym *es = max ? sym_at(st, m, off) : NULL;
		if (!es)
			return 0;
		if (st->keep_dir && !m->pmap_hit)
			m->pmap_hit = calloc(m->n_sym ? m->n_sym : 1, 1);
		if (m->pmap_hit)
			m->pmap_hit[es - m->sym] = 1;
		fr[0] = (struct sym_frame){ .key = es->key, .func = es->name };
		return 1;
	}
	if (m->cache && symcache_get(m->cache, st->pool, off, fr, max, &n)) {
		keep_put(st, m, off, fr, n, !m->cache_dwarf, true);
		return n;
	}
	if (kept_get(st, m, off, fr, max, &n)) {
		keep_put(st, m, off, fr, n, !m->kept_dwarf, true);
		return n;
	}
	if (m->lazy_path) {
		char *p = m->lazy_path;
		m->lazy_path = NULL;
		int fd = open_regular(p);
		int e = fd >= 0 ? report(st, m, p, fd) : fd;
		free(p);
		if (e)
			return 0;
	}
	n = lookup(m, st, off, fr, max);
	if (!m->mod && (m->n_kept || m->cache_ro))
		m->unnamed++;	/* named from kept answers that lack this one */
	if (m->cache && !m->cache_ro && m->cache_dwarf == m->dwarf)
		symcache_put(m->cache, off, fr, n);
	keep_put(st, m, off, fr, n, !m->dwarf, m->mod != NULL);
	return n;
}

size_t symtab_unnamed(struct symtab *st, int h, char *hint, size_t len)
{
	snprintf(hint, len, "`pmcprof archive %s` on the machine that recorded it",
		 st->archive_dir ? st->archive_dir : "PROFILE_DIR");
	return st->mod[h].unnamed;
}

/* The lines of a perf map that named a sampled address, into keep_dir
 * under the map's own name (perf-PID.map): what the analyzer reads from
 * PROFILE_DIR/symbols on another machine, where /tmp/perf-PID.map is
 * gone or another process's. */
static void keep_perfmap(struct symtab *st, struct smod *m)
{
	const char *base = m->pmap_path ? strrchr(m->pmap_path, '/') : NULL;
	char *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f = base ? open_memstream(&buf, &cap) : NULL;
	if (!f)
		return;
	for (size_t i = 0; i < m->n_sym; i++)
		if (m->pmap_hit[i])
			fprintf(f, "%llx %llx %s\n", (unsigned long long)m->sym[i].lo,
				(unsigned long long)(m->sym[i].hi - m->sym[i].lo), m->sym[i].key);
	if (fclose(f) == 0 && (len = strlen(buf ? buf : "")) > 0) {
		struct iovec iov = { buf, len };
		symcache_write_mode(st->keep_dir, base + 1, &iov, 1, 0666, 0777);
	}
	free(buf);
}

static int add_ranges(struct cuindex *ci, size_t *cap, Dwarf_Die *d)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t o = 0;
	while ((o = dwarf_ranges(d, o, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (vec_reserve(&ci->r, cap, ci->n + 1, sizeof(*ci->r)))
			return -ENOMEM;
		ci->r[ci->n++] = (struct fnrange){ lo, hi, dwarf_dieoffset(d) };
	}
	return 0;
}

/* Subprograms of a unit, also inside namespaces (C++). */
static int index_dies(struct cuindex *ci, size_t *cap, Dwarf_Die *parent, int depth)
{
	Dwarf_Die d;
	if (depth > 16 || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		int t = dwarf_tag(&d);
		if (t == DW_TAG_subprogram) {
			if (add_ranges(ci, cap, &d))
				return -ENOMEM;
		} else if (t == DW_TAG_namespace || t == DW_TAG_module) {
			if (index_dies(ci, cap, &d, depth + 1))
				return -ENOMEM;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fnrange *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool cu_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct smod *m = ctx;
	return m->cus[id].off == *(const Dwarf_Off *)key;
}

static struct cuindex *cu_index(struct smod *m, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	uint64_t h = hash_u64(off, 17);
	uint32_t id = idx_find(&m->cu_idx, h, cu_eq, m, &off);
	if (id != NONE)
		return &m->cus[id];
	if (vec_reserve(&m->cus, &m->cap_cus, m->n_cus + 1, sizeof(*m->cus)))
		return NULL;
	struct cuindex *ci = &m->cus[m->n_cus];
	*ci = (struct cuindex){ .off = off };
	size_t cap = 0;
	if (index_dies(ci, &cap, cu, 0) || idx_put(&m->cu_idx, h, (uint32_t)m->n_cus)) {
		free(ci->r);
		return NULL;
	}
	qsort(ci->r, ci->n, sizeof(*ci->r), range_cmp);
	return &m->cus[m->n_cus++];
}

static bool has_pc_info(Dwarf_Die *d)
{
	return dwarf_hasattr(d, DW_AT_low_pc) || dwarf_hasattr(d, DW_AT_ranges);
}

/* The child scope of d containing pc: an inlined instance or a block;
 * blocks without addresses are looked through. */
static bool child_at(Dwarf_Die *d, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;
	if (depth > 64 || dwarf_child(d, &c) != 0)
		return false;
	do {
		int t = dwarf_tag(&c);
		if (t != DW_TAG_inlined_subroutine && t != DW_TAG_lexical_block &&
		    t != DW_TAG_try_block && t != DW_TAG_catch_block)
			continue;
		if (has_pc_info(&c)) {
			if (dwarf_haspc(&c, pc) == 1) {
				*out = c;
				return true;
			}
		} else if (child_at(&c, pc, out, depth + 1)) {
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Subprogram and inlined instances around pc, innermost first, into
 * chain[max]; 0 if the unit's index has no function there. */
static int scope_chain(struct smod *m, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain, int max)
{
	struct cuindex *ci = cu_index(m, cu);
	if (!ci || !ci->n)
		return 0;
	size_t lo = starting_by(ci->r, ci->n, sizeof(*ci->r), pc);
	const struct fnrange *f = NULL;
	for (size_t k = lo; k > 0 && k + 8 > lo; k--)
		if (ci->r[k - 1].hi > pc) {
			f = &ci->r[k - 1];
			break;
		}
	Dwarf_Die sub, outer[64];
	Dwarf *dw = dwarf_cu_getdwarf(cu->cu);
	if (!f || !dw || !dwarf_offdie(dw, f->die, &sub))
		return 0;
	int n = 0;
	outer[n++] = sub;
	Dwarf_Die cur = sub, next;
	while (n < 64 && n < max && child_at(&cur, pc, &next, 0)) {
		if (dwarf_tag(&next) == DW_TAG_inlined_subroutine)
			outer[n++] = next;
		cur = next;
	}
	for (int i = 0; i < n; i++)
		chain[i] = outer[n - 1 - i];
	return n;
}

static size_t lookup(struct smod *m, struct symtab *st, uint64_t off, struct sym_frame *fr, size_t max)
{
	if (!m->mod || max == 0)
		return 0;
	Dwarf_Addr addr = off + m->elf_bias;
	const char *file = NULL;
	int line = 0;
	Dwfl_Line *l = m->dwarf ? dwfl_module_getsrc(m->mod, addr) : NULL;
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);

	size_t n = 0;
	Dwarf_Addr dbias;
	Dwarf_Die *cu = m->dwarf ? dwfl_module_addrdie(m->mod, addr, &dbias) : NULL;
	Dwarf_Die *scopes = NULL, *chain = NULL, found[64];
	int nc = 0;
	if (cu && (nc = scope_chain(m, cu, addr - dbias, found, 64)) > 0) {
		chain = found;
	} else if (cu && dwarf_getscopes(cu, addr - dbias, &scopes) > 0) {
		/* not in the index (e.g. a nested function): dwarf_getscopes
		 * follows abstract origins past an inlined instance, so the
		 * physical nesting comes from dwarf_getscopes_die. */
		nc = dwarf_getscopes_die(&scopes[0], &chain);
	}
	if (nc > 0) {
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;
		if (dwarf_getsrcfiles(cu, &files, &nfiles))
			files = NULL;
		for (int i = 0; i < nc && n < max; i++) {
			Dwarf_Die *d = &chain[i];
			int tag = dwarf_tag(d);
			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			const char *key, *name;
			struct esym *es;
			if (tag == DW_TAG_subprogram && (es = sym_at(st, m, addr))) {
				key = es->key;	/* perf's name for the function */
				name = es->name;
			} else {
				die_names(st, d, &key, &name);
			}
			int dl = 0;
			if (dwarf_decl_line(d, &dl))
				dl = 0;
			fr[n++] = (struct sym_frame){
				.key = key,
				.func = name,
				.file = intern(st, file),
				.line = line > 0 ? (unsigned)line : 0,
				.decl_file = intern(st, dwarf_decl_file(d)),
				.decl_line = dl > 0 ? (unsigned)dl : 0,
			};
			if (tag == DW_TAG_subprogram)
				break;
			/* the caller's line is this inlined call's site */
			Dwarf_Attribute a;
			Dwarf_Word cf = 0, cl = 0;
			dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &cf);
			dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &cl);
			file = files && cf < nfiles ? dwarf_filesrc(files, cf, NULL, NULL) : NULL;
			line = (int)cl;
		}
	}
	if (chain != found)
		free(chain);
	free(scopes);
	if (n == 0) {
		struct esym *es = sym_at(st, m, addr);
		if (es)
			fr[n++] = (struct sym_frame){
				.key = es->key,
				.func = es->name,
				.file = intern(st, file),
				.line = line > 0 ? (unsigned)line : 0,
			};
	}
	return n;
}
