/* Samples from before the collector starts: the dynamic loader's work
 * after our relocation, and the constructors of the libraries the program
 * links (C++ static initializers), which run before ours because the
 * dynamic loader initializes a preloaded library after the program's own
 * dependencies.
 *
 * How: an IFUNC resolver of ours runs while the dynamic loader relocates
 * the collector, before any constructor.  It opens the main thread's
 * first event (a software clock: cpu-clock or task-clock, at the period
 * asked) as a perf_event counter that never signals: its samples (user
 * pc, kernel call chain) wait in a ring buffer until the collector starts,
 * which then places each at its pc (and its kernel chain), with no user
 * call stack (early_samples counts them) and closes the counter.
 *
 * The resolver runs before the C library is initialized and before our
 * own relocations are done: raw system calls only (no errno, no PLT), no
 * stack protector, no sanitizer, and it reads its settings from the
 * launcher's file itself. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/early.h"
#include "collector/kernel.h"
#include "collector/loadmap.h"
#include "collector/owntime.h"
#include "collector/settings.h"

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define RAW __attribute__((no_stack_protector, no_sanitize("address", "undefined", "thread"), noinline))
#else
#define RAW __attribute__((optimize("no-stack-protector"), no_sanitize("address", "undefined", "thread"), noinline))
#endif
#define EARLY_SUPPORTED 1
#endif

/* Data pages: ~2000 samples with kernel chains (root), ~680 of user
 * samples (48 bytes each) for a user whose rings count against the
 * kernel's per-user mlock budget (perf_event_mlock_kb), which the
 * collector's own per-thread rings need too. */
#define RING_PAGES_ROOT 32
#define RING_PAGES_USER 8
#define PAGE 4096

static struct {
	int fd;				/* -1: nothing armed */
	pid_t pid;
	void *ring;
	size_t ring_len, ring_pages;
	uint64_t period;
	uint64_t cpu_ns, user_ns;	/* the thread's CPU and user time when armed */
	dev_t dev;			/* the counter's file, to know it is still ours */
	ino_t ino;
} early = { .fd = -1 };

#ifdef EARLY_SUPPORTED

static RAW long raw(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* No libc: nothing of it may run yet. */
static RAW size_t rlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static RAW bool rprefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

static RAW bool rfind(const char *s, const char *p)
{
	for (; *s; s++)
		if (rprefix(s, p))
			return true;
	return false;
}

/* Up to len - 1 bytes of path, NUL-terminated; the count or -1. */
static RAW long rread(const char *path, char *buf, size_t len)
{
	long fd = raw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0), n, have = 0;

	if (fd < 0)
		return -1;
	while ((size_t)have < len - 1 &&
	       (n = raw(SYS_read, fd, (long)(buf + have), (long)(len - 1 - (size_t)have), 0, 0, 0)) > 0)
		have += n;
	raw(SYS_close, fd, 0, 0, 0, 0, 0);
	buf[have] = '\0';
	return have;
}

/* The value of NAME= among NUL- (environ) or newline-separated entries
 * of buf[0..n), copied into out; false if missing. */
static RAW bool rvalue(const char *buf, long n, const char *name, char sep, char *out, size_t len)
{
	for (long i = 0; i < n;) {
		long j = i;

		while (j < n && buf[j] != sep)
			j++;
		if (rprefix(buf + i, name) && buf[i + (long)rlen(name)] == '=') {
			long k = i + (long)rlen(name) + 1, o = 0;

			while (k < j && (size_t)o < len - 1)
				out[o++] = buf[k++];
			out[o] = '\0';
			return true;
		}
		i = j + 1;
	}
	return false;
}

static RAW uint64_t rnum(const char *s)
{
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return v;
}

/* The first event of "perf::CPU-CLOCK:u@1000000;...": its software clock
 * (-1 if it is none: other events wait for the collector), whether it
 * leaves out the kernel, and its period (ns; 0 for @fFREQ: not armed). */
