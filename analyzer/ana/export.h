/* Exports: a row set or a set written to a FILE the caller owns (and
 * closes) in other tools' formats: CSV, JSON, FlameGraph collapsed
 * stacks, flame graphs, pprof, speedscope, Chrome / Perfetto traces
 * (docs/exports.md).  Each returns 0 or -errno; nothing else is printed.
 */
#ifndef ANALYZER_ANA_EXPORT_H
#define ANALYZER_ANA_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"
#include "analyzer/ana/rows.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- export ---- */

/* RFC 4180 CSV of the row set, header row first, exactly as `report --csv`
 * and (compare mode) `diff --csv`; docs/analyzer.md lists the columns.
 * 0 or -errno (write error). */
ANA_API int ana_rows_write_csv(const struct ana_rows *r, FILE *f);
/* The same rows as one JSON object. */
ANA_API int ana_rows_write_json(const struct ana_rows *r, FILE *f);
/* FlameGraph collapsed stacks ("a;b;c count", root first) for run and
 * event column ev. */
ANA_API int ana_set_write_collapsed(struct ana_set *s, unsigned run, size_t ev, FILE *f);

/* ---- pictures and other tools' formats (flame.c, pprof.c, speedscope.c;
 * docs/exports.md) ---- */

struct ana_flame_opts {
	size_t sz;			/* sizeof(struct ana_flame_opts) */
	const char *title;		/* heading; NULL: made from the runs' labels */
	bool html;			/* an HTML page holding the SVG, else an SVG file */
	bool icicle;			/* roots at the top (default: at the bottom) */
	unsigned run;			/* compare mode: the run drawn against the base
					 * (if it is the base: the first run that is not) */
};
#define ANA_FLAME_OPTS(name, ...) \
	struct ana_flame_opts name = { .sz = sizeof(struct ana_flame_opts), __VA_ARGS__ }
/* A flame graph of r, a tree row set (ANA_VIEW_TOPDOWN: widths inclusive;
 * ANA_VIEW_BOTTOMUP: self, split among callers) on an event column: one
 * self-contained file, no network, with hover details, click to zoom,
 * search (#s=REGEX) and colours by module.  Without a base, every run is
 * drawn (several: one root frame each); in compare mode (query.base >= 0)
 * only opts.run, its frames coloured by ana_rows_compare's ratio against
 * the base (strongly only where significant) with the interval on hover.
 * Frames narrower than 0.1 px at full width are left out.  0, -EINVAL (not
 * a tree, or a metric column), or -EIO (write error). */
ANA_API int ana_rows_write_flame(const struct ana_rows *r, const struct ana_flame_opts *o, FILE *f);

/* pprof's profile.proto, gzip-compressed (`go tool pprof` reads it): one
 * sample per calling context with self samples, for every run (several:
 * each sample labelled "run"); locations hold a frame and the frames
 * inlined into it as pprof lines; one sample type per event (value:
 * samples x period in the event's unit, or the count where no fixed
 * period was used; weights with opts.weighted); run metadata as comments.
 * Line numbers (of the sampled instruction, and of each call and inlined
 * call site) only with opts.line_contexts, else 0 ("unknown").
 * 0, -ENOMEM, -EIO. */
ANA_API int ana_set_write_pprof(struct ana_set *s, FILE *f);

/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * with opts.timeline and every file holding a timeline, one "evented"
 * profile per thread in real time order (as ana_set_write_trace's slices;
 * event column ev only); else one "sampled" profile per run (with --by
 * thread, per thread) on event column ev, one sample per calling context
 * weighted by its self samples.
 * 0, -EINVAL (ev is a metric), -ENOMEM, -EIO. */
ANA_API int ana_set_write_speedscope(struct ana_set *s, size_t ev, FILE *f);

/* A Chrome / Perfetto trace (the Trace Event format's JSON object form):
 * each thread's samples on a timeline, a slice per function on the stack
 * while consecutive samples keep it there (a gap of more than twice the
 * thread's interval closes every slice), pids and tids as recorded,
 * process and thread names as metadata events.  0, -ENODATA (no
 * timeline), -EIO. */
ANA_API int ana_set_write_trace(struct ana_set *s, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_EXPORT_H */
