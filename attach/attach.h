/* Profiling and counting what already runs, from outside (pmcprof record
 * -p/-t/-a, pmcprof stat -p/-t/-a).
 *
 * perf_event counters are opened on other tasks (every thread of a
 * process, per CPU, inherited by the threads and children it starts) or
 * on every CPU; the kernel writes a record per sample into ring buffers
 * that this library drains in the caller's loop.  Nothing is written into
 * the target, no signal is sent, no ptrace: the kernel's records (call
 * chain, user registers and a copy of the user stack) and /proc/PID are
 * all it reads.  The result is the same per-thread .pmcp files the
 * LD_PRELOAD collector writes (docs/attach.md).
 *
 * Errors: 0 or -errno (or -PMC_E*); the failing target is named in the
 * session's error fields.  The library never prints and never exits. */
#ifndef ATTACH_ATTACH_H
#define ATTACH_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/pmc.h"

/* How user stacks are taken. */
enum att_stack {
	ATT_STACK_FP,		/* the kernel's user call chain (frame pointers) */
	ATT_STACK_CFI,		/* a copy of the user stack + registers, unwound by CFI
				 * (falls back to the frame-pointer chain) */
	ATT_STACK_NONE,		/* the sampled instruction only */
};

/* What to profile and how; sz first so the struct can grow. */
struct att_opts {
	size_t sz;			/* sizeof(struct att_opts) */
	const pid_t *pids;		/* -p: whole processes (threads to come too) */
	size_t n_pids;
	const pid_t *tids;		/* -t: single threads */
	size_t n_tids;
	bool all_cpus;			/* -a: every task on every CPU */
	const struct pmc_event *ev;	/* PMC_KIND_PERF events only */
	size_t n_ev;
	enum att_stack stack;
	const char *outdir;		/* existing directory, absolute */
	int file_mode;			/* 0644 or 0600 */
	unsigned ring_pages;		/* per CPU, a power of two; 0: the default */
	const char *const *requested;	/* each event as the user asked for it (n_ev), or NULL */
	/* Facts for the profiles' metadata (docs/profile-format.md). */
	const char *backend, *events_requested, *events_used, *fallback, *calibration;
};

#define ATT_OPTS(name, ...) struct att_opts name = { .sz = sizeof(struct att_opts), __VA_ARGS__ }

struct att_session;

/* Where an open failed: the target and the errno, for the caller's advice. */
struct att_error {
	int err;			/* -errno */
	pid_t pid, tid;			/* the target (tid 0: a whole CPU) */
	int cpu;			/* -1: any CPU */
	const char *what;		/* "perf_event_open", "mmap", "/proc/PID/task", ... */
};

/* Open every counter and ring, disabled.  A process or thread that does
 * not exist is -ESRCH; one the kernel will not let us watch is -EACCES or
 * -EPERM (perf_event_paranoid, another user's process).  On failure *out
 * is NULL and err says where.  Not thread-safe; one session per loop. */
int att_open(const struct att_opts *o, struct att_session **out, struct att_error *err);

/* Start / stop sampling (every counter at once). */
int att_enable(struct att_session *s);
int att_disable(struct att_session *s);

/* Wait up to timeout_ms for data (a signal ends the wait early), then
 * drain every ring.  Returns 1 when every attached process has ended
 * (never with all_cpus), 0 otherwise, or -errno. */
int att_poll(struct att_session *s, int timeout_ms);

/* Write the profile of every thread still open (those that ended were
 * written as they ended) and the JIT maps that were found.  Returns the
 * number of profiles this session wrote in all, or -errno of the first
 * failure (then *failed names the file). */
int att_finish(struct att_session *s, const char **failed);

/* Totals for the closing lines. */
struct att_stats {
	uint64_t samples;		/* samples put into profiles */
	uint64_t lost;			/* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t throttled;		/* PERF_RECORD_THROTTLE */
	uint64_t processes, threads;	/* seen with samples or followed */
	uint64_t truncated;		/* stacks cut at the kernel's maximum depth */
	uint64_t cfi_unwound;		/* user stacks unwound from a stack copy */
	size_t profiles;		/* files written */
	/* -p: the processes' CPU time over the session (/proc/PID/stat, all
	 * their threads, those that ended too; clock ticks) and the time the
	 * samples of time-based events stand for; 0 when not measurable (a
	 * process ended, -t, -a, no time-based event). */
	uint64_t proc_cpu_ns, sampled_ns;
	size_t counters;		/* perf_event counters opened */
	const char *unwind_note;	/* why CFI was not used, or NULL */
};
void att_stats(const struct att_session *s, struct att_stats *st);

/* Close every descriptor and free everything.  s may be NULL. */
void att_close(struct att_session *s);

/* ---- counting (stat -p/-t/-a) ---- */

struct att_counter;

/* Count ev[0..n) on the same targets as att_open (pids, tids or every
 * CPU; opts->ev/n_ev; the rest ignored), enabled at once.  err as for
 * att_open. */
int att_count_open(const struct att_opts *o, struct att_counter **out, struct att_error *err);
/* Sum each event over every task and CPU into vals[0..n). */
int att_count_read(struct att_counter *c, struct pmc_count *vals, size_t n);
/* Whether every counted process has ended (never with all_cpus). */
bool att_count_done(struct att_counter *c);
void att_count_close(struct att_counter *c);

#endif
