/* libpmc: performance counters through pluggable backends.
 *
 * a-mode (counting): open a group of events for a thread, start, read, stop.
 * i-mode (sampling): the same group, armed so that each overflow raises a
 * realtime signal on the thread that overflowed; the caller's handler asks
 * which event overflowed and re-arms it.  No callbacks.
 *
 * This header includes the headers of every object, one each, as
 * libperf's <perf/...> do; a program may include only those it uses:
 *   pmc/core.h       version, error codes, pmc_strerror
 *   pmc/event.h      event specs: parse, encode, list
 *   pmc/env.h        the machine: hypervisor layers, PMU, kernel; advice
 *   pmc/backend.h    plugins: load, probe, their own events
 *   pmc/group.h      counter groups, a-mode: open, start, read, stop
 *   pmc/sample.h     i-mode: overflow, re-arm, kernel chains, records, stats
 *   pmc/plan.h       from a request to the backend and events used
 *   pmc/calibrate.h  whether a counter can be trusted here
 * Each says who owns what and which calls are async-signal-safe.
 */
#ifndef PMC_H
#define PMC_H

/* The umbrella always gave its users <signal.h>: kept so none breaks. */
#include <signal.h>

#include "pmc/core.h"
#include "pmc/event.h"
#include "pmc/env.h"
#include "pmc/backend.h"
#include "pmc/group.h"
#include "pmc/sample.h"
#include "pmc/plan.h"
#include "pmc/calibrate.h"

#endif /* PMC_H */
