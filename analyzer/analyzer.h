/* libpmcprof-analyzer: read and merge profiles, symbolize, aggregate, compare.
 *
 * A set holds one or more runs; it is read (costly), finished (symbolized,
 * costly), then queried for row sets, exported and freed.  This header
 * includes the headers of every object, one each, as backend/pmc.h does;
 * a file may include only those it uses:
 *   ana/core.h      ANA_API, error codes, ana_strerror, time ranges
 *   ana/opts.h      the set's options (struct ana_opts, ANA_OPTS)
 *   ana/set.h       the set: life cycle, cost, thread safety
 *   ana/run.h       what ran: each run's facts (struct ana_run), totals
 *   ana/trust.h     trust flags, their thresholds and names
 *   ana/facts.h     a run's facts as typed records
 *   ana/event.h     event and metric columns
 *   ana/note.h      what the set met while reading, in place of printing
 *   ana/query.h     a query (struct ana_query, ANA_QUERY)
 *   ana/rows.h      the row set a query answers
 *   ana/compare.h   compare mode: ratios, intervals; their formatting
 *   ana/export.h    CSV, JSON, collapsed, flame graphs, pprof, speedscope, traces
 *   ana/access.h    the set's symbolized tables, for exporters and front ends
 *   ana/timeline.h  each thread's samples in time order, stacks, slices
 *   ana/annotate.h  a function's instructions and their samples
 *   ana/source.h    where to read a source file
 *   ana/table.h     the column model and the text table: rows as typed columns
 *   ana/json.h      the streaming JSON writer every JSON output uses
 * Each says who owns what; a set is not thread-safe (ana/set.h).
 */
#ifndef ANALYZER_ANALYZER_H
#define ANALYZER_ANALYZER_H

/* The umbrella always gave its users these: kept so none breaks. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/opts.h"
#include "analyzer/ana/set.h"
#include "analyzer/ana/run.h"
#include "analyzer/ana/trust.h"
#include "analyzer/ana/facts.h"
#include "analyzer/ana/event.h"
#include "analyzer/ana/note.h"
#include "analyzer/ana/query.h"
#include "analyzer/ana/rows.h"
#include "analyzer/ana/compare.h"
#include "analyzer/ana/export.h"
#include "analyzer/ana/access.h"
#include "analyzer/ana/timeline.h"
#include "analyzer/ana/annotate.h"
#include "analyzer/ana/source.h"
#include "analyzer/ana/table.h"
#include "analyzer/ana/json.h"

#endif
