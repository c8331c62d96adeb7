/* From a thread's state to OUTDIR/NAME.pmcp.  flush_thread runs at thread
 * exit, at process exit, before an exec and in a fatal-signal handler, so
 * it formats with its own helpers (no stdio, no malloc); the process facts
 * are gathered once at init, where anything goes.  The metadata keys are
 * the ones docs/profile-format.md lists. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/owntime.h"
#include "collector/kernel.h"
#include "collector/unseen.h"
#include "profile/profile.h"

static const char *const counter_names[CTR_N] = {
	[CTR_SAMPLES] = "samples",
	[CTR_DROPPED_IN_COLLECTOR] = "dropped_in_collector",
	[CTR_DROPPED_CCT_FULL] = "dropped_no_memory",
	[CTR_DROPPED_NO_STACK] = "dropped_no_stack",
	[CTR_LEAF_ONLY_LOADER] = "leaf_only_in_loader",
	[CTR_UNWIND_FAILED] = "unwind_failed",
	[CTR_TRUNCATED] = "truncated_stacks",
	[CTR_UNKNOWN_MODULE] = "unknown_module",
	[CTR_NOT_OURS] = "not_ours",
	[CTR_REENTERED] = "dropped_reentrant",
	[CTR_REARM_FAILED] = "rearm_failed",
	[CTR_MASK_STRIPPED] = "mask_stripped",
	[CTR_SIGNAL_BLOCKED] = "signal_blocked",
	[CTR_TIMER_OVERRUNS] = "timer_overruns",
	[CTR_DROPPED_WRITING] = "dropped_while_writing",
	[CTR_DROPPED_QUEUE_FULL] = "dropped_queue_full",
	[CTR_DROPPED_THROTTLED] = "dropped_throttled",
	[CTR_THROTTLE_RAISED] = "throttle_period_raised",
	[CTR_KERNEL_SAMPLES] = "kernel_samples",
	[CTR_KERNEL_LEAF_ONLY] = "kernel_leaf_only",
	[CTR_KERNEL_UNKNOWN] = "kernel_mode_unknown",
	[CTR_SIGNAL_LATE] = "signal_late",
	[CTR_STACK_COPY_SHORT] = "stack_copy_short",
	[CTR_RING_LOST_PLACED] = "ring_lost_placed",
	[CTR_DROPPED_RING_FULL] = "dropped_ring_full",
	[CTR_DROPPED_OTHER_THREAD] = "dropped_other_thread",
	[CTR_EARLY_SAMPLES] = "early_samples",
	[CTR_EARLY_LOST] = "early_lost",
};

/* Where an MPI launcher says which rank this is, in order of preference. */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

/* Facts about the process, formatted once. */
static struct {
	char command[PATH_MAX];
	char argv[4096];
	char host[256];
	char pid[24], ppid[24];
	char kernel[80], arch[80];
	char cpu_model[96];
	char cpus[16];
	char hypervisor[48];
	char hv_signature[16];
	char virtualization[2048];
	char vpmu[160];
	char paranoid[16];
	char hw_events[96];
	char backend_version[48];
	char events_used[PMC_MAX_EVENTS * SET_SPEC_MAX];
	char events_requested[PMC_MAX_EVENTS * SET_SPEC_MAX];
	char random_bits[8], seed[24], signo[8], cct_bytes[24], max_depth[16];
	char steal_start[24];
	uint64_t ns_per_tick;
	char prefix[200];		/* file names: "<cmd>[-r<rank>]-<host>-<pid>" */
} proc;

static int n_failed;			/* atomic: profiles that could not be written */
/* Why the first one could not, with what the process changed since it
 * started ("... (the process changed its user to uid 65534)"), for its
 * watcher to hand to `pmcprof record` (flush_lost_why). */
static char lost_why[512];
static struct {
	uid_t euid;
	dev_t root_dev;
	ino_t root_ino;
} start_ids;

/* ---- async-signal-safe formatting ---- */

struct buf {
	char *p;
	size_t n, cap;
};

static void put_s(struct buf *b, const char *s)
{
	while (*s && b->n + 1 < b->cap)
		b->p[b->n++] = *s++;
	b->p[b->n] = '\0';
}

static void put_u(struct buf *b, uint64_t v)
{
	char t[21];
	size_t n = sizeof(t) - 1;

	t[n] = '\0';
	do
		t[--n] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put_s(b, t + n);
}

