/* Event names users type, as data.  perf-style aliases map to libpfm4's
 * generic "perf::" PMU, which every Linux machine has.  The plugins' own
 * events (CPUTIME, TSC, ...) are not listed here: each plugin declares them
 * in its descriptor (event.c, pmc_plugin_events_register). */
#include "config.h"

#include "backend/internal.h"

const struct pmc_alias pmc_aliases[] = {
	{ "cycles", "perf::CYCLES", "CPU cycles (hardware)" },
	{ "cpu-cycles", "perf::CYCLES", "CPU cycles (hardware)" },
	{ "instructions", "perf::INSTRUCTIONS", "instructions retired (hardware)" },
	{ "branches", "perf::BRANCHES", "branch instructions retired (hardware)" },
	{ "branch-instructions", "perf::BRANCHES", "branch instructions retired (hardware)" },
	{ "branch-misses", "perf::BRANCH-MISSES", "mispredicted branches (hardware)" },
	{ "cache-references", "perf::CACHE-REFERENCES", "last-level cache accesses (hardware)" },
	{ "cache-misses", "perf::CACHE-MISSES", "last-level cache misses (hardware)" },
	{ "bus-cycles", "perf::BUS-CYCLES", "bus cycles (hardware)" },
	{ "ref-cycles", "perf::REF-CYCLES", "reference cycles (hardware)" },
	{ "stalled-cycles-frontend", "perf::STALLED-CYCLES-FRONTEND", "front-end stall cycles" },
	{ "stalled-cycles-backend", "perf::STALLED-CYCLES-BACKEND", "back-end stall cycles" },
	{ "cpu-clock", "perf::CPU-CLOCK", "CPU clock, ns (software timer)" },
	{ "task-clock", "perf::TASK-CLOCK", "task clock, ns on CPU (software)" },
	{ "page-faults", "perf::PAGE-FAULTS", "page faults (software)" },
	{ "faults", "perf::PAGE-FAULTS", "page faults (software)" },
	{ "minor-faults", "perf::PAGE-FAULTS-MIN", "minor page faults (software)" },
	{ "major-faults", "perf::PAGE-FAULTS-MAJ", "major page faults (software)" },
	{ "context-switches", "perf::CONTEXT-SWITCHES", "context switches (software)" },
	{ "cs", "perf::CONTEXT-SWITCHES", "context switches (software)" },
	{ "cpu-migrations", "perf::CPU-MIGRATIONS", "CPU migrations (software)" },
	{ "migrations", "perf::CPU-MIGRATIONS", "CPU migrations (software)" },
};
const size_t pmc_n_aliases = sizeof(pmc_aliases) / sizeof(pmc_aliases[0]);
