/* record and stat on what already runs (-p PID, -t TID, -a): the command
 * side of attach/ (what the user typed, the loop, the messages). */
#ifndef CLI_ATTACH_H
#define CLI_ATTACH_H

#include <stdbool.h>
#include <stdio.h>

#include "backend/pmc.h"
#include "cli/options.h"
#include "collector/settings.h"

/* The options as typed, filled by record's and stat's option tables. */
struct attach_req {
	const char *pids;		/* -p PID[,PID...] */
	const char *tids;		/* -t TID[,TID...] */
	bool all_cpus;			/* -a */
	const char *duration;		/* --duration SECONDS, or NULL */
	char **cmd;			/* perf's "-p PID -- sleep 5": stop when it ends */
};

/* -p -t -a --duration, bound to r: verb is "profile" or "count". */
#define ATTACH_OPTS(r, verb) \
	OPT_STRING('p', "pid", &(r)->pids, "PID[,PID...]", \
		   verb " these running processes (every thread, and\n" \
		   "threads and children they start)"), \
	OPT_STRING('t', "tid", &(r)->tids, "TID[,TID...]", verb " these running threads"), \
	OPT_BOOL('a', "all-cpus", &(r)->all_cpus, verb " every process on every CPU"), \
	OPT_STRING(0, "duration", &(r)->duration, "SECONDS", \
		   "with -p/-t/-a: stop after SECONDS (else at Ctrl-C,\n" \
		   "when the processes end, or when CMD, if given, ends)")

static inline bool attach_wanted(const struct attach_req *r)
{
	return r->pids || r->tids || r->all_cpus;
}

/* After record's or stat's options (cmd's), argv[first...]: with -p, -t
 * or -a a command to run beside them, or none (r->cmd); else the command
 * to run, which must be there (or cmd's usage error no_cmd).  --duration
 * without -p, -t, -a is a usage error too.  Returns the command or NULL. */
char **attach_operands(struct attach_req *r, const struct opt_cmd *cmd, int argc, char **argv,
		       int first, const char *no_cmd);

/* Before anything is made: the lists, that every target exists, and that
 * backend (-b, or NULL) can attach at all; exits with the message if not.
 * Returns a name for the default output directory in buf: the first
 * process's command, or "all" for -a. */
const char *attach_prepare(const char *prog, const struct attach_req *r, const char *backend,
			   char *buf, size_t len);

/* record: attach with the launcher's settings (events already planned),
 * call make_outdir(arg) once the counters are open (so that a refusal
 * leaves nothing behind; it fills set->outdir), sample until the targets
 * end, --duration, the command, or SIGINT/SIGTERM/SIGHUP; write the
 * profiles.  Returns the exit status (0, or 2 with the reason printed). */
int attach_record(const struct attach_req *r, const struct rec_settings *set, bool quiet,
		  void (*make_outdir)(void *arg), void *arg);

/* stat: count plan's events on the targets until the same ends; vals and
 * *elapsed for stat's printer.  Returns 0 or the exit status (printed). */
int attach_stat(const struct attach_req *r, const struct pmc_plan *plan, struct pmc_count *vals,
		double *elapsed);

/* "process id '1,2'", "thread id '3'" or "system wide", for stat's header. */
void attach_describe(const struct attach_req *r, char *buf, size_t len);

#endif
