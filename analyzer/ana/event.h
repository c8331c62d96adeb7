/* The set's event columns: the events its runs sampled (union by used
 * name), then the metric columns added with ana_set_add_metric.  Valid
 * after finish; names and units are owned by the set.
 */
#ifndef ANALYZER_ANA_EVENT_H
#define ANALYZER_ANA_EVENT_H

#include <stddef.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Events across the set (union by used name, first-seen order), then any
 * metrics added with ana_set_add_metric.  Name of column i, or NULL. */
ANA_API size_t ana_set_n_events(const struct ana_set *s);
ANA_API const char *ana_set_event(const struct ana_set *s, size_t i);
/* Column index of an event as users type it ("cycles", "perf::CYCLES",
 * the requested "cycles@1000003" without the period, a metric's name), or -1. */
ANA_API int ana_set_event_index(const struct ana_set *s, const char *name);
/* The event column run `run` is compared on when a comparison selects
 * column ev: ev itself if the run sampled it; else, ev being the k-th
 * sampled event of the first run that sampled it, the run's own k-th
 * sampled event.  So a run that fell back from cycles to cpu-clock, or a
 * cputimer run (CPUTIME), is compared with the others' first event.
 * -1 if the run has no such event or ev is not an event column. */
ANA_API int ana_set_run_event(const struct ana_set *s, unsigned run, size_t ev);
/* Add a derived column "NAME=EXPR" (+ - * / parentheses, event names,
 * numbers; a division by zero yields NAN).  Returns its column index, or
 * -ANA_EMETRIC with a one-line reason in msg.  Valid after finish. */
ANA_API int ana_set_add_metric(struct ana_set *s, const char *spec, char *msg, size_t len);

/* Event columns that have samples: the first ones (metric columns follow). */
ANA_API size_t ana_set_n_sampled_events(const struct ana_set *s);
/* The unit of event column ev's periods as recorded ("ns", "us"), or NULL
 * (a count, a metric column, past the end). */
ANA_API const char *ana_set_event_unit(const struct ana_set *s, size_t ev);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_EVENT_H */
