/* The set: one or more runs (a run = any mix of profile files and
 * directories, merged; for comparisons a run may hold several repeats).
 * Life cycle: ana_set_new -> ana_set_add (per path) -> ana_set_finish ->
 * queries -> ana_set_free.  A query returns a row set (struct ana_rows) the
 * caller frees; rows stay valid until then, even after later queries.
 *
 * Costly calls: ana_set_add (reads and merges files; memory grows with
 * distinct contexts, not samples or files) and ana_set_finish (opens the
 * load-map modules and their debug info, symbolizes every distinct address
 * once).  Run them on a worker thread if a UI must stay live; progress goes
 * to the optional callback.  A set is not thread-safe: queries fill lazy
 * caches (the first ANA_VIEW_BOTTOMUP query of a node expands it).
 *
 * The set's layout is private (analyzer/set.h); what it holds is read
 * through the calls of run.h, event.h, note.h, rows.h, access.h and
 * timeline.h.
 */
#ifndef ANALYZER_ANA_SET_H
#define ANALYZER_ANA_SET_H

#include <stdbool.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/opts.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ana_set;

/* A new empty set; opts may be NULL.  NULL + errno on failure. */
ANA_API struct ana_set *ana_set_new(const struct ana_opts *opts);
/* Read path (a .pmcp file, or a directory searched recursively for *.pmcp)
 * into run `run`, as repeat `repeat` (runs and repeats are numbered from 0
 * and created on first use).  Bad files are skipped and noted (severity
 * ANA_NOTE_ERROR) while the rest is merged; returns 0 if every file was read,
 * else the first file's error.  Costly. */
ANA_API int ana_set_add(struct ana_set *s, unsigned run, unsigned repeat, const char *path);
/* Name run `run` in headers and CSV (default: its first path).  Copied. */
ANA_API int ana_set_label(struct ana_set *s, unsigned run, const char *label);
/* Done adding: symbolize and aggregate.  0 or -errno; -ANA_ENODATA if no
 * sample was read at all.  Costly. */
ANA_API int ana_set_finish(struct ana_set *s);
ANA_API void ana_set_free(struct ana_set *s);

/* Whether ana_set_finish succeeded (queries and the calls below work). */
ANA_API bool ana_set_finished(const struct ana_set *s);
/* The options as the set keeps them: strings and time are its own copies;
 * remap is not kept (NULL). */
ANA_API const struct ana_opts *ana_set_opts(const struct ana_set *s);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_SET_H */
