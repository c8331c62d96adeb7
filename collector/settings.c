/* PMCPROF_* settings: one table row per variable, with its parser and
 * formatter.  Used by the launcher (command line -> environment) and by the
 * collector (environment -> settings); neither prints. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/settings.h"

#define DEFAULT_CCT_BYTES (4ull << 20)
#define MIN_CCT_BYTES (64ull << 10)
#define MAX_CCT_BYTES (1ull << 30)
#define DEFAULT_TIMELINE_BYTES (8ull << 20)
#define MIN_TIMELINE_BYTES (4ull << 10)
#define MAX_RANDOM_BITS 32

static const struct {
	const char *name;
	enum uw_mode mode;
} call_graphs[] = {
	{ "unwind", UW_MODE_UNWIND },
	{ "fp", UW_MODE_FP },
	{ "none", UW_MODE_NONE },
};

/* Signals the collector cannot sample with, and why. */
static const struct {
	int signo;
	const char *why;
} refused_signals[] = {
	{ SIGKILL, "cannot be caught" },
	{ SIGSTOP, "cannot be caught" },
	{ SIGSEGV, "is watched to write profiles on a crash" },
	{ SIGBUS, "is watched to write profiles on a crash" },
	{ SIGILL, "is watched to write profiles on a crash" },
	{ SIGFPE, "is watched to write profiles on a crash" },
	{ SIGABRT, "is watched to write profiles on a crash" },
	{ SIGTERM, "is watched to write profiles on a crash" },
	{ SIGINT, "is watched to write profiles on a crash" },
	{ SIGXFSZ, "is blocked while profiles are written" },
	{ SIGIO, "stands in for the sampling signal when the signal queue is full" },
};

/* A hostile value may be huge or hold a terminal's control sequences: a
 * message shows at most 100 bytes of it, control characters as '?'. */
static int fail(char *msg, size_t len, const char *name, const char *fmt, const char *val)
{
	char what[256], shown[104];
	size_t n = 0;

	for (; val[n] && n < 100; n++)
		shown[n] = iscntrl((unsigned char)val[n]) ? '?' : val[n];
	if (val[n])
		memcpy(shown + n - 3, "...", 3);
	shown[n] = '\0';
	snprintf(what, sizeof(what), fmt, shown);
	snprintf(msg, len, "%s: %s", name, what);
	return -EINVAL;
}

