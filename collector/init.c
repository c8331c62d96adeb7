/* Process start and end: settings, the backend, the handlers, fork.
 * A bad setting or a backend that will not load leaves one line on stderr
 * and the program running unprofiled: the collector never stops it. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/early.h"
#include "collector/kernel.h"
#include "collector/unseen.h"

struct coll coll;
struct coll_real coll_real;
__thread int coll_inside __attribute__((tls_model("initial-exec")));
__thread int coll_in_dl __attribute__((tls_model("initial-exec")));

/* Signals after which the profiles are written (marked partial) before the
 * default action runs: every signal whose default is to end the process
 * (crashes, the usual ways to stop a program, SIGPIPE of `yes | head`),
 * and the realtime signals (fatal_rt) but the sampling one. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,    SIGABRT,   SIGTERM,
				     SIGINT,  SIGPIPE, SIGHUP,  SIGQUIT,   SIGTRAP,   SIGUSR1,
				     SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,   SIGPWR,
				     SIGSYS,  SIGSTKFLT, SIGXFSZ };

/* seccomp(2) operations and prctl(PR_SET_SECCOMP) modes that install
 * something (the interposers pass prctl's mode as a seccomp op). */
#define SECCOMP_MODE_STRICT_OP SECCOMP_SET_MODE_STRICT
#define SECCOMP_MODE_FILTER_OP SECCOMP_SET_MODE_FILTER

/* Per fatal signal: whether our handler is installed, and the action the
 * program believes it has (SIG_DFL while ours is in). */
static struct {
	int ours;			/* atomic */
	struct sigaction prog;
} fatal[NSIG];

static struct sigaction prog_sample;	/* what the program asked for on our signal */
static int warned_sample;		/* atomic */
static pid_t fatal_owner;		/* atomic: the thread writing after a crash */
static int spare_owner;			/* atomic: spare_stack taken (never given back) */
static pid_t exit_owner;		/* atomic: the first thread ending the process */
static int fatal_done;			/* atomic */
static __thread sigset_t fork_mask;

#define FATAL_WAIT_NS (5 * 1000000000ll)

void coll_real_resolve(void)
{
	if (coll_real.sigaction)
		return;
#define REAL(f) (coll_real.f = (typeof(coll_real.f))dlsym(RTLD_NEXT, #f))
	REAL(pthread_create);
	REAL(pthread_sigmask);
	REAL(sigprocmask);
	REAL(_exit);
	REAL(_Exit);
	REAL(sigaction);
	REAL(sigaltstack);
	REAL(exit);
#undef REAL
}

static bool is_fatal(int signo)
{
	if (signo == coll.sigrt)
		return false;
	if (signo >= SIGRTMIN && signo <= SIGRTMAX)
		return true;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (fatal_signals[i] == signo)
			return true;
	return false;
}

/* Signals whose default action the collector replaces while the program
 * keeps it: the fatal ones, and SIGIO (see on_sigio). */
static bool is_watched(int signo)
{
	return is_fatal(signo) || signo == SIGIO;
}

/* For a thread the collector never saw (no stack of its own): one
 * process-wide signal stack, used by the one thread that writes. */
static void *spare_stack;

static void on_fatal_here(int signo, siginfo_t *si, void *uc);

/* Writing profiles takes tens of KiB of stack: never the program's (its
 * own signal stack may be small), always ours, unless ours is in use
 * (a crash inside the sampling handler). */
static void on_fatal(int signo, siginfo_t *si, void *uc)
{
	struct thr *t = coll_self;
	pid_t none = 0;

	if (t && !t->in_handler && !coll_stack_holds(t->altstack, COLL_ALTSTACK))
		coll_call_on_stack((char *)t->altstack + COLL_ALTSTACK, on_fatal_here, signo, si, uc);
	else if (!t && spare_stack && !coll_stack_holds(spare_stack, COLL_ALTSTACK) &&
		 __atomic_compare_exchange_n(&spare_owner, &none, 1, false, __ATOMIC_SEQ_CST,
					     __ATOMIC_SEQ_CST))
		coll_call_on_stack((char *)spare_stack + COLL_ALTSTACK, on_fatal_here, signo, si, uc);
	else
		on_fatal_here(signo, si, uc);
}

