/* libpmc backends: loading a plugin (pmc-NAME.so), asking what it can do
 * here (its probe, with the reason when it cannot), and its own events.
 *
 * A struct pmc_backend is the library's (pmc_backend_load allocates it,
 * pmc_backend_unload frees it); the strings and the probe it hands out
 * live as long as it does.  Signal safety: none (loading is dlopen); the
 * accessors only read the loaded descriptor.
 */
#ifndef PMC_BACKEND_H
#define PMC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmc_backend;		/* a loaded plugin */

/* What a plugin's probe found. */
struct pmc_probe {
	bool usable;			/* can count/sample at least some events here */
	bool hardware;			/* provides hardware PMU events here */
	bool sampling;			/* supports i-mode */
	char reason[256];		/* when !usable or !hardware: why, in one line */
	char detail[256];		/* optional extra facts (counters, widths, ABI) */
};

/* Load plugin "NAME" (pmc-NAME.so) from PMCPROF_PLUGIN_PATH (colon list) or
 * the install's plugin directory.  A plugin whose ABI or size does not match
 * is refused with -PMC_EABI and never called.  err_msg (optional) receives a
 * one-line reason on failure. */
PMC_API int pmc_backend_load(const char *name, struct pmc_backend **out, char *err_msg,
			     size_t len);
/* Names of the plugins found in the plugin path, sorted.  Calls fn for each. */
PMC_API int pmc_backend_foreach(int (*fn)(const char *name, void *arg), void *arg);
PMC_API void pmc_backend_unload(struct pmc_backend *be);
PMC_API const char *pmc_backend_name(const struct pmc_backend *be);
PMC_API const char *pmc_backend_description(const struct pmc_backend *be);
PMC_API const char *pmc_backend_version(const struct pmc_backend *be);
/* Whether pmc_group_opts.inherit works: the plugin's counters follow the
 * child processes of the counted one (false: the plugin says it cannot). */
PMC_API bool pmc_backend_follows_children(const struct pmc_backend *be);
/* Whether every sample the backend takes is a signal to the sampled
 * thread, in kernel mode too (where the signal cuts a system call short
 * or makes it fail with EINTR); false when kernel-mode samples can be
 * taken without one (pmc_group_opts.kernel_silent). */
PMC_API bool pmc_backend_signals_only(const struct pmc_backend *be);
/* Probe (cached after the first call). */
PMC_API const struct pmc_probe *pmc_backend_probe(struct pmc_backend *be);
/* Whether the backend can take this event (by kind and plugin). */
PMC_API bool pmc_backend_accepts(const struct pmc_backend *be, const struct pmc_event *ev);
/* Call fn for each of the plugin's own events (name, description, unit). */
PMC_API void pmc_backend_events(const struct pmc_backend *be,
				void (*fn)(const char *name, const char *desc, const char *unit,
					   void *arg),
				void *arg);

#ifdef __cplusplus
}
#endif
#endif /* PMC_BACKEND_H */
