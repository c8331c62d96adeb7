/* The watcher: a process that shares the program's memory and writes the
 * profiles the program could not write itself.
 *
 * A process can end where no code of ours runs: Go's runtime leaves by a
 * raw exit_group system call (no exit(), no destructor), and SIGKILL runs
 * no handler.  The thread states (thread.c) are still in memory then, and
 * memory outlives its threads while another process maps it: the watcher,
 * cloned with CLONE_VM at process start (and in a fork child), sleeps on a
 * pidfd of the process.  When the whole process is gone it writes every
 * thread still ACTIVE (end_reason "exit_group", or the signal that killed
 * it), removes the process's marker and exits.  If the program execs, its
 * memory is no longer ours to watch (kcmp says so) and the watcher leaves.
 *
 * What the program could notice, and why it does not:
 *   - descriptors: the watcher is cloned without CLONE_FILES, through an
 *     intermediate process that closes every copied descriptor before
 *     cloning the watcher and is waited for before we return, so no copy
 *     of the program's descriptors outlives this call (a pipe's reader
 *     still sees EOF when the program closes its end);
 *   - children: the intermediate is our child with no exit signal (no
 *     SIGCHLD, invisible to wait() without __WALL) and is reaped here; the
 *     watcher is its child, so it is orphaned at once and belongs to the
 *     nearest subreaper (`pmcprof record` is one) or init, never to the
 *     program;
 *   - signals: cloned with every signal blocked, and it never unblocks;
 *     its name is "pmcprof-watch", so `pgrep PROG` does not list it;
 *   - memory: one 64 KiB stack of ours; the program's memory stays mapped
 *     until the watcher exits, just after the program.
 *
 * Until the program is gone the watcher runs beside its threads in the
 * same memory, so it touches nothing of theirs: raw system calls only (no
 * errno), a thread pointer of its own (a zeroed block), no stack
 * protector.  Only when every thread is dead does it take a dead thread's
 * thread pointer and call the ordinary writer.  x86-64 only (the raw
 * clone); elsewhere nothing is salvaged, as before. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/collector.h"

/* ThreadSanitizer keeps its per-thread state behind the thread pointer and
 * checks every access against it: the writer cannot run on a dead
 * thread's.  A TSan build of the collector (tests/stress only) has no
 * watcher. */
#if defined(__SANITIZE_THREAD__)
#define WATCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WATCH_TSAN 1
#endif
#endif

#if defined(__x86_64__) && defined(SYS_pidfd_open) && defined(SYS_kcmp) && !defined(WATCH_TSAN)

#include <asm/prctl.h>
#include <linux/kcmp.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <poll.h>
#include <sys/prctl.h>

/* Code that runs beside live program threads: no instrumentation that
 * could use the thread pointer. */
#if defined(__has_attribute) && __has_attribute(no_stack_protector)
#define BESIDE __attribute__((no_stack_protector, no_sanitize("address", "undefined", "thread"), noinline))
#else
#define BESIDE __attribute__((no_sanitize("address", "undefined", "thread"), noinline))
#endif

/* The watcher's stack, and below its top a small one for the intermediate. */
#define STACK_LEN (64 << 10)
#define INTER_LEN (8 << 10)
/* How often the watcher checks that the program has not exec'd. */
#define CHECK_MS 1000

static struct {
	void *map;			/* [guard][stack][guard][intermediate stack] */
	size_t map_len;
	pid_t watched;			/* the process */
	int pidfd;			/* its pidfd, handed to the watcher */
	bool started;			/* a watcher was cloned */
	int *leader_tid;		/* the leader's tid word, cleared by the kernel at its exit */
	int early_status;		/* how the process ended, read as its leader died; -1 */
	pid_t pid;			/* atomic: the watcher (set by the intermediate) */
	char tcb[256] __attribute__((aligned(64)));	/* a thread pointer of its own */
} w;

