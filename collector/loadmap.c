/* The load map (see loadmap.h).  Writers hold `lock`; the signal handler
 * only follows `cur` under its hazard pointer and reads the module table,
 * whose entries are filled before n_mods is raised and never move. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/loadmap.h"

#define MAX_MODULES 4096
#define MAX_RETIRED 64
#define BUILD_ID_MAX 64

static struct prof_module mods[MAX_MODULES];
static uint8_t build_ids[MAX_MODULES][BUILD_ID_MAX];
static size_t n_mods;			/* atomic: published count */
static uint32_t seq;			/* atomic: last load/unload sequence */
static struct lm_snap *cur;		/* atomic */
static struct lm_snap *retired[MAX_RETIRED];
static size_t n_retired;
static lm_hazard_fn hazard_in_use;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char exe_path[PATH_MAX];
static uintptr_t self_pc, self_lo, self_hi, ld_lo, ld_hi;

/* One object as dl_iterate_phdr shows it. */
struct obj {
	char *path;			/* our copy: the loader's is freed by dlclose */
	uintptr_t start, end, bias;
	uint8_t id[BUILD_ID_MAX];
	uint32_t id_len;
};

struct scan {
	struct obj *o;
	size_t n, cap;
};

/* NT_GNU_BUILD_ID from the object's PT_NOTE segments (already mapped). */
static uint32_t find_build_id(const struct dl_phdr_info *info, uint8_t *out)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name_sz = (nh->n_namesz + 3) & ~3u;
			size_t desc_sz = (nh->n_descsz + 3) & ~3u;
			const char *name = p + sizeof(*nh);
			const char *desc = name + name_sz;

			if (desc + desc_sz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= BUILD_ID_MAX) {
				memcpy(out, desc, nh->n_descsz);
				return nh->n_descsz;
			}
			p = desc + desc_sz;
		}
	}
	return 0;
}

/* A zeroed object with a copy of path at the end of the scan, NULL if
 * memory runs out.  Scans run under the lock, never in a signal handler. */
static struct obj *scan_add(struct scan *sc, const char *path)
{
	struct obj *o;

	if (prof_array_grow(&sc->o, &sc->cap, sc->n, sizeof(*sc->o)))
		return NULL;
	o = &sc->o[sc->n];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return NULL;
	sc->n++;
	return o;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	struct obj *o;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo)
		return 0;
	/* The main program has no name here.  The name is copied while the
	 * loader holds its lock: another thread's dlclose may free it as soon
	 * as dl_iterate_phdr returns. */
	o = scan_add(sc, info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe_path);
	if (!o)
		return -1;
	o->start = lo;
	o->end = hi;
	o->bias = info->dlpi_addr;
	o->id_len = find_build_id(info, o->id);
	return 0;
}

static bool same_object(const struct prof_module *m, const struct obj *o)
{
	return m->bias == o->bias && m->start == o->start && m->end == o->end &&
	       m->build_id_len == o->id_len && memcmp(m->build_id, o->id, o->id_len) == 0 &&
	       strcmp(m->path, o->path) == 0;
}

/* The kernel pseudo-module (loadmap_set_kernel), added to every scan. */
static struct {
	bool on;
	const char *path;
	uintptr_t start, end;
	uint8_t id[BUILD_ID_MAX];
	uint32_t id_len;
} kern;

void loadmap_set_kernel(bool on, const char *path, uintptr_t start, uintptr_t end,
			const uint8_t *bid, uint32_t bid_len)
{
	kern.on = on;
	kern.path = path;
	kern.start = start;
	kern.end = end;
	kern.id_len = bid && bid_len <= BUILD_ID_MAX ? bid_len : 0;
	if (kern.id_len)
		memcpy(kern.id, bid, kern.id_len);
}

static int scan_kernel(struct scan *sc)
{
	struct obj *o;

	if (!kern.on)
		return 0;
	o = scan_add(sc, kern.path);
	if (!o)
		return -1;
	o->start = kern.start;
	o->end = kern.end;
	o->bias = kern.start;
	memcpy(o->id, kern.id, kern.id_len);
	o->id_len = kern.id_len;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct lm_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static struct lm_snap *snap_build(void)
{
	size_t n = __atomic_load_n(&n_mods, __ATOMIC_RELAXED), k = 0, len;
	long ps = sysconf(_SC_PAGESIZE);
	struct lm_snap *s;

	len = sizeof(*s) + n * sizeof(s->r[0]);
	len = (len + (size_t)ps - 1) / (size_t)ps * (size_t)ps;
	s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (mods[i].unload_seq)
			continue;
		s->r[k++] = (struct lm_range){ mods[i].start, mods[i].end, mods[i].bias,
					       (uint32_t)i };
	}
	qsort(s->r, k, sizeof(s->r[0]), cmp_range);
	s->n = k;
	s->map_len = len;
	return s;
}

/* Unmap retired snapshots that no hazard pointer holds any more. */
static void reclaim(void)
{
	size_t k = 0;

	for (size_t i = 0; i < n_retired; i++) {
		if (hazard_in_use && hazard_in_use(retired[i]))
			retired[k++] = retired[i];
		else
			munmap(retired[i], retired[i]->map_len);
	}
	n_retired = k;
}

static void publish(struct lm_snap *s)
{
	struct lm_snap *old = __atomic_exchange_n(&cur, s, __ATOMIC_SEQ_CST);

	if (old) {
		/* A full list means readers hold 64 snapshots: leak, never free
		 * one that may be in use. */
		if (n_retired < MAX_RETIRED)
			retired[n_retired++] = old;
	}
	reclaim();
}