static RAW int rclock(const char *spec, bool *user_only, uint64_t *period)
{
	const char *at = spec, *name = spec;
	int config = -1;

	if (rprefix(name, "perf::"))
		name += 6;
	if (rprefix(name, "CPU-CLOCK") || rprefix(name, "cpu-clock"))
		config = PERF_COUNT_SW_CPU_CLOCK;
	else if (rprefix(name, "TASK-CLOCK") || rprefix(name, "task-clock"))
		config = PERF_COUNT_SW_TASK_CLOCK;
	*user_only = false;
	*period = 0;
	while (*at && *at != '@' && *at != ';') {
		if (at[0] == ':' && at[1] == 'k' && (at[2] == '@' || at[2] == ':' || !at[2]))
			return -1;	/* kernel only: nothing to see of ours */
		if (at[0] == ':' && at[1] == 'u' && (at[2] == '@' || at[2] == ':' || !at[2]))
			*user_only = true;
		at++;
	}
	if (*at == '@' && at[1] >= '0' && at[1] <= '9')
		*period = rnum(at + 1);
	return *period ? config : -1;
}

static RAW uint64_t rclock_ns(clockid_t c)
{
	struct timespec ts = { 0, 0 };

	raw(SYS_clock_gettime, c, (long)&ts, 0, 0, 0, 0);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Above the numbers a program uses, as the collector's counters are. */
static RAW long rmove_high(long fd)
{
	struct { uint64_t cur, max; } lim = { 1024, 1024 };
	long want, nfd;

	raw(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&lim, 0, 0);
	want = (long)(lim.cur < 1024 ? lim.cur : 1024) - 65;
	if (want <= fd) {
		/* No room above the program's numbers: not armed. */
		raw(SYS_close, fd, 0, 0, 0, 0, 0);
		return -1;
	}
	nfd = raw(SYS_fcntl, fd, F_DUPFD_CLOEXEC, want, 0, 0, 0);
	raw(SYS_close, fd, 0, 0, 0, 0, 0);
	return nfd;
}

/* The number after "key" in text, or -1. */
static RAW long rfield(const char *text, const char *key)
{
	for (const char *p = text; *p; p++) {
		if ((p == text || p[-1] == '\n') && rprefix(p, key)) {
			p += rlen(key);
			while (*p == ' ' || *p == '\t')
				p++;
			return *p >= '0' && *p <= '9' ? (long)rnum(p) : -1;
		}
	}
	return -1;
}

/* Whether this process runs under seccomp filters the launcher did not
 * (PMCPROF_SECCOMP "MODE FILTERS"), or any filter when that is unknown. */
static RAW bool more_filters(const char *file, long n)
{
	static char status[4096];
	char launch[32];
	long filters, mode, had = 0;

	if (rread("/proc/self/status", status, sizeof(status)) <= 0)
		return true;
	filters = rfield(status, "Seccomp_filters:");
	mode = rfield(status, "Seccomp:");
	if (rvalue(file, n, "PMCPROF_SECCOMP", '\n', launch, sizeof(launch))) {
		const char *sp = launch;

		while (*sp && *sp != ' ')
			sp++;
		had = *sp == ' ' && sp[1] >= '0' && sp[1] <= '9' ? (long)rnum(sp + 1) : 0;
	}
	if (filters >= 0)
		return filters > had;
	return mode != 0;
}

/* The clock event to sample with, from the environment and the settings
 * file `pmcprof record` wrote: its config (and *user_only, early.period),
 * or -1 where the early ring stays off. */
static RAW int early_event(bool *user_only)
{
	static char env[16384], file[SETTINGS_FILE_MAX];
	char path[512], spec[SET_SPEC_MAX], backend[32];
	long n, env_n;
	int config;

	/* Only under `pmcprof record`: its marker names the settings. */
	env_n = rread("/proc/self/environ", env, sizeof(env));
	if (env_n <= 0)
		return -1;
	/* Inside valgrind the collector stands aside (init.c). */
	if (rvalue(env, env_n, "LD_PRELOAD", '\0', path, sizeof(path)) && rfind(path, "vgpreload_"))
		return -1;
	if (!rvalue(env, env_n, SETTINGS_MARKER, '\0', path, sizeof(path)))
		return -1;
	n = rread(path, file, sizeof(file));
	if (n <= 0 || !rvalue(file, n, "PMCPROF_BACKEND", '\n', backend, sizeof(backend)) ||
	    !rprefix(backend, "perf_event") || backend[10] ||
	    !rvalue(file, n, "PMCPROF_EVENTS", '\n', spec, sizeof(spec)))
		return -1;
	/* Under more seccomp filters than the launcher had, any system call
	 * could be the one the filter kills for: nothing more (init.c). */
	if (more_filters(file, n))
		return -1;
	config = rclock(spec, user_only, &early.period);
	if (config < 0)
		return -1;
	/* PMCPROF_KERNEL=off leaves the kernel out, as kernel.c does. */
	if (rvalue(env, env_n, "PMCPROF_KERNEL", '\0', backend, sizeof(backend)) &&
	    rprefix(backend, "off") && !backend[3])
		*user_only = true;
	return config;
}

/* The sampling clock's descriptor (moved high), or -errno. */
static RAW long early_open(int config, bool user_only)
{
	struct perf_event_attr a;
	long fd;

	for (size_t i = 0; i < sizeof(a); i++)
		((char *)&a)[i] = 0;
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = (uint64_t)config;
	a.sample_period = early.period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
			PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 1ull << 8;		/* PERF_REG_X86_IP */
	a.exclude_callchain_user = 1;		/* the user pc is enough here */
	a.sample_max_stack = 64;
	a.exclude_kernel = user_only;
	a.exclude_hv = 1;
	fd = raw(SYS_perf_event_open, (long)&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd == -EACCES && !user_only) {
		/* perf_event_paranoid: as the launcher's plan does, user only. */
		a.exclude_kernel = 1;
		fd = raw(SYS_perf_event_open, (long)&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	}
	return fd < 0 ? fd : rmove_high(fd);
}

/* The ring of fd mapped, and fd's identity noted; false (fd closed) if
 * it could not be mapped. */
static RAW bool early_map(long fd)
{
	struct stat st;
	void *ring;

	early.ring_pages = raw(SYS_geteuid, 0, 0, 0, 0, 0, 0) == 0 ? RING_PAGES_ROOT : RING_PAGES_USER;
	early.ring_len = (early.ring_pages + 1) * PAGE;
	ring = (void *)raw(SYS_mmap, 0, (long)early.ring_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
	if ((unsigned long)ring > -4096ul) {
		raw(SYS_close, fd, 0, 0, 0, 0, 0);
		return false;
	}
	if (raw(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0) {
		early.dev = st.st_dev;
		early.ino = st.st_ino;
	}
	early.ring = ring;
	early.fd = (int)fd;
	return true;
}

static RAW void arm(void)
{
	struct rusage ru;
	bool user_only;
	int config = early_event(&user_only);
	long fd;

	if (config < 0)
		return;
	fd = early_open(config, user_only);
	if (fd < 0 || !early_map(fd))
		return;
	early.pid = (pid_t)raw(SYS_getpid, 0, 0, 0, 0, 0, 0);
	early.cpu_ns = rclock_ns(CLOCK_THREAD_CPUTIME_ID);
	early.user_ns = raw(SYS_getrusage, 1 /* RUSAGE_THREAD */, (long)&ru, 0, 0, 0, 0) == 0
		? (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
			  (uint64_t)ru.ru_utime.tv_usec * 1000ull
		: OWNTIME_UNKNOWN;
}

static void early_noop(void)
{
}

/* Called by the dynamic loader while it relocates us (the IRELATIVE
 * relocation of early_ref below), before every constructor. */
static RAW void (*early_resolve(void))(void)
{
	arm();
	return early_noop;
}

void coll_early_hook(void) __attribute__((ifunc("early_resolve"), visibility("hidden")));
void (*volatile coll_early_ref)(void) __attribute__((visibility("hidden"))) = coll_early_hook;

#endif

/* One record of the ring: the sample's user pc and kernel chain into t's
 * tree as a path (user pc, then the kernel frames, the sampled one last). */
static void place(struct thr *t, const struct lm_snap *snap, const uint64_t *chain, uint64_t nr,
		  uint64_t user_pc)
{
	uint32_t node = 0, mod;
	uint64_t off;

	if (user_pc) {
		if (!loadmap_lookup(snap, user_pc, &mod, &off))
			mod = PROF_NO_MODULE, off = user_pc, t->ctr[CTR_UNKNOWN_MODULE]++;
		node = cct_child(&t->cct, 0, mod, off);
		if (!node)
			goto full;
	}
	/* chain: [PERF_CONTEXT_KERNEL, sampled pc, callers...]: outermost
	 * first; the kernel frames only where the load map names them. */
	for (uint64_t i = nr; i-- > 0;) {
		uint64_t pc = chain[i];

		if (pc >= (uint64_t)PERF_CONTEXT_MAX || !loadmap_lookup(snap, pc, &mod, &off))
			continue;
		if (i > 1)
			off -= 1;	/* a return address: into its call */
		node = cct_child(&t->cct, node, mod, off);
		if (!node)
			goto full;
	}
	if (!node)
		return;
	coll_count(t, 0, node, 1);	/* the tree, the timeline (timed now) */
	t->ctr[CTR_EARLY_SAMPLES]++;
	t->weight[0] += early.period;
	return;
full:
	t->ctr[CTR_DROPPED_CCT_FULL]++;
}

/* Parse the ring from its tail to its head. */
static void drain(struct thr *t)
{
	struct perf_event_mmap_page *pg = early.ring;
	const unsigned char *data = (const unsigned char *)early.ring + PAGE;
	const uint64_t size = early.ring_pages * PAGE;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	const struct lm_snap *snap = loadmap_acquire(&t->hazard);
	static uint64_t rec[1024];

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t at = tail % size, len;

		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(at + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		len = h.size < sizeof(rec) ? h.size : sizeof(rec);
		for (uint64_t i = 0; i < len; i++)
			((unsigned char *)rec)[i] = data[(at + i) % size];
		tail += h.size;
		if (h.type == PERF_RECORD_LOST) {
			t->ctr[CTR_EARLY_LOST] += rec[2];	/* header, id, lost */
			continue;
		}
		if (h.type != PERF_RECORD_SAMPLE || len < 8 * 5)
			continue;
		/* header, ip, pid+tid, nr, chain[nr], abi, user ip (no
		 * registers when abi is 0: a kernel thread's). */
		uint64_t nr = rec[3];

		if (nr > len / 8 || 4 + nr + 1 > len / 8)
			continue;
		uint64_t user_pc = rec[4 + nr] && 4 + nr + 2 <= len / 8 ? rec[5 + nr] : 0;

		/* PMCPROF_KERNEL=leaf: a kernel-mode sample ends in the
		 * [kernel] leaf alone, as kern_stitch makes it. */
		if (nr > 1 && strcmp(kern_frames_meta(), "leaf") == 0) {
			rec[5] = KERN_START;
			nr = 2;
		}
		place(t, snap, &rec[4], nr, user_pc);
	}
	__atomic_store_n(&t->hazard, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/* Whether early.fd is still our counter: a constructor may have closed
 * it (closefrom) and opened a file of its own on the number. */
static bool still_ours(void)
{
	struct stat st;

	return fstat(early.fd, &st) == 0 && st.st_dev == early.dev && st.st_ino == early.ino;
}

void early_finish(struct thr *t)
{
	sigset_t ours, old;
	bool ours_fd;

	if (early.fd < 0)
		return;
	ours_fd = still_ours();
	/* A fork in a constructor: the counter is the parent's thread's and
	 * the ring was not inherited (perf rings are not copied). */
	if (getpid() == early.pid && !t) {
		munmap(early.ring, early.ring_len);
	} else if (getpid() == early.pid) {
		if (ours_fd)
			ioctl(early.fd, PERF_EVENT_IOC_DISABLE, 0);
		/* Our signal waits: the handler writes the same tree. */
		sigemptyset(&ours);
		sigaddset(&ours, coll.sigrt);
		coll_real.pthread_sigmask(SIG_BLOCK, &ours, &old);
		drain(t);
		/* The samples-vs-CPU-time check covers what they stand for. */
		t->cpu_start_ns = early.cpu_ns;
		t->user_start_ns = early.user_ns;
		coll_real.pthread_sigmask(SIG_SETMASK, &old, NULL);
		/* The mapping holds the counter even if its descriptor went. */
		munmap(early.ring, early.ring_len);
	}
	if (ours_fd)
		close(early.fd);
	early.fd = -1;
}