static inline long raw(long n, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

/* clone(flags) with the child on stack_top running fn(), then exit(its
 * return value); the child never comes back into this function. */
BESIDE static long clone_run(unsigned long flags, void *stack_top, void *tls, int (*fn)(void))
{
	register long r10 __asm__("r10") = 0;	/* child_tid */
	register long r8 __asm__("r8") = (long)tls;
	void **sp = (void **)((uintptr_t)stack_top & ~(uintptr_t)15);
	long ret;

	/* Popped by the child, which then calls it with the stack aligned. */
	*--sp = (void *)fn;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "pop %%rax\n\t"
			 "call *%%rax\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)SYS_clone), "D"(flags), "S"(sp), "d"(0L), "r"(r10), "r"(r8),
			   [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The exit status of a dead process, as wait() would give it, from field
 * 52 of /proc/PID/stat (readable until its parent reaps it); -1 if gone.
 * Without the C library: it also runs beside live threads (no errno). */
BESIDE static int exit_code(pid_t pid)
{
	char path[32] = "/proc/", digits[12], buf[1024];
	int nd = 0, np = 6, field = 2, v = -1;
	long fd, n;

	do
		digits[nd++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	while (nd)
		path[np++] = digits[--nd];
	for (const char *t = "/stat"; *t; t++)
		path[np++] = *t;
	path[np] = '\0';
	fd = raw(SYS_open, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	n = raw(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0);
	raw(SYS_close, fd, 0, 0, 0, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* Field 52, counted after the name's closing parenthesis. */
	long i = n;
	while (i > 0 && buf[i - 1] != ')')
		i--;
	if (!i)
		return -1;
	for (; buf[i]; i++) {
		if (buf[i] != ' ' || ++field != 52)
			continue;
		v = 0;
		for (i++; buf[i] >= '0' && buf[i] <= '9'; i++)
			v = v * 10 + (buf[i] - '0');
		break;
	}
	return v;
}

/* Every thread is dead: write what they left.  How the process ended is
 * in /proc only until its parent reaps it: `pmcprof record` waits for us
 * first, a shell does not. */
static void salvage(void)
{
	char reason[32] = "exit_group or SIGKILL";
	int st = exit_code(w.watched);
	bool partial = false;

	if (st < 0)
		st = w.early_status;	/* reaped already: as read when the leader died */

	if (st >= 0 && (st & 0x7f)) {
		int sig = st & 0x7f;

		snprintf(reason, sizeof(reason), "signal SIG%s",
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
		partial = true;
	} else if (st >= 0) {
		snprintf(reason, sizeof(reason), "exit_group");
	}
	if (thr_salvage_all(partial, reason) > 0)
		flush_marker(false);
}

/* The process could not write its profiles (it changed its user or its
 * root, or ran out of descriptors) and so could not remove its marker
 * either: we still have the launcher's user and root, so we point the
 * marker at "lost:WHY", which `pmcprof record` prints. */
BESIDE static void mark_lost(void)
{
	static char target[600];
	const char *why = flush_lost_why(), *name = flush_marker_name();
	size_t n = 0;
	long dirfd;

	if (!why || !coll.set.rundir[0] || !name[0])
		return;
	for (const char *p = "lost:"; *p; p++)
		target[n++] = *p;
	for (; *why && n < sizeof(target) - 1; why++)
		target[n++] = *why;
	target[n] = '\0';
	dirfd = raw(SYS_openat, AT_FDCWD, (long)coll.set.rundir,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0, 0);
	if (dirfd < 0)
		return;
	/* Replaced at once (a link beside it, renamed over it): the
	 * launcher reading the marker meanwhile sees one or the other. */
	static char tmp[256];
	n = 0;
	tmp[n++] = '.';
	for (const char *p = name; *p && n < sizeof(tmp) - 1; p++)
		tmp[n++] = *p;
	tmp[n] = '\0';
	raw(SYS_unlinkat, dirfd, (long)tmp, 0, 0, 0);
	if (raw(SYS_symlinkat, (long)target, dirfd, (long)tmp, 0, 0) == 0 &&
	    raw(SYS_renameat, dirfd, (long)tmp, dirfd, (long)name, 0) != 0)
		raw(SYS_unlinkat, dirfd, (long)tmp, 0, 0, 0);
	raw(SYS_close, dirfd, 0, 0, 0, 0);
}

BESIDE static int watcher(void)
{
	struct pollfd pfd = { .fd = w.pidfd, .events = POLLIN };
	pid_t me = (pid_t)raw(SYS_getpid, 0, 0, 0, 0, 0);
	uintptr_t tcb;

	raw(SYS_prctl, PR_SET_NAME, (long)"pmcprof-watch", 0, 0, 0);
	for (;;) {
		int *lt = w.leader_tid, tid = lt ? __atomic_load_n(lt, __ATOMIC_SEQ_CST) : 0;
		struct timespec check = { CHECK_MS / 1000, 0 };
		long n;

		/* While the leader lives, sleep on its tid word: the kernel
		 * clears it as the leader exits, before the process can be
		 * reaped, so how it ended can still be read (a shell reaps its
		 * children at once).  Then on the pidfd. */
		if (tid) {
			raw(SYS_futex, (long)lt, FUTEX_WAIT, tid, (long)&check, 0);
			if (__atomic_load_n(lt, __ATOMIC_SEQ_CST) == 0) {
				w.early_status = exit_code(w.watched);
				w.leader_tid = NULL;
			}
		}
		n = raw(SYS_poll, (long)&pfd, 1, w.leader_tid ? 0 : CHECK_MS, 0, 0);

		if (n > 0)
			break;
		if (n < 0 && n != -EINTR)
			return 1;
		/* An exec gave the process other memory: nothing here is its. */
		n = raw(SYS_kcmp, me, w.watched, KCMP_VM, 0, 0);
		if (n != 0 && n != -ENOSYS && n != -EPERM)
			return 0;
	}
	/* Every thread is gone: borrow one's thread pointer (its TLS is
	 * intact, nobody runs there any more) for the ordinary code. */
	tcb = thr_any_tcb();
	if (!tcb) {
		mark_lost();
		return 0;		/* every thread wrote its own (or tried) */
	}
	if (raw(SYS_arch_prctl, ARCH_SET_FS, (long)tcb, 0, 0, 0) != 0)
		return 1;
	salvage();
	mark_lost();
	return 0;
}

BESIDE static int intermediate(void)
{
	char *top = (char *)w.map + 4096 + STACK_LEN;
	unsigned long flags = CLONE_VM | CLONE_SETTLS | CLONE_UNTRACED;
	long ret;

	/* Keep only the pidfd: copies of the program's descriptors must not
	 * outlive this process. */
	if (w.pidfd > 0)
		raw(SYS_close_range, 0, w.pidfd - 1, 0, 0, 0);
	ret = raw(SYS_close_range, w.pidfd + 1, ~0U, 0, 0, 0);
	if (ret == -ENOSYS)
		return 1;
	ret = clone_run(flags, top, w.tcb, watcher);
	/* Known before our parent's waitid returns: no wait for the watcher
	 * to run (flush_marker names it). */
	if (ret > 0)
		__atomic_store_n(&w.pid, (pid_t)ret, __ATOMIC_SEQ_CST);
	return ret < 0;
}

void watch_start(void)
{
	char *inter_top;
	sigset_t all, old;
	long ret;

	if (!w.map) {
		w.map_len = 4096 + STACK_LEN + 4096 + INTER_LEN;
		w.map = mmap(NULL, w.map_len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (w.map == MAP_FAILED) {
			w.map = NULL;
			return;
		}
		if (mprotect(w.map, 4096, PROT_NONE) < 0 ||
		    mprotect((char *)w.map + 4096 + STACK_LEN, 4096, PROT_NONE) < 0) {
			munmap(w.map, w.map_len);
			w.map = NULL;
			return;
		}
	}
	/* The watcher's thread pointer: a TCB whose first word is itself (as
	 * x86-64 expects), the canary word zero. */
	memset(w.tcb, 0, sizeof(w.tcb));
	*(void **)w.tcb = w.tcb;
	__atomic_store_n(&w.pid, 0, __ATOMIC_SEQ_CST);
	w.started = false;
	w.watched = getpid();
	w.early_status = -1;
	/* The leader's tid word (glibc's, set_tid_address), if we are the
	 * leader: at start and in a fork child we are. */
	w.leader_tid = NULL;
	if (gettid() != w.watched || raw(SYS_prctl, PR_GET_TID_ADDRESS, (long)&w.leader_tid, 0, 0, 0) != 0)
		w.leader_tid = NULL;
	w.pidfd = (int)raw(SYS_pidfd_open, w.watched, 0, 0, 0, 0);
	if (w.pidfd < 0)
		return;
	inter_top = (char *)w.map + w.map_len;
	sigfillset(&all);
	coll_real.pthread_sigmask(SIG_SETMASK, &all, &old);
	/* No exit signal: no SIGCHLD to the program; reaped just below. */
	ret = clone_run(CLONE_VM | CLONE_SETTLS | CLONE_UNTRACED, inter_top, w.tcb, intermediate);
	if (ret > 0) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		while ((ret = raw(SYS_waitid, P_PID, ret, (long)&si, WEXITED | __WCLONE, 0)) == -EINTR)
			;
		/* The intermediate says whether the watcher was cloned. */
		if (ret < 0 || si.si_code != CLD_EXITED || si.si_status != 0)
			ret = -1;
	}
	coll_real.pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Ours; the watcher has its own copy (w.pidfd stays as it read it). */
	raw(SYS_close, w.pidfd, 0, 0, 0, 0);
	w.started = ret >= 0;
}

pid_t watch_pid(void)
{
	return w.started ? __atomic_load_n(&w.pid, __ATOMIC_SEQ_CST) : 0;
}

#else

void watch_start(void)
{
}

pid_t watch_pid(void)
{
	return 0;
}

#endif