static void put_u0(struct buf *b, uint64_t v, int width)
{
	for (uint64_t p = 10; --width > 0; p *= 10)
		if (v < p)
			put_s(b, "0");
	put_u(b, v);
}

/* A fresh string in the arena b: v, then ".NANOSECONDS" if ns >= 0 (a
 * time: SECONDS.NANOSECONDS since the epoch).  Returns it and moves past
 * it; "" where the arena has not the room. */
static const char *str_num(struct buf *b, uint64_t v, long ns)
{
	const char *s = b->p + b->n;

	if (b->n + (ns >= 0 ? 40 : 24) > b->cap)
		return "";
	put_u(b, v);
	if (ns >= 0) {
		put_s(b, ".");
		put_u0(b, (uint64_t)ns, 9);
	}
	b->n++;
	return s;
}

static const char *str_u(struct buf *b, uint64_t v)
{
	return str_num(b, v, -1);
}

static const char *str_time(struct buf *b, const struct timespec *ts)
{
	return str_num(b, (uint64_t)ts->tv_sec, ts->tv_nsec);
}

/* The launcher's socket for our warnings (cli/record.c): a datagram to
 * RUNDIR/.warn, from a socket of our own opened and closed here.  0, or
 * -errno (no launcher, its queue full: then stderr). */
static int warn_launcher(const char *line, size_t n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct buf pb = { sa.sun_path, 0, sizeof(sa.sun_path) };
	int fd, ret = 0;

	if (!coll.set.rundir[0] || strlen(coll.set.rundir) + 7 > sizeof(sa.sun_path))
		return -ENOENT;
	put_s(&pb, coll.set.rundir);
	put_s(&pb, "/.warn");
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Warnings go to `pmcprof record`, which prints them on its own stderr:
 * the program's descriptor 2 may be closed, or reused for its data.  Only
 * without the launcher (LD_PRELOAD by hand, or its socket unreachable)
 * do they go to descriptor 2. */
static void vwarn(bool or_stderr, const char *first, va_list ap)
{
	char line[1024];
	struct buf b = { line, 0, sizeof(line) - 1 };
	int saved_errno = errno;

	for (const char *s = first; s; s = va_arg(ap, const char *))
		put_s(&b, s);
	line[b.n++] = '\n';
	if (warn_launcher(line, b.n) < 0 && or_stderr)
		while (write(STDERR_FILENO, line, b.n) < 0 && errno == EINTR)
			;
	errno = saved_errno;
}

void coll_warn(const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	vwarn(true, first, ap);
	va_end(ap);
}

void coll_note(const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	vwarn(false, first, ap);
	va_end(ap);
}

/* Steal time of all CPUs from /proc/stat, in clock ticks (0 if unknown). */
static uint64_t steal_ticks(void)
{
	char s[512];
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint64_t v = 0;
	int field = 0;

	if (fd < 0)
		return 0;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	s[n] = '\0';
	/* "cpu  user nice system idle iowait irq softirq steal ...": the 8th. */
	for (char *p = s + 3; *p && *p != '\n'; p++) {
		if (*p == ' ')
			continue;
		field++;
		v = 0;
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (uint64_t)(*p++ - '0');
		if (field == 8)
			return v;
		p--;
	}
	return 0;
}

/* Metadata values are one line (docs/profile-format.md): a control
 * character from outside (a file or thread name, the host name) becomes
 * '?'.  Async-signal-safe. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* ---- process facts (not async-signal-safe: init and fork child) ---- */

/* An argument with control characters, quoted the way bash's printf %q
 * does it ($'a\nb'), so that the value stays on one line. */
static void put_ansi_c(struct buf *b, const char *a)
{
	static const char hexd[] = "0123456789abcdef";

	put_s(b, "$'");
	for (; *a; a++) {
		unsigned char c = (unsigned char)*a;
		char one[5] = { (char)c, '\0' };

		if (c == '\\' || c == '\'') {
			one[0] = '\\';
			one[1] = (char)c;
			one[2] = '\0';
		} else if (c == '\n' || c == '\t') {
			one[0] = '\\';
			one[1] = c == '\n' ? 'n' : 't';
			one[2] = '\0';
		} else if (c < 0x20 || c == 0x7f) {
			one[0] = '\\';
			one[1] = 'x';
			one[2] = hexd[c >> 4];
			one[3] = hexd[c & 15];
			one[4] = '\0';
		}
		put_s(b, one);
	}
	put_s(b, "'");
}

static bool has_cntrl(const char *a)
{
	for (; *a; a++)
		if ((unsigned char)*a < 0x20 || *a == 0x7f)
			return true;
	return false;
}

/* /proc/self/cmdline: arguments joined by spaces, each shell-quoted when
 * it has to be ('it'\''s', or $'a\nb' with control characters). */
static void read_argv(char *dst, size_t cap)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	char raw[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, raw, sizeof(raw) - 1);
	struct buf b = { dst, 0, cap };

	dst[0] = '\0';
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	raw[n] = '\0';
	for (char *a = raw; a < raw + n; a += strlen(a) + 1) {
		if (a != raw)
			put_s(&b, " ");
		if (*a && strspn(a, safe) == strlen(a)) {
			put_s(&b, a);
			continue;
		}
		if (has_cntrl(a)) {
			put_ansi_c(&b, a);
			continue;
		}
		put_s(&b, "'");
		for (char *c = a; *c; c++) {
			char one[2] = { *c, '\0' };

			put_s(&b, *c == '\'' ? "'\\''" : one);
		}
		put_s(&b, "'");
	}
}

