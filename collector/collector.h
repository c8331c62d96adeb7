/* The LD_PRELOAD collector's internals, shared by its files:
 *   init.c       settings, process start and end, fatal signals, fork
 *   thread.c     per-thread state: registry, arming, signal stacks
 *   handler.c    the sampling signal handler and its sample path
 *   flush.c      turning a thread's state into a profile file
 *   interpose.c  the C library functions the collector wraps
 *   watch.c      the watcher: profiles of a process that ended unseen
 * docs/collector.md explains the design.  Nothing here is exported. */
#ifndef COLLECTOR_COLLECTOR_H
#define COLLECTOR_COLLECTOR_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "backend/pmc.h"
#include "collector/cct.h"
#include "collector/loadmap.h"
#include "collector/settings.h"
#include "collector/throttle.h"
#include "collector/timeline.h"
#include "unwinder/unwind.h"

/* Deepest call path recorded; deeper stacks are truncated and counted. */
#define COLL_MAX_DEPTH 512
/* Each thread's signal stack (the sampling and fatal-signal handlers run
 * there, so a small or overflowing program stack is never touched), with
 * a PROT_NONE guard page below it. */
#define COLL_ALTSTACK (64 << 10)
#define COLL_GUARD 4096
/* Room for one sample record with its stack copy (kernel.c). */
#define COLL_REC_BUF (16 << 10)
/* COLL_TIMING (tests/bench only): time each handler run, up to 100 us. */
#define COLL_TIMING_BUCKETS 10000
#define COLL_TIMING_NS 10

/* The collector's own counters, written into each thread's profile.  The
 * names are in flush.c's table, in this order. */
enum coll_counter {
	CTR_SAMPLES,
	CTR_DROPPED_IN_COLLECTOR,	/* the thread was running collector code */
	CTR_DROPPED_CCT_FULL,		/* no room for a new node */
	CTR_DROPPED_NO_STACK,		/* the unwinder returned nothing */
	CTR_LEAF_ONLY_LOADER,		/* in ld.so or dlopen/dlclose/dl_iterate_phdr */
	CTR_UNWIND_FAILED,
	CTR_TRUNCATED,
	CTR_UNKNOWN_MODULE,		/* a pc in no loaded object */
	CTR_NOT_OURS,			/* our signal, but not from our counters */
	CTR_REENTERED,			/* the handler was already running */
	CTR_REARM_FAILED,
	CTR_MASK_STRIPPED,		/* the program tried to block our signal */
	CTR_SIGNAL_BLOCKED,		/* our signal was blocked at the end */
	CTR_TIMER_OVERRUNS,		/* timer expirations folded into one signal */
	CTR_DROPPED_WRITING,		/* overflow while the thread's profile was being written */
	CTR_DROPPED_QUEUE_FULL,		/* a SIGIO instead of our signal: queue full */
	CTR_DROPPED_THROTTLED,		/* skipped: the handler used too much time */
	CTR_THROTTLE_RAISED,		/* the throttle doubled an event's period */
	/* collector/kernel.c */
	CTR_KERNEL_SAMPLES,		/* samples taken in kernel mode */
	CTR_KERNEL_LEAF_ONLY,		/* ... of which with a [kernel] leaf, no chain */
	CTR_KERNEL_UNKNOWN,		/* no sample record: kernel or user mode unknown */
	CTR_SIGNAL_LATE,		/* placed where the kernel took it, not where the signal came */
	CTR_STACK_COPY_SHORT,		/* a record's stack copy ended before the outermost frame */
	CTR_RING_LOST_PLACED,		/* samples the ring had no room for, placed with their neighbours */
	CTR_DROPPED_RING_FULL,		/* ... with no neighbour to place them with */
	CTR_DROPPED_OTHER_THREAD,	/* a record of another thread (never expected) */
	CTR_EARLY_SAMPLES,		/* taken before the collector started (early.c) */
	CTR_EARLY_LOST,			/* ... lost: the early ring was full */
	CTR_N
};

/* A thread's state moves FREE -> SETUP -> ACTIVE -> BUSY -> WRITTEN -> FREE.
 * BUSY means one flusher owns it; HELD is WRITTEN before an exec that may
 * still fail (then the files are removed and it goes back to ACTIVE). */
enum thr_status { THR_FREE, THR_SETUP, THR_ACTIVE, THR_BUSY, THR_HELD, THR_WRITTEN };

