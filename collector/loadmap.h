/* The process's load map: every object loaded since the start, with its
 * build-id, kept after it is unloaded (with unload_seq) so samples taken
 * in it still resolve.
 *
 * Writers (dl_iterate_phdr, outside any handler) publish an immutable,
 * sorted snapshot of the loaded ranges through an atomic pointer; the
 * signal handler reads it under a hazard pointer and never blocks.  An old
 * snapshot is unmapped only once no hazard points at it.  Internal to
 * collector/. */
#ifndef COLLECTOR_LOADMAP_H
#define COLLECTOR_LOADMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct lm_range {
	uintptr_t start, end, bias;
	uint32_t module;
};

struct lm_snap {
	size_t n;
	size_t map_len;
	struct lm_range r[];		/* loaded objects, sorted by start */
};

/* Tells the loadmap whether some reader still holds snap (walk every
 * hazard pointer).  Called with the writer lock held. */
typedef bool (*lm_hazard_fn)(const struct lm_snap *snap);

/* First scan.  self is an address inside the collector, so samples there
 * can be recognized.  0 or -errno.  Not async-signal-safe. */
int loadmap_init(const void *self, lm_hazard_fn in_use);

/* Before loadmap_init: whether the map also carries a pseudo-module path
 * for [start, end) with bias start and build-id bid (the kernel's
 * addresses and the running kernel's build-id, see collector/kernel.h).
 * Not async-signal-safe. */
void loadmap_set_kernel(bool on, const char *path, uintptr_t start, uintptr_t end,
			const uint8_t *bid, uint32_t bid_len);

/* Rescan after dlopen/dlclose (or when a pc matched nothing): new objects
 * are added, vanished ones get an unload_seq.  Returns 1 if the map
 * changed, 0 if not, -errno.  Not async-signal-safe. */
int loadmap_refresh(void);

/* Reader side, async-signal-safe: take the current snapshot into *hazard
 * (the caller's hazard slot) and return it; clear *hazard when done. */
const struct lm_snap *loadmap_acquire(const struct lm_snap *volatile *hazard);

/* The module containing pc: its index and pc's ELF virtual address
 * (pc - bias).  false when no loaded object holds pc.  Async-signal-safe. */
bool loadmap_lookup(const struct lm_snap *s, uintptr_t pc, uint32_t *module, uint64_t *offset);

/* Whether pc lies in the collector itself / in the dynamic loader. */
bool loadmap_in_collector(uintptr_t pc);
bool loadmap_in_loader(uintptr_t pc);

/* Every module seen so far, for a profile; valid until the next refresh
 * appends (entries are never moved).  Async-signal-safe. */
const struct prof_module *loadmap_modules(size_t *n);

/* The first n modules (n from loadmap_modules) copied into out, each
 * unload_seq read once: a dlopen/dlclose in another thread changes it in
 * the table, and prof_write reads its input more than once (to size, then
 * to fill), so it must be given a copy.  Async-signal-safe. */
void loadmap_modules_copy(struct prof_module *out, size_t n);

/* The vdso's image (vdso.c): save copies it (at startup, outside any
 * handler); image points out at that copy, as the image of the module of
 * mods[n] that is the vdso.  Returns 1, or 0 if there is none.  image is
 * async-signal-safe. */
void loadmap_vdso_save(void);
size_t loadmap_vdso_image(const struct prof_module *mods, size_t n, struct prof_image *out);

/* Change counter: how many load/unload events so far.  Async-signal-safe. */
uint32_t loadmap_seq(void);

/* Around fork: the writer lock is taken in prepare and released (parent)
 * or reset (child). */
void loadmap_fork_prepare(void);
void loadmap_fork_parent(void);
void loadmap_fork_child(void);

#endif