static void join_specs(char *dst, size_t cap, char (*list)[SET_SPEC_MAX], size_t n)
{
	size_t off = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < n && off < cap; i++) {
		int w = snprintf(dst + off, cap - off, "%s%s", i ? ";" : "", list[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* The job rank from the first of rank_vars that holds a number, "" if none. */
static void read_rank(void)
{
	coll.rank[0] = '\0';
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
		const char *r = getenv(rank_vars[i]);

		if (r && *r && strlen(r) < sizeof(coll.rank) &&
		    strspn(r, "0123456789") == strlen(r)) {
			memcpy(coll.rank, r, strlen(r) + 1);
			break;
		}
	}
}

/* The program, the machine and what libpmc sees of its PMU, as metadata
 * values. */
static void describe_machine(void)
{
	struct pmc_env env;
	struct utsname u;
	ssize_t l = readlink("/proc/self/exe", proc.command, sizeof(proc.command) - 1);

	if (l > 0)
		proc.command[l] = '\0';
	else
		snprintf(proc.command, sizeof(proc.command), "%s", program_invocation_name);
	one_line(proc.command);
	read_argv(proc.argv, sizeof(proc.argv));
	if (uname(&u) == 0) {
		snprintf(proc.host, sizeof(proc.host), "%s", u.nodename);
		snprintf(proc.kernel, sizeof(proc.kernel), "%s", u.release);
		snprintf(proc.arch, sizeof(proc.arch), "%s", u.machine);
		one_line(proc.host);
	}
	snprintf(proc.cpus, sizeof(proc.cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	pmc_env_probe(&env);
	snprintf(proc.cpu_model, sizeof(proc.cpu_model), "%s", env.cpu_model);
	snprintf(proc.hypervisor, sizeof(proc.hypervisor), "%s",
		 env.hv_present && env.hv_name ? env.hv_name : "none");
	for (char *c = proc.hypervisor; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	snprintf(proc.hv_signature, sizeof(proc.hv_signature), "%s", env.hv_signature);
	pmc_env_layers_str(&env, proc.virtualization, sizeof(proc.virtualization));
	if (env.pmu_version > 0 || env.n_gp > 0)
		snprintf(proc.vpmu, sizeof(proc.vpmu),
#if defined(__aarch64__)
			 "Arm PMUv%d, %d gp counters x %d bits, %d fixed",
#else
			 "arch perfmon v%d, %d gp counters x %d bits, %d fixed",
#endif
			 env.pmu_version, env.n_gp, env.gp_width, env.n_fixed);
	else
		snprintf(proc.vpmu, sizeof(proc.vpmu), "none");
	snprintf(proc.paranoid, sizeof(proc.paranoid), "%d", env.paranoid);
	snprintf(proc.hw_events, sizeof(proc.hw_events), "%s",
		 env.hw_events ? "yes" : (env.hw_errno ? strerrorname_np(env.hw_errno) : "no"));
}

/* The run's settings as metadata values. */
static void describe_run(void)
{
	long tck = sysconf(_SC_CLK_TCK);

	snprintf(proc.backend_version, sizeof(proc.backend_version), "%s",
		 pmc_backend_version(coll.be));
	join_specs(proc.events_used, sizeof(proc.events_used), coll.set.events,
		   coll.set.n_events);
	join_specs(proc.events_requested, sizeof(proc.events_requested),
		   coll.set.requested, coll.set.n_requested);
	snprintf(proc.random_bits, sizeof(proc.random_bits), "%u", coll.set.random_bits);
	snprintf(proc.seed, sizeof(proc.seed), "%llu", (unsigned long long)coll.set.seed);
	snprintf(proc.signo, sizeof(proc.signo), "%d", coll.sigrt);
	snprintf(proc.cct_bytes, sizeof(proc.cct_bytes), "%llu",
		 (unsigned long long)coll.set.cct_bytes);
	snprintf(proc.max_depth, sizeof(proc.max_depth), "%d", COLL_MAX_DEPTH);
	proc.ns_per_tick = tck > 0 ? 1000000000u / (uint64_t)tck : 0;
}

void flush_process_init(bool full)
{
	char host[64], cmd[48];
	struct stat root;

	snprintf(proc.pid, sizeof(proc.pid), "%d", (int)getpid());
	start_ids.euid = geteuid();
	if (stat("/", &root) == 0) {
		start_ids.root_dev = root.st_dev;
		start_ids.root_ino = root.st_ino;
	}
	lost_why[0] = '\0';
	__atomic_store_n(&n_failed, 0, __ATOMIC_RELAXED);
	snprintf(proc.ppid, sizeof(proc.ppid), "%d", (int)getppid());
	read_rank();
	if (full) {
		describe_machine();
		describe_run();
	}
	snprintf(proc.steal_start, sizeof(proc.steal_start), "%llu",
		 (unsigned long long)(steal_ticks() * proc.ns_per_tick));
	prof_name_part(cmd, sizeof(cmd), program_invocation_short_name);
	prof_name_part(host, sizeof(host), proc.host);
	snprintf(proc.prefix, sizeof(proc.prefix), "%s%s%s-%s-%d", cmd[0] ? cmd : "prog",
		 coll.rank[0] ? "-r" : "", coll.rank, host, (int)getpid());
}

/* ---- one thread's profile ---- */

#ifdef COLL_TIMING
/* Median, p99 and max of a duration histogram, into out[0..2]. */
static uint64_t hist_stats(const uint32_t *hist, uint64_t out[3])
{
	uint64_t n = 0, seen = 0;

	out[0] = out[1] = out[2] = 0;
	for (size_t b = 0; b < COLL_TIMING_BUCKETS; b++)
		n += hist[b];
	for (size_t b = 0; b < COLL_TIMING_BUCKETS && n; b++) {
		if (!hist[b])
			continue;
		seen += hist[b];
		if (!out[0] && seen * 2 >= n)
			out[0] = (b + 1) * COLL_TIMING_NS;
		if (!out[1] && seen * 100 >= n * 99)
			out[1] = (b + 1) * COLL_TIMING_NS;
		out[2] = (b + 1) * COLL_TIMING_NS;
	}
	return n;
}

/* Mean of a duration histogram (bucket middles), in ns. */
static uint64_t hist_mean(const uint32_t *hist)
{
	uint64_t n = 0, sum = 0;

	for (size_t b = 0; b < COLL_TIMING_BUCKETS; b++) {
		n += hist[b];
		sum += hist[b] * (b * COLL_TIMING_NS + COLL_TIMING_NS / 2);
	}
	return n ? sum / n : 0;
}

/* The handler's durations as counters: the whole handler, the backend's
 * re-arm within it (ring drain, and a refresh ioctl per batch), the rest
 * (the collector's own work), and within that the unwind and the module
 * lookup + CCT insert.  Means add up where medians do not. */
static size_t timing_counters(const struct thr *t, struct prof_counter *out)
{
	uint64_t h[3], r[3], o[3], u[3], c[3], n = hist_stats(t->timing, h);

	hist_stats(t->timing_rearm, r);
	hist_stats(t->timing_own, o);
	hist_stats(t->timing_unwind, u);
	hist_stats(t->timing_cct, c);
	out[0] = (struct prof_counter){ "handler_runs", n };
	out[1] = (struct prof_counter){ "handler_ns_p50", h[0] };
	out[2] = (struct prof_counter){ "handler_ns_p99", h[1] };
	out[3] = (struct prof_counter){ "handler_ns_max", h[2] };
	out[4] = (struct prof_counter){ "rearm_ns_p50", r[0] };
	out[5] = (struct prof_counter){ "rearm_ns_p99", r[1] };
	out[6] = (struct prof_counter){ "own_ns_p50", o[0] };
	out[7] = (struct prof_counter){ "own_ns_p99", o[1] };
	out[8] = (struct prof_counter){ "unwind_ns_p50", u[0] };
	out[9] = (struct prof_counter){ "cct_ns_p50", c[0] };
	out[10] = (struct prof_counter){ "handler_ns_mean", hist_mean(t->timing) };
	out[11] = (struct prof_counter){ "rearm_ns_mean", hist_mean(t->timing_rearm) };
	out[12] = (struct prof_counter){ "own_ns_mean", hist_mean(t->timing_own) };
	out[13] = (struct prof_counter){ "unwind_ns_mean", hist_mean(t->timing_unwind) };
	out[14] = (struct prof_counter){ "cct_ns_mean", hist_mean(t->timing_cct) };
	return 15;
}
#endif

/* The thread's name (comm) from /proc, without stdio. */
static const char *thread_name(struct buf *b, pid_t tid)
{
	char path[64];
	struct buf pb = { path, 0, sizeof(path) };
	const char *s = b->p + b->n;
	ssize_t n;
	int fd;

	put_s(&pb, "/proc/self/task/");
	put_u(&pb, (uint64_t)tid);
	put_s(&pb, "/comm");
	if (b->n + 20 > b->cap)
		return "";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? 0 : read(fd, b->p + b->n, 16);
	if (fd >= 0)
		close(fd);
	if (n > 0 && b->p[b->n + n - 1] == '\n')
		n--;
	b->p[b->n + (n > 0 ? n : 0)] = '\0';
	/* prctl(PR_SET_NAME) takes any bytes. */
	one_line(b->p + b->n);
	b->n += (size_t)(n > 0 ? n : 0) + 1;
	return s;
}

static const char *requested_for(size_t i)
{
	/* Fallback may merge events; then the whole request says it best. */
	if (coll.set.n_requested == coll.n_ev)
		return coll.set.requested[i];
	return proc.events_requested;
}

/* What the process changed since it started that explains err. */
static const char *changed_since_start(int err, char *num, size_t len)
{
	struct stat root;
	struct rlimit r;
	struct buf b = { num, 0, len };

	if (geteuid() != start_ids.euid) {
		put_s(&b, "the process changed its user (setuid) to uid ");
		put_u(&b, (uint64_t)geteuid());
		return num;
	}
	if (stat("/", &root) == 0 &&
	    (root.st_dev != start_ids.root_dev || root.st_ino != start_ids.root_ino))
		return "the process changed its root directory (chroot)";
	if ((err == EMFILE || err == ENFILE) && getrlimit(RLIMIT_NOFILE, &r) == 0) {
		put_s(&b, "the process reached its descriptor limit (RLIMIT_NOFILE ");
		put_u(&b, (uint64_t)r.rlim_cur);
		put_s(&b, ")");
		return num;
	}
	return NULL;
}

static void report(const char *name, const char *why, int err)
{
	char num[96];
	const char *cause = changed_since_start(err, num, sizeof(num));
	struct buf lb = { lost_why, 0, sizeof(lost_why) - 1 };

	if (__atomic_fetch_add(&n_failed, 1, __ATOMIC_RELAXED) != 0)
		return;
	put_s(&lb, "cannot write into ");
	put_s(&lb, coll.set.outdir);
	put_s(&lb, ": ");
	put_s(&lb, why ? why : "unknown error");
	if (cause) {
		put_s(&lb, " (");
		put_s(&lb, cause);
		put_s(&lb, ")");
	}
	lost_why[lb.n] = '\0';
	if (name)
		coll_warn("pmcprof: cannot write profile ", coll.set.outdir, "/", name, ": ",
			  why ? why : "unknown error", cause ? " (" : "", cause ? cause : "",
			  cause ? ")" : "", (char *)NULL);
	else
		coll_warn("pmcprof: cannot write profiles into ", coll.set.outdir, ": ",
			  why ? why : "unknown error", cause ? " (" : "", cause ? cause : "",
			  cause ? ")" : "", (char *)NULL);
}

const char *flush_lost_why(void)
{
	return __atomic_load_n(&n_failed, __ATOMIC_RELAXED) ? lost_why : NULL;
}

const char *flush_marker_name(void)
{
	return proc.prefix;
}

int flush_outdir_open(const char **why)
{
	struct stat st;
	int fd = open(coll.set.outdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		*why = strerrordesc_np(err);
		/* O_NOFOLLOW | O_DIRECTORY on a link: ENOTDIR (or ELOOP). */
		if ((err == ENOTDIR || err == ELOOP) && lstat(coll.set.outdir, &st) == 0 &&
		    S_ISLNK(st.st_mode))
			*why = "it is a symbolic link (not followed)";
		return -err;
	}
	/* A directory someone else owns could be theirs to fill with traps
	 * (or to read): it is not ours to write into. */
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		*why = "it belongs to another user";
		return -EPERM;
	}
	return fd;
}

void flush_report_failures(void)
{
	int n = __atomic_load_n(&n_failed, __ATOMIC_RELAXED);
	char num[24];
	struct buf b = { num, 0, sizeof(num) };

	if (n <= 1)
		return;
	put_u(&b, (uint64_t)n);
	coll_warn("pmcprof: ", num, " profiles of process ", proc.pid,
		  " could not be written", (char *)NULL);
}

/* Write with SIGXFSZ blocked: past a file-size limit write() then fails
 * with EFBIG instead of killing the program.  A SIGXFSZ we caused is
 * taken off the queue before the mask comes back. */
static int write_guarded(const struct prof *p, int dirfd, const char *name, int mode)
{
	struct timespec zero = { 0, 0 };
	sigset_t xfsz, old, pending;
	bool was_pending;
	int ret;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	coll_real.pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGXFSZ);
	ret = prof_write(p, dirfd, name, mode);
	if (!was_pending)
		while (sigtimedwait(&xfsz, NULL, &zero) > 0)
			;
	coll_real.pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* Room for one profile's facts, on the writer's stack (no malloc: this
 * runs in signal handlers too). */
struct draft {
	char strings[2048];
	struct buf sb;
	struct prof_kv meta[48];
	struct prof_event evs[PMC_MAX_EVENTS];
	struct prof_counter ctrs[CTR_N + 41];	/* + backend's 6, timing (COLL_TIMING: 15),
						 * own-time 4, process 3, event counts 8, timeline 1 */
	struct prof_image vdso;
	struct prof p;
};

/* Phase 1: the metadata (docs/profile-format.md's keys, and ours). */
static void draft_meta(struct draft *d, struct thr *t, const char *reason)
{
	struct timespec end;
	size_t nm = 0;

	clock_gettime(CLOCK_REALTIME, &end);
#define META(k, v) (d->meta[nm++] = (struct prof_kv){ (k), (v) })
	META("command", proc.command);
	META("argv", proc.argv);
	META("host", proc.host);
	META("pid", proc.pid);
	META("tid", str_u(&d->sb, (uint64_t)t->tid));
	META("ppid", proc.ppid);
	META("thread_name", thread_name(&d->sb, t->tid));
	META("thread_index", str_u(&d->sb, t->index));
	if (coll.rank[0])
		META("rank", coll.rank);
	META("start_time", str_time(&d->sb, &t->start));
	META("end_time", str_time(&d->sb, &end));
	META("kernel", proc.kernel);
	META("arch", proc.arch);
	META("cpu_model", proc.cpu_model);
	META("cpus", proc.cpus);
	META("hypervisor", proc.hypervisor);
	META("hypervisor_signature", proc.hv_signature);
	META("virtualization", proc.virtualization);
	META("vpmu", proc.vpmu);
	META("paranoid", proc.paranoid);
	META("hw_events", proc.hw_events);
	META("backend", coll.set.backend);
	META("backend_version", proc.backend_version);
	META("events_requested", proc.events_requested);
	META("events_used", proc.events_used);
	META("fallback", coll.set.fallback);
	META("calibration", coll.set.calibration);
	META("steal_start", proc.steal_start);
	META("steal_end", str_u(&d->sb, steal_ticks() * proc.ns_per_tick));
	META("call_graph", coll.set.call_graph == UW_MODE_UNWIND
				   ? "libunwind"
				   : settings_call_graph_name(coll.set.call_graph));
	META("max_depth", proc.max_depth);
	META("kernel_frames", kern_frames_meta());
	if (coll.set.random_bits) {
		META("seed", proc.seed);
		META("random_period_bits", proc.random_bits);
		META("thread_seed", str_u(&d->sb, t->thread_seed));
	}
	META("signal", proc.signo);
	META("cct_bytes", proc.cct_bytes);
	META("end_reason", reason);
	META("pmcprof_version", PACKAGE_VERSION);
#undef META
	d->p.n_meta = nm;
	d->p.meta = d->meta;
}

/* Phase 2: the events, with the period sums behind the samples. */
static void draft_events(struct draft *d, const struct thr *t)
{
	for (size_t i = 0; i < coll.n_ev; i++) {
		d->evs[i] = (struct prof_event){
			.name = coll.ev[i].name,
			.requested = requested_for(i),
			.unit = coll.ev[i].unit,
			.period = coll.ev[i].period,
			.freq = coll.ev[i].freq,
			.random_mask = coll.ev[i].period ? coll.random_mask : 0,
			.weight = t->weight[i],
		};
	}
	d->p.n_events = coll.n_ev;
	d->p.events = d->evs;
}

/* The first 8 events' counts ("event_count_K", K the event's index) on
 * the calling thread's own group: the trust check holds samples x period
 * against them (analyzer/trust.c), which is how a PMU that raises fewer
 * overflow interrupts than its counter overflows (an emulated one's
 * general-purpose counters) shows.  Another thread's group is not read: a
 * user-page read is the calling CPU's counter.  Async-signal-safe. */
static size_t event_counts(const struct thr *t, struct prof_counter *out)
{
	static const char *const names[8] = {
		"event_count_0", "event_count_1", "event_count_2", "event_count_3",
		"event_count_4", "event_count_5", "event_count_6", "event_count_7",
	};
	struct pmc_count v[PMC_MAX_EVENTS];
	size_t n = coll.n_ev < 8 ? coll.n_ev : 8;

	if (!t->g || t != coll_self || !n || pmc_group_read(t->g, v, n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct prof_counter){ names[i], v[i].value };
	return n;
}

/* Phase 3: the counters.  The backend's figures first (pmc_group_stats is
 * async-signal-safe, so a crash report has them too), then ours: a signal
 * taken in between is then counted by us, never only by the backend, and
 * overflows <= samples + drops holds in the file. */
static void draft_counters(struct draft *d, struct thr *t, bool in_signal)
{
	struct pmc_sample_stats st;
	bool have_st = t->g && pmc_group_stats(t->g, &st) == 0;
	size_t nc = 0;

	/* Only the thread itself can see its signal mask. */
	if (t == coll_self && !in_signal) {
		sigset_t cur;

		coll_real.pthread_sigmask(SIG_BLOCK, NULL, &cur);
		t->ctr[CTR_SIGNAL_BLOCKED] = sigismember(&cur, coll.sigrt) == 1;
	}
	for (int i = 0; i < CTR_N; i++)
		d->ctrs[nc++] = (struct prof_counter){ counter_names[i],
						       __atomic_load_n(&t->ctr[i], __ATOMIC_RELAXED) };
	if (have_st) {
		d->ctrs[nc++] = (struct prof_counter){ "overflows", st.overflows };
		d->ctrs[nc++] = (struct prof_counter){ "spurious", st.spurious };
		d->ctrs[nc++] = (struct prof_counter){ "throttled", st.throttled };
		d->ctrs[nc++] = (struct prof_counter){ "unthrottled", st.unthrottled };
		d->ctrs[nc++] = (struct prof_counter){ "lost", st.lost };
		d->ctrs[nc++] = (struct prof_counter){ "fd_lost", st.fd_lost };
	}
	nc += event_counts(t, d->ctrs + nc);
#ifdef COLL_TIMING
	nc += timing_counters(t, d->ctrs + nc);
#endif
	for (size_t k = nc, e = nc + owntime_counters(t, d->ctrs + nc); k < e; k++, nc++)
		if (!strcmp(d->ctrs[k].name, "thread_cpu_ns"))
			t->cpu_last_ns = d->ctrs[k].value;
	nc += unseen_counters(t, d->ctrs + nc);
	/* samples of the tree that have no time: the timeline's buffer was full */
	if (t->tl.buf)
		d->ctrs[nc++] = (struct prof_counter){ "timeline_lost", t->tl.lost };
	d->p.n_counters = nc;
	d->p.counters = d->ctrs;
}

/* Phase 4: a stable copy of the load map (loadmap_modules_copy says why),
 * in memory of its own: this may run on a 64 KiB signal stack.  The
 * mapping's length in *len (0: nothing to unmap); -ENOMEM. */
static int draft_modules(struct draft *d, size_t *len)
{
	struct prof_module *mods = NULL;
	size_t n;

	loadmap_modules(&n);
	*len = (n * sizeof(*mods) + 4095) & ~(size_t)4095;
	if (*len) {
		mods = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mods == MAP_FAILED) {
			*len = 0;
			return -ENOMEM;
		}
		loadmap_modules_copy(mods, n);
	}
	d->p.modules = mods;
	d->p.n_modules = n;
	d->p.n_images = loadmap_vdso_image(mods, n, &d->vdso);
	d->p.images = &d->vdso;
	return 0;
}

/* Phase 5: write it as CMD-HOST-PID-TID[.K].pmcp (numbered when the same
 * command, pid and tid come again: an exec of itself). */
static int draft_write(struct draft *d, struct thr *t)
{
	const char *why;
	int dirfd, ret = -EEXIST;

	dirfd = flush_outdir_open(&why);
	if (dirfd < 0) {
		report(NULL, why, -dirfd);
		return dirfd;
	}
	for (unsigned k = 0; k < 100 && ret == -EEXIST; k++) {
		struct buf nb = { t->written, 0, sizeof(t->written) };

		put_s(&nb, proc.prefix);
		put_s(&nb, "-");
		put_u(&nb, (uint64_t)t->tid);
		if (k) {
			put_s(&nb, ".");
			put_u(&nb, k);
		}
		put_s(&nb, ".pmcp");
		ret = write_guarded(&d->p, dirfd, t->written, coll.set.private_files ? 0600 : 0644);
	}
	if (ret < 0) {
		report(t->written, strerrordesc_np(-ret), -ret);
		t->written[0] = '\0';
	}
	close(dirfd);
	return ret;
}

int flush_thread(struct thr *t, bool partial, bool in_signal, const char *reason)
{
	struct draft d;
	size_t mods_len;
	int ret;

	memset(&d.p, 0, sizeof(d.p));
	d.sb = (struct buf){ d.strings, 0, sizeof(d.strings) };
	d.p.version = PROF_VERSION;
	d.p.partial = partial;
	draft_meta(&d, t, reason);
	draft_events(&d, t);
	draft_counters(&d, t, in_signal);
	cct_view(&t->cct, &d.p.cct);
	tl_view(&t->tl, &d.p.timeline);
	if (draft_modules(&d, &mods_len) < 0) {
		report(NULL, "out of memory", ENOMEM);
		return -ENOMEM;
	}
	ret = draft_write(&d, t);
	if (mods_len)
		munmap((void *)d.p.modules, mods_len);
	return ret;
}

/* RUNDIR/PREFIX while the process may still write profiles (RUNDIR is
 * the launcher's private directory, PMCPROF_RUNDIR): one left behind when
 * the process is gone tells the launcher that the process ended where the
 * collector could not see it (a raw exit_group, as Go's runtime does;
 * SIGKILL).  Only in a directory of ours, not through a symbolic link. */
void flush_marker(bool on)
{
	struct stat st;
	int dirfd, fd;

	if (!coll.set.rundir[0])
		return;
	dirfd = open(coll.set.rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return;
	if (fstat(dirfd, &st) == 0 && st.st_uid == geteuid()) {
		if (on) {
			char num[24];
			struct buf nb = { num, 0, sizeof(num) };
			pid_t w = watch_pid();

			/* Its watcher, which may still write for it, as a symbolic
			 * link's target: no data written (a file-size limit of 0
			 * would raise SIGXFSZ). */
			put_u(&nb, (uint64_t)(w > 0 ? w : 0));
			unlinkat(dirfd, proc.prefix, 0);
			if (symlinkat(num, dirfd, proc.prefix) < 0) {
				fd = openat(dirfd, proc.prefix, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
					    0600);
				if (fd >= 0)
					close(fd);
			}
		} else if (flush_lost_why()) {
			/* Lost: the marker says why, for `pmcprof record`. */
			char target[600];
			struct buf tb = { target, 0, sizeof(target) - 1 };

			put_s(&tb, "lost:");
			put_s(&tb, lost_why);
			target[tb.n] = '\0';
			char tmp[sizeof(proc.prefix) + 1] = ".";

			strcat(tmp, proc.prefix);
			unlinkat(dirfd, tmp, 0);
			if (symlinkat(target, dirfd, tmp) == 0 && renameat(dirfd, tmp, dirfd, proc.prefix))
				unlinkat(dirfd, tmp, 0);
		} else {
			unlinkat(dirfd, proc.prefix, 0);
		}
	}
	close(dirfd);
}

void flush_unlink(struct thr *t)
{
	const char *why;
	int dirfd;

	if (!t->written[0])
		return;
	dirfd = flush_outdir_open(&why);
	if (dirfd < 0)
		return;
	unlinkat(dirfd, t->written, 0);
	close(dirfd);
	t->written[0] = '\0';
}