struct thr {
	struct thr *next;		/* registry: append-only, never unlinked */
	int status;			/* enum thr_status, atomic */
	int in_handler;			/* atomic: the sampling handler is running */
	const struct lm_snap *volatile hazard;
	pid_t tid;
	uintptr_t tcb;			/* its thread pointer (pthread_self), for watch.c */
	uint32_t index;			/* creation order in this process */
	struct pmc_group *g;
	struct uw_thread uw;
	struct cct cct;			/* its arena is a mapping of its own */
	uint64_t ctr[CTR_N];
	uint64_t weight[PMC_MAX_EVENTS];	/* sum of the periods behind the samples */
	uint64_t period[PMC_MAX_EVENTS];	/* the interval now running */
	uint64_t rng;			/* xorshift64 state */
	uint64_t thread_seed;
	struct timespec start;		/* CLOCK_REALTIME */
	char written[256];		/* file name of the last write (for exec) */
	size_t map_len;			/* the whole mapping: this struct, then */
	void *altstack;			/* COLL_ALTSTACK bytes for fatal signals */
	struct tl tl;			/* the timeline (timeline.h): a mapping of its own */
	bool own_altstack;		/* we installed it (the thread had none) */
	uintptr_t pcs[COLL_MAX_DEPTH];	/* the handler's unwind buffer */
	/* The previous sample's path, root first, with its nodes: a new
	 * sample only looks up the frames below the part it shares. */
	uintptr_t path_addr[COLL_MAX_DEPTH];
	uint32_t path_node[COLL_MAX_DEPTH];
	uint32_t path_len;
	uint32_t path_seq;		/* loadmap_seq() when it was taken */
	uint64_t cpu_start_ns;		/* its CPU time when sampling began (owntime.h) */
	uint64_t cpu_last_ns;		/* its thread_cpu_ns at its last write */
	uint64_t user_start_ns;		/* its user time then, or OWNTIME_UNKNOWN */
	uint64_t handler_ticks;		/* time in the sampling handler (owntime_ticks) */
	struct throttle th;		/* the handler's throttle (throttle.h) */
	/* kernel.c: the group keeps the kernel's sample records (perf_event):
	 * kernel-mode samples come from a silent ring, each signal is checked
	 * against its record.  rec_ahead: records taken before the signals
	 * that stand for them arrived (a backlog of late signals). */
	bool rec_mode;
	uint32_t rec_ahead[PMC_MAX_EVENTS];
	uint64_t rec_buf[COLL_REC_BUF / 8];
#ifdef COLL_TIMING
	/* Benchmark builds only: handler durations, 10 ns buckets. */
	uint32_t timing[COLL_TIMING_BUCKETS];
	uint32_t timing_rearm[COLL_TIMING_BUCKETS];	/* pmc_group_rearm alone */
	uint32_t timing_own[COLL_TIMING_BUCKETS];	/* the handler without it */
	uint32_t timing_unwind[COLL_TIMING_BUCKETS];	/* uw_capture alone */
	uint32_t timing_cct[COLL_TIMING_BUCKETS];	/* module lookup + CCT insert */
#endif
};

/* Process-wide state, set up once by init (and again in a fork child). */
struct coll {
	bool active;			/* sampling in this process */
	bool stopped;			/* atomic: for good, before seccomp (thr_stop_all) */
	pid_t pid;
	struct rec_settings set;
	struct pmc_backend *be;
	size_t n_ev;
	struct pmc_event ev[PMC_MAX_EVENTS];
	uint64_t random_mask;
	int sigrt;			/* = set.signo */
	char collector_path[4096];
	char cmd[64];			/* file-name-safe command */
	char rank[16];			/* MPI rank, "" if none */
};

extern struct coll coll;
/* Per thread: its state, and depths of "running collector code" and
 * "inside dlopen/dlclose/dl_iterate_phdr" (the handler reads both). */
extern __thread struct thr *coll_self __attribute__((tls_model("initial-exec")));
extern __thread int coll_inside __attribute__((tls_model("initial-exec")));
extern __thread int coll_in_dl __attribute__((tls_model("initial-exec")));

/* Resolved libc functions behind the interposed ones. */
struct coll_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	int (*pthread_sigmask)(int, const sigset_t *, sigset_t *);
	int (*sigprocmask)(int, const sigset_t *, sigset_t *);
	int (*sigaltstack)(const stack_t *, stack_t *);
	void (*exit)(int) __attribute__((noreturn));
	void (*_exit)(int) __attribute__((noreturn));
	void (*_Exit)(int) __attribute__((noreturn));
};
extern struct coll_real coll_real;
void coll_real_resolve(void);

/* ---- init.c ---- */
/* Idempotent; run by the constructor or by the first interposed call. */
void coll_init(void);
/* The interposed sigaction's policy (init.c owns the dispositions). */
int coll_sigaction(int signo, const struct sigaction *act, struct sigaction *old);
/* Give every fatal signal whose default the collector replaced its
 * default action back (the program still sees SIG_DFL). */
void coll_fatal_uninstall(void);
/* A thread is about to end the process (exit, return from main): if
 * another one already is, write every profile first, so that neither
 * exit_group cuts the other's writes short. */
void coll_exit_begin(void);
/* Before a seccomp filter or strict mode (prctl/seccomp/syscall):
 * stop sampling for good, profiles written (end_reason "seccomp"). */