static bool has_cntrl(const char *v)
{
	for (; *v; v++)
		if (iscntrl((unsigned char)*v))
			return true;
	return false;
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!*v || !isdigit((unsigned char)*v))
		return -EINVAL;
	errno = 0;
	*out = strtoull(v, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* Copy v into dst (cap bytes): refuses what does not fit rather than
 * silently truncating it. */
static int copy_str(char *dst, size_t cap, const char *v)
{
	size_t n = strlen(v);

	if (n >= cap)
		return -EINVAL;
	memcpy(dst, v, n + 1);
	return 0;
}

static int p_outdir(struct rec_settings *s, const char *name, const char *v, char *msg,
		    size_t len)
{
	if (v[0] != '/')
		return fail(msg, len, name, "'%s' is not an absolute path", v);
	/* Messages name the directory on one line. */
	if (has_cntrl(v))
		return fail(msg, len, name, "'%s' has a control character", v);
	if (copy_str(s->outdir, sizeof(s->outdir), v))
		return fail(msg, len, name, "path too long ('%s')", v);
	return 0;
}

/* Empty: no "still running" markers (collector/flush.c). */
static int p_rundir(struct rec_settings *s, const char *name, const char *v, char *msg,
		    size_t len)
{
	if (v[0] && v[0] != '/')
		return fail(msg, len, name, "'%s' is not an absolute path", v);
	if (has_cntrl(v))
		return fail(msg, len, name, "'%s' has a control character", v);
	if (copy_str(s->rundir, sizeof(s->rundir), v))
		return fail(msg, len, name, "path too long ('%s')", v);
	return 0;
}

/* Directories separated by ':' (libpmc's search path), "" for none. */
static int p_plugin_path(struct rec_settings *s, const char *name, const char *v, char *msg,
			 size_t len)
{
	if (has_cntrl(v))
		return fail(msg, len, name, "'%s' has a control character", v);
	if (copy_str(s->plugin_path, sizeof(s->plugin_path), v))
		return fail(msg, len, name, "path too long ('%s')", v);
	return 0;
}

static int p_tracer(struct rec_settings *s, const char *name, const char *v, char *msg,
		    size_t len)
{
	int t, end = 0;

	if (sscanf(v, "%d%n", &t, &end) != 1 || v[end] || t < -1)
		return fail(msg, len, name, "'%s' is not a process id", v);
	s->tracer = t;
	return 0;
}

/* A library name as LD_PRELOAD holds it: no ':' or space separators. */
static int p_preload_first(struct rec_settings *s, const char *name, const char *v, char *msg,
			   size_t len)
{
	if (has_cntrl(v) || strpbrk(v, ": "))
		return fail(msg, len, name, "'%s' is not one library name", v);
	if (copy_str(s->preload_first, sizeof(s->preload_first), v))
		return fail(msg, len, name, "'%s' is too long", v);
	return 0;
}

/* "MODE FILTERS", each a number or -1. */
static int p_seccomp(struct rec_settings *s, const char *name, const char *v, char *msg,
		     size_t len)
{
	int mode, filters, end = 0;

	if (sscanf(v, "%d %d%n", &mode, &filters, &end) != 2 || v[end] || mode < -1 ||
	    filters < -1)
		return fail(msg, len, name, "'%s' is not 'MODE FILTERS'", v);
	s->seccomp_mode = mode;
	s->seccomp_filters = filters;
	return 0;
}

static int p_backend(struct rec_settings *s, const char *name, const char *v, char *msg,
		     size_t len)
{
	if (!*v)
		return fail(msg, len, name, "empty backend name%s", "");
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return fail(msg, len, name, "'%s' is not a backend name", v);
	if (copy_str(s->backend, sizeof(s->backend), v))
		return fail(msg, len, name, "'%s' is too long", v);
	return 0;
}

/* "a;b;c" into list; at least min elements. */
static int split_specs(const char *name, const char *v, char (*list)[SET_SPEC_MAX], size_t *n,
		       size_t min, char *msg, size_t len)
{
	size_t k = 0;
	const char *p = v;

	*n = 0;
	if (!*v) {
		if (min)
			return fail(msg, len, name, "no events%s", "");
		return 0;
	}
	for (;;) {
		const char *e = strchr(p, ';');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == 0)
			return fail(msg, len, name, "empty element in '%s'", v);
		if (k == PMC_MAX_EVENTS)
			return fail(msg, len, name, "more than 16 events in '%s'", v);
		if (l >= SET_SPEC_MAX)
			return fail(msg, len, name, "event spec too long in '%s'", v);
		for (size_t i = 0; i < l; i++)
			if (iscntrl((unsigned char)p[i]))
				return fail(msg, len, name, "control character in '%s'", v);
		memcpy(list[k], p, l);
		list[k][l] = '\0';
		k++;
		if (!e)
			break;
		p = e + 1;
	}
	*n = k;
	return 0;
}

static int p_events(struct rec_settings *s, const char *name, const char *v, char *msg,
		    size_t len)
{
	return split_specs(name, v, s->events, &s->n_events, 1, msg, len);
}

static int p_requested(struct rec_settings *s, const char *name, const char *v, char *msg,
		       size_t len)
{
	return split_specs(name, v, s->requested, &s->n_requested, 0, msg, len);
}

static int p_fallback(struct rec_settings *s, const char *name, const char *v, char *msg,
		      size_t len)
{
	/* It becomes a metadata value: one line (docs/profile-format.md). */
	if (has_cntrl(v))
		return fail(msg, len, name, "'%s' has a control character", v);
	if (copy_str(s->fallback, sizeof(s->fallback), v))
		return fail(msg, len, name, "longer than 1023 bytes%s", "");
	return 0;
}

static int p_calibration(struct rec_settings *s, const char *name, const char *v, char *msg,
			 size_t len)
{
	if (has_cntrl(v))
		return fail(msg, len, name, "'%s' has a control character", v);
	if (copy_str(s->calibration, sizeof(s->calibration), v))
		return fail(msg, len, name, "longer than 1023 bytes%s", "");
	return 0;
}