static void on_fatal_here(int signo, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	pid_t me = gettid(), none = 0;
	struct sigaction dfl;

	(void)si;
	(void)uc;
	/* In a vfork child the memory is the parent's: write nothing.  After
	 * seccomp this handler is gone (coll_fatal_uninstall). */
	if (getpid() == coll.pid) {
		if (__atomic_compare_exchange_n(&fatal_owner, &none, me, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			char reason[32] = "signal SIG";

			if (sigabbrev_np(signo)) {
				strncat(reason, sigabbrev_np(signo), sizeof(reason) - strlen(reason) - 1);
			} else {
				/* Realtime: SIGRTMIN+N, as kill -l names them. */
				int n = signo - SIGRTMIN;

				strcat(reason, "RTMIN+");
				if (n >= 10)
					strncat(reason, &"0123456789"[n / 10], 1);
				strncat(reason, &"0123456789"[n % 10], 1);
			}
			thr_flush_all(true, false, reason);
			flush_marker(false);
			__atomic_store_n(&fatal_done, 1, __ATOMIC_SEQ_CST);
		} else if (none != me) {
			/* Another thread crashed too and is writing: dying now
			 * would cut its files short. */
			struct timespec nap = { 0, 1000000 };

			for (long long w = 0; w < FATAL_WAIT_NS &&
					      !__atomic_load_n(&fatal_done, __ATOMIC_SEQ_CST);
			     w += nap.tv_nsec)
				nanosleep(&nap, NULL);
		}
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	coll_real.sigaction(signo, &dfl, NULL);
	__atomic_store_n(&fatal[signo].ours, 0, __ATOMIC_SEQ_CST);
	/* Pending until we return; a faulting instruction would fault again
	 * anyway, a kill()ed signal needs this. */
	syscall(SYS_tgkill, getpid(), me, signo);
	errno = saved_errno;
}

/* When the user's queue of pending signals is full (RLIMIT_SIGPENDING,
 * shared by all of the user's processes), the kernel replaces a counter's
 * overflow signal by a plain SIGIO (si_code SI_KERNEL), whose default
 * action would end the program.  Count the lost sample and re-arm the
 * thread's counters instead.  A SIGIO sent by kill() or sigqueue() ends
 * the program as it would have, profiles written.  (The program's own
 * O_ASYNC descriptors also send SI_KERNEL: without a handler of its own
 * that SIGIO would have killed it, so it cannot be relied on.) */
static void on_sigio(int signo, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct thr *t = coll_self;

	if (si && si->si_code != SI_KERNEL) {
		on_fatal(signo, si, uc);
		return;
	}
	if (t && t->g && !__atomic_load_n(&t->in_handler, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&t->status, __ATOMIC_SEQ_CST) == THR_ACTIVE) {
		t->ctr[CTR_DROPPED_QUEUE_FULL]++;
		for (size_t i = 0; i < coll.n_ev; i++)
			pmc_group_rearm(t->g, (int)i, 0);
	}
	errno = saved_errno;
}

static int install_fatal(int signo)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	/* SIGIO goes on: the program's system calls restart. */
	if (signo == SIGIO) {
		sa.sa_sigaction = on_sigio;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	}
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, coll.sigrt);
	if (coll_real.sigaction(signo, &sa, NULL) < 0)
		return -errno;
	memset(&fatal[signo].prog, 0, sizeof(fatal[signo].prog));
	fatal[signo].prog.sa_handler = SIG_DFL;
	__atomic_store_n(&fatal[signo].ours, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Faults raised by an instruction: blocking them in a handler would make
 * one there kill the process without a profile. */
static const int sync_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };

void coll_fatal_uninstall(void)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (__atomic_exchange_n(&fatal[s].ours, 0, __ATOMIC_SEQ_CST))
			coll_real.sigaction(s, &dfl, NULL);
}

void coll_exit_begin(void)
{
	pid_t me, none = 0;

	if (!coll.active || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST) || coll_inside ||
	    getpid() != coll.pid)
		return;
	me = gettid();
	if (__atomic_compare_exchange_n(&exit_owner, &none, me, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST) || none == me)
		return;
	/* Another thread is ending the process: write everything now (and
	 * wait for its writes), as our exit_group may come first. */
	coll_inside++;
	thr_flush_all(false, false, "exit");
	flush_marker(false);
	coll_inside--;
}

