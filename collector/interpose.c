/* The C library functions the collector wraps (collector.map exports
 * exactly these).  Each wrapper passes straight through while the
 * collector itself is running on the thread (coll_inside), so the
 * collector's own dlopen of a plugin or libunwind's dl_iterate_phdr from
 * the handler reach the real function untouched. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/collector.h"

#define EXPORT __attribute__((visibility("default")))

/* An environment larger than this is passed on as it is. */
#define ENV_MAX 8192
/* Room for the variables we may add. */
#define ENV_EXTRA 40
#define PRELOAD_MAX 8192

static struct {
	void *(*dlopen)(const char *, int);
	void *(*dlmopen)(Lmid_t, const char *, int);
	int (*dlclose)(void *);
	int (*dl_iterate_phdr)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*execveat)(int, const char *, char *const[], char *const[], int);
	int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[], char *const[]);
	int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[], char *const[]);
	int (*sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
	int (*sigwaitinfo)(const sigset_t *, siginfo_t *);
	int (*sigwait)(const sigset_t *, int *);
	int (*signalfd)(int, const sigset_t *, int);
	int (*prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
	long (*syscall)(long, long, long, long, long, long, long);
} real;

/* LD_PRELOAD and the settings marker (PMCPROF), or without the marker
 * the PMCPROF_* settings, as they were at startup, "NAME=VALUE". */
static char *saved_env[ENV_EXTRA - 2];
static size_t n_saved;

#define RESOLVE(f) \
	(real.f ? (void)0 : (void)(real.f = (typeof(real.f))dlsym(RTLD_NEXT, #f)))

static void resolve_all(void)
{
	RESOLVE(dlopen);
	RESOLVE(dlmopen);
	RESOLVE(dlclose);
	RESOLVE(dl_iterate_phdr);
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	RESOLVE(posix_spawn);
	RESOLVE(posix_spawnp);
	RESOLVE(sigtimedwait);
	RESOLVE(sigwaitinfo);
	RESOLVE(sigwait);
	RESOLVE(signalfd);
	RESOLVE(prctl);
	RESOLVE(syscall);
}

/* No system call of ours after seccomp (thr_stop_all). */
static bool stopped(void)
{
	return __atomic_load_n(&coll.stopped, __ATOMIC_SEQ_CST);
}

void interpose_init(void)
{
	Dl_info info;

	resolve_all();
	if (dladdr((const void *)interpose_init, &info) && info.dli_fname)
		snprintf(coll.collector_path, sizeof(coll.collector_path), "%s", info.dli_fname);
	for (char **e = environ; e && *e && n_saved < sizeof(saved_env) / sizeof(saved_env[0]);
	     e++) {
		/* With the launcher's marker the settings are in its file: of
		 * the PMCPROF_* variables, only the ones the collector reads
		 * from the environment (kernel.c) are ours to keep. */
		bool ours = strncmp(*e, "LD_PRELOAD=", 11) == 0 ||
			    strncmp(*e, SETTINGS_MARKER "=", sizeof(SETTINGS_MARKER)) == 0 ||
			    strncmp(*e, "PMCPROF_KERNEL=", 15) == 0 ||
			    strncmp(*e, "PMCPROF_STACK_COPY=", 19) == 0 ||
			    (!getenv(SETTINGS_MARKER) && strncmp(*e, "PMCPROF_", 8) == 0);

		if (!ours)
			continue;
		saved_env[n_saved] = strdup(*e);
		if (saved_env[n_saved])
			n_saved++;
	}
}

/* ---- threads ---- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *start_thread(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	thr_begin();
	/* Thread end (return or pthread_exit) is seen by a TSD destructor. */
	return s.fn(s.arg);
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	struct start *s;
	int ret;

	coll_real_resolve();
	if (!coll_inside)
		coll_init();
	if (!coll.active || coll_inside || !(s = malloc(sizeof(*s))))
		return coll_real.pthread_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	ret = coll_real.pthread_create(th, attr, start_thread, s);
	if (ret)
		free(s);
	return ret;
}

/* ---- the load map ---- */

static void map_changed(void)
{
	int saved_errno = errno;

	if (stopped())
		return;
	coll_inside++;
	loadmap_refresh();
	uw_map_changed();	/* the unwinder's table of unwind info */
	coll_inside--;
	errno = saved_errno;
}

EXPORT void *dlopen(const char *file, int flags)
{
	void *h;

	RESOLVE(dlopen);
	if (coll_inside || !coll.active)
		return real.dlopen(file, flags);
	coll_in_dl++;
	h = real.dlopen(file, flags);
	coll_in_dl--;
	if (h)
		map_changed();
	return h;
}

EXPORT void *dlmopen(Lmid_t lmid, const char *file, int flags)
{
	void *h;

	RESOLVE(dlmopen);
	if (coll_inside || !coll.active)
		return real.dlmopen(lmid, file, flags);
	coll_in_dl++;
	h = real.dlmopen(lmid, file, flags);
	coll_in_dl--;
	if (h)
		map_changed();
	return h;
}

EXPORT int dlclose(void *h)
{
	int ret;

	RESOLVE(dlclose);
	if (coll_inside || !coll.active)
		return real.dlclose(h);
	coll_in_dl++;
	/* No capture reads an object's code or unwind tables while one may
	 * be unmapped. */
	uw_unload_begin();
	ret = real.dlclose(h);
	/* The tables are rescanned before any capture may read them again:
	 * the kernel's records taken while the object was loaded, placed
	 * later (collector/kernel.c), name its pcs, and a stale table would
	 * send the walk into its unmapped unwind tables. */
	if (ret == 0)
		map_changed();
	uw_unload_end();
	coll_in_dl--;
	return ret;
}

/* The ASan and TSan runtimes call this from their own start-up, before
 * their shadow memory or thread state exists: in a sanitizer build of the
 * collector an instrumented access here would fault.  (TSan's start-up
 * also calls sigaction unless TSAN_OPTIONS sets handle_segv=0 and the
 * other handle_* options: tests/stress/run-stress.sh does.) */
EXPORT __attribute__((no_sanitize("address", "thread"))) int
dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	struct thr *t = coll_self;
	int ret;

	RESOLVE(dl_iterate_phdr);
	/* From our own handler (libunwind): straight through. */
	if (coll_inside || !coll.active || (t && t->in_handler))
		return real.dl_iterate_phdr(cb, data);
	coll_in_dl++;
	ret = real.dl_iterate_phdr(cb, data);
	coll_in_dl--;
	return ret;
}

/* ---- exec ---- */

static bool has_collector(const char *list)
{
	size_t n = strlen(coll.collector_path);

	for (const char *p = list; (p = strstr(p, coll.collector_path)) != NULL; p += n)
		if ((p == list || p[-1] == ':' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ':' || p[n] == ' '))
			return true;
	return false;
}

/* envp plus the variables of ours it lacks, in out (ENV_EXTRA spare
 * entries); LD_PRELOAD without the collector gets it appended, in pre.
 * A new image is profiled only through its environment, and programs do
 * build environments of their own. */
static char *const *env_inject(char *const *envp, char **out, size_t n, char *pre)
{
	size_t k = 0;
	bool changed = false;

	if (!coll.active || !envp || n > ENV_MAX)
		return envp;
	for (size_t i = 0; i < n; i++) {
		out[k] = envp[i];
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0 && coll.collector_path[0] &&
		    !has_collector(envp[i] + 11)) {
			size_t l = strlen(envp[i]);

			if (l + 1 + strlen(coll.collector_path) < PRELOAD_MAX) {
				memcpy(pre, envp[i], l);
				pre[l] = l > 11 ? ':' : '\0';
				strcpy(pre + l + (l > 11), coll.collector_path);
				out[k] = pre;
				changed = true;
			}
		}
		k++;
	}
	for (size_t j = 0; j < n_saved; j++) {
		size_t nl = strchr(saved_env[j], '=') - saved_env[j] + 1;
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = strncmp(envp[i], saved_env[j], nl) == 0;
		if (!found) {
			out[k++] = saved_env[j];
			changed = true;
		}
	}
	out[k] = NULL;
	return changed ? out : envp;
}

static size_t env_count(char *const *envp)
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

/* Declares `name`: envp with ours added (stack storage, no malloc: this
 * may run in a vfork child). */
#define ENV_WITH_OURS(name, envp)                                                   \
	size_t name##_n = env_count(envp);                                          \
	char *name##_buf[(name##_n <= ENV_MAX ? name##_n : 0) + ENV_EXTRA];         \
	char name##_pre[PRELOAD_MAX];                                               \
	char *const *name = env_inject((envp), name##_buf, name##_n, name##_pre)

/* Write every profile before the image goes; false if nothing was done
 * (not profiling, a vfork child sharing our memory, or a hopeless exec). */
static bool exec_prepare(bool likely)
{
	if (!coll.active || stopped() || coll_inside || !likely || getpid() != coll.pid)
		return false;
	coll_inside++;
	thr_flush_all(false, true, "exec");
	flush_marker(false);
	thr_disarm_self();
	coll_inside--;
	return true;
}

/* An exec returned ret (it failed): take the files back if exec_prepare
 * held them, and sample on.  Returns ret, errno as the exec left it. */
static int exec_returned(bool held, int ret)
{
	int saved_errno = errno;

	if (!held)
		return ret;
	coll_inside++;
	thr_resume_all();
	flush_marker(true);
	thr_rearm_self();
	coll_inside--;
	errno = saved_errno;
	return ret;
}

static int do_execve(const char *path, char *const argv[], char *const envp[])
{
	ENV_WITH_OURS(env, envp);
	bool held;

	RESOLVE(execve);
	/* Shells try execve along PATH: only a runnable file is worth a flush. */
	held = exec_prepare(access(path, X_OK) == 0);
	return exec_returned(held, real.execve(path, argv, env));
}

static int do_execvpe(const char *file, char *const argv[], char *const envp[])
{
	ENV_WITH_OURS(env, envp);
	bool held;

	RESOLVE(execvpe);
	held = exec_prepare(true);
	return exec_returned(held, real.execvpe(file, argv, env));
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_execve(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return do_execve(path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_execvpe(file, argv, envp);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return do_execvpe(file, argv, environ);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	ENV_WITH_OURS(env, envp);
	bool held;

	RESOLVE(fexecve);
	held = exec_prepare(true);
	return exec_returned(held, real.fexecve(fd, argv, env));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	ENV_WITH_OURS(env, envp);
	bool held;

	RESOLVE(execveat);
	held = exec_prepare(true);
	return exec_returned(held, real.execveat(dirfd, path, argv, env, flags));
}

/* The execl family: count the arguments, then copy them to the stack. */
#define ARGS_FROM_VA(argv, arg0, last)                        \
	size_t argv##_n = 1;                                  \
	va_list argv##_ap;                                    \
	va_start(argv##_ap, arg0);                            \
	while (va_arg(argv##_ap, char *))                     \
		argv##_n++;                                   \
	va_end(argv##_ap);                                    \
	char *argv[argv##_n + 1];                             \
	argv[0] = (char *)(arg0);                             \
	va_start(argv##_ap, arg0);                            \
	for (size_t i_ = 1; i_ <= argv##_n; i_++)             \
		argv[i_] = va_arg(argv##_ap, char *);         \
	last;                                                 \
	va_end(argv##_ap)

EXPORT int execl(const char *path, const char *arg, ...)
{
	ARGS_FROM_VA(argv, arg, (void)0);
	return do_execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	ARGS_FROM_VA(argv, arg, (void)0);
	return do_execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;

	ARGS_FROM_VA(argv, arg, envp = va_arg(argv_ap, char *const *));
	return do_execve(path, argv, envp);
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	ENV_WITH_OURS(env, envp);

	RESOLVE(posix_spawn);
	return real.posix_spawn(pid, path, fa, attr, argv, env);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	ENV_WITH_OURS(env, envp);

	RESOLVE(posix_spawnp);
	return real.posix_spawnp(pid, file, fa, attr, argv, env);
}

/* ---- process end without exit() ---- */

static void flush_before_exit(void)
{
	if (coll.active && !stopped() && !coll_inside && getpid() == coll.pid) {
		thr_flush_all(false, false, "exit");
		flush_marker(false);
		flush_report_failures();
	}
}

/* _exit and _Exit: flush, then end through the C library's function
 * (resolved by the caller; NULL if not found) or the system call. */
static __attribute__((noreturn)) void end_without_exit(void (*real_end)(int), int status)
{
	flush_before_exit();
	if (real_end)
		real_end(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _exit(int status)
{
	coll_real_resolve();
	end_without_exit(coll_real._exit, status);
}

EXPORT void _Exit(int status)
{
	coll_real_resolve();
	end_without_exit(coll_real._Exit, status);
}

EXPORT void exit(int status)
{
	coll_real_resolve();
	coll_exit_begin();
	coll_real.exit(status);
}

/* ---- signals ---- */

/* The system call itself, with nothing resolved and nothing instrumented. */
static __attribute__((no_sanitize("address", "thread"))) int
raw_sigaltstack(const stack_t *ss, stack_t *old)
{
	long ret;

#if defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_sigaltstack;
	register long x0 __asm__("x0") = (long)ss;
	register long x1 __asm__("x1") = (long)old;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	ret = x0;
#else
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_sigaltstack), "D"(ss), "S"(old)
			 : "rcx", "r11", "memory");
#endif
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return 0;
}

/* The sanitizer runtimes set their signal stacks from their own start-up,
 * before their shadow memory or thread state exists (see
 * dl_iterate_phdr): nothing instrumented runs until we are active. */
EXPORT __attribute__((no_sanitize("address", "thread"))) int
sigaltstack(const stack_t *ss, stack_t *old)
{
	if (!__atomic_load_n(&coll.active, __ATOMIC_ACQUIRE) || !coll_real.sigaltstack ||
	    coll_inside || __atomic_load_n(&coll.stopped, __ATOMIC_ACQUIRE))
		return raw_sigaltstack(ss, old);
	return thr_sigaltstack(ss, old);
}

/* The sampling signal is never the program's to take: waiting on a set
 * that holds it (a full set, typically) waits on the set without it. */
static const sigset_t *without_ours(const sigset_t *set, sigset_t *copy)
{
	if (!set || !coll.active || coll_inside || sigismember(set, coll.sigrt) != 1)
		return set;
	*copy = *set;
	sigdelset(copy, coll.sigrt);
	return copy;
}

EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	sigset_t copy;

	RESOLVE(sigtimedwait);
	return real.sigtimedwait(without_ours(set, &copy), info, timeout);
}

EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	sigset_t copy;

	RESOLVE(sigwaitinfo);
	return real.sigwaitinfo(without_ours(set, &copy), info);
}

EXPORT int sigwait(const sigset_t *set, int *sig)
{
	sigset_t copy;

	RESOLVE(sigwait);
	return real.sigwait(without_ours(set, &copy), sig);
}

EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t copy;

	RESOLVE(signalfd);
	return real.signalfd(fd, without_ours(mask, &copy), flags);
}

/* ---- seccomp ---- */

/* prctl's modes as seccomp(2) operations. */
static unsigned long prctl_op(unsigned long mode)
{
	return mode == SECCOMP_MODE_STRICT ? SECCOMP_SET_MODE_STRICT
	     : mode == SECCOMP_MODE_FILTER ? SECCOMP_SET_MODE_FILTER : ~0ul;
}

EXPORT int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	RESOLVE(prctl);
	if (option == PR_SET_SECCOMP)
		coll_before_seccomp(prctl_op(a[0]), 0, (const void *)a[1]);
	return real.prctl(option, a[0], a[1], a[2], a[3]);
}

/* syscall(SYS_seccomp, ...) is how libseccomp loads its filters. */
EXPORT long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	RESOLVE(syscall);
	if (nr == SYS_seccomp)
		coll_before_seccomp((unsigned long)a[0], (unsigned long)a[1], (const void *)a[2]);
	else if (nr == SYS_prctl && a[0] == PR_SET_SECCOMP)
		coll_before_seccomp(prctl_op((unsigned long)a[1]), 0, (const void *)a[2]);
	return real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

EXPORT int sigaction(int signo, const struct sigaction *act, struct sigaction *old)
{
	coll_real_resolve();
	if (coll_inside)
		return coll_real.sigaction(signo, act, old);
	return coll_sigaction(signo, act, old);
}

EXPORT sighandler_t signal(int signo, sighandler_t handler)
{
	struct sigaction sa, old;

	if (handler == SIG_ERR || signo <= 0 || signo >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	/* BSD semantics, as glibc's signal(): restart, block itself. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, signo);
	sa.sa_flags = SA_RESTART;
	if (sigaction(signo, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* A mask that would block our signal, without it: a thread that blocks
 * every signal (common around critical sections) would otherwise vanish
 * from the profile. */
static const sigset_t *strip_ours(int how, const sigset_t *set, sigset_t *copy)
{
	struct thr *t = coll_self;

	if (!set || !coll.active || coll_inside || (how != SIG_BLOCK && how != SIG_SETMASK) ||
	    sigismember(set, coll.sigrt) != 1 || (t && t->in_handler))
		return set;
	*copy = *set;
	sigdelset(copy, coll.sigrt);
	if (t)
		t->ctr[CTR_MASK_STRIPPED]++;
	return copy;
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	coll_real_resolve();
	return coll_real.pthread_sigmask(how, strip_ours(how, set, &copy), old);
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	coll_real_resolve();
	return coll_real.sigprocmask(how, strip_ours(how, set, &copy), old);
}