static int p_call_graph(struct rec_settings *s, const char *name, const char *v, char *msg,
			size_t len)
{
	for (size_t i = 0; i < sizeof(call_graphs) / sizeof(call_graphs[0]); i++) {
		if (strcmp(v, call_graphs[i].name) == 0) {
			s->call_graph = call_graphs[i].mode;
			return 0;
		}
	}
	return fail(msg, len, name, "'%s' is not one of unwind, fp, none", v);
}

static int p_signal(struct rec_settings *s, const char *name, const char *v, char *msg,
		    size_t len)
{
	uint64_t n;
	const char *rt = v;
	char what[128];

	if (strncmp(rt, "SIG", 3) == 0)
		rt += 3;
	if (strncmp(rt, "RTMIN+", 6) == 0) {
		if (parse_u64(rt + 6, &n) || n > (uint64_t)(SIGRTMAX - SIGRTMIN))
			return fail(msg, len, name, "'%s' is beyond SIGRTMAX", v);
		n += (uint64_t)SIGRTMIN;
	} else if (parse_u64(v, &n)) {
		return fail(msg, len, name, "'%s' is not a signal number (N or RTMIN+N)", v);
	}
	if (n < 1 || n > (uint64_t)SIGRTMAX)
		return fail(msg, len, name, "'%s' is not a signal number on this system", v);
	/* glibc keeps the signals between 31 and SIGRTMIN for itself. */
	if (n > 31 && n < (uint64_t)SIGRTMIN)
		return fail(msg, len, name, "signal %s is reserved by the C library", v);
	for (size_t i = 0; i < sizeof(refused_signals) / sizeof(refused_signals[0]); i++) {
		if ((uint64_t)refused_signals[i].signo == n) {
			snprintf(what, sizeof(what), "signal %" PRIu64 " (SIG%s) %s", n,
				 sigabbrev_np((int)n), refused_signals[i].why);
			return fail(msg, len, name, "%s", what);
		}
	}
	s->signo = (int)n;
	return 0;
}

static int p_random_bits(struct rec_settings *s, const char *name, const char *v, char *msg,
			 size_t len)
{
	uint64_t n;

	if (parse_u64(v, &n) || n > MAX_RANDOM_BITS)
		return fail(msg, len, name, "'%s' is not a bit count from 0 to 32", v);
	s->random_bits = (unsigned)n;
	return 0;
}

static int p_seed(struct rec_settings *s, const char *name, const char *v, char *msg,
		  size_t len)
{
	if (parse_u64(v, &s->seed))
		return fail(msg, len, name, "'%s' is not an unsigned 64-bit number", v);
	return 0;
}

static int p_private(struct rec_settings *s, const char *name, const char *v, char *msg,
		     size_t len)
{
	if (strcmp(v, "0") && strcmp(v, "1"))
		return fail(msg, len, name, "'%s' is not 0 or 1", v);
	s->private_files = v[0] == '1';
	return 0;
}

/* A size in bytes or K/M/G, up to 1G; *ok false if it is not one. */
static uint64_t parse_size(const char *v, bool *ok)
{
	static const struct {
		char suffix;
		unsigned shift;
	} units[] = { { 'K', 10 }, { 'M', 20 }, { 'G', 30 } };
	char num[32];
	size_t l = strlen(v);
	unsigned shift = 0;
	uint64_t n;

	*ok = false;
	if (l == 0 || l >= sizeof(num))
		return 0;
	memcpy(num, v, l + 1);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (toupper((unsigned char)num[l - 1]) == units[i].suffix) {
			shift = units[i].shift;
			num[--l] = '\0';
			break;
		}
	}
	if (parse_u64(num, &n) || n > (MAX_CCT_BYTES >> shift))
		return 0;
	*ok = true;
	return n << shift;
}

static int p_cct_bytes(struct rec_settings *s, const char *name, const char *v, char *msg,
		       size_t len)
{
	bool ok;
	uint64_t n = parse_size(v, &ok);

	if (!ok)
		return fail(msg, len, name, "'%s' is not a size up to 1G", v);
	if (n < MIN_CCT_BYTES)
		return fail(msg, len, name, "'%s' is below the 64K minimum", v);
	s->cct_bytes = n;
	return 0;
}