void coll_before_seccomp(unsigned long op, unsigned long arg2, const void *prog)
{
	if (!coll.active || coll_inside || getpid() != coll.pid)
		return;
	/* seccomp(SECCOMP_SET_MODE_STRICT|FILTER), prctl(PR_SET_SECCOMP,
	 * STRICT|FILTER); a filter probe with no program (libseccomp's)
	 * installs nothing. */
	(void)arg2;
	if (op == SECCOMP_MODE_STRICT_OP || (op == SECCOMP_MODE_FILTER_OP && prog))
		thr_stop_all("seccomp");
}

static void install_handlers(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = thr_on_signal;
	/* On the thread's signal stack, never the program's stack (Go with
	 * cgo requires it; small thread stacks and coroutines need it).
	 * Every signal but a fault is blocked meanwhile: a program handler
	 * that ran inside ours and siglongjmp'd out would leave it half done
	 * (in_handler set for good, the counter never re-armed). */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sync_signals) / sizeof(sync_signals[0]); i++)
		sigdelset(&sa.sa_mask, sync_signals[i]);
	coll_real.sigaction(coll.sigrt, &sa, &old);
	if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
		char num[12];

		snprintf(num, sizeof(num), "%d", coll.sigrt);
		coll_warn("pmcprof: signal ", num,
			  " already had a handler; pmcprof takes it for sampling (see --signal)",
			  (char *)NULL);
	}
	/* Only where the program left the default: its own handlers win. */
	for (int s = 1; s < NSIG; s++)
		if (is_fatal(s) && coll_real.sigaction(s, NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL)
			install_fatal(s);
	if (coll_real.sigaction(SIGIO, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
		install_fatal(SIGIO);
}

int coll_sigaction(int signo, const struct sigaction *act, struct sigaction *old)
{
	int ret;

	if (!coll.active || signo <= 0 || signo >= NSIG)
		return coll_real.sigaction(signo, act, old);
	if (signo == coll.sigrt) {
		/* Keep ours: the program's handler would see our overflow
		 * signals, and we would stop sampling. */
		if (old)
			*old = prog_sample;
		if (act) {
			if (act->sa_handler != SIG_DFL &&
			    !__atomic_exchange_n(&warned_sample, 1, __ATOMIC_RELAXED)) {
				char num[12];

				snprintf(num, sizeof(num), "%d", signo);
				coll_warn("pmcprof: the program set a handler for signal ", num,
					  ", which pmcprof samples with; keeping pmcprof's "
					  "(record with --signal N to leave it to the program)",
					  (char *)NULL);
			}
			prog_sample = *act;
		}
		return 0;
	}
	if (!is_watched(signo))
		return coll_real.sigaction(signo, act, old);
	if (__atomic_load_n(&fatal[signo].ours, __ATOMIC_SEQ_CST)) {
		if (old)
			*old = fatal[signo].prog;
		if (!act)
			return 0;
		if (act->sa_handler == SIG_DFL) {
			fatal[signo].prog = *act;
			return 0;
		}
		/* The program's own handler or SIG_IGN takes over. */
		__atomic_store_n(&fatal[signo].ours, 0, __ATOMIC_SEQ_CST);
		return coll_real.sigaction(signo, act, NULL);
	}
	ret = coll_real.sigaction(signo, act, old);
	if (ret == 0 && act && act->sa_handler == SIG_DFL && install_fatal(signo) == 0)
		fatal[signo].prog = *act;
	return ret;
}

static void fork_prepare(void)
{
	sigset_t ours;

	if (!coll.active || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST))
		return;
	/* No sample while the address space is copied. */
	sigemptyset(&ours);
	sigaddset(&ours, coll.sigrt);
	coll_real.pthread_sigmask(SIG_BLOCK, &ours, &fork_mask);
	loadmap_fork_prepare();
}

static void fork_parent(void)
{
	if (!coll.active || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST))
		return;
	loadmap_fork_parent();
	coll_real.pthread_sigmask(SIG_SETMASK, &fork_mask, NULL);
}

