/* The launcher -> collector contract: PMCPROF_* environment variables
 * (docs/collector.md lists them).  The launcher validates its command line
 * with the same parsers the collector applies to its environment, so a
 * value is accepted or refused identically on both sides.  Internal to
 * collector/. */
#ifndef COLLECTOR_SETTINGS_H
#define COLLECTOR_SETTINGS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/pmc.h"
#include "unwinder/unwind.h"

#define SET_SPEC_MAX (PMC_NAME_MAX + 32)

struct rec_settings {
	char outdir[PATH_MAX];		/* absolute */
	char backend[32];
	size_t n_events;
	char events[PMC_MAX_EVENTS][SET_SPEC_MAX];	/* used, "NAME@PERIOD" */
	size_t n_requested;
	char requested[PMC_MAX_EVENTS][SET_SPEC_MAX];	/* as the user wrote them */
	char fallback[1024];		/* "REQUESTED -> USED: why", "" if none */
	char calibration[1024];		/* "EVENT=TRUST (why); ...", "" if not run */
	enum uw_mode call_graph;
	int signo;
	unsigned random_bits;		/* 0: fixed periods */
	uint64_t seed;
	bool private_files;		/* 0700 directory, 0600 files */
	uint64_t cct_bytes;		/* per-thread calling-context-tree arena */
	uint64_t timeline_bytes;	/* per-thread timeline buffer, 0: no timeline */
	uint64_t origin_ns;		/* CLOCK_MONOTONIC of the run's start, 0: unknown */
	char rundir[PATH_MAX];		/* the launcher's markers directory, "" if none */
	char plugin_path[PATH_MAX];	/* libpmc's PMCPROF_PLUGIN_PATH, "" if none */
	/* A runtime the launcher preloaded before the collector for this
	 * program alone (the ASan runtime must come first), "" if none. */
	char preload_first[128];
	/* The launcher's seccomp mode and filter count (/proc/self/status),
	 * -1 if unknown: a process with more was filtered by the program. */
	int seccomp_mode, seccomp_filters;
	/* The process tracing the launcher (TracerPid), 0 if none, -1 if
	 * unknown: a profiled process traced by another (gdb's inferior, a
	 * program under strace) is not profiled. */
	int tracer;
};

/* Defaults for everything optional. */
void settings_defaults(struct rec_settings *s);

/* Parse one variable's value into s.  name is the PMCPROF_* name; label
 * (NULL: name) starts the message, e.g. a command-line option.  Returns 0,
 * or -EINVAL with msg saying what is wrong ("--signal: signal 9 (SIGKILL)
 * cannot be caught").  -ENOENT for an unknown name. */
int settings_set(struct rec_settings *s, const char *name, const char *label, const char *value,
		 char *msg, size_t len);

/* Read every PMCPROF_* variable through get (getenv-like); a missing
 * required one or a bad value fails with msg set.  0 or -EINVAL. */
int settings_load(struct rec_settings *s, const char *(*get)(const char *name, void *arg),
		  void *arg, char *msg, size_t len);

/* Call put(name, value) for every variable, formatted so that
 * settings_load reads back s.  Stops at and returns put's first error. */
int settings_export(const struct rec_settings *s,
		    int (*put)(const char *name, const char *value, void *arg), void *arg);

/* The one variable a profiled program gets beside LD_PRELOAD: the path of
 * the settings file (NAME=VALUE lines, the PMCPROF_* names), which
 * `pmcprof record` writes into its private run directory. */
#define SETTINGS_MARKER "PMCPROF"
#define SETTINGS_FILE ".settings"

/* Read the settings file at path (at most SETTINGS_FILE_MAX bytes) into
 * buf: afterwards settings_file_get(name, buf) is a getter for
 * settings_load.  Raw open/read/close only.  0 or -errno. */
#define SETTINGS_FILE_MAX 32768
int settings_file_read(const char *path, char *buf, size_t len);
const char *settings_file_get(const char *name, void *buf);

/* The calling process's seccomp mode and number of filters (Linux 5.9),
 * each -1 if unknown, from /proc/self/status: one open, read and close. */
void settings_seccomp_now(int *mode, int *filters);

/* The pid of the process tracing the caller (TracerPid of
 * /proc/self/status: gdb, strace), 0 if none, -1 if unknown. */
int settings_tracer_now(void);

/* "unwind", "fp", "none" (static). */
const char *settings_call_graph_name(enum uw_mode m);

#endif