/* 0 turns the timeline off; a buffer too small for one page is refused. */
static int p_timeline_bytes(struct rec_settings *s, const char *name, const char *v, char *msg,
			    size_t len)
{
	bool ok;
	uint64_t n = parse_size(v, &ok);

	if (!ok)
		return fail(msg, len, name, "'%s' is not a size up to 1G", v);
	if (n && n < MIN_TIMELINE_BYTES)
		return fail(msg, len, name, "'%s' is below the 4K minimum (0 turns it off)", v);
	s->timeline_bytes = n;
	return 0;
}

static int p_origin(struct rec_settings *s, const char *name, const char *v, char *msg,
		    size_t len)
{
	if (parse_u64(v, &s->origin_ns))
		return fail(msg, len, name, "'%s' is not an unsigned 64-bit number", v);
	return 0;
}

static int f_str(const char *v, char *buf, size_t len)
{
	return snprintf(buf, len, "%s", v) < (int)len ? 0 : -ENOSPC;
}

static int f_list(char (*list)[SET_SPEC_MAX], size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? ";" : "", list[i]);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return 0;
}

static int fmt_u(uint64_t v, char *buf, size_t len)
{
	return snprintf(buf, len, "%" PRIu64, v) < (int)len ? 0 : -ENOSPC;
}

static int f_outdir(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->outdir, b, l);
}

static int f_rundir(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->rundir, b, l);
}

static int f_plugin_path(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->plugin_path, b, l);
}

static int f_tracer(const struct rec_settings *s, char *b, size_t l)
{
	return snprintf(b, l, "%d", s->tracer) < (int)l ? 0 : -ENOSPC;
}

static int f_preload_first(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->preload_first, b, l);
}

static int f_seccomp(const struct rec_settings *s, char *b, size_t l)
{
	return snprintf(b, l, "%d %d", s->seccomp_mode, s->seccomp_filters) < (int)l ? 0 : -ENOSPC;
}

static int f_backend(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->backend, b, l);
}

static int f_fallback(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->fallback, b, l);
}

static int f_calibration(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(s->calibration, b, l);
}

static int f_call_graph(const struct rec_settings *s, char *b, size_t l)
{
	return f_str(settings_call_graph_name(s->call_graph), b, l);
}

static int f_signal(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u((uint64_t)s->signo, b, l);
}

static int f_random_bits(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u(s->random_bits, b, l);
}

static int f_seed(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u(s->seed, b, l);
}

static int f_private(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u(s->private_files, b, l);
}

static int f_cct_bytes(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u(s->cct_bytes, b, l);
}

static int f_timeline_bytes(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u(s->timeline_bytes, b, l);
}

static int f_origin(const struct rec_settings *s, char *b, size_t l)
{
	return fmt_u(s->origin_ns, b, l);
}

static int f_events(const struct rec_settings *s, char *b, size_t l)
{
	return f_list((char(*)[SET_SPEC_MAX])s->events, s->n_events, b, l);
}

static int f_requested(const struct rec_settings *s, char *b, size_t l)
{
	return f_list((char(*)[SET_SPEC_MAX])s->requested, s->n_requested, b, l);
}

static const struct setting {
	const char *name;
	bool required;
	int (*parse)(struct rec_settings *s, const char *name, const char *v, char *msg,
		     size_t len);
	int (*format)(const struct rec_settings *s, char *buf, size_t len);
} table[] = {
	{ "PMCPROF_OUTDIR", true, p_outdir, f_outdir },
	{ "PMCPROF_BACKEND", true, p_backend, f_backend },
	{ "PMCPROF_EVENTS", true, p_events, f_events },
	{ "PMCPROF_REQUESTED", false, p_requested, f_requested },
	{ "PMCPROF_FALLBACK", false, p_fallback, f_fallback },
	{ "PMCPROF_CALIBRATION", false, p_calibration, f_calibration },
	{ "PMCPROF_CALL_GRAPH", false, p_call_graph, f_call_graph },
	{ "PMCPROF_SIGNAL", false, p_signal, f_signal },
	{ "PMCPROF_RANDOM_BITS", false, p_random_bits, f_random_bits },
	{ "PMCPROF_SEED", false, p_seed, f_seed },
	{ "PMCPROF_PRIVATE", false, p_private, f_private },
	{ "PMCPROF_CCT_BYTES", false, p_cct_bytes, f_cct_bytes },
	{ "PMCPROF_TIMELINE_BYTES", false, p_timeline_bytes, f_timeline_bytes },
	{ "PMCPROF_ORIGIN_NS", false, p_origin, f_origin },
	{ "PMCPROF_RUNDIR", false, p_rundir, f_rundir },
	{ "PMCPROF_SECCOMP", false, p_seccomp, f_seccomp },
	{ "PMCPROF_PLUGIN_PATH", false, p_plugin_path, f_plugin_path },
	{ "PMCPROF_PRELOAD_FIRST", false, p_preload_first, f_preload_first },
	{ "PMCPROF_TRACER", false, p_tracer, f_tracer },
};
#define N_TABLE (sizeof(table) / sizeof(table[0]))