static void fork_child(void)
{
	if (!coll.active || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST))
		return;
	loadmap_fork_child();
	coll.pid = getpid();
	__atomic_store_n(&fatal_owner, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fatal_done, 0, __ATOMIC_SEQ_CST);
	coll_inside++;
	flush_process_init(false);
	watch_start();
	flush_marker(true);
	thr_fork_child();
	unseen_init();
	coll_inside--;
	coll_real.pthread_sigmask(SIG_SETMASK, &fork_mask, NULL);
}

static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* Whether this process runs under a seccomp filter the launcher did not:
 * one a profiled program installed before exec'ing us (its own profile
 * says "seccomp"), or a sandbox it started.  Any system call of ours could
 * be the one the filter kills for. */
static bool filtered_since_launch(void)
{
	int mode, filters;

	if (coll.set.seccomp_mode < 0)
		return false;		/* no launcher to compare with */
	settings_seccomp_now(&mode, &filters);
	if (filters >= 0 && coll.set.seccomp_filters >= 0)
		return filters > coll.set.seccomp_filters;
	return mode > coll.set.seccomp_mode;
}

/* The runtime the launcher preloaded first for this program (ASan's) is
 * not for the programs it runs: take it out of LD_PRELOAD before anything
 * copies the environment (before main, one thread). */
static void drop_preload_first(void)
{
	const char *pre = getenv("LD_PRELOAD");
	size_t l = strlen(coll.set.preload_first);

	if (l && pre && strncmp(pre, coll.set.preload_first, l) == 0 && pre[l] == ':')
		setenv("LD_PRELOAD", pre + l + 1, 1);
}

/* A tool the process runs under, inside which the collector stands aside
 * (it would be seen: valgrind runs the program on its own CPU, which
 * refuses our system calls and reports our memory; a debugger stops the
 * program at every sampling signal).  NULL if none. */
static const char *host_tool(void)
{
	const char *pre = getenv("LD_PRELOAD");

	/* valgrind's core preloads its vgpreload_*.so into the program. */
	if (pre && strstr(pre, "vgpreload_"))
		return "valgrind";
	/* Traced from its first instruction by a tool of the run (gdb's
	 * `run`, strace under record); not when the whole run is traced
	 * (strace -f pmcprof record: the launcher has the same tracer). */
	int tracer = settings_tracer_now();

	if (tracer > 0 && tracer != coll.set.tracer)
		return "a debugger or tracer (ptrace)";
	return NULL;
}

/* Everything up to arming the first thread; false leaves us inactive. */
/* The launcher's settings file, which the one marker variable names; else
 * (the collector preloaded by hand) the PMCPROF_* variables. */
static bool read_settings(void)
{
	static char file[SETTINGS_FILE_MAX];
	const char *marker = getenv(SETTINGS_MARKER);
	char msg[512];
	int ret;

	if (marker && (ret = settings_file_read(marker, file, sizeof(file))) < 0) {
		/* Gone with its launcher (a daemon exec'ing after `record`
		 * ended): nobody to tell, and the program's stderr is not ours. */
		if (ret == -ENOENT)
			return false;
		coll_warn("pmcprof: cannot read the settings file ", marker, " (", SETTINGS_MARKER,
			  "): ", strerrordesc_np(-ret), "; the program runs unprofiled", (char *)NULL);
		return false;
	}
	if (settings_load(&coll.set, marker ? settings_file_get : env_get, marker ? file : NULL,
			  msg, sizeof(msg)) < 0) {
		coll_warn("pmcprof: ", msg, "; the program runs unprofiled", (char *)NULL);
		return false;
	}
	return true;
}

/* false where pmcprof stands aside: a process filtered since the launch,
 * one under a host tool, an output directory that is not ours. */
static bool may_profile(void)
{
	const char *why;
	int ret;

	/* Not a word either: even that takes system calls. */
	if (filtered_since_launch())
		return false;
	drop_preload_first();
	if ((why = host_tool()) != NULL) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		coll_note("pmcprof: process ", pid, " (", program_invocation_short_name,
			  ") runs under ", why, ": not profiled (pmcprof stands aside)",
			  (char *)NULL);
		return false;
	}
	/* A directory that is there but not ours (or a symbolic link) will
	 * never be written: say so now.  One that is missing or unwritable
	 * is reported at the first write, as it may still change. */
	ret = flush_outdir_open(&why);
	if (ret >= 0) {
		close(ret);
	} else if (ret == -EPERM || ret == -ELOOP || ret == -ENOTDIR) {
		coll_warn("pmcprof: PMCPROF_OUTDIR: ", coll.set.outdir, ": ", why,
			  "; the program runs unprofiled", (char *)NULL);
		return false;
	}
	return true;
}