static int add_module(const struct obj *o, uint32_t load_seq)
{
	size_t n = __atomic_load_n(&n_mods, __ATOMIC_RELAXED);
	struct prof_module *m = &mods[n];
	char *path;

	if (n == MAX_MODULES)
		return -ENOSPC;
	path = strdup(o->path);
	if (!path)
		return -ENOMEM;
	memcpy(build_ids[n], o->id, o->id_len);
	*m = (struct prof_module){
		.path = path,
		.build_id = o->id_len ? build_ids[n] : NULL,
		.build_id_len = o->id_len,
		.start = o->start,
		.end = o->end,
		.bias = o->bias,
		.load_seq = load_seq,
		.unload_seq = 0,
	};
	__atomic_store_n(&n_mods, n + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Diff the scan against the table; call with lock held. */
static int merge(const struct scan *sc)
{
	size_t n = n_mods;
	uint32_t next = seq + 1;
	bool changed = false;
	char *seen = calloc(n ? n : 1, 1);

	if (!seen)
		return -ENOMEM;
	for (size_t j = 0; j < sc->n; j++) {
		const struct obj *o = &sc->o[j];
		size_t hit = n, dead = n;

		for (size_t i = 0; i < n; i++) {
			if (!same_object(&mods[i], o))
				continue;
			if (!mods[i].unload_seq) {
				hit = i;
				break;
			}
			dead = i;
		}
		if (hit < n) {
			seen[hit] = 1;
			continue;
		}
		changed = true;
		if (dead < n) {
			/* Reloaded at the same place: the same module again, so
			 * a dlopen/dlclose loop does not grow the table. */
			__atomic_store_n(&mods[dead].unload_seq, 0, __ATOMIC_RELAXED);
			seen[dead] = 1;
		} else if (add_module(o, next) < 0) {
			continue;	/* table full: pcs there stay unresolved */
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!seen[i] && !mods[i].unload_seq) {
			__atomic_store_n(&mods[i].unload_seq, next, __ATOMIC_RELAXED);
			changed = true;
		}
	}
	free(seen);
	if (changed)
		__atomic_store_n(&seq, next, __ATOMIC_RELEASE);
	return changed;
}

int loadmap_refresh(void)
{
	struct scan sc = { 0 };
	struct lm_snap *s;
	int ret;

	pthread_mutex_lock(&lock);
	ret = dl_iterate_phdr(scan_one, &sc) < 0 || scan_kernel(&sc) < 0 ? -ENOMEM : merge(&sc);
	for (size_t i = 0; i < sc.n; i++)
		free(sc.o[i].path);
	free(sc.o);
	if (ret > 0 || (ret == 0 && !cur)) {
		s = snap_build();
		if (s)
			publish(s);
		else
			ret = -ENOMEM;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static void range_of(uintptr_t pc, uintptr_t *lo, uintptr_t *hi)
{
	size_t n = __atomic_load_n(&n_mods, __ATOMIC_ACQUIRE);

	for (size_t i = 0; i < n; i++) {
		if (!mods[i].unload_seq && pc >= mods[i].start && pc < mods[i].end) {
			*lo = mods[i].start;
			*hi = mods[i].end;
			return;
		}
	}
}

int loadmap_init(const void *self, lm_hazard_fn in_use)
{
	ssize_t l = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	uintptr_t ld_base = getauxval(AT_BASE);
	int ret;

	exe_path[l > 0 ? l : 0] = '\0';
	hazard_in_use = in_use;
	self_pc = (uintptr_t)self;
	loadmap_vdso_save();
	ret = loadmap_refresh();
	if (ret < 0)
		return ret;
	range_of(self_pc, &self_lo, &self_hi);
	if (ld_base)
		range_of(ld_base, &ld_lo, &ld_hi);
	return 0;
}

const struct lm_snap *loadmap_acquire(const struct lm_snap *volatile *hazard)
{
	const struct lm_snap *s;

	do {
		s = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
		__atomic_store_n(hazard, s, __ATOMIC_SEQ_CST);
	} while (s != __atomic_load_n(&cur, __ATOMIC_SEQ_CST));
	return s;
}

bool loadmap_lookup(const struct lm_snap *s, uintptr_t pc, uint32_t *module, uint64_t *offset)
{
	size_t lo = 0, hi;

	if (!s || s->n == 0)
		return false;
	hi = s->n;
	/* The last range starting at or below pc. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].start <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (pc < s->r[lo].start || pc >= s->r[lo].end)
		return false;
	*module = s->r[lo].module;
	*offset = pc - s->r[lo].bias;
	return true;
}

bool loadmap_in_collector(uintptr_t pc)
{
	return pc >= self_lo && pc < self_hi;
}

bool loadmap_in_loader(uintptr_t pc)
{
	return pc >= ld_lo && pc < ld_hi;
}

const struct prof_module *loadmap_modules(size_t *n)
{
	*n = __atomic_load_n(&n_mods, __ATOMIC_ACQUIRE);
	return mods;
}

void loadmap_modules_copy(struct prof_module *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* Everything but unload_seq is fixed once the entry is published. */
		out[i] = (struct prof_module){
			.path = mods[i].path,
			.build_id = mods[i].build_id,
			.build_id_len = mods[i].build_id_len,
			.start = mods[i].start,
			.end = mods[i].end,
			.bias = mods[i].bias,
			.load_seq = mods[i].load_seq,
			.unload_seq = __atomic_load_n(&mods[i].unload_seq, __ATOMIC_RELAXED),
		};
	}
}

uint32_t loadmap_seq(void)
{
	return __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
}

void loadmap_fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

void loadmap_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

void loadmap_fork_child(void)
{
	pthread_mutex_init(&lock, NULL);
}
