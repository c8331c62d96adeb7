/* The load map against the real dynamic loader: lookups in the program
 * and in libc, a dlopen'd library that stays known after dlclose, and
 * snapshots that are not unmapped while a hazard pointer holds them. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/loadmap.h"
#include "tests/harness.h"

static const struct lm_snap *volatile hazard;

static bool in_use(const struct lm_snap *s)
{
	return hazard == s;
}

/* Still mapped?  msync fails with ENOMEM on an unmapped range. */
static bool mapped(const void *p)
{
	return msync((void *)((uintptr_t)p & ~(uintptr_t)4095), 4096, MS_ASYNC) == 0;
}

static const struct prof_module *module_of(const void *pc, uint64_t *off)
{
	const struct lm_snap *s = loadmap_acquire(&hazard);
	const struct prof_module *mods;
	uint32_t m;
	size_t n;
	bool ok = loadmap_lookup(s, (uintptr_t)pc, &m, off);

	hazard = NULL;
	mods = loadmap_modules(&n);
	return ok && m < n ? &mods[m] : NULL;
}

static void test_static_map(void)
{
	char exe[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const struct prof_module *m;
	uint64_t off;

	exe[l > 0 ? l : 0] = '\0';
	m = module_of((const void *)test_static_map, &off);
	T_OK(m && !strcmp(m->path, exe) && off == (uintptr_t)test_static_map - m->bias,
	     "a function of the program maps to the program (%s)", m ? m->path : "none");
	m = module_of((const void *)gnu_get_libc_version, &off);
	/* Not strlen: a sanitizer build intercepts that one. */
	T_OK(m && strstr(m->path, "libc.so"), "gnu_get_libc_version maps to libc (%s)",
	     m ? m->path : "none");
	T_OK(m && m->build_id_len == 20, "libc has a 20-byte GNU build-id");
	T_OK(m && m->load_seq == 1 && m->unload_seq == 0, "loaded at the first scan, still loaded");
	T_OK(!module_of((const void *)8, &off), "a pc in no object maps nowhere");
	T_OK(loadmap_in_collector((uintptr_t)test_static_map), "the 'self' object is recognized");
	T_OK(!loadmap_in_collector((uintptr_t)gnu_get_libc_version), "libc is not the collector");
	/* _r_debug lives in ld.so. */
	T_OK(loadmap_in_loader((uintptr_t)dlsym(RTLD_DEFAULT, "_r_debug")),
	     "ld.so is recognized as the loader");
	T_OK(!loadmap_in_loader((uintptr_t)gnu_get_libc_version), "libc is not the loader");
	T_OK(loadmap_refresh() == 0, "a rescan with nothing new changes nothing");
}

static void test_dlopen(const char *lib)
{
	const struct lm_snap *held;
	const struct prof_module *m;
	void *h, *fn;
	uint64_t off;
	uint32_t seq0 = loadmap_seq(), unload;
	size_t n_before, n_after;

	loadmap_modules(&n_before);
	held = loadmap_acquire(&hazard);
	h = dlopen(lib, RTLD_NOW);
	if (!h) {
		T_SKIP("dlopen %s: %s", lib, dlerror());
		return;
	}
	fn = dlsym(h, "lib_hot");
	T_OK(loadmap_refresh() == 1 && loadmap_seq() == seq0 + 1, "dlopen is a change");
	m = module_of(fn, &off);
	T_OK(m && strstr(m->path, "rec_dllib") && m->load_seq == seq0 + 1,
	     "the new library is in the map (%s)", m ? m->path : "none");
	T_OK(mapped(held) && held->n > 0, "the snapshot a hazard holds is still mapped");
	hazard = NULL;
	dlclose(h);
	T_OK(loadmap_refresh() == 1, "dlclose is a change");
	unload = loadmap_seq();
	T_OK(m->unload_seq == unload && unload == seq0 + 2, "the module stays, with unload_seq %u",
	     m->unload_seq);
	T_OK(!module_of(fn, &off) || m->unload_seq == 0, "its range no longer resolves");
	T_OK(!mapped(held), "a released snapshot is unmapped by the next change");
	loadmap_modules(&n_before);
	h = dlopen(lib, RTLD_NOW);
	loadmap_refresh();
	loadmap_modules(&n_after);
	if (dlsym(h, "lib_hot") == fn)
		T_OK(n_after == n_before && m->unload_seq == 0,
		     "reloaded at the same address: the same module again");
	else
		T_OK(n_after == n_before + 1, "reloaded elsewhere: a new module");
	dlclose(h);
	loadmap_refresh();
}

static const char *race_lib;
static int race_done;	/* atomic */

static void *dl_loop(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		void *h = dlopen(race_lib, RTLD_NOW);

		if (h)
			dlclose(h);
	}
	__atomic_store_n(&race_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Rescans while another thread loads and unloads: an object's name
 * belongs to the loader and is freed by dlclose, so the scan must copy it
 * before the loader lets go (an ASan build caught a use after free). */
static void test_dlopen_race(const char *lib)
{
	const struct prof_module *mods;
	pthread_t t;
	size_t n, bad = 0, scans = 0;

	race_lib = lib;
	if (pthread_create(&t, NULL, dl_loop, NULL)) {
		T_SKIP("pthread_create");
		return;
	}
	while (!__atomic_load_n(&race_done, __ATOMIC_SEQ_CST)) {
		loadmap_refresh();
		scans++;
	}
	pthread_join(t, NULL);
	mods = loadmap_modules(&n);
	/* The vdso is "linux-vdso.so.1"; every other name a full path. */
	for (size_t i = 0; i < n; i++)
		bad += (mods[i].path[0] != '/' && strncmp(mods[i].path, "linux-vdso", 10)) ||
		       (strstr(mods[i].path, "rec_dllib") && strcmp(mods[i].path, lib));
	T_OK(bad == 0, "%zu scans racing 2000 dlopen/dlclose: every module path intact (%zu bad)",
	     scans, bad);
}

int main(void)
{
	const char *build = getenv("PMCPROF_BUILD");
	char lib[PATH_MAX];

	T_OK(loadmap_init((const void *)main, in_use) == 0, "init");
	test_static_map();
	snprintf(lib, sizeof(lib), "%s/tests/progs/.libs/rec_dllib.so", build ? build : ".");
	if (access(lib, R_OK) == 0) {
		test_dlopen(lib);
		test_dlopen_race(lib);
	} else
		T_SKIP("no %s (set PMCPROF_BUILD)", lib);
	return T_DONE();
}