/* The backend first: its own events (CPUTIME, ...) are then known to the
 * parser, which reads no other plugin into the program.  Then the events,
 * each one the backend can sample. */
static bool load_backend(void)
{
	char msg[512];
	int ret;

	/* libpmc reads its search path from the environment: put the
	 * launcher's there for this one call (before main, one thread). */
	bool path_set = coll.set.plugin_path[0] && !getenv("PMCPROF_PLUGIN_PATH") &&
			setenv("PMCPROF_PLUGIN_PATH", coll.set.plugin_path, 0) == 0;
	ret = pmc_backend_load(coll.set.backend, &coll.be, msg, sizeof(msg));
	if (path_set)
		unsetenv("PMCPROF_PLUGIN_PATH");
	if (ret < 0) {
		coll_warn("pmcprof: cannot load backend ", coll.set.backend, ": ",
			  msg[0] ? msg : pmc_strerror(ret), "; the program runs unprofiled",
			  (char *)NULL);
		return false;
	}
	for (size_t i = 0; i < coll.set.n_events; i++) {
		if (pmc_event_parse(coll.set.events[i], &coll.ev[i], msg, sizeof(msg)) < 0) {
			coll_warn("pmcprof: PMCPROF_EVENTS: ", msg, "; the program runs unprofiled",
				  (char *)NULL);
			return false;
		}
	}
	coll.n_ev = coll.set.n_events;
	for (size_t i = 0; i < coll.n_ev; i++) {
		if (!pmc_backend_accepts(coll.be, &coll.ev[i])) {
			coll_warn("pmcprof: backend ", coll.set.backend, " cannot sample ",
				  coll.set.events[i], "; the program runs unprofiled", (char *)NULL);
			return false;
		}
	}
	return true;
}

/* The spare signal stack, behind a guard page (NULL if none could be had). */
static void *spare_stack_new(void)
{
	char *m = mmap(NULL, COLL_GUARD + COLL_ALTSTACK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED || mprotect(m, COLL_GUARD, PROT_NONE) < 0)
		return NULL;
	return m + COLL_GUARD;
}

static bool setup(void)
{
	int ret;

	if (!read_settings() || !may_profile() || !load_backend())
		return false;
	coll.sigrt = coll.set.signo;
	kern_init(coll.set.backend, coll.ev, coll.n_ev);
	tl_process_init(coll.set.origin_ns);
	kern_loadmap();
	coll.random_mask = coll.set.random_bits ? (1ull << coll.set.random_bits) - 1 : 0;
	coll.pid = getpid();
	uw_global_init();
	ret = loadmap_init((const void *)setup, thr_hazard_in_use);
	if (ret < 0) {
		coll_warn("pmcprof: cannot read the load map: ", strerrordesc_np(-ret),
			  "; the program runs unprofiled", (char *)NULL);
		return false;
	}
	interpose_init();
	flush_process_init(true);
	spare_stack = spare_stack_new();
	install_handlers();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	return true;
}

static void init_once(void)
{
	coll_inside++;
	coll_real_resolve();
	if (setup()) {
		__atomic_store_n(&coll.active, true, __ATOMIC_SEQ_CST);
		watch_start();
		flush_marker(true);
		struct thr *main_thr = thr_begin();

		early_finish(main_thr);
		unseen_init();
	} else {
		early_finish(NULL);
	}
	coll_inside--;
}

void coll_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_once);
}

__attribute__((constructor)) static void on_load(void)
{
	coll_init();
}

__attribute__((destructor)) static void on_unload(void)
{
	if (!coll.active || __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST) ||
	    getpid() != coll.pid)
		return;
	thr_flush_all(false, false, "exit");
	flush_marker(false);
	flush_report_failures();
	/* The exiting thread's profile is written: stop its sampling for the
	 * rest of the exit, and free its counters (a leak checker running
	 * after us cannot see them in the thread's mapping). */
	thr_disarm_self();
}