void settings_defaults(struct rec_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->call_graph = UW_MODE_UNWIND;
	s->signo = SIGRTMIN + 4;
	s->cct_bytes = DEFAULT_CCT_BYTES;
	s->timeline_bytes = DEFAULT_TIMELINE_BYTES;
	s->seccomp_mode = -1;
	s->seccomp_filters = -1;
	s->tracer = -1;
}

int settings_set(struct rec_settings *s, const char *name, const char *label, const char *value,
		 char *msg, size_t len)
{
	for (size_t i = 0; i < N_TABLE; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].parse(s, label ? label : name, value, msg, len);
	snprintf(msg, len, "%s: unknown setting", name);
	return -ENOENT;
}

int settings_load(struct rec_settings *s, const char *(*get)(const char *name, void *arg),
		  void *arg, char *msg, size_t len)
{
	settings_defaults(s);
	for (size_t i = 0; i < N_TABLE; i++) {
		const char *v = get(table[i].name, arg);
		int ret;

		if (!v) {
			if (table[i].required) {
				snprintf(msg, len, "%s is not set", table[i].name);
				return -EINVAL;
			}
			continue;
		}
		ret = table[i].parse(s, table[i].name, v, msg, len);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int settings_export(const struct rec_settings *s,
		    int (*put)(const char *name, const char *value, void *arg), void *arg)
{
	char buf[PMC_MAX_EVENTS * SET_SPEC_MAX + PATH_MAX];

	for (size_t i = 0; i < N_TABLE; i++) {
		int ret = table[i].format(s, buf, sizeof(buf));

		if (ret == 0)
			ret = put(table[i].name, buf, arg);
		if (ret < 0)
			return ret;
	}
	return 0;
}

const char *settings_call_graph_name(enum uw_mode m)
{
	for (size_t i = 0; i < sizeof(call_graphs) / sizeof(call_graphs[0]); i++)
		if (call_graphs[i].mode == m)
			return call_graphs[i].name;
	return "?";
}

int settings_file_read(const char *path, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	while (have < len - 1 && (n = read(fd, buf + have, len - 1 - have)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			return -err;
		}
		have += (size_t)n;
	}
	close(fd);
	buf[have] = '\0';
	/* A file that does not end its last line was cut short. */
	if (have == len - 1 || (have && buf[have - 1] != '\n'))
		return -EFBIG;
	/* Lines become strings: getters return pointers into buf. */
	for (char *p = buf; (p = strchr(p, '\n')) != NULL; p++)
		*p = '\0';
	return 0;
}

const char *settings_file_get(const char *name, void *arg)
{
	const char *p = arg;
	size_t l = strlen(name);

	/* Strings one after the other, ended by an empty one. */
	for (; *p; p += strlen(p) + 1)
		if (strncmp(p, name, l) == 0 && p[l] == '=')
			return p + l + 1;
	return NULL;
}

/* The number after "key:" in a /proc status text, or -1. */
static int status_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	if (!p || (p != text && p[-1] != '\n'))
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	return *p >= '0' && *p <= '9' ? atoi(p) : -1;
}

static void read_status(char *text, size_t len)
{
	ssize_t n = -1;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, text, len - 1);
		close(fd);
	}
	text[n > 0 ? n : 0] = '\0';
}

int settings_tracer_now(void)
{
	char text[4096];

	read_status(text, sizeof(text));
	return status_field(text, "TracerPid:");
}

void settings_seccomp_now(int *mode, int *filters)
{
	char text[4096];

	read_status(text, sizeof(text));
	*mode = status_field(text, "Seccomp:");
	*filters = status_field(text, "Seccomp_filters:");
}