void coll_before_seccomp(unsigned long op, unsigned long arg2, const void *prog);
/* Say the NULL-terminated strings and a newline to the user, without
 * stdio (async-signal-safe): through `pmcprof record` (flush.c), never
 * into the program's descriptor 2 while the launcher can be reached. */
void coll_warn(const char *first, ...) __attribute__((sentinel));
/* The same, to `pmcprof record` only, never the program's descriptor 2
 * (where a tool it runs under would show it): dropped without launcher. */
void coll_note(const char *first, ...) __attribute__((sentinel));

/* ---- interpose.c ---- */
/* Resolve the wrapped functions and save our environment for exec. */
void interpose_init(void);

/* ---- thread.c ---- */
/* Set up and arm the calling thread.  NULL if it cannot be sampled (the
 * reason was printed once). */
struct thr *thr_begin(void);
/* The calling thread ends: write its profile, disarm, release. */
void thr_end(struct thr *t);
/* Write every thread's profile.  partial: after a fatal signal.  hold:
 * before an exec, undone by thr_resume_all if the exec fails.  reason is
 * the end_reason ("exit", "exec", "signal SIGSEGV").  Async-signal-safe. */
void thr_flush_all(bool partial, bool hold, const char *reason);
void thr_resume_all(void);
/* Stop sampling in every thread and write every profile (end_reason
 * reason), for good: before a seccomp filter the collector's own system
 * calls could break. */
void thr_stop_all(const char *reason);
/* The process is gone (watch.c): write every thread it left unwritten,
 * with no thread to wait for.  How many were written. */
int thr_salvage_all(bool partial, const char *reason);
/* The thread pointer of a thread that was alive when the process ended,
 * or 0. */
uintptr_t thr_any_tcb(void);
/* The whole CPU time of every sampled thread not ended (each thread's
 * own clock: read now where the thread runs, else as at its last write).
 * For unseen.c. */
uint64_t thr_cpu_sampled(void);
/* Whether any thread's hazard pointer holds snap. */
bool thr_hazard_in_use(const struct lm_snap *snap);
/* Fork child: forget every other thread, restart this one's profile. */
void thr_fork_child(void);
/* The interposed sigaltstack (see thread.c). */
int thr_sigaltstack(const stack_t *ss, stack_t *old);
/* Stop/start the calling thread's counters (exec). */
void thr_disarm_self(void);
void thr_rearm_self(void);

/* ---- watch.c ---- */
/* Clone the watcher of this process (at start and in a fork child). */
void watch_start(void);
/* The watcher's pid, 0 if there is none. */
pid_t watch_pid(void);

/* ---- handler.c (async-signal-safe) ---- */
/* The sampling signal handler. */
void thr_on_signal(int signo, siginfo_t *si, void *uc);
/* Insert the path pcs[0..n) (leaf first, every entry after the first a
 * return address) into t's tree with count samples of event idx.  The
 * node, or 0 when the tree is full (counted).  Async-signal-safe; t's
 * single writer only. */
uint32_t coll_insert(struct thr *t, int idx, uintptr_t *pcs, int n, uint32_t count);
/* Add count samples of event idx at node (coll_insert's). */
void coll_count(struct thr *t, int idx, uint32_t node, uint32_t count);
/* The next sampling interval of event i for t (random bits, throttle). */
uint64_t thr_next_period(struct thr *t, size_t i);
/* Whether the caller's stack pointer lies in [base, base + len). */
bool coll_stack_holds(const void *base, size_t len);
/* Run fn(signo, si, uc) with the stack pointer at top. */
void coll_call_on_stack(void *top, void (*fn)(int, siginfo_t *, void *), int signo,
			siginfo_t *si, void *uc);

/* ---- flush.c ---- */
/* Process facts, computed at init (full) and again in a fork child. */
void flush_process_init(bool full);
/* At process end: say how many profiles could not be written, if any. */
void flush_report_failures(void);
/* Write t's profile; t is owned by the caller (BUSY).  reason: see
 * thr_flush_all.  0 or -errno; a failure is reported on stderr.
 * Async-signal-safe. */
int flush_thread(struct thr *t, bool partial, bool in_signal, const char *reason);
/* Open the output directory for writing profiles: not through a symbolic
 * link, and only if it belongs to this process's effective user.  An fd,
 * or -errno with *why set to a static explanation (-EPERM: another
 * user's).  Async-signal-safe. */
int flush_outdir_open(const char **why);
/* Create (on) or remove the process's "still running" marker in the
 * launcher's directory (PMCPROF_RUNDIR; see flush.c).  Async-signal-safe. */
void flush_marker(bool on);
/* Why this process's profiles could not be written (the first failure,
 * with what the process changed: its user, its root, its descriptor
 * limit), NULL if none was lost; and its marker's name in the run
 * directory.  For the watcher (watch.c), which tells `pmcprof record`. */
const char *flush_lost_why(void);
const char *flush_marker_name(void);
/* Remove the file flush_thread last wrote for t. */
void flush_unlink(struct thr *t);

#endif
