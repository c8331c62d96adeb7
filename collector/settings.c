/* PMCPROF_* settings: one table row per variable, with its field, type
 * and parser; the type alone says how a value is written back.  Used by
 * the launcher (command line -> environment) and by the collector
 * (environment -> settings); neither prints. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
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

/* Signals the collector cannot sample with, by why (0 ends a list). */
static const struct {
	const char *why;
	int signo[8];
} refused_signals[] = {
	{ "cannot be caught", { SIGKILL, SIGSTOP } },
	{ "is watched to write profiles on a crash",
	  { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT } },
	{ "is blocked while profiles are written", { SIGXFSZ } },
	{ "stands in for the sampling signal when the signal queue is full", { SIGIO } },
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

/* "a;b;c" into list; at least min elements. */
static int split_specs(const char *name, const char *v, char (*list)[SET_SPEC_MAX], size_t *n,
		       size_t min, char *msg, size_t len)
{
	size_t k = 0;
	const char *p = v;

	*n = 0;
	if (!*v) {
		if (min)
			return fail(msg, len, name, "no events", v);
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

/* How a setting is kept in struct rec_settings, which says how
 * settings_export writes it back. */
enum type {
	T_TEXT,		/* char[size] */
	T_UINT,		/* an unsigned integer (or bool) of size bytes */
	T_INT,		/* an int that may be -1 */
	T_LIST,		/* char[][SET_SPEC_MAX], its count at count_off */
	T_CALL_GRAPH,	/* enum uw_mode, by name */
	T_SECCOMP,	/* seccomp_mode and seccomp_filters: "MODE FILTERS" */
};

/* One PMCPROF_* variable: the field it fills (off, size), its parser, and
 * what the shared parsers read from the row: p_text its check and too_long,
 * p_uint max and bad, p_size min, zero_ok and bad, p_list min. */
struct setting {
	const char *name;
	bool required;
	enum type type;
	size_t off, size, count_off;
	int (*parse)(const struct setting *f, struct rec_settings *s, const char *name,
		     const char *v, char *msg, size_t len);
	/* The message for a value check refuses, NULL if it is fine. */
	const char *(*check)(const char *v);
	const char *too_long;
	uint64_t min, max;
	bool zero_ok;
	const char *bad;
};

static void *field(const struct setting *f, struct rec_settings *s)
{
	return (char *)s + f->off;
}

static const void *field_c(const struct setting *f, const struct rec_settings *s)
{
	return (const char *)s + f->off;
}

/* A path that messages can name on one line. */
static const char *c_path(const char *v)
{
	if (v[0] != '/')
		return "'%s' is not an absolute path";
	return has_cntrl(v) ? "'%s' has a control character" : NULL;
}

/* Empty: no "still running" markers (collector/flush.c). */
static const char *c_path_or_empty(const char *v)
{
	return v[0] ? c_path(v) : NULL;
}

/* Plugin directories separated by ':' (libpmc's search path), and the
 * fallback and calibration texts that become metadata values: one line
 * (docs/profile-format.md). */
static const char *c_one_line(const char *v)
{
	return has_cntrl(v) ? "'%s' has a control character" : NULL;
}

/* A library name as LD_PRELOAD holds it: no ':' or space separators. */
static const char *c_library(const char *v)
{
	return has_cntrl(v) || strpbrk(v, ": ") ? "'%s' is not one library name" : NULL;
}

static const char *c_backend(const char *v)
{
	if (!*v)
		return "empty backend name";
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return "'%s' is not a backend name";
	return NULL;
}

static int p_text(const struct setting *f, struct rec_settings *s, const char *name,
		  const char *v, char *msg, size_t len)
{
	const char *why = f->check(v);

	if (why)
		return fail(msg, len, name, why, v);
	if (copy_str(field(f, s), f->size, v))
		return fail(msg, len, name, f->too_long, v);
	return 0;
}

/* The numeric fields are uint64_t, unsigned or bool; parsers have checked
 * that n fits. */
static void store_uint(void *dst, size_t size, uint64_t n)
{
	if (size == sizeof(uint64_t))
		*(uint64_t *)dst = n;
	else if (size == sizeof(unsigned))
		*(unsigned *)dst = (unsigned)n;
	else
		*(bool *)dst = n != 0;
}

static uint64_t load_uint(const void *src, size_t size)
{
	if (size == sizeof(uint64_t))
		return *(const uint64_t *)src;
	if (size == sizeof(unsigned))
		return *(const unsigned *)src;
	return *(const bool *)src;
}

/* A number from 0 to max. */
static int p_uint(const struct setting *f, struct rec_settings *s, const char *name,
		  const char *v, char *msg, size_t len)
{
	uint64_t n;

	if (parse_u64(v, &n) || n > f->max)
		return fail(msg, len, name, f->bad, v);
	store_uint(field(f, s), f->size, n);
	return 0;
}

static int p_bool(const struct setting *f, struct rec_settings *s, const char *name,
		  const char *v, char *msg, size_t len)
{
	if (strcmp(v, "0") && strcmp(v, "1"))
		return fail(msg, len, name, "'%s' is not 0 or 1", v);
	store_uint(field(f, s), f->size, v[0] == '1');
	return 0;
}

/* A size up to 1G, at least min; 0 too where the row allows it (the
 * timeline: 0 turns it off). */
static int p_size(const struct setting *f, struct rec_settings *s, const char *name,
		  const char *v, char *msg, size_t len)
{
	bool ok;
	uint64_t n = parse_size(v, &ok);

	if (!ok)
		return fail(msg, len, name, "'%s' is not a size up to 1G", v);
	if (n < f->min && !(n == 0 && f->zero_ok))
		return fail(msg, len, name, f->bad, v);
	store_uint(field(f, s), f->size, n);
	return 0;
}

static int p_list(const struct setting *f, struct rec_settings *s, const char *name,
		  const char *v, char *msg, size_t len)
{
	return split_specs(name, v, field(f, s), (size_t *)((char *)s + f->count_off), f->min,
			   msg, len);
}

static int p_call_graph(const struct setting *f, struct rec_settings *s, const char *name,
			const char *v, char *msg, size_t len)
{
	(void)f;
	for (size_t i = 0; i < sizeof(call_graphs) / sizeof(call_graphs[0]); i++) {
		if (strcmp(v, call_graphs[i].name) == 0) {
			s->call_graph = call_graphs[i].mode;
			return 0;
		}
	}
	return fail(msg, len, name, "'%s' is not one of unwind, fp, none", v);
}

static int p_signal(const struct setting *f, struct rec_settings *s, const char *name,
		    const char *v, char *msg, size_t len)
{
	uint64_t n;
	const char *rt = v;
	char what[128];

	(void)f;
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
		for (const int *r = refused_signals[i].signo; *r; r++) {
			if ((uint64_t)*r != n)
				continue;
			snprintf(what, sizeof(what), "signal %" PRIu64 " (SIG%s) %s", n,
				 sigabbrev_np((int)n), refused_signals[i].why);
			return fail(msg, len, name, "%s", what);
		}
	}
	s->signo = (int)n;
	return 0;
}

static int p_tracer(const struct setting *f, struct rec_settings *s, const char *name,
		    const char *v, char *msg, size_t len)
{
	int t, end = 0;

	(void)f;
	if (sscanf(v, "%d%n", &t, &end) != 1 || v[end] || t < -1)
		return fail(msg, len, name, "'%s' is not a process id", v);
	s->tracer = t;
	return 0;
}

/* "MODE FILTERS", each a number or -1. */
static int p_seccomp(const struct setting *f, struct rec_settings *s, const char *name,
		     const char *v, char *msg, size_t len)
{
	int mode, filters, end = 0;

	(void)f;
	if (sscanf(v, "%d %d%n", &mode, &filters, &end) != 2 || v[end] || mode < -1 ||
	    filters < -1)
		return fail(msg, len, name, "'%s' is not 'MODE FILTERS'", v);
	s->seccomp_mode = mode;
	s->seccomp_filters = filters;
	return 0;
}

static int f_list(const char (*list)[SET_SPEC_MAX], size_t n, char *buf, size_t len)
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

/* Writes a row's field back as its parser reads it: 0 or -ENOSPC. */
static int format(const struct setting *f, const struct rec_settings *s, char *buf, size_t len)
{
	const void *p = field_c(f, s);
	int w = 0;

	switch (f->type) {
	case T_TEXT:
		w = snprintf(buf, len, "%s", (const char *)p);
		break;
	case T_UINT:
		w = snprintf(buf, len, "%" PRIu64, load_uint(p, f->size));
		break;
	case T_INT:
		w = snprintf(buf, len, "%d", *(const int *)p);
		break;
	case T_CALL_GRAPH:
		w = snprintf(buf, len, "%s", settings_call_graph_name(s->call_graph));
		break;
	case T_SECCOMP:
		w = snprintf(buf, len, "%d %d", s->seccomp_mode, s->seccomp_filters);
		break;
	case T_LIST:
		return f_list(p, *(const size_t *)((const char *)s + f->count_off), buf, len);
	}
	return w >= 0 && (size_t)w < len ? 0 : -ENOSPC;
}

#define FIELD(member)                                  \
	.off = offsetof(struct rec_settings, member), \
	.size = sizeof(((struct rec_settings *)0)->member)
#define TEXT(member, chk, msg) .type = T_TEXT, FIELD(member), .parse = p_text, .check = chk, \
	.too_long = msg
#define LIST(member, count, least) .type = T_LIST, FIELD(member), .parse = p_list, \
	.count_off = offsetof(struct rec_settings, count), .min = least

static const struct setting table[] = {
	{ "PMCPROF_OUTDIR", true, TEXT(outdir, c_path, "path too long ('%s')") },
	{ "PMCPROF_BACKEND", true, TEXT(backend, c_backend, "'%s' is too long") },
	{ "PMCPROF_EVENTS", true, LIST(events, n_events, 1) },
	{ "PMCPROF_REQUESTED", false, LIST(requested, n_requested, 0) },
	{ "PMCPROF_FALLBACK", false, TEXT(fallback, c_one_line, "longer than 1023 bytes") },
	{ "PMCPROF_CALIBRATION", false, TEXT(calibration, c_one_line, "longer than 1023 bytes") },
	{ "PMCPROF_CALL_GRAPH", false, .type = T_CALL_GRAPH, .parse = p_call_graph },
	{ "PMCPROF_SIGNAL", false, .type = T_INT, FIELD(signo), .parse = p_signal },
	{ "PMCPROF_RANDOM_BITS", false, .type = T_UINT, FIELD(random_bits), .parse = p_uint,
	  .max = MAX_RANDOM_BITS, .bad = "'%s' is not a bit count from 0 to 32" },
	{ "PMCPROF_SEED", false, .type = T_UINT, FIELD(seed), .parse = p_uint, .max = UINT64_MAX,
	  .bad = "'%s' is not an unsigned 64-bit number" },
	{ "PMCPROF_PRIVATE", false, .type = T_UINT, FIELD(private_files), .parse = p_bool },
	{ "PMCPROF_CCT_BYTES", false, .type = T_UINT, FIELD(cct_bytes), .parse = p_size,
	  .min = MIN_CCT_BYTES, .bad = "'%s' is below the 64K minimum" },
	{ "PMCPROF_TIMELINE_BYTES", false, .type = T_UINT, FIELD(timeline_bytes), .parse = p_size,
	  .min = MIN_TIMELINE_BYTES, .zero_ok = true,
	  .bad = "'%s' is below the 4K minimum (0 turns it off)" },
	{ "PMCPROF_ORIGIN_NS", false, .type = T_UINT, FIELD(origin_ns), .parse = p_uint,
	  .max = UINT64_MAX, .bad = "'%s' is not an unsigned 64-bit number" },
	{ "PMCPROF_RUNDIR", false, TEXT(rundir, c_path_or_empty, "path too long ('%s')") },
	{ "PMCPROF_SECCOMP", false, .type = T_SECCOMP, .parse = p_seccomp },
	{ "PMCPROF_PLUGIN_PATH", false, TEXT(plugin_path, c_one_line, "path too long ('%s')") },
	{ "PMCPROF_PRELOAD_FIRST", false, TEXT(preload_first, c_library, "'%s' is too long") },
	{ "PMCPROF_TRACER", false, .type = T_INT, FIELD(tracer), .parse = p_tracer },
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
			return table[i].parse(&table[i], s, label ? label : name, value, msg, len);
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
		ret = table[i].parse(&table[i], s, table[i].name, v, msg, len);
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
		int ret = format(&table[i], s, buf, sizeof(buf));

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
